//! The box: cells, border positions and molecules.
//!
//! Rows and columns are numbered from 1 (top, left). A cell's linear index is
//! `p·(row−1) + (col−1)`. The 4p border positions are numbered counter-clockwise
//! from the top-left corner:
//!
//! ```text
//!      16 15 14 13          (p = 4)
//!    1  -  -  -  -  12
//!    2  -  -  -  -  11
//!    3  -  -  -  -  10
//!    4  -  -  -  -   9
//!       5  6  7  8
//! ```
//!
//! 1..p on the left (rays head east), p+1..2p along the bottom (north),
//! 2p+1..3p up the right side (west), 3p+1..4p along the top from right to left
//! (south).

use std::fmt;
use std::str::FromStr;

use crate::error::{Error, ParseError, quantity};
use crate::rules::config::{Config, MAX_WIDTH};

/// One of the four directions a ray can travel; named `north`, `east`,
/// `south`, `west`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize)]
#[serde(rename_all = "lowercase")]
#[derive(strum::Display, strum::IntoStaticStr)]
#[strum(serialize_all = "lowercase")]
pub enum Heading {
    /// Up (towards row 1).
    North,
    /// Right (towards column p).
    East,
    /// Down (towards row p).
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
#[derive(Debug, Clone, Copy, PartialEq, Eq, strum::IntoStaticStr)]
#[strum(serialize_all = "lowercase")]
pub enum Side {
    /// Positions 1..p.
    Left,
    /// Positions p+1..2p.
    Bottom,
    /// Positions 2p+1..3p.
    Right,
    /// Positions 3p+1..4p.
    Top,
}

impl Side {
    /// Lower-case name of the side.
    pub fn name(self) -> &'static str {
        self.into()
    }
}

/// Where a border position is: the cell just outside the box in padded
/// coordinates (rows and columns 0..=p+1) and the heading of a ray shot from it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Port {
    /// Row in 0..=p+1 (0 and p+1 are outside the box).
    pub row: usize,
    /// Column in 0..=p+1.
    pub col: usize,
    /// The heading of a ray entering the box here.
    pub heading: Heading,
    /// The side of the box.
    pub side: Side,
    /// The row (left/right sides) or column (top/bottom) the position faces, 1..=p.
    pub line: usize,
}

/// The port of border position `pos` (1..=4p) on a `width`-wide box.
///
/// ```
/// use bbx::rules::board::{port, Heading, Side};
/// let p = port(8, 31);
/// assert_eq!((p.row, p.col, p.heading, p.side), (0, 2, Heading::South, Side::Top));
/// ```
///
/// # Panics
/// When `pos` is not in 1..=4·width.
pub fn port(width: usize, pos: usize) -> Port {
    let p = width;
    assert!(
        pos >= 1 && pos <= 4 * p,
        "border position {pos} out of 1..={}",
        4 * p
    );
    if pos <= p {
        Port {
            row: pos,
            col: 0,
            heading: Heading::East,
            side: Side::Left,
            line: pos,
        }
    } else if pos <= 2 * p {
        let c = pos - p;
        Port {
            row: p + 1,
            col: c,
            heading: Heading::North,
            side: Side::Bottom,
            line: c,
        }
    } else if pos <= 3 * p {
        let r = 3 * p + 1 - pos;
        Port {
            row: r,
            col: p + 1,
            heading: Heading::West,
            side: Side::Right,
            line: r,
        }
    } else {
        let c = 4 * p + 1 - pos;
        Port {
            row: 0,
            col: c,
            heading: Heading::South,
            side: Side::Top,
            line: c,
        }
    }
}

/// The border position of the padded cell `(row, col)` just outside the box,
/// or `None` for a cell inside the box or a corner.
pub fn position_at(width: usize, row: usize, col: usize) -> Option<usize> {
    let p = width;
    let inside = |x: usize| (1..=p).contains(&x);
    if col == 0 && inside(row) {
        Some(row)
    } else if row == p + 1 && inside(col) {
        Some(p + col)
    } else if col == p + 1 && inside(row) {
        Some(3 * p + 1 - row)
    } else if row == 0 && inside(col) {
        Some(4 * p + 1 - col)
    } else {
        None
    }
}

/// A placement of atoms in a p×p box.
///
/// The linear form lists the cells row by row from the top, `O` for an atom and
/// `-` (or `.`) for an empty cell; its length must be a square.
///
/// ```
/// use bbx::Molecule;
/// let m: Molecule = "O-O-------------".parse().unwrap();
/// assert_eq!(m.width(), 4);
/// assert_eq!(m.atoms(), &[0, 2]);
/// assert!(m.is_atom(1, 3));
/// assert_eq!(m.to_string(), "O-O-------------");
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Molecule {
    width: usize,
    atoms: Vec<usize>,
}

impl Molecule {
    /// A molecule from its width and the linear indices of its atoms (any order).
    /// Refuses an index outside the box or an index given twice.
    pub fn new(width: usize, atoms: impl IntoIterator<Item = usize>) -> Result<Molecule, Error> {
        if width == 0 || width > MAX_WIDTH {
            return Err(Error::invalid(format!(
                "a box is 1 to {MAX_WIDTH} cells wide, not {width}"
            )));
        }
        let mut atoms: Vec<usize> = atoms.into_iter().collect();
        atoms.sort_unstable();
        if let Some(&last) = atoms.last()
            && last >= width * width
        {
            return Err(Error::invalid(format!(
                "cell index {last} is outside the {width}×{width} box (0..{})",
                width * width
            )));
        }
        if let Some(w) = atoms.windows(2).find(|w| w[0] == w[1]) {
            return Err(Error::invalid(format!(
                "cell index {} holds two atoms",
                w[0]
            )));
        }
        Ok(Molecule { width, atoms })
    }

    /// Builds a molecule from sorted, distinct, in-range indices without checking.
    pub(crate) fn from_sorted_unchecked(width: usize, atoms: Vec<usize>) -> Molecule {
        debug_assert!(atoms.windows(2).all(|w| w[0] < w[1]));
        debug_assert!(atoms.last().is_none_or(|&a| a < width * width));
        Molecule { width, atoms }
    }

    /// Parses the linear form; `origin` names the text in error messages.
    pub fn parse_linear(text: &str, origin: &str) -> Result<Molecule, ParseError> {
        let s = text.trim();
        let chars: Vec<char> = s.chars().collect();
        let n = chars.len();
        let width = (n as f64).sqrt().round() as usize;
        if n == 0 || width * width != n {
            return Err(ParseError::new(
                origin,
                1,
                0,
                format!(
                    "a molecule has p×p cells ('O' atom, '-' or '.' empty), but this one has {n} characters, which is not a square{}",
                    nearest_squares(n)
                ),
            ));
        }
        if width > MAX_WIDTH {
            return Err(ParseError::new(
                origin,
                1,
                0,
                format!("a box is at most {MAX_WIDTH} cells wide"),
            ));
        }
        let mut atoms = Vec::new();
        for (i, &c) in chars.iter().enumerate() {
            match c {
                'O' => atoms.push(i),
                '-' | '.' => {}
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
        }
        Ok(Molecule { width, atoms })
    }

    /// Width p of the box.
    pub fn width(&self) -> usize {
        self.width
    }

    /// Linear indices of the atoms, in increasing order.
    pub fn atoms(&self) -> &[usize] {
        &self.atoms
    }

    /// The configuration `An_Bp` this molecule belongs to.
    pub fn config(&self) -> Config {
        Config {
            atoms: self.atoms.len(),
            width: self.width,
        }
    }

    /// Whether cell (`row`, `col`) (1-based) holds an atom; `false` outside the box.
    pub fn is_atom(&self, row: usize, col: usize) -> bool {
        let p = self.width;
        (1..=p).contains(&row)
            && (1..=p).contains(&col)
            && self.atoms.binary_search(&(p * (row - 1) + col - 1)).is_ok()
    }

    /// The cells as booleans, row by row (`true` for an atom).
    pub fn cells(&self) -> Vec<bool> {
        let mut v = vec![false; self.width * self.width];
        for &a in &self.atoms {
            v[a] = true;
        }
        v
    }

    /// Checks that the molecule has the configuration's width and atom count.
    pub fn check_config(&self, config: Config) -> Result<(), Error> {
        if self.width != config.width {
            return Err(Error::invalid(format!(
                "the molecule is {w}×{w} but configuration {config} has a {p}×{p} box",
                w = self.width,
                p = config.width
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
    /// The linear form (`O` and `-`).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut s = vec![b'-'; self.width * self.width];
        for &a in &self.atoms {
            s[a] = b'O';
        }
        f.write_str(std::str::from_utf8(&s).map_err(|_| fmt::Error)?)
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
    }

    #[test]
    fn new_checks() {
        assert!(Molecule::new(2, [3, 0]).is_ok());
        assert!(Molecule::new(2, [4]).is_err());
        assert!(Molecule::new(2, [1, 1]).is_err());
        assert!(Molecule::new(0, []).is_err());
    }
}
