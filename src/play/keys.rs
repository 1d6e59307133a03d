//! Keys as every front reads them, and what they do in each of the three
//! profiles of players' habits.
//!
//! A front turns its own key events (crossterm's in the terminal, the
//! browser's `KeyboardEvent` on the page) into a [`Key`]; the game middle
//! reads it through the player's [`Profile`]:
//!
//! - **bbx**: Enter shoots or places, Space and `m` mark empty, `u` undoes and
//!   `U` redoes, `g` guesses, `r` resigns, `R` restarts; the arrows, `hjkl`
//!   and Emacs's Ctrl-F B N P move.
//! - **tatham**: as Simon Tatham's Black Box and its midend: Enter selects
//!   (shoot or place), Space locks, `u` and `U` undo, `r`, `R`, Ctrl-R and
//!   Ctrl-Y redo, `n` starts a new game, `q` quits, `S` gives up and shows
//!   the answer (his Solve).
//! - **emacs**: as Emacs's `blackbox.el`: Space shoots or places, Return
//!   ends the game with the guess, Ctrl-F B N P and Ctrl-A E move.
//!
//! Every profile keeps the coach's keys (`c` `x` `b` `p` `d`), `B` (to the
//! coach's best ray), `a`, `s`, `e`, `?` and counts (digits, Ctrl-U).
//! [`help`] lists a profile's keys for the help screen.
//!
//! ```
//! use bbx::play::keys::{Key, Profile, board_move};
//! use bbx::play::moves::Move;
//! let space: Key = "Space".parse().unwrap();
//! assert_eq!(board_move(Profile::Bbx, &space), Some(Move::Mark));
//! assert_eq!(board_move(Profile::Emacs, &space), Some(Move::Activate));
//! let r: Key = "r".parse().unwrap();
//! assert_eq!(board_move(Profile::Bbx, &r), Some(Move::Resign));
//! assert_eq!(board_move(Profile::Tatham, &r), Some(Move::Redo));
//! assert_eq!(board_move(Profile::Tatham, &"Ctrl+z".parse().unwrap()), Some(Move::Undo));
//! ```

use std::fmt;
use std::str::FromStr;

use crate::play::cursor::Direction;
use crate::play::moves::{Move, Panel};

/// A key, whatever the front.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum KeyCode {
    /// A character (Space is `' '`).
    Char(char),
    /// Enter, Return.
    Enter,
    /// Escape.
    Esc,
    /// Backspace.
    Backspace,
    /// Delete.
    Delete,
    /// Insert.
    Insert,
    /// Tab.
    Tab,
    /// Shift-Tab.
    BackTab,
    /// The up arrow.
    Up,
    /// The down arrow.
    Down,
    /// The left arrow.
    Left,
    /// The right arrow.
    Right,
    /// Home.
    Home,
    /// End.
    End,
    /// Page Up.
    PageUp,
    /// Page Down.
    PageDown,
    /// A function key, F1 to F24.
    F(u8),
}

/// A key pressed, with Ctrl and Alt (Shift shows in the character).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub struct Key {
    /// The key.
    pub code: KeyCode,
    /// Ctrl held.
    #[serde(default)]
    pub ctrl: bool,
    /// Alt (Meta, Option) held.
    #[serde(default)]
    pub alt: bool,
}

impl Key {
    /// The key alone.
    pub fn new(code: KeyCode) -> Key {
        Key {
            code,
            ctrl: false,
            alt: false,
        }
    }

    /// A character typed.
    pub fn char(c: char) -> Key {
        Key::new(KeyCode::Char(c))
    }

    /// Ctrl and a character.
    pub fn ctrl(c: char) -> Key {
        Key {
            ctrl: true,
            ..Key::char(c)
        }
    }

    /// The character it types into a field, if it types one.
    pub fn typed(&self) -> Option<char> {
        match self.code {
            KeyCode::Char(c) if !self.ctrl && !self.alt && !c.is_control() => Some(c),
            _ => None,
        }
    }

    /// The character of a letter key with Ctrl held, lower case.
    fn control(&self) -> Option<char> {
        match self.code {
            KeyCode::Char(c) if self.ctrl && !self.alt => Some(c.to_ascii_lowercase()),
            _ => None,
        }
    }
}

/// Reads a key as the browser names it (`KeyboardEvent.key`: `a`,
/// `Enter`, `ArrowUp`, `Escape`, `F1`, a space as `" "` or `Space`), with
/// `Ctrl+` and `Alt+` before it for the modifiers.
impl FromStr for Key {
    type Err = String;
    fn from_str(s: &str) -> Result<Key, String> {
        let mut key = Key::new(KeyCode::Esc);
        let mut rest = s;
        loop {
            if let Some(r) = rest.strip_prefix("Ctrl+").or(rest.strip_prefix("Control+")) {
                (key.ctrl, rest) = (true, r);
            } else if let Some(r) = rest.strip_prefix("Alt+") {
                (key.alt, rest) = (true, r);
            } else {
                break;
            }
        }
        let mut chars = rest.chars();
        key.code = match (chars.next(), chars.next()) {
            (Some(c), None) => KeyCode::Char(c),
            _ => match rest {
                "Space" | "Spacebar" => KeyCode::Char(' '),
                "Enter" | "Return" => KeyCode::Enter,
                "Escape" | "Esc" => KeyCode::Esc,
                "Backspace" => KeyCode::Backspace,
                "Delete" => KeyCode::Delete,
                "Insert" => KeyCode::Insert,
                "Tab" => KeyCode::Tab,
                "BackTab" => KeyCode::BackTab,
                "ArrowUp" | "Up" => KeyCode::Up,
                "ArrowDown" | "Down" => KeyCode::Down,
                "ArrowLeft" | "Left" => KeyCode::Left,
                "ArrowRight" | "Right" => KeyCode::Right,
                "Home" => KeyCode::Home,
                "End" => KeyCode::End,
                "PageUp" => KeyCode::PageUp,
                "PageDown" => KeyCode::PageDown,
                f => match f.strip_prefix('F').and_then(|n| n.parse::<u8>().ok()) {
                    Some(n @ 1..=24) => KeyCode::F(n),
                    _ => return Err(format!("no key called {}", crate::error::quote(s))),
                },
            },
        };
        Ok(key)
    }
}

/// Whose habits the keys follow.
#[derive(
    Debug,
    Clone,
    Copy,
    PartialEq,
    Eq,
    Hash,
    Default,
    serde::Serialize,
    serde::Deserialize,
    strum::EnumString,
    strum::IntoStaticStr,
    strum::Display,
)]
#[strum(serialize_all = "lowercase", ascii_case_insensitive)]
#[strum(parse_err_ty = String, parse_err_fn = unknown_profile)]
#[serde(rename_all = "lowercase")]
pub enum Profile {
    /// bbx's own keys.
    #[default]
    Bbx,
    /// Simon Tatham's Black Box (and his puzzles' midend).
    Tatham,
    /// Emacs's `blackbox.el`.
    Emacs,
}

/// The error for a profile that is not one.
fn unknown_profile(name: &str) -> String {
    format!(
        "unknown keys {} (expected 'bbx', 'tatham' or 'emacs')",
        crate::error::quote(name)
    )
}

impl Profile {
    /// Every profile.
    pub const ALL: [Profile; 3] = [Profile::Bbx, Profile::Tatham, Profile::Emacs];

    /// Its name: `bbx`, `tatham`, `emacs`.
    pub fn name(self) -> &'static str {
        self.into()
    }

    /// What it follows, in a few words.
    pub fn about(self) -> &'static str {
        match self {
            Profile::Bbx => "bbx's keys",
            Profile::Tatham => "the keys of Simon Tatham's Black Box",
            Profile::Emacs => "the keys of Emacs's blackbox",
        }
    }

    /// The keys that shoot or place, mark, guess, undo and redo, for the
    /// one-line hints: `(shoot, mark, guess, undo, redo)`.
    pub fn hints(
        self,
    ) -> (
        &'static str,
        &'static str,
        &'static str,
        &'static str,
        &'static str,
    ) {
        match self {
            Profile::Bbx => ("Enter", "space", "g", "u", "U"),
            Profile::Tatham => ("Enter", "space", "g", "u", "r"),
            Profile::Emacs => ("space", "m", "Return", "u", "U"),
        }
    }
}

/// What `key` does on the board (no window open) in `profile`; `None` for a
/// key that does nothing there.
pub fn board_move(profile: Profile, key: &Key) -> Option<Move> {
    use Direction::*;
    if let Some(c) = key.control() {
        // Ctrl keys every profile shares: Ctrl-C quits at once, the Emacs
        // motions, a count.
        let common = match c {
            'c' | 'd' => Some(Move::Interrupt),
            'f' => Some(Move::Step(Right)),
            'b' => Some(Move::Step(Left)),
            'n' if profile != Profile::Tatham => Some(Move::Step(Down)),
            'p' => Some(Move::Step(Up)),
            'a' => Some(Move::Home),
            'e' => Some(Move::End),
            'u' => Some(Move::Universal),
            'z' | '_' | '/' => Some(Move::Undo),
            'y' => Some(Move::Redo),
            'r' if profile != Profile::Emacs => Some(Move::Redo),
            _ => None,
        };
        return match (profile, c) {
            (Profile::Tatham, 'n') => Some(Move::NewGame),
            (Profile::Tatham, 'q') => Some(Move::Quit),
            _ => common,
        };
    }
    if key.alt {
        return None;
    }
    let shared = match key.code {
        KeyCode::Up => Some(Move::Step(Up)),
        KeyCode::Down => Some(Move::Step(Down)),
        KeyCode::Left => Some(Move::Step(Left)),
        KeyCode::Right => Some(Move::Step(Right)),
        KeyCode::Home => Some(Move::Home),
        KeyCode::End => Some(Move::End),
        KeyCode::Tab | KeyCode::BackTab => Some(Move::Opposite),
        KeyCode::F(1) => Some(Move::Help),
        KeyCode::F(5) => Some(Move::Restart),
        KeyCode::Char(d @ '0'..='9') => Some(Move::Digit(d as u8 - b'0')),
        KeyCode::Char('?') => Some(Move::Help),
        KeyCode::Char('c') => Some(Move::Coach(Panel::Count)),
        KeyCode::Char('x') => Some(Move::Coach(Panel::Certain)),
        KeyCode::Char('b') => Some(Move::Coach(Panel::Best)),
        KeyCode::Char('p') => Some(Move::Coach(Panel::Chance)),
        KeyCode::Char('d') => Some(Move::Coach(Panel::Explained)),
        KeyCode::Char('B') => Some(Move::ToBest),
        KeyCode::Char('a') => Some(Move::Molecules),
        KeyCode::Char('s') => Some(Move::Save(None)),
        KeyCode::Char('e') => Some(Move::Notation),
        KeyCode::Char('g') => Some(Move::Guess),
        KeyCode::Char('n') => Some(Move::NewGame),
        KeyCode::Char('q') => Some(Move::Quit),
        _ => None,
    };
    let own = match (profile, key.code) {
        (Profile::Bbx, KeyCode::Enter) => Some(Move::Activate),
        (Profile::Bbx, KeyCode::Char(' ' | 'm')) => Some(Move::Mark),
        (Profile::Bbx, KeyCode::Char('u')) => Some(Move::Undo),
        (Profile::Bbx, KeyCode::Char('U')) => Some(Move::Redo),
        (Profile::Bbx, KeyCode::Char('r')) => Some(Move::Resign),
        (Profile::Bbx, KeyCode::Char('R')) => Some(Move::Restart),
        (Profile::Bbx, KeyCode::Char('h')) => Some(Move::Step(Left)),
        (Profile::Bbx, KeyCode::Char('j')) => Some(Move::Step(Down)),
        (Profile::Bbx, KeyCode::Char('k')) => Some(Move::Step(Up)),
        (Profile::Bbx, KeyCode::Char('l')) => Some(Move::Step(Right)),
        (Profile::Bbx, KeyCode::Char('o')) => Some(Move::Opposite),
        (Profile::Tatham, KeyCode::Enter) => Some(Move::Activate),
        (Profile::Tatham, KeyCode::Char(' ' | 'm')) => Some(Move::Mark),
        (Profile::Tatham, KeyCode::Char('u' | 'U' | '*')) => Some(Move::Undo),
        (Profile::Tatham, KeyCode::Char('r' | 'R' | '#')) => Some(Move::Redo),
        (Profile::Tatham, KeyCode::Char('N')) => Some(Move::NewGame),
        (Profile::Tatham, KeyCode::Char('Q')) => Some(Move::Quit),
        (Profile::Tatham, KeyCode::Char('S')) => Some(Move::Resign),
        (Profile::Emacs, KeyCode::Char(' ')) | (Profile::Emacs, KeyCode::Insert) => {
            Some(Move::Activate)
        }
        (Profile::Emacs, KeyCode::Enter) => Some(Move::Guess),
        (Profile::Emacs, KeyCode::Char('m')) => Some(Move::Mark),
        (Profile::Emacs, KeyCode::Char('u')) => Some(Move::Undo),
        (Profile::Emacs, KeyCode::Char('U')) => Some(Move::Redo),
        (Profile::Emacs, KeyCode::Char('r')) => Some(Move::Resign),
        (Profile::Emacs, KeyCode::Char('R')) => Some(Move::Restart),
        (Profile::Emacs, KeyCode::Char('o')) => Some(Move::Opposite),
        _ => None,
    };
    own.or(shared)
}

/// The keys of `profile` for the help screen and the README: (keys, what
/// they do), each short enough for a column of the help at 80 columns (11
/// and 25 characters).
pub fn help(profile: Profile) -> Vec<(&'static str, &'static str)> {
    let mut keys = match profile {
        Profile::Bbx => vec![
            ("q  Ctrl-C", "quit · quit at once"),
            ("←↓↑→ hjkl", "move, round the corners"),
            ("^F ^B ^N ^P", "move, as in Emacs"),
            ("o Tab", "jump to the opposite side"),
            ("Home End", "to an end of side or row"),
            ("0-9 Ctrl-U", "counts: 3j, Ctrl-U = 4"),
            ("Enter click", "shoot, or put/take atom"),
            ("space m", "mark empty: cell/row/col"),
            ("right-click", "the same, with the mouse"),
            ("u  U Ctrl-R", "undo · redo (score kept)"),
            ("g", "submit your guess"),
            ("r", "resign and see the answer"),
            ("n  R F5", "new game · restart"),
        ],
        Profile::Tatham => vec![
            ("q Q Ctrl-Q", "quit"),
            ("Ctrl-C", "quit at once"),
            ("←↓↑→", "move, round the corners"),
            ("Home End", "to an end of side or row"),
            ("0-9 Ctrl-U", "counts: 3→, Ctrl-U = 4"),
            ("Enter click", "fire, or put/take a ball"),
            ("space m", "lock: cell/row/column"),
            ("right-click", "the same, with the mouse"),
            ("u U * ^Z", "undo (score kept)"),
            ("r R # ^R ^Y", "redo"),
            ("g", "check your guess"),
            ("S", "give up: show the answer"),
            ("n N ^N  F5", "new game · restart"),
        ],
        Profile::Emacs => vec![
            ("q  C-c", "quit · quit at once"),
            ("C-f C-b C-n", "move (C-p up), arrows too"),
            ("C-a C-e", "to an end of side or row"),
            ("o Tab", "jump to the opposite side"),
            ("0-9 C-u", "counts: C-u C-f = 4"),
            ("SPC click", "shoot, or put/take atom"),
            ("m right-clk", "mark empty: cell/row/col"),
            ("u C-/  U", "undo · redo (score kept)"),
            ("RET g", "submit your guess"),
            ("r", "resign and see the answer"),
            ("n  R F5", "new game · restart"),
        ],
    };
    keys.extend([
        ("c", "coach: molecules that fit"),
        ("x", "coach: certain cells * ."),
        ("b  B", "coach: best ray, go to it"),
        ("p", "coach: chance of an atom"),
        ("d", "rays your guess explains"),
        ("a", "after: molecules that fit"),
        ("s", "save the game"),
        ("e", "Emacs notation H R 1-9"),
        ("?", "this help"),
    ]);
    keys
}

impl fmt::Display for Key {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.ctrl {
            f.write_str("Ctrl+")?;
        }
        if self.alt {
            f.write_str("Alt+")?;
        }
        match self.code {
            KeyCode::Char(' ') => f.write_str("Space"),
            KeyCode::Char(c) => write!(f, "{c}"),
            KeyCode::F(n) => write!(f, "F{n}"),
            other => write!(f, "{other:?}"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key(s: &str) -> Key {
        s.parse().unwrap()
    }

    #[test]
    fn keys_are_read_as_the_browser_names_them() {
        assert_eq!(key("a"), Key::char('a'));
        assert_eq!(key(" "), Key::char(' '));
        assert_eq!(key("Space"), Key::char(' '));
        assert_eq!(key("ArrowUp"), Key::new(KeyCode::Up));
        assert_eq!(key("Ctrl+r"), Key::ctrl('r'));
        assert_eq!(key("F1"), Key::new(KeyCode::F(1)));
        assert!("F99".parse::<Key>().is_err());
        assert!("Hyper".parse::<Key>().is_err());
        for k in ["Ctrl+r", "Space", "Enter", "F5", "U"] {
            assert_eq!(key(&key(k).to_string()), key(k), "{k}");
        }
    }

    #[test]
    fn each_profile_keeps_its_players_habits() {
        use Profile::*;
        // bbx: Enter shoots, space marks, u undoes, U redoes, r resigns.
        assert_eq!(board_move(Bbx, &key("Enter")), Some(Move::Activate));
        assert_eq!(board_move(Bbx, &key(" ")), Some(Move::Mark));
        assert_eq!(board_move(Bbx, &key("u")), Some(Move::Undo));
        assert_eq!(board_move(Bbx, &key("U")), Some(Move::Redo));
        assert_eq!(board_move(Bbx, &key("r")), Some(Move::Resign));
        assert_eq!(
            board_move(Bbx, &key("j")),
            Some(Move::Step(Direction::Down))
        );
        // Tatham: r is redo, U undo, n new game, S solve (resign).
        assert_eq!(board_move(Tatham, &key("r")), Some(Move::Redo));
        assert_eq!(board_move(Tatham, &key("U")), Some(Move::Undo));
        assert_eq!(board_move(Tatham, &key("Ctrl+y")), Some(Move::Redo));
        assert_eq!(board_move(Tatham, &key("Ctrl+n")), Some(Move::NewGame));
        assert_eq!(board_move(Tatham, &key("S")), Some(Move::Resign));
        assert_eq!(board_move(Tatham, &key(" ")), Some(Move::Mark));
        // Emacs: space fires, Return ends.
        assert_eq!(board_move(Emacs, &key(" ")), Some(Move::Activate));
        assert_eq!(board_move(Emacs, &key("Enter")), Some(Move::Guess));
        assert_eq!(
            board_move(Emacs, &key("Ctrl+n")),
            Some(Move::Step(Direction::Down))
        );
        // Shared: Ctrl-C, the coach, the jump to the best ray.
        for p in Profile::ALL {
            assert_eq!(board_move(p, &key("Ctrl+c")), Some(Move::Interrupt));
            assert_eq!(board_move(p, &key("b")), Some(Move::Coach(Panel::Best)));
            assert_eq!(board_move(p, &key("B")), Some(Move::ToBest));
            assert_eq!(board_move(p, &key("F5")), Some(Move::Restart));
            assert_eq!(board_move(p, &key("z")), None);
        }
    }

    #[test]
    fn every_profiles_help_fits_a_column_and_names_its_keys() {
        for p in Profile::ALL {
            let keys = help(p);
            for (k, what) in &keys {
                assert!(k.chars().count() <= 11, "{p}: {k}");
                assert!(what.chars().count() <= 25, "{p}: {what}");
            }
            assert!(keys.iter().any(|(_, w)| w.contains("new game")), "{p}");
            assert!(keys.iter().any(|(_, w)| w.contains("go to it")), "{p}");
        }
        let text = |p| format!("{:?}", help(p));
        assert!(text(Profile::Tatham).contains("r R # ^R ^Y"));
        assert!(text(Profile::Emacs).contains("RET g"));
    }
}
