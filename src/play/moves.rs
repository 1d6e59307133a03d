//! Everything a player does, as data: a [`Move`].
//!
//! Simon Tatham's puzzles turn a click or a key into a move string
//! (`interpret_move`) and make the new state from it (`execute_move`); every
//! front of his collection only reads input and draws. bbx does the same: a
//! front turns its keys ([`crate::play::keys`]), clicks and taps into
//! `Move`s and hands them to the game middle
//! ([`Middle::apply`](crate::play::middle::Middle::apply)), which answers
//! with what the front must do and a new [`Scene`](crate::play::scene::Scene)
//! to draw. A sequence of moves is data: the same sequence gives the same
//! scene on every front.
//!
//! In JSON a move is its snake-case name, with its value when it has one:
//! `"undo"`, `{"shoot": 12}`, `{"press": {"at": {"cell": 9}, "secondary": false}}`.
//!
//! ```
//! use bbx::play::moves::Move;
//! use bbx::play::cursor::Target;
//! let m: Move = serde_json::from_str(r#"{"shoot": 12}"#).unwrap();
//! assert_eq!(m, Move::Shoot(12));
//! let press = Move::Press { at: Target::Cell(9), secondary: true };
//! assert_eq!(serde_json::to_string(&press).unwrap(), r#"{"press":{"at":{"cell":9},"secondary":true}}"#);
//! assert_eq!(serde_json::to_string(&Move::Undo).unwrap(), r#""undo""#);
//! ```

use crate::assistant::strategy::Policy;
use crate::play::cursor::{Direction, Target};

/// A part of the coach that the player switches on or off.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Panel {
    /// The number of molecules that fit the rays shot.
    Count,
    /// The cells certain to hold an atom or to be empty.
    Certain,
    /// The best ray to shoot next (and the policy's next ray, when one is
    /// chosen).
    Best,
    /// Each cell's chance of holding an atom.
    Chance,
    /// Beside each ray shot, whether the guess placed so far explains it.
    Explained,
}

impl Panel {
    /// Every panel, in the order the help lists them.
    pub const ALL: [Panel; 5] = [
        Panel::Count,
        Panel::Certain,
        Panel::Best,
        Panel::Chance,
        Panel::Explained,
    ];
}

/// A new game's settings as a form gives them, each field as typed; an
/// empty field takes the default (`A4_B8`, a fresh seed, the rules the game
/// implies, Tatham's judging).
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(default)]
pub struct Form {
    /// The game, named as `bbx play` names it: a configuration (`A4_B8`,
    /// `A5_B8x6`, `A3-6_B8`), Tatham's parameters (`w8h6m5M5`) or the name
    /// of one of his presets (`8x8, 3-6 balls`).
    pub game: String,
    /// The seed.
    pub seed: String,
    /// The rules (`standard`, `edge-miss`).
    pub rules: String,
    /// How a guess wins (`all-rays`, `rays-shot`).
    pub judge: String,
    /// Only molecules whose rays identify them.
    pub unique: bool,
}

/// Something the player does.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Move {
    /// Moves the cursor one step (times the count typed before it).
    Step(Direction),
    /// Jumps to the opposite side of the box.
    Opposite,
    /// Jumps to the top or left end of the side (or row).
    Home,
    /// Jumps to the bottom or right end of the side (or row).
    End,
    /// Puts the cursor on a cell or border position.
    CursorTo(Target),
    /// Puts the cursor on the ray the coach ranks best (asking the coach
    /// when it has not answered yet).
    ToBest,
    /// A digit of a count for the next move (as Emacs's `C-u 4`).
    Digit(u8),
    /// A count of 4, or four times the count typed so far.
    Universal,
    /// At the cursor: shoots its ray or puts or removes an atom (during the
    /// game); shows its ray's path (after it).
    Activate,
    /// At the cursor: marks the cell empty, or the row or column of the
    /// border position (Tatham's lock; again to unmark).
    Mark,
    /// The pointer: a click or tap at a cell or border position, which puts
    /// the cursor there (hidden, as Tatham's program hides it on a click)
    /// and activates, or marks when `secondary` (a right click or a long
    /// press) or while marking is on.
    Press {
        /// Where.
        at: Target,
        /// A right click or a long press.
        secondary: bool,
    },
    /// Shoots the ray at this border position.
    Shoot(usize),
    /// Puts or removes an atom on this cell (linear index).
    Atom(usize),
    /// Marks this cell empty, or unmarks it.
    MarkCell(usize),
    /// Marks empty the row or column this border position faces, or
    /// unmarks it.
    MarkLine(usize),
    /// Clicks and taps mark cells empty (on or off).
    Marking,
    /// Takes back the last action (times the count).
    Undo,
    /// Does again the last action taken back (times the count).
    Redo,
    /// Hands the guess to the referee.
    Guess,
    /// After a wrong guess: play on (the ray that disproves it is shot).
    PlayOn,
    /// After a wrong guess: end the game, the answer shown.
    EndGame,
    /// Gives up and sees the answer (asks first).
    Resign,
    /// A new game of the same kind (asks first while this one is unfinished).
    NewGame,
    /// Starts this game again from its start: every action undone, the
    /// rays paid for staying paid (asks first).
    Restart,
    /// A new game as the page's form gives it, each field as typed (read
    /// as `bbx play` reads its arguments).
    NewFrom(Form),
    /// Plays the text of a file or a paste: a saved game (resumed), a save
    /// file or game ID of Tatham's Black Box, or a puzzle (one of its
    /// answers hidden).
    Open {
        /// The text.
        text: String,
        /// What to call it in titles and messages (a file's name).
        origin: String,
    },
    /// Switches a part of the coach on or off.
    Coach(Panel),
    /// The policy whose next ray the coach names (`None`: none).
    Policy(Option<Policy>),
    /// The coach's limits per question: the most molecules it lists and its
    /// time, in milliseconds.
    Limits {
        /// The most molecules listed.
        max: usize,
        /// The time per question, in milliseconds.
        timeout_ms: u64,
    },
    /// Switches between J. Forget's notation and Emacs's.
    Notation,
    /// After the game: every molecule the rays allowed.
    Molecules,
    /// The help.
    Help,
    /// Scrolls the window open (the help, the list of molecules), in lines.
    Scroll(i32),
    /// Saves: asks for a file name, or (`Some`) saves to it (a name ending
    /// in `.sav` writes Tatham's save file).
    Save(Option<String>),
    /// Types a character into the field of the window open.
    Type(char),
    /// Erases the last character of the field.
    Erase,
    /// Says yes to the question of the window open.
    Confirm,
    /// Says no, or closes the window open.
    Cancel,
    /// Quits (asks first while the game is unfinished).
    Quit,
    /// Quits at once (Ctrl-C, a signal).
    Interrupt,
}
