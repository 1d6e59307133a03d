//! Keys and the cursor.
//!
//! The cursor moves over the board as drawn: the p×p cells and the 4p border
//! positions around them (the corners are skipped). It starts on border
//! position 1, the top of the left side. [`command`] maps a key to what it
//! asks for while the board has the focus.
//!
//! ```
//! use bbx::play::input::{Cursor, Direction, Target};
//! let mut c = Cursor::start(8);
//! assert_eq!(c.target(), Some(Target::Border(1)));
//! c.step(Direction::Right);
//! assert_eq!(c.target(), Some(Target::Cell(0)));
//! c.step(Direction::Up);
//! assert_eq!(c.target(), Some(Target::Border(32)));
//! c.step(Direction::Left); // a corner: the cursor stays
//! assert_eq!(c.target(), Some(Target::Border(32)));
//! ```

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};

use crate::rules::board::{port, position_at};

/// A direction to move the cursor.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Direction {
    /// Up one row.
    Up,
    /// Down one row.
    Down,
    /// Left one column.
    Left,
    /// Right one column.
    Right,
}

/// What the cursor is on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Target {
    /// A border position (1..=4p): Enter shoots its ray.
    Border(usize),
    /// A cell (linear index): Enter puts or removes an atom.
    Cell(usize),
}

/// The cursor, in the padded coordinates of the drawn board: rows and columns
/// 0..=p+1, where 0 and p+1 are the border.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Cursor {
    width: usize,
    row: usize,
    col: usize,
}

impl Cursor {
    /// On border position 1 of a `width`-wide box.
    pub fn start(width: usize) -> Cursor {
        Cursor::at_position(width, 1)
    }

    /// On border position `pos`.
    pub fn at_position(width: usize, pos: usize) -> Cursor {
        let q = port(width, pos);
        Cursor {
            width,
            row: q.row,
            col: q.col,
        }
    }

    /// On padded row and column (`None` for a corner or outside).
    pub fn at(width: usize, row: usize, col: usize) -> Option<Cursor> {
        let c = Cursor { width, row, col };
        c.target().map(|_| c)
    }

    /// Padded row and column.
    pub fn row_col(&self) -> (usize, usize) {
        (self.row, self.col)
    }

    /// What the cursor is on.
    pub fn target(&self) -> Option<Target> {
        let p = self.width;
        if (1..=p).contains(&self.row) && (1..=p).contains(&self.col) {
            Some(Target::Cell(p * (self.row - 1) + self.col - 1))
        } else {
            position_at(p, self.row, self.col).map(Target::Border)
        }
    }

    /// Moves one step; stays put rather than land on a corner or leave the
    /// board.
    pub fn step(&mut self, d: Direction) {
        let p = self.width;
        let (r, c) = (self.row, self.col);
        let (nr, nc) = match d {
            Direction::Up => (r.wrapping_sub(1), c),
            Direction::Down => (r + 1, c),
            Direction::Left => (r, c.wrapping_sub(1)),
            Direction::Right => (r, c + 1),
        };
        if nr <= p + 1 && nc <= p + 1 && Cursor::at(p, nr, nc).is_some() {
            self.row = nr;
            self.col = nc;
        }
    }
}

/// What a key asks for while the board has the focus.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Command {
    /// Move the cursor.
    Move(Direction),
    /// Shoot the ray at the cursor, or put or remove an atom there.
    Activate,
    /// Hand the guess to the referee.
    Submit,
    /// Coach: the number of molecules that fit, on or off.
    ToggleCount,
    /// Coach: the cells certain to be atoms or empty, on or off.
    ToggleCertain,
    /// Coach: the best ray to shoot next, on or off.
    ToggleBest,
    /// Coach: each cell's chance of holding an atom, on or off.
    ToggleChance,
    /// After the game: every molecule the rays allowed.
    ShowMolecules,
    /// Save the game.
    Save,
    /// Switch between J. Forget's and Emacs notation.
    SwitchNotation,
    /// A new game (after this one is over).
    NewGame,
    /// The help screen.
    Help,
    /// Quit (asking first while the game is unfinished).
    Quit,
    /// Quit at once (Ctrl-C).
    Interrupt,
}

/// The command of a key, if it has one.
pub fn command(key: &KeyEvent) -> Option<Command> {
    if key.modifiers.contains(KeyModifiers::CONTROL) {
        return match key.code {
            KeyCode::Char('c') | KeyCode::Char('d') => Some(Command::Interrupt),
            _ => None,
        };
    }
    Some(match key.code {
        KeyCode::Up | KeyCode::Char('k') => Command::Move(Direction::Up),
        KeyCode::Down | KeyCode::Char('j') => Command::Move(Direction::Down),
        KeyCode::Left | KeyCode::Char('h') => Command::Move(Direction::Left),
        KeyCode::Right | KeyCode::Char('l') => Command::Move(Direction::Right),
        KeyCode::Enter | KeyCode::Char(' ') => Command::Activate,
        KeyCode::Char('g') => Command::Submit,
        KeyCode::Char('c') => Command::ToggleCount,
        KeyCode::Char('x') => Command::ToggleCertain,
        KeyCode::Char('b') => Command::ToggleBest,
        KeyCode::Char('p') => Command::ToggleChance,
        KeyCode::Char('a') => Command::ShowMolecules,
        KeyCode::Char('s') => Command::Save,
        KeyCode::Char('e') => Command::SwitchNotation,
        KeyCode::Char('n') => Command::NewGame,
        KeyCode::Char('?') | KeyCode::F(1) => Command::Help,
        KeyCode::Char('q') => Command::Quit,
        _ => return None,
    })
}

/// The keys, for the help screen and the README: (keys, what they do).
pub const KEYS: &[(&str, &str)] = &[
    (
        "←↓↑→ or h j k l",
        "move the cursor over the border and the box",
    ),
    (
        "Enter or space",
        "shoot the ray at the cursor, or put/remove an atom",
    ),
    ("mouse click", "the same, where the terminal reports clicks"),
    ("g", "submit your guess (as many atoms as are hidden)"),
    ("c", "coach: how many molecules still fit the rays shot"),
    (
        "x",
        "coach: cells certain to hold an atom (*) or to be empty (.)",
    ),
    ("b", "coach: the best ray to shoot next (*)"),
    (
        "p",
        "coach: each cell's chance of an atom (tenths: 7 is 70-79%)",
    ),
    ("a", "after the game: every molecule the rays allowed"),
    ("s", "save the game (a puzzle file bbx solve reads)"),
    ("e", "switch the border marks to Emacs notation and back"),
    ("n", "after the game: a new game"),
    ("?", "this help"),
    ("q", "quit (asks first while the game is unfinished)"),
    ("Ctrl-C", "quit at once"),
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_cursor_walks_around_the_border_through_the_box() {
        let p = 4;
        let mut c = Cursor::start(p);
        for _ in 0..3 {
            c.step(Direction::Down);
        }
        assert_eq!(c.target(), Some(Target::Border(4)));
        c.step(Direction::Down); // corner
        assert_eq!(c.target(), Some(Target::Border(4)));
        c.step(Direction::Right);
        c.step(Direction::Down);
        assert_eq!(c.target(), Some(Target::Border(5)));
        for _ in 0..10 {
            c.step(Direction::Right);
        }
        assert_eq!(c.target(), Some(Target::Border(8)));
        c.step(Direction::Up);
        assert_eq!(c.target(), Some(Target::Cell(15)));
        c.step(Direction::Right);
        assert_eq!(c.target(), Some(Target::Border(9)));
    }

    #[test]
    fn keys() {
        let k = |code| KeyEvent::new(code, KeyModifiers::NONE);
        assert_eq!(
            command(&k(KeyCode::Char('j'))),
            Some(Command::Move(Direction::Down))
        );
        assert_eq!(command(&k(KeyCode::Char(' '))), Some(Command::Activate));
        assert_eq!(
            command(&KeyEvent::new(KeyCode::Char('c'), KeyModifiers::CONTROL)),
            Some(Command::Interrupt)
        );
        assert_eq!(command(&k(KeyCode::Char('z'))), None);
    }
}
