//! Configurations `An_Bp` (n atoms hidden in a p×p box) and `An_BwxH` (in a
//! box w wide and h high), their shapes, and ranges of atom counts
//! (`A3-6_B8`) for games whose count is hidden.
//!
//! A square box keeps its short name: `A4_B8`, never `A4_B8x8` (which is
//! read, and written `A4_B8`). A rectangle names its width first, then its
//! height, as Simon Tatham's `w8h6` and his "8x6" presets do: `A5_B8x6` is
//! 5 atoms in a box 8 cells wide and 6 high.

use std::fmt;
use std::str::FromStr;

use crate::error::{Error, quantity};

/// The widest (and the highest) box bbx accepts. Tracing and solving work on
/// any board up to this size; enumeration needs far smaller boards in
/// practice.
pub const MAX_WIDTH: usize = 1000;

/// The size of a box: `width` columns and `height` rows (each 1 to
/// [`MAX_WIDTH`]). A square's `height` equals its `width`.
///
/// ```
/// use bbx::rules::config::Shape;
/// let s = Shape::new(8, 6).unwrap();
/// assert_eq!((s.cells(), s.positions()), (48, 28));
/// assert_eq!(s.to_string(), "8×6");
/// assert!(Shape::square(8).is_square());
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Shape {
    /// Columns, w.
    pub width: usize,
    /// Rows, h.
    pub height: usize,
}

impl Shape {
    /// A p×p box (not checked: see [`Shape::new`]).
    pub const fn square(width: usize) -> Shape {
        Shape {
            width,
            height: width,
        }
    }

    /// A box `width` wide and `height` high, each 1 to [`MAX_WIDTH`].
    pub fn new(width: usize, height: usize) -> Result<Shape, Error> {
        for (what, n) in [("wide", width), ("high", height)] {
            if n == 0 || n > MAX_WIDTH {
                return Err(Error::invalid(format!(
                    "a box is 1 to {MAX_WIDTH} cells {what}, not {n}"
                )));
            }
        }
        Ok(Shape { width, height })
    }

    /// Whether the box is square.
    pub const fn is_square(self) -> bool {
        self.width == self.height
    }

    /// Number of cells, w·h.
    pub const fn cells(self) -> usize {
        self.width * self.height
    }

    /// Number of border positions, 2(w+h) (4p for a square).
    pub const fn positions(self) -> usize {
        2 * (self.width + self.height)
    }

    /// The linear index of cell (`row`, `col`), both 1-based: w·(row−1) + (col−1).
    pub const fn index(self, row: usize, col: usize) -> usize {
        self.width * (row - 1) + (col - 1)
    }

    /// The 1-based (row, column) of linear cell index `cell`.
    pub const fn row_col(self, cell: usize) -> (usize, usize) {
        (cell / self.width + 1, cell % self.width + 1)
    }
}

impl From<usize> for Shape {
    /// The p×p square.
    fn from(width: usize) -> Shape {
        Shape::square(width)
    }
}

impl fmt::Display for Shape {
    /// `8×8`, `8×6` (width first).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}×{}", self.width, self.height)
    }
}

/// A configuration: `atoms` atoms in a box `width` wide and `height` high
/// (`A4_B8` is the standard game; `A5_B8x6` a rectangle).
///
/// ```
/// use bbx::Config;
/// let c: Config = "a4_b8".parse().unwrap();
/// assert_eq!((c.atoms, c.width, c.height), (4, 8, 8));
/// assert_eq!(c.to_string(), "A4_B8");
/// assert_eq!(c.molecule_count(), Some(635_376));
/// let r: Config = "A5_B8x6".parse().unwrap();
/// assert_eq!((r.width, r.height, r.positions()), (8, 6, 28));
/// assert_eq!(r.to_string(), "A5_B8x6");
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Config {
    /// Number of atoms, n.
    pub atoms: usize,
    /// Width of the box (columns), w (p for a square).
    pub width: usize,
    /// Height of the box (rows), h (p for a square).
    pub height: usize,
}

impl Config {
    /// Builds a configuration of a p×p box, refusing a zero or too wide box
    /// and more atoms than cells.
    pub fn new(atoms: usize, width: usize) -> Result<Config, Error> {
        Config::shaped(atoms, Shape::square(width))
    }

    /// Builds a configuration of a box of any shape, refusing a zero or too
    /// large box and more atoms than cells.
    pub fn shaped(atoms: usize, shape: Shape) -> Result<Config, Error> {
        let input = Config {
            atoms,
            width: shape.width,
            height: shape.height,
        }
        .to_string();
        Config::checked(atoms, shape, &input)
    }

    fn checked(atoms: usize, shape: Shape, input: &str) -> Result<Config, Error> {
        let err = |reason: String| Error::Config {
            input: input.to_string(),
            reason,
        };
        let (w, h) = (shape.width, shape.height);
        let side = if shape.is_square() {
            "width p"
        } else if w == 0 || w > MAX_WIDTH {
            "width w"
        } else {
            "height h"
        };
        if w == 0 || h == 0 {
            return Err(err(format!("the box {side} must be at least 1")));
        }
        if w > MAX_WIDTH || h > MAX_WIDTH {
            return Err(err(format!("the box {side} must be at most {MAX_WIDTH}")));
        }
        if atoms > shape.cells() {
            return Err(err(format!(
                "{atoms} atoms do not fit in a {shape} box ({})",
                quantity(shape.cells(), "cell", "cells")
            )));
        }
        Ok(Config {
            atoms,
            width: w,
            height: h,
        })
    }

    /// The box's shape.
    pub const fn shape(&self) -> Shape {
        Shape {
            width: self.width,
            height: self.height,
        }
    }

    /// Whether the box is square.
    pub const fn is_square(&self) -> bool {
        self.width == self.height
    }

    /// Number of cells, w·h (p²).
    pub const fn cells(&self) -> usize {
        self.width * self.height
    }

    /// Number of border positions, 2(w+h) (4p).
    pub const fn positions(&self) -> usize {
        2 * (self.width + self.height)
    }

    /// Number of molecules, C(w·h, n), or `None` when it does not fit in a
    /// `u64` (such configurations have no molecule numbers).
    pub fn molecule_count(&self) -> Option<u64> {
        binomial(self.cells() as u64, self.atoms as u64)
    }

    /// Whether molecules of this configuration have numbers (their count fits in a `u64`).
    pub fn is_enumerable(&self) -> bool {
        self.molecule_count().is_some()
    }
}

/// Writes the box part of a name: `B8` for a square, `B8x6` for a rectangle.
fn write_box(f: &mut fmt::Formatter<'_>, shape: Shape) -> fmt::Result {
    if shape.is_square() {
        write!(f, "B{}", shape.width)
    } else {
        write!(f, "B{}x{}", shape.width, shape.height)
    }
}

impl fmt::Display for Config {
    /// `A4_B8` for a square, `A5_B8x6` for a box 8 wide and 6 high.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "A{}_", self.atoms)?;
        write_box(f, self.shape())
    }
}

/// What a configuration should look like, for the message about a malformed one.
const EXPECTED: &str = "expected An_Bp, for example A4_B8 for 4 atoms in an 8×8 box (or An_BwxH for a box w wide and h high, such as A5_B8x6)";

/// A name `An_Bp`, `An_BwxH` or `Am-M_B…` read into its parts: the least
/// atoms, the most when a range is given, and the box.
fn parse_name(s: &str) -> Option<(usize, Option<usize>, Shape)> {
    let t = s.trim();
    let rest = t.strip_prefix(['A', 'a'])?;
    let (n, b) = rest.split_once('_')?;
    let b = b.strip_prefix(['B', 'b'])?;
    let digits = |x: &str| -> Option<usize> {
        (!x.is_empty() && x.len() <= 9 && x.bytes().all(|c| c.is_ascii_digit()))
            .then(|| x.parse().ok())
            .flatten()
    };
    let (least, most) = match n.split_once('-') {
        Some((a, b)) => (digits(a)?, Some(digits(b)?)),
        None => (digits(n)?, None),
    };
    let shape = match b.split_once(['x', 'X']) {
        Some((w, h)) => Shape {
            width: digits(w)?,
            height: digits(h)?,
        },
        None => Shape::square(digits(b)?),
    };
    Some((least, most, shape))
}

impl FromStr for Config {
    type Err = Error;

    /// Parses `An_Bp` or `An_BwxH`, case-insensitively (`a4_b8` is `A4_B8`,
    /// `a5_b8X6` is `A5_B8x6`).
    fn from_str(s: &str) -> Result<Config, Error> {
        let malformed = |reason: &str| Error::Config {
            input: s.to_string(),
            reason: reason.into(),
        };
        match parse_name(s).ok_or_else(|| malformed(EXPECTED))? {
            (atoms, None, shape) => Config::checked(atoms, shape, s),
            (_, Some(_), _) => Err(malformed(
                "expected one atom count here, not a range (such as A4_B8)",
            )),
        }
    }
}

/// A configuration whose atom count may be a range, as Simon Tatham's
/// games allow (`w8h8m3M6`): `A3-6_B8` hides 3 to 6 atoms in an 8×8 box,
/// the count drawn at random and never shown. A single count (`A4_B8`) is a
/// range of one.
///
/// ```
/// use bbx::rules::config::ConfigRange;
/// let r: ConfigRange = "A3-6_B8".parse().unwrap();
/// assert_eq!((r.min_atoms, r.max_atoms), (3, 6));
/// assert_eq!(r.to_string(), "A3-6_B8");
/// assert_eq!(r.exact(), None);
/// let one: ConfigRange = "A5_B8x6".parse().unwrap();
/// assert_eq!(one.exact().unwrap().to_string(), "A5_B8x6");
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
#[serde(into = "String", try_from = "String")]
pub struct ConfigRange {
    /// The fewest atoms.
    pub min_atoms: usize,
    /// The most atoms.
    pub max_atoms: usize,
    /// The box.
    pub shape: Shape,
}

impl ConfigRange {
    /// The range `min_atoms..=max_atoms` in a box of `shape`, refusing an
    /// empty range, a box too large and more atoms than cells.
    pub fn new(min_atoms: usize, max_atoms: usize, shape: Shape) -> Result<ConfigRange, Error> {
        let r = ConfigRange {
            min_atoms,
            max_atoms,
            shape,
        };
        r.checked(&r.to_string())
    }

    fn checked(self, input: &str) -> Result<ConfigRange, Error> {
        if self.min_atoms > self.max_atoms {
            return Err(Error::Config {
                input: input.to_string(),
                reason: format!(
                    "the fewest atoms ({}) is more than the most ({})",
                    self.min_atoms, self.max_atoms
                ),
            });
        }
        Config::checked(self.max_atoms, self.shape, input)?;
        Ok(self)
    }

    /// The configuration when the range holds one count.
    pub fn exact(&self) -> Option<Config> {
        (self.min_atoms == self.max_atoms).then_some(Config {
            atoms: self.min_atoms,
            width: self.shape.width,
            height: self.shape.height,
        })
    }

    /// The configuration of `atoms` atoms in this range's box.
    pub fn with_atoms(&self, atoms: usize) -> Config {
        Config {
            atoms,
            width: self.shape.width,
            height: self.shape.height,
        }
    }

    /// The counts allowed.
    pub fn atoms(&self) -> std::ops::RangeInclusive<usize> {
        self.min_atoms..=self.max_atoms
    }

    /// The molecules of every count of the range together (`None` past
    /// 2^64).
    ///
    /// ```
    /// let r: bbx::rules::config::ConfigRange = "A1-2_B4".parse().unwrap();
    /// assert_eq!(r.molecule_count(), Some(16 + 120));
    /// ```
    pub fn molecule_count(&self) -> Option<u64> {
        self.atoms().try_fold(0u64, |n, k| {
            n.checked_add(self.with_atoms(k).molecule_count()?)
        })
    }
}

/// In JSON a range is its name, `A3-6_B8`.
impl From<ConfigRange> for String {
    fn from(r: ConfigRange) -> String {
        r.to_string()
    }
}

impl TryFrom<String> for ConfigRange {
    type Error = Error;
    fn try_from(s: String) -> Result<ConfigRange, Error> {
        s.parse()
    }
}

impl From<Config> for ConfigRange {
    fn from(c: Config) -> ConfigRange {
        ConfigRange {
            min_atoms: c.atoms,
            max_atoms: c.atoms,
            shape: c.shape(),
        }
    }
}

impl fmt::Display for ConfigRange {
    /// `A3-6_B8`; a range of one count is written as its configuration (`A4_B8`).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.min_atoms == self.max_atoms {
            write!(f, "A{}_", self.min_atoms)?;
        } else {
            write!(f, "A{}-{}_", self.min_atoms, self.max_atoms)?;
        }
        write_box(f, self.shape)
    }
}

impl FromStr for ConfigRange {
    type Err = Error;

    /// Parses `An_Bp`, `An_BwxH`, or either with a range `Am-M` of atoms
    /// (`A3-6_B8`), case-insensitively.
    fn from_str(s: &str) -> Result<ConfigRange, Error> {
        let (min_atoms, max_atoms, shape) = parse_name(s).ok_or_else(|| Error::Config {
            input: s.to_string(),
            reason: format!("{EXPECTED}, or Am-M_Bp for m to M atoms such as A3-6_B8"),
        })?;
        ConfigRange {
            min_atoms,
            max_atoms: max_atoms.unwrap_or(min_atoms),
            shape,
        }
        .checked(s)
    }
}

/// C(n, k) in 128 bits, or `None` when it does not fit.
///
/// ```
/// assert_eq!(bbx::rules::config::binomial_wide(90_000, 4), Some(2_733_567_753_712_477_500));
/// ```
pub fn binomial_wide(n: u64, k: u64) -> Option<u128> {
    if k > n {
        return Some(0);
    }
    let k = k.min(n - k);
    let mut acc: u128 = 1;
    for i in 0..k {
        // acc · (n − i) / (i + 1) is an integer at every step. With g the gcd
        // of acc and i + 1, (i + 1)/g divides n − i, so no step overflows
        // unless its result does.
        let (num, den) = (u128::from(n - i), u128::from(i + 1));
        let g = gcd(acc, den);
        acc = (acc / g).checked_mul(num / (den / g))?;
    }
    Some(acc)
}

fn gcd(mut a: u128, mut b: u128) -> u128 {
    while b != 0 {
        (a, b) = (b, a % b);
    }
    a
}

/// C(n, k), or `None` when it does not fit in a `u64`.
pub fn binomial(n: u64, k: u64) -> Option<u64> {
    if k > n {
        return Some(0);
    }
    let k = k.min(n - k);
    let mut acc: u128 = 1;
    for i in 0..k {
        // acc · (n − i) / (i + 1) stays an integer at every step.
        acc = acc * u128::from(n - i) / u128::from(i + 1);
        if acc > u128::from(u64::MAX) {
            return None;
        }
    }
    Some(acc as u64)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_and_prints() {
        for s in ["A4_B8", "a4_b8", "A4_b8", " A2_B4 "] {
            let c: Config = s.parse().unwrap();
            assert!(c.width > 0);
        }
        assert_eq!(
            "A12_B20".parse::<Config>().unwrap(),
            Config {
                atoms: 12,
                width: 20,
                height: 20
            }
        );
        let r: Config = "a5_b8X6".parse().unwrap();
        assert_eq!((r.atoms, r.width, r.height), (5, 8, 6));
        assert_eq!(r.to_string(), "A5_B8x6");
        assert_eq!("A5_B8x8".parse::<Config>().unwrap().to_string(), "A5_B8");
        assert_eq!("A1_B1x3".parse::<Config>().unwrap().positions(), 8);
        assert_eq!("a0_b1".parse::<Config>().unwrap().to_string(), "A0_B1");
    }

    #[test]
    fn rejects_bad_configurations() {
        for s in [
            "",
            "A4",
            "A4B8",
            "B8_A4",
            "A-4_B8",
            "A4_B",
            "A_B8",
            "A4_B8x",
            "X4_B8",
            "A4__B8",
            "A4_Bx8",
            "A4_B8x6x2",
            "A4_B8y6",
        ] {
            let e = s.parse::<Config>().unwrap_err().to_string();
            assert!(e.contains("expected An_Bp"), "{s}: {e}");
        }
        let e = "A17_B4".parse::<Config>().unwrap_err().to_string();
        assert!(e.contains("do not fit"), "{e}");
        let e = "A0_B0".parse::<Config>().unwrap_err().to_string();
        assert!(e.contains("at least 1"), "{e}");
        let e = "A5_B8x0".parse::<Config>().unwrap_err().to_string();
        assert!(e.contains("height h must be at least 1"), "{e}");
        let e = "A49_B8x6".parse::<Config>().unwrap_err().to_string();
        assert!(
            e.contains("49 atoms do not fit in a 8×6 box (48 cells)"),
            "{e}"
        );
        let e = "A3-6_B8".parse::<Config>().unwrap_err().to_string();
        assert!(e.contains("not a range"), "{e}");
    }

    #[test]
    fn ranges() {
        let r: ConfigRange = "a3-6_b8".parse().unwrap();
        assert_eq!(
            (r.min_atoms, r.max_atoms, r.shape),
            (3, 6, Shape::square(8))
        );
        assert_eq!(r.to_string(), "A3-6_B8");
        assert_eq!(r.exact(), None);
        let r: ConfigRange = "A4-10_B10x7".parse().unwrap();
        assert_eq!(r.to_string(), "A4-10_B10x7");
        assert_eq!(r.with_atoms(5).to_string(), "A5_B10x7");
        let r: ConfigRange = "A4_B8".parse().unwrap();
        assert_eq!(r.exact(), Some("A4_B8".parse().unwrap()));
        assert_eq!(r.to_string(), "A4_B8");
        let e = "A6-3_B8".parse::<ConfigRange>().unwrap_err().to_string();
        assert!(
            e.contains("fewest atoms (6) is more than the most (3)"),
            "{e}"
        );
        let e = "A3-5_B2".parse::<ConfigRange>().unwrap_err().to_string();
        assert!(e.contains("do not fit"), "{e}");
        let e = "A3-_B8".parse::<ConfigRange>().unwrap_err().to_string();
        assert!(e.contains("A3-6_B8"), "{e}");
    }

    #[test]
    fn counts() {
        let count = |s: &str| s.parse::<Config>().unwrap().molecule_count();
        assert_eq!(count("A2_B4"), Some(120));
        assert_eq!(count("A3_B4"), Some(560));
        assert_eq!(count("A4_B4"), Some(1820));
        assert_eq!(count("A4_B5"), Some(12650));
        assert_eq!(count("A4_B6"), Some(58905));
        assert_eq!(count("A4_B8"), Some(635376));
        assert_eq!(count("A12_B20"), None);
        assert_eq!(count("A5_B8x6"), Some(1_712_304));
    }
}
