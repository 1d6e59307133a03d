//! Keys and the cursor.
//!
//! The cursor moves over the board as drawn: the w×h cells and the 2(w+h)
//! border positions around them. It starts on border position 1, the top of the
//! left side. On the border it goes round the corners (past the end of a side
//! onto the next side) and, stepping outwards, across to the opposite side;
//! `o` (or Tab) jumps to the opposite side, Home and End (or Ctrl-A, Ctrl-E)
//! to either end of a side or, in the box, of a row. The arrows, `hjkl` and
//! Emacs's Ctrl-F, Ctrl-B, Ctrl-N and Ctrl-P move. Counts are typed as in
//! Emacs: digits, or Ctrl-U for 4 (twice for 16), before a move, undo or redo.
//! Enter acts as a left click does in Simon Tatham's Black Box (shoot, or put
//! or take an atom); Space and `m` as a right click does (lock: mark the
//! cell, or the row or column of a border position, empty).
//! [`command`] maps a key to what it asks for while the board has the focus.
//!
//! ```
//! use bbx::play::input::{Cursor, Direction, Target};
//! let mut c = Cursor::start(8);
//! assert_eq!(c.target(), Some(Target::Border(1)));
//! c.step(Direction::Right);
//! assert_eq!(c.target(), Some(Target::Cell(0)));
//! c.step(Direction::Up);
//! assert_eq!(c.target(), Some(Target::Border(32)));
//! c.step(Direction::Left); // round the corner, onto the left side
//! assert_eq!(c.target(), Some(Target::Border(1)));
//! c.step(Direction::Left); // outwards: across to the right side
//! assert_eq!(c.target(), Some(Target::Border(24)));
//! ```

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};

use crate::rules::board::{port, position_at};
use crate::rules::config::Shape;

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
    /// A border position (1..=2(w+h)): Enter shoots its ray.
    Border(usize),
    /// A cell (linear index): Enter puts or removes an atom.
    Cell(usize),
}

/// The cursor, in the padded coordinates of the drawn board: rows 0..=h+1
/// and columns 0..=w+1, where 0, h+1 and w+1 are the border.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Cursor {
    shape: Shape,
    row: usize,
    col: usize,
}

impl Cursor {
    /// On border position 1 of a box of `shape` (a width alone is a square).
    pub fn start(shape: impl Into<Shape>) -> Cursor {
        Cursor::at_position(shape, 1)
    }

    /// On border position `pos`.
    pub fn at_position(shape: impl Into<Shape>, pos: usize) -> Cursor {
        let shape = shape.into();
        let q = port(shape, pos);
        Cursor {
            shape,
            row: q.row,
            col: q.col,
        }
    }

    /// On padded row and column (`None` for a corner or outside).
    pub fn at(shape: impl Into<Shape>, row: usize, col: usize) -> Option<Cursor> {
        let c = Cursor {
            shape: shape.into(),
            row,
            col,
        };
        c.target().map(|_| c)
    }

    /// Padded row and column.
    pub fn row_col(&self) -> (usize, usize) {
        (self.row, self.col)
    }

    /// What the cursor is on.
    pub fn target(&self) -> Option<Target> {
        let s = self.shape;
        if (1..=s.height).contains(&self.row) && (1..=s.width).contains(&self.col) {
            Some(Target::Cell(s.index(self.row, self.col)))
        } else {
            position_at(s, self.row, self.col).map(Target::Border)
        }
    }

    /// Moves one step. In the box and into it, one cell; on the border,
    /// along its side and round a corner onto the next side, or, stepping
    /// outwards, across to the opposite side.
    pub fn step(&mut self, d: Direction) {
        let s = self.shape;
        let (rows, cols) = (s.height + 2, s.width + 2);
        // Rows and columns wrap round, so that stepping outwards crosses
        // the box.
        let (dr, dc) = match d {
            Direction::Up => (rows - 1, 0),
            Direction::Down => (1, 0),
            Direction::Left => (0, cols - 1),
            Direction::Right => (0, 1),
        };
        let (mut r, mut c) = ((self.row + dr) % rows, (self.col + dc) % cols);
        // A corner is gone round, onto the next side.
        if Cursor::at(s, r, c).is_none() {
            if dr == 0 {
                r = r.clamp(1, s.height);
            } else {
                c = c.clamp(1, s.width);
            }
        }
        (self.row, self.col) = (r, c);
    }

    /// Jumps to the opposite side: from a border position to the one facing
    /// it across the box; in the box, nothing.
    pub fn opposite(&mut self) {
        if self.on_border_col(self.col) {
            self.col = self.shape.width + 1 - self.col;
        } else if self.on_border_row(self.row) {
            self.row = self.shape.height + 1 - self.row;
        }
    }

    /// Jumps to one end of the side the cursor is on (`to_end`: the bottom
    /// or right end, else the top or left one); in the box, to the border at
    /// that end of the row.
    pub fn to_end(&mut self, to_end: bool) {
        let (w, h) = (self.shape.width, self.shape.height);
        if self.on_border_col(self.col) {
            self.row = if to_end { h } else { 1 };
        } else if self.on_border_row(self.row) {
            self.col = if to_end { w } else { 1 };
        } else {
            self.col = if to_end { w + 1 } else { 0 };
        }
    }

    /// Whether a padded column is on the border (left or right).
    fn on_border_col(&self, x: usize) -> bool {
        x == 0 || x == self.shape.width + 1
    }

    /// Whether a padded row is on the border (top or bottom).
    fn on_border_row(&self, x: usize) -> bool {
        x == 0 || x == self.shape.height + 1
    }
}

/// What a key asks for while the board has the focus.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Command {
    /// Move the cursor.
    Move(Direction),
    /// Jump to the opposite side.
    Opposite,
    /// Jump to the top or left end of the side (or row).
    Home,
    /// Jump to the bottom or right end of the side (or row).
    End,
    /// A digit of a count.
    Digit(u32),
    /// Ctrl-U: a count of 4, or 4 times the count so far.
    Universal,
    /// Mark the cell at the cursor empty, or the row or column of the
    /// border position at the cursor (or unmark them).
    MarkEmpty,
    /// Take back the last action.
    Undo,
    /// Do again the last action taken back.
    Redo,
    /// Give up and see the answer.
    Resign,
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
    /// Beside each ray shot, whether the guess placed so far explains it,
    /// on or off.
    ToggleExplained,
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
            KeyCode::Char('u') => Some(Command::Universal),
            KeyCode::Char('r') => Some(Command::Redo),
            KeyCode::Char('a') => Some(Command::Home),
            KeyCode::Char('e') => Some(Command::End),
            KeyCode::Char('f') => Some(Command::Move(Direction::Right)),
            KeyCode::Char('b') => Some(Command::Move(Direction::Left)),
            KeyCode::Char('n') => Some(Command::Move(Direction::Down)),
            KeyCode::Char('p') => Some(Command::Move(Direction::Up)),
            _ => None,
        };
    }
    Some(match key.code {
        KeyCode::Char(d @ '0'..='9') => Command::Digit(d as u32 - '0' as u32),
        KeyCode::Home => Command::Home,
        KeyCode::End => Command::End,
        KeyCode::Tab | KeyCode::Char('o') => Command::Opposite,
        KeyCode::Char('m') | KeyCode::Char(' ') => Command::MarkEmpty,
        KeyCode::Char('u') => Command::Undo,
        KeyCode::Char('U') => Command::Redo,
        KeyCode::Char('r') => Command::Resign,
        KeyCode::Up | KeyCode::Char('k') => Command::Move(Direction::Up),
        KeyCode::Down | KeyCode::Char('j') => Command::Move(Direction::Down),
        KeyCode::Left | KeyCode::Char('h') => Command::Move(Direction::Left),
        KeyCode::Right | KeyCode::Char('l') => Command::Move(Direction::Right),
        KeyCode::Enter => Command::Activate,
        KeyCode::Char('g') => Command::Submit,
        KeyCode::Char('c') => Command::ToggleCount,
        KeyCode::Char('x') => Command::ToggleCertain,
        KeyCode::Char('b') => Command::ToggleBest,
        KeyCode::Char('p') => Command::ToggleChance,
        KeyCode::Char('d') => Command::ToggleExplained,
        KeyCode::Char('a') => Command::ShowMolecules,
        KeyCode::Char('s') => Command::Save,
        KeyCode::Char('e') => Command::SwitchNotation,
        KeyCode::Char('n') => Command::NewGame,
        KeyCode::Char('?') | KeyCode::F(1) => Command::Help,
        KeyCode::Char('q') => Command::Quit,
        _ => return None,
    })
}

/// The keys, for the help screen and the README: (keys, what they do), each
/// short enough for a column of the help screen at 80 columns.
pub const KEYS: &[(&str, &str)] = &[
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
    ("c", "coach: molecules that fit"),
    ("x", "coach: certain cells * ."),
    ("b", "coach: best ray > < v ^"),
    ("p", "coach: chance of an atom"),
    ("d", "rays your guess explains"),
    ("a", "after: molecules that fit"),
    ("s", "save the game"),
    ("e", "Emacs notation H R 1-9"),
    ("n", "after the game: a new one"),
    ("?", "this help"),
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
        c.step(Direction::Down); // round the corner
        assert_eq!(c.target(), Some(Target::Border(5)));
        c.step(Direction::Left); // and back
        assert_eq!(c.target(), Some(Target::Border(4)));
        c.step(Direction::Right);
        c.step(Direction::Down);
        assert_eq!(c.target(), Some(Target::Border(5)));
        for _ in 0..3 {
            c.step(Direction::Right);
        }
        assert_eq!(c.target(), Some(Target::Border(8)));
        c.step(Direction::Up);
        assert_eq!(c.target(), Some(Target::Cell(15)));
        c.step(Direction::Right);
        assert_eq!(c.target(), Some(Target::Border(9)));
        // All the way round, one side after another.
        let mut c = Cursor::start(p);
        let mut seen = vec![1];
        for d in [
            Direction::Down,
            Direction::Right,
            Direction::Up,
            Direction::Left,
        ] {
            for _ in 0..p {
                c.step(d);
                if let Some(Target::Border(q)) = c.target() {
                    seen.push(q);
                }
            }
        }
        assert_eq!(seen, (1..=16).chain([1]).collect::<Vec<_>>());
        // Across, and to either end.
        c.opposite();
        assert_eq!(c.target(), Some(Target::Border(12)));
        c.step(Direction::Right);
        assert_eq!(c.target(), Some(Target::Border(1)));
        c.to_end(true);
        assert_eq!(c.target(), Some(Target::Border(4)));
        c.to_end(false);
        assert_eq!(c.target(), Some(Target::Border(1)));
        c.step(Direction::Right);
        c.to_end(true);
        assert_eq!(c.target(), Some(Target::Border(12)));
    }

    #[test]
    fn the_cursor_walks_around_a_rectangle() {
        // 5 wide, 2 high: left 1..2, bottom 3..7, right 8..9, top 10..14.
        let shape = Shape::new(5, 2).unwrap();
        let mut c = Cursor::start(shape);
        let mut seen = vec![1];
        for (d, n) in [
            (Direction::Down, 2),
            (Direction::Right, 5),
            (Direction::Up, 2),
            (Direction::Left, 5),
        ] {
            for _ in 0..n {
                c.step(d);
                if let Some(Target::Border(q)) = c.target() {
                    seen.push(q);
                }
            }
        }
        assert_eq!(seen, (1..=14).chain([1]).collect::<Vec<_>>());
        c.opposite();
        assert_eq!(c.target(), Some(Target::Border(9)));
        c.step(Direction::Left);
        c.step(Direction::Down);
        assert_eq!(c.target(), Some(Target::Cell(9)));
        c.step(Direction::Down);
        assert_eq!(c.target(), Some(Target::Border(7)));
        c.opposite();
        assert_eq!(c.target(), Some(Target::Border(10)));
        c.step(Direction::Up); // outwards: across to the bottom
        assert_eq!(c.target(), Some(Target::Border(7)));
        c.to_end(false);
        assert_eq!(c.target(), Some(Target::Border(3)));
    }

    #[test]
    fn keys() {
        let k = |code| KeyEvent::new(code, KeyModifiers::NONE);
        assert_eq!(
            command(&k(KeyCode::Char('j'))),
            Some(Command::Move(Direction::Down))
        );
        assert_eq!(command(&k(KeyCode::Enter)), Some(Command::Activate));
        // Space locks a cell, as a right click, as in Tatham's Black Box.
        assert_eq!(command(&k(KeyCode::Char(' '))), Some(Command::MarkEmpty));
        let ctrl = |c| KeyEvent::new(KeyCode::Char(c), KeyModifiers::CONTROL);
        for (c, d) in [
            ('f', Direction::Right),
            ('b', Direction::Left),
            ('n', Direction::Down),
            ('p', Direction::Up),
        ] {
            assert_eq!(command(&ctrl(c)), Some(Command::Move(d)));
        }
        assert_eq!(
            command(&KeyEvent::new(KeyCode::Char('c'), KeyModifiers::CONTROL)),
            Some(Command::Interrupt)
        );
        assert_eq!(command(&k(KeyCode::Char('z'))), None);
    }
}
