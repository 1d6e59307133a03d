//! The cursor: where the keyboard is on the board as drawn, the w×h cells
//! and the 2(w+h) border positions around them.
//!
//! It starts on border position 1, the top of the left side. On the border it
//! goes round the corners (past the end of a side onto the next side) and,
//! stepping outwards, across to the opposite side; it jumps to the opposite
//! side, or to either end of a side or, in the box, of a row. Every front
//! moves the same cursor: the keys of each profile ([`crate::play::keys`])
//! and the pointer both end as [`Move`](crate::play::moves::Move)s.
//!
//! ```
//! use bbx::play::cursor::{Cursor, Direction, Target};
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

use crate::rules::board::{port, position_at};
use crate::rules::config::Shape;

/// A direction to move the cursor.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
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
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
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

    /// The box the cursor moves over.
    pub fn shape(&self) -> Shape {
        self.shape
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
}
