//! What a front draws: the [`Scene`], worked out by the game middle after
//! every change, and serialisable, so that the terminal (ratatui) and the
//! web page (SVG, from JSON) draw the same thing.
//!
//! A scene holds the boards (each cell's and border position's facts and
//! text marks: [`crate::play::marks`]), the rays' paths for fronts that draw
//! lines, the side panel's lines, the message, the window open (a question
//! with its choices, the help, the list of molecules), which buttons mean
//! something now, and what the page shares. Every sentence in it comes from
//! [`crate::play::words`]; a front adds none.
//!
//! ```
//! use bbx::play::middle::{Middle, Options};
//! use bbx::play::moves::Move;
//! use bbx::play::setup::{Setup, start};
//! use bbx::control::Budget;
//! let setup = Setup { seed: Some(7), ..Setup::default() };
//! let (mut game, _) = Middle::new(setup.clone(), start(&setup, &Budget::default()).unwrap(), Options::default());
//! game.apply(Move::Shoot(3));
//! let scene = game.scene();
//! assert!(scene.board.slot(3).outcome.is_some());
//! assert!(scene.message.as_ref().unwrap().0.starts_with("Ray 3"));
//! let json = serde_json::to_value(scene).unwrap();
//! assert_eq!(json["board"]["width"], 8);
//! ```

use crate::play::marks::{Board, Trail};
use crate::play::moves::{Move, Panel};

/// How a message or a line looks; each front gives each its style.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Tone {
    /// Plain information.
    Info,
    /// Good news.
    Good,
    /// A problem or bad news.
    Bad,
    /// A hint or an aside, drawn dim.
    Dim,
    /// The heading of a part of the side panel.
    Heading,
    /// The verdict's first line, won (`true`) or not.
    Verdict(bool),
    /// Text being typed, the cursor after it.
    Input,
}

/// Lines of text, each with its tone.
pub type Lines = Vec<(String, Tone)>;

/// A choice of a window: its label, the keys that choose it in the
/// terminal, and the move it makes.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Choice {
    /// The label of its button.
    pub label: String,
    /// The keys that choose it (`y`, `p Enter`).
    pub keys: String,
    /// The move it makes.
    pub choice: Move,
}

/// A window over the board: a question with its choices, or a field to
/// type in.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Dialog {
    /// What it is for (`wrong`, `quit`, `resign`, `save`, `replace`,
    /// `new`, `restart`), for a front's styles.
    pub kind: &'static str,
    /// Its title.
    pub title: String,
    /// Its lines.
    pub lines: Lines,
    /// The text typed so far, when it has a field.
    pub field: Option<String>,
    /// Its choices, the first the default.
    pub choices: Vec<Choice>,
}

/// The help: the lines above and below the table of the keys.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Help {
    /// The lines above the keys.
    pub above: Lines,
    /// The keys of the player's profile: (keys, what they do).
    pub keys: Vec<(String, String)>,
    /// The lines below the keys.
    pub below: Lines,
    /// Lines scrolled (in the terminal).
    pub scroll: u16,
}

/// One molecule of the list after the game.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Listed {
    /// Its title: `3: hidden, yours`.
    pub title: String,
    /// Its atoms (linear cells).
    pub atoms: Vec<usize>,
    /// It is the hidden molecule.
    pub hidden: bool,
    /// It is the player's.
    pub yours: bool,
    /// Its board in text, with the rays shot on the border.
    pub text: String,
}

/// The list of every molecule the rays allowed, after the game.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct MoleculeList {
    /// Its first line, or (`Err`) what stands in for it while the coach
    /// works.
    pub heading: Result<String, String>,
    /// The molecules drawn, the hidden one first.
    pub molecules: Vec<Listed>,
    /// The last line, when the list is not whole.
    pub cut: Option<String>,
    /// Lines scrolled (in the terminal).
    pub scroll: u16,
}

/// Which of the player's tools do something now (the page greys the
/// others).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Serialize)]
pub struct Tools {
    /// Undo takes something back.
    pub undo: bool,
    /// Redo does something again.
    pub redo: bool,
    /// A guess can be handed in (the game is on, no question open).
    pub guess: bool,
    /// The player can give up.
    pub resign: bool,
    /// The game can start again.
    pub restart: bool,
    /// Clicks and taps mark cells empty.
    pub marking: bool,
}

/// The coach as a front shows its switches.
#[derive(Debug, Clone, PartialEq, Eq, Default, serde::Serialize)]
pub struct CoachSwitches {
    /// The panels on.
    pub on: Vec<Panel>,
    /// The policy whose next ray it names, if any.
    pub policy: Option<String>,
    /// A word on the coach's state (`off until asked`, `on: counting…`).
    pub legend: String,
    /// The most molecules it lists, and its time per question in
    /// milliseconds.
    pub limits: (usize, u64),
}

/// The game as the page shares it.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Share {
    /// The game as it stands, as a bbx save (what the page keeps in its
    /// address), or why it cannot be written.
    pub save: Result<String, String>,
    /// The game as it stands and where it came from, as text (what the
    /// page keeps in its address: [`Started::carried`] reads it back).
    ///
    /// [`Started::carried`]: crate::play::setup::Started::carried
    pub link: Result<String, String>,
    /// The game's ID in Tatham's Black Box, from its start, when his
    /// program plays it.
    pub tatham_id: Option<String>,
    /// The name of a bbx save of it.
    pub file: String,
    /// The name of a save file of Tatham's Black Box, when his program
    /// plays it.
    pub tatham_file: Option<String>,
}

/// Everything a front draws, worked out once per change.
#[derive(Debug, Clone, PartialEq, Default, serde::Serialize)]
pub struct Scene {
    /// The title: `A4_B8, standard rules, seed 42`.
    pub title: String,
    /// A shorter title for a narrow screen.
    pub short_title: String,
    /// The box: during the game, or the hidden molecule after it.
    pub board: Board,
    /// After a verdict that is not the hidden molecule itself: the player's
    /// molecule.
    pub guess: Option<Board>,
    /// The cursor, in the padded rows and columns of the board (0 and h+1,
    /// w+1 are the border).
    pub cursor: (usize, usize),
    /// Whether the cursor is shown (keys show it, a click hides it, as in
    /// Tatham's program).
    pub cursor_shown: bool,
    /// Rays' ways through the molecules, for fronts that draw lines.
    pub trails: Vec<Trail>,
    /// The side panel.
    pub side: Lines,
    /// The score and atoms in one line, for a frame with no room for the
    /// panel.
    pub status: String,
    /// The last message and its tone.
    pub message: Option<(String, Tone)>,
    /// The keys of the window that has them, in one line.
    pub keys: String,
    /// The window open over the board.
    pub dialog: Option<Dialog>,
    /// The help, when open.
    pub help: Option<Help>,
    /// The list of molecules after the game (the page shows it under the
    /// verdict).
    pub molecules: Option<MoleculeList>,
    /// The player opened the list of molecules (the terminal draws it over
    /// the board).
    pub list_open: bool,
    /// The tools that do something now.
    pub tools: Tools,
    /// The coach's switches.
    pub coach: CoachSwitches,
    /// The game as shared.
    pub share: Share,
    /// The game is over.
    pub over: bool,
}

impl Default for Share {
    fn default() -> Share {
        Share {
            save: Err(String::new()),
            link: Err(String::new()),
            tatham_id: None,
            file: String::new(),
            tatham_file: None,
        }
    }
}
