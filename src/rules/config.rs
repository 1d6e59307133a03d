//! Configurations `An_Bp`: n atoms hidden in a p×p box.

use std::fmt;
use std::str::FromStr;

use crate::error::{Error, quantity};

/// The widest box bbx accepts. Tracing and solving work on any board up to this
/// width; enumeration needs far smaller boards in practice.
pub const MAX_WIDTH: usize = 1000;

/// A configuration: `atoms` atoms in a `width`×`width` box (`A4_B8` is the
/// standard game).
///
/// ```
/// use bbx::Config;
/// let c: Config = "a4_b8".parse().unwrap();
/// assert_eq!((c.atoms, c.width), (4, 8));
/// assert_eq!(c.to_string(), "A4_B8");
/// assert_eq!(c.molecule_count(), Some(635_376));
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Config {
    /// Number of atoms, n.
    pub atoms: usize,
    /// Width of the box, p.
    pub width: usize,
}

impl Config {
    /// Builds a configuration, refusing a zero or too wide box and more atoms
    /// than cells.
    pub fn new(atoms: usize, width: usize) -> Result<Config, Error> {
        let input = format!("A{atoms}_B{width}");
        Config::checked(atoms, width, &input)
    }

    fn checked(atoms: usize, width: usize, input: &str) -> Result<Config, Error> {
        let err = |reason: String| Error::Config {
            input: input.to_string(),
            reason,
        };
        if width == 0 {
            return Err(err("the box width p must be at least 1".into()));
        }
        if width > MAX_WIDTH {
            return Err(err(format!("the box width p must be at most {MAX_WIDTH}")));
        }
        if atoms > width * width {
            return Err(err(format!(
                "{atoms} atoms do not fit in a {width}×{width} box ({})",
                quantity(width * width, "cell", "cells")
            )));
        }
        Ok(Config { atoms, width })
    }

    /// Number of cells, p².
    pub fn cells(&self) -> usize {
        self.width * self.width
    }

    /// Number of border positions, 4p.
    pub fn positions(&self) -> usize {
        4 * self.width
    }

    /// Number of molecules, C(p², n), or `None` when it does not fit in a `u64`
    /// (such configurations have no molecule numbers).
    pub fn molecule_count(&self) -> Option<u64> {
        binomial(self.cells() as u64, self.atoms as u64)
    }

    /// Whether molecules of this configuration have numbers (their count fits in a `u64`).
    pub fn is_enumerable(&self) -> bool {
        self.molecule_count().is_some()
    }
}

impl fmt::Display for Config {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "A{}_B{}", self.atoms, self.width)
    }
}

impl FromStr for Config {
    type Err = Error;

    /// Parses `An_Bp`, case-insensitively (`a4_b8` is `A4_B8`).
    fn from_str(s: &str) -> Result<Config, Error> {
        let malformed = || Error::Config {
            input: s.to_string(),
            reason: "expected An_Bp, for example A4_B8 for 4 atoms in an 8×8 box".into(),
        };
        let t = s.trim();
        let rest = t
            .strip_prefix('A')
            .or_else(|| t.strip_prefix('a'))
            .ok_or_else(malformed)?;
        let (n, p) = rest.split_once('_').ok_or_else(malformed)?;
        let p = p
            .strip_prefix('B')
            .or_else(|| p.strip_prefix('b'))
            .ok_or_else(malformed)?;
        let digits =
            |x: &str| !x.is_empty() && x.len() <= 9 && x.bytes().all(|b| b.is_ascii_digit());
        if !digits(n) || !digits(p) {
            return Err(malformed());
        }
        let atoms: usize = n.parse().map_err(|_| malformed())?;
        let width: usize = p.parse().map_err(|_| malformed())?;
        Config::checked(atoms, width, s)
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
                width: 20
            }
        );
        assert_eq!("a0_b1".parse::<Config>().unwrap().to_string(), "A0_B1");
    }

    #[test]
    fn rejects_bad_configurations() {
        for s in [
            "", "A4", "A4B8", "B8_A4", "A-4_B8", "A4_B", "A_B8", "A4_B8x", "X4_B8", "A4__B8",
        ] {
            let e = s.parse::<Config>().unwrap_err().to_string();
            assert!(e.contains("expected An_Bp"), "{s}: {e}");
        }
        let e = "A17_B4".parse::<Config>().unwrap_err().to_string();
        assert!(e.contains("do not fit"), "{e}");
        let e = "A0_B0".parse::<Config>().unwrap_err().to_string();
        assert!(e.contains("at least 1"), "{e}");
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
    }
}
