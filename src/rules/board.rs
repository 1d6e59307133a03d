//! The box: cells, border positions and molecules.
//!
//! A box is w cells wide and h high (p×p for a square). Rows and columns
//! are numbered from 1 (top, left). A cell's linear index is
//! `w·(row−1) + (col−1)`. The 2(w+h) border positions (4p) are numbered
//! counter-clockwise from the top-left corner:
//!
//! ```text
//!      16 15 14 13          (p = 4)           18 17 16 15 14     (w = 5, h = 2)
//!    1  -  -  -  -  12                      1  -  -  -  -  -  13
//!    2  -  -  -  -  11                      2  -  -  -  -  -  12
//!    3  -  -  -  -  10                          3  4  5  6  7
//!    4  -  -  -  -   9
//!       5  6  7  8
//! ```
//!
//! 1..h on the left (rays head east), h+1..h+w along the bottom (north),
//! h+w+1..2h+w up the right side (west), 2h+w+1..2(w+h) along the top from
//! right to left (south).

use std::fmt;
use std::str::FromStr;

use crate::error::{Error, ParseError, quantity};
use crate::rules::config::{Config, MAX_WIDTH, Shape};

/// One of the four directions a ray can travel; named `north`, `east`,
/// `south`, `west`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize)]
#[serde(rename_all = "lowercase")]
#[derive(strum::Display, strum::IntoStaticStr)]
#[strum(serialize_all = "lowercase")]
pub enum Heading {
    /// Up (towards row 1).
    North,
    /// Right (towards column w).
    East,
    /// Down (towards row h).
    South,
    /// Left (towards column 1).
    West,
}

impl Heading {
    /// All headings, clockwise from north; `index()` is the position in this list.
    pub const ALL: [Heading; 4] = [Heading::North, Heading::East, Heading::South, Heading::West];

    /// 0 for north, 1 east, 2 south, 3 west.
    pub fn index(self) -> usize {
        self as usize
    }

    /// The heading 90° to the left.
    pub fn left(self) -> Heading {
        Heading::ALL[(self.index() + 3) % 4]
    }

    /// The heading 90° to the right.
    pub fn right(self) -> Heading {
        Heading::ALL[(self.index() + 1) % 4]
    }

    /// The opposite heading.
    pub fn reverse(self) -> Heading {
        Heading::ALL[(self.index() + 2) % 4]
    }

    /// Row and column steps, `(dr, dc)`.
    pub fn delta(self) -> (isize, isize) {
        match self {
            Heading::North => (-1, 0),
            Heading::East => (0, 1),
            Heading::South => (1, 0),
            Heading::West => (0, -1),
        }
    }

    /// The heading with the given row and column steps, if it is one.
    pub fn from_delta(dr: isize, dc: isize) -> Option<Heading> {
        Heading::ALL.into_iter().find(|h| h.delta() == (dr, dc))
    }

    /// Lower-case name: `north`, `east`, `south`, `west`.
    pub fn name(self) -> &'static str {
        self.into()
    }
}

/// The side of the box a border position lies on; named `left`, `bottom`,
/// `right`, `top`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, strum::IntoStaticStr, serde::Serialize)]
#[strum(serialize_all = "lowercase")]
#[serde(rename_all = "lowercase")]
pub enum Side {
    /// Positions 1..h (1..p).
    Left,
    /// Positions h+1..h+w (p+1..2p).
    Bottom,
    /// Positions h+w+1..2h+w (2p+1..3p).
    Right,
    /// Positions 2h+w+1..2(w+h) (3p+1..4p).
    Top,
}

impl Side {
    /// Lower-case name of the side.
    pub fn name(self) -> &'static str {
        self.into()
    }
}

/// Where a border position is: the cell just outside the box in padded
/// coordinates (rows 0..=h+1, columns 0..=w+1) and the heading of a ray shot
/// from it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Port {
    /// Row in 0..=h+1 (0 and h+1 are outside the box).
    pub row: usize,
    /// Column in 0..=w+1.
    pub col: usize,
    /// The heading of a ray entering the box here.
    pub heading: Heading,
    /// The side of the box.
    pub side: Side,
    /// The row (left/right sides, 1..=h) or column (top/bottom, 1..=w) the
    /// position faces.
    pub line: usize,
}

/// The port of border position `pos` (1..=2(w+h)) on a box of `shape` (a
/// width alone is a square).
///
/// ```
/// use bbx::rules::board::{port, Heading, Side};
/// use bbx::rules::config::Shape;
/// let p = port(8, 31);
/// assert_eq!((p.row, p.col, p.heading, p.side), (0, 2, Heading::South, Side::Top));
/// let p = port(Shape::new(8, 6).unwrap(), 20);
/// assert_eq!((p.row, p.col, p.heading, p.side), (1, 9, Heading::West, Side::Right));
/// ```
///
/// # Panics
/// When `pos` is not in 1..=2(w+h).
pub fn port(shape: impl Into<Shape>, pos: usize) -> Port {
    let Shape {
        width: w,
        height: h,
    } = shape.into();
    let n = 2 * (w + h);
    assert!(pos >= 1 && pos <= n, "border position {pos} out of 1..={n}");
    if pos <= h {
        Port {
            row: pos,
            col: 0,
            heading: Heading::East,
            side: Side::Left,
            line: pos,
        }
    } else if pos <= h + w {
        let c = pos - h;
        Port {
            row: h + 1,
            col: c,
            heading: Heading::North,
            side: Side::Bottom,
            line: c,
        }
    } else if pos <= 2 * h + w {
        let r = 2 * h + w + 1 - pos;
        Port {
            row: r,
            col: w + 1,
            heading: Heading::West,
            side: Side::Right,
            line: r,
        }
    } else {
        let c = n + 1 - pos;
        Port {
            row: 0,
            col: c,
            heading: Heading::South,
            side: Side::Top,
            line: c,
        }
    }
}

/// The border position of the padded cell `(row, col)` just outside a box
/// of `shape`, or `None` for a cell inside the box or a corner.
pub fn position_at(shape: impl Into<Shape>, row: usize, col: usize) -> Option<usize> {
    let Shape {
        width: w,
        height: h,
    } = shape.into();
    let rows = |x: usize| (1..=h).contains(&x);
    let cols = |x: usize| (1..=w).contains(&x);
    if col == 0 && rows(row) {
        Some(row)
    } else if row == h + 1 && cols(col) {
        Some(h + col)
    } else if col == w + 1 && rows(row) {
        Some(2 * h + w + 1 - row)
    } else if row == 0 && cols(col) {
        Some(2 * (w + h) + 1 - col)
    } else {
        None
    }
}

/// A placement of atoms in a box.
///
/// The linear form lists the cells row by row from the top, `O` for an atom and
/// `-` (or `.`) for an empty cell. A square's rows follow each other (its
/// length is a square); a rectangle's are separated by `/`
/// (`O-------/--------/…`, h rows of w cells; a single row ends with `/`),
/// which a square may use too.
///
/// ```
/// use bbx::Molecule;
/// let m: Molecule = "O-O-------------".parse().unwrap();
/// assert_eq!(m.width(), 4);
/// assert_eq!(m.atoms(), &[0, 2]);
/// assert!(m.is_atom(1, 3));
/// assert_eq!(m.to_string(), "O-O-------------");
/// let r: Molecule = "O--/---/-O-/---".parse().unwrap();
/// assert_eq!((r.width(), r.height(), r.atoms()), (3, 4, &[0, 7][..]));
/// assert_eq!(r.to_string(), "O--/---/-O-/---");
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Molecule {
    shape: Shape,
    atoms: Vec<usize>,
}

impl Molecule {
    /// A molecule from its box (a width alone is a square) and the linear
    /// indices of its atoms (any order). Refuses a box too large, an index
    /// outside the box or an index given twice.
    pub fn new(
        shape: impl Into<Shape>,
        atoms: impl IntoIterator<Item = usize>,
    ) -> Result<Molecule, Error> {
        let shape = shape.into();
        let shape = Shape::new(shape.width, shape.height)?;
        let mut atoms: Vec<usize> = atoms.into_iter().collect();
        atoms.sort_unstable();
        if let Some(&last) = atoms.last()
            && last >= shape.cells()
        {
            return Err(Error::invalid(format!(
                "cell index {last} is outside the {shape} box (0..{})",
                shape.cells()
            )));
        }
        if let Some(w) = atoms.windows(2).find(|w| w[0] == w[1]) {
            return Err(Error::invalid(format!(
                "cell index {} holds two atoms",
                w[0]
            )));
        }
        Ok(Molecule { shape, atoms })
    }

    /// Builds a molecule from sorted, distinct, in-range indices without checking.
    pub(crate) fn from_sorted_unchecked(shape: Shape, atoms: Vec<usize>) -> Molecule {
        debug_assert!(atoms.windows(2).all(|w| w[0] < w[1]));
        debug_assert!(atoms.last().is_none_or(|&a| a < shape.cells()));
        Molecule { shape, atoms }
    }

    /// Parses the linear form; `origin` names the text in error messages.
    /// Without `/`, its length must be a square; with `/`, every row must
    /// have as many cells.
    pub fn parse_linear(text: &str, origin: &str) -> Result<Molecule, ParseError> {
        let s = text.trim();
        if s.contains('/') {
            return Molecule::parse_rows(s, origin);
        }
        let n = s.chars().count();
        let width = (n as f64).sqrt().round() as usize;
        if n == 0 || width * width != n {
            return Err(ParseError::new(
                origin,
                1,
                0,
                format!(
                    "a molecule has p×p cells ('O' atom, '-' or '.' empty), but this one has {n} characters, which is not a square{}; a rectangle's rows are separated by '/'",
                    nearest_squares(n)
                ),
            ));
        }
        Molecule::parse_cells(s, Shape::square(width), origin)
    }

    /// Parses the linear form of a box of `shape`: its w·h cells row by row,
    /// with or without a `/` between rows.
    pub fn parse_linear_in(text: &str, shape: Shape, origin: &str) -> Result<Molecule, ParseError> {
        let s = text.trim();
        let m = if s.contains('/') {
            Molecule::parse_rows(s, origin)?
        } else {
            let n = s.chars().count();
            if n != shape.cells() {
                return Err(ParseError::new(
                    origin,
                    1,
                    0,
                    format!(
                        "a molecule of a {shape} box has {} ('O' atom, '-' or '.' empty), but this one has {n} characters",
                        quantity(shape.cells(), "cell", "cells")
                    ),
                ));
            }
            Molecule::parse_cells(s, shape, origin)?
        };
        if m.shape != shape {
            return Err(ParseError::new(
                origin,
                1,
                0,
                format!("the molecule is {} but the box is {shape}", m.shape),
            ));
        }
        Ok(m)
    }

    /// Reads rows separated by `/`, each of the same number of cells (a
    /// single row ends with `/`).
    fn parse_rows(s: &str, origin: &str) -> Result<Molecule, ParseError> {
        let mut rows: Vec<&str> = s.split('/').collect();
        if rows.len() > 1 && rows.last() == Some(&"") {
            rows.pop();
        }
        let width = rows[0].chars().count();
        let mut column = 1;
        for (r, row) in rows.iter().enumerate() {
            let n = row.chars().count();
            if n != width || n == 0 {
                return Err(ParseError::new(
                    origin,
                    1,
                    column,
                    format!(
                        "row {} of the molecule has {} but row 1 has {}: every row between the '/' has as many cells",
                        r + 1,
                        quantity(n, "cell", "cells"),
                        quantity(width, "cell", "cells")
                    ),
                ));
            }
            column += n + 1;
        }
        let height = rows.len();
        if width > MAX_WIDTH || height > MAX_WIDTH {
            return Err(ParseError::new(
                origin,
                1,
                0,
                format!("a box is at most {MAX_WIDTH} cells wide and {MAX_WIDTH} high"),
            ));
        }
        Molecule::parse_cells(s, Shape { width, height }, origin)
    }

    /// Reads the cells of `s` (`/` skipped) into a molecule of `shape`.
    fn parse_cells(s: &str, shape: Shape, origin: &str) -> Result<Molecule, ParseError> {
        if shape.width > MAX_WIDTH || shape.height > MAX_WIDTH {
            return Err(ParseError::new(
                origin,
                1,
                0,
                format!("a box is at most {MAX_WIDTH} cells wide"),
            ));
        }
        let mut atoms = Vec::new();
        let mut cell = 0;
        for (i, c) in s.chars().enumerate() {
            match c {
                'O' => atoms.push(cell),
                '-' | '.' => {}
                '/' => continue,
                _ => {
                    return Err(ParseError::new(
                        origin,
                        1,
                        i + 1,
                        format!(
                            "unexpected character {c:?} in a molecule (expected 'O' for an atom, '-' or '.' for an empty cell)"
                        ),
                    ));
                }
            }
            cell += 1;
        }
        Ok(Molecule { shape, atoms })
    }

    /// Width w (p) of the box.
    pub fn width(&self) -> usize {
        self.shape.width
    }

    /// Height h (p) of the box.
    pub fn height(&self) -> usize {
        self.shape.height
    }

    /// The box.
    pub fn shape(&self) -> Shape {
        self.shape
    }

    /// Linear indices of the atoms, in increasing order.
    pub fn atoms(&self) -> &[usize] {
        &self.atoms
    }

    /// The configuration this molecule belongs to.
    pub fn config(&self) -> Config {
        Config {
            atoms: self.atoms.len(),
            width: self.shape.width,
            height: self.shape.height,
        }
    }

    /// Whether cell (`row`, `col`) (1-based) holds an atom; `false` outside the box.
    pub fn is_atom(&self, row: usize, col: usize) -> bool {
        (1..=self.shape.height).contains(&row)
            && (1..=self.shape.width).contains(&col)
            && self
                .atoms
                .binary_search(&self.shape.index(row, col))
                .is_ok()
    }

    /// The cells as booleans, row by row (`true` for an atom).
    pub fn cells(&self) -> Vec<bool> {
        let mut v = vec![false; self.shape.cells()];
        for &a in &self.atoms {
            v[a] = true;
        }
        v
    }

    /// Checks that the molecule has the configuration's box and atom count.
    pub fn check_config(&self, config: Config) -> Result<(), Error> {
        if self.shape != config.shape() {
            return Err(Error::invalid(format!(
                "the molecule is {} but configuration {config} has a {} box",
                self.shape,
                config.shape()
            )));
        }
        if self.atoms.len() != config.atoms {
            return Err(Error::invalid(format!(
                "the molecule has {} but configuration {config} has {}",
                quantity(self.atoms.len(), "atom", "atoms"),
                config.atoms
            )));
        }
        Ok(())
    }
}

fn nearest_squares(n: usize) -> String {
    let r = (n as f64).sqrt().floor() as usize;
    if n == 0 {
        String::new()
    } else {
        format!(
            " (nearest: {} for {r}×{r}, {} for {s}×{s})",
            r * r,
            (r + 1) * (r + 1),
            s = r + 1
        )
    }
}

impl fmt::Display for Molecule {
    /// The linear form (`O` and `-`), its rows separated by `/` when the box
    /// is not square.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let w = self.shape.width;
        let mut s = vec![b'-'; self.shape.cells()];
        for &a in &self.atoms {
            s[a] = b'O';
        }
        if self.shape.is_square() {
            return f.write_str(std::str::from_utf8(&s).map_err(|_| fmt::Error)?);
        }
        for (r, row) in s.chunks(w.max(1)).enumerate() {
            if r > 0 {
                f.write_str("/")?;
            }
            f.write_str(std::str::from_utf8(row).map_err(|_| fmt::Error)?)?;
        }
        // A single row is told from a square's cells by its `/`.
        if self.shape.height == 1 {
            f.write_str("/")?;
        }
        Ok(())
    }
}

impl FromStr for Molecule {
    type Err = ParseError;
    fn from_str(s: &str) -> Result<Molecule, ParseError> {
        Molecule::parse_linear(s, "molecule")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn headings_and_sides_are_named_in_lower_case() {
        let names = Heading::ALL.map(|h| format!("{h} {}", serde_json::json!(h)));
        assert_eq!(
            names.join(" "),
            r#"north "north" east "east" south "south" west "west""#
        );
        assert_eq!(port(4, 1).side.name(), "left");
        assert_eq!(port(4, 16).side.name(), "top");
    }

    #[test]
    fn ports_round_trip() {
        for p in 1..=9 {
            for pos in 1..=4 * p {
                let q = port(p, pos);
                assert_eq!(position_at(p, q.row, q.col), Some(pos));
                let (dr, dc) = q.heading.delta();
                let (r, c) = (q.row as isize + dr, q.col as isize + dc);
                assert!(r >= 1 && c >= 1 && r <= p as isize && c <= p as isize);
            }
            assert_eq!(position_at(p, 0, 0), None);
            assert_eq!(position_at(p, 1, 1), None);
        }
        for (w, h) in [(8, 6), (5, 9), (1, 3), (4, 1)] {
            let shape = Shape::new(w, h).unwrap();
            let mut sides = Vec::new();
            for pos in 1..=shape.positions() {
                let q = port(shape, pos);
                assert_eq!(position_at(shape, q.row, q.col), Some(pos));
                let (dr, dc) = q.heading.delta();
                let (r, c) = (q.row as isize + dr, q.col as isize + dc);
                assert!(r >= 1 && c >= 1 && r <= h as isize && c <= w as isize);
                sides.push(q.side);
            }
            // h on the left, w along the bottom, h on the right, w on top.
            let count = |s: Side| sides.iter().filter(|&&x| x == s).count();
            assert_eq!(
                [Side::Left, Side::Bottom, Side::Right, Side::Top].map(count),
                [h, w, h, w]
            );
        }
        // The 8×8 numbering drawn in J. Forget's exploration.
        assert_eq!(port(8, 1).row, 1);
        assert_eq!(port(8, 9).col, 1);
        assert_eq!(port(8, 17).row, 8);
        assert_eq!(port(8, 24).row, 1);
        assert_eq!(port(8, 25).col, 8);
        assert_eq!(port(8, 32).col, 1);
    }

    #[test]
    fn linear_form() {
        let m: Molecule = "O.O-".parse().unwrap();
        assert_eq!((m.width(), m.atoms()), (2, &[0usize, 2][..]));
        assert_eq!(m.to_string(), "O-O-");
        let e = "O-O".parse::<Molecule>().unwrap_err();
        assert!(
            e.message.contains("3 characters, which is not a square"),
            "{e}"
        );
        let e = "O-X-".parse::<Molecule>().unwrap_err();
        assert_eq!(e.column, 3);
        assert!(e.to_string().contains("'X'"));
        assert!("".parse::<Molecule>().is_err());
        let r: Molecule = "O-./-O-".parse().unwrap();
        assert_eq!((r.width(), r.height(), r.atoms()), (3, 2, &[0usize, 4][..]));
        assert_eq!(r.to_string(), "O--/-O-");
        let square: Molecule = "O-/-O".parse().unwrap();
        assert_eq!(square.to_string(), "O--O");
        let row: Molecule = "-O--/".parse().unwrap();
        assert_eq!(
            (row.width(), row.height(), row.to_string()),
            (4, 1, "-O--/".into())
        );
        let column: Molecule = "O/-/-".parse().unwrap();
        assert_eq!((column.width(), column.height()), (1, 3));
        let e = "O--/-O".parse::<Molecule>().unwrap_err();
        assert!(
            e.message
                .contains("row 2 of the molecule has 2 cells but row 1 has 3"),
            "{e}"
        );
        assert_eq!(e.column, 5);
        let e = "O--/-X-".parse::<Molecule>().unwrap_err();
        assert_eq!(e.column, 6);
        let shape = Shape::new(3, 2).unwrap();
        assert_eq!(Molecule::parse_linear_in("O---O-", shape, "m").unwrap(), r);
        assert_eq!(Molecule::parse_linear_in("O--/-O-", shape, "m").unwrap(), r);
        let e = Molecule::parse_linear_in("O---O", shape, "m").unwrap_err();
        assert!(e.message.contains("3×2 box has 6 cells"), "{e}");
        let e = Molecule::parse_linear_in("O-/-O/--", shape, "m").unwrap_err();
        assert!(e.message.contains("is 2×3 but the box is 3×2"), "{e}");
    }

    #[test]
    fn new_checks() {
        assert!(Molecule::new(2, [3, 0]).is_ok());
        assert!(Molecule::new(2, [4]).is_err());
        assert!(Molecule::new(2, [1, 1]).is_err());
        assert!(Molecule::new(0, []).is_err());
        let shape = Shape::new(3, 2).unwrap();
        assert!(Molecule::new(shape, [5]).is_ok());
        assert!(Molecule::new(shape, [6]).is_err());
        assert_eq!(
            Molecule::new(shape, [5]).unwrap().config().to_string(),
            "A1_B3x2"
        );
    }
}
