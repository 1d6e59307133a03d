//! The eight symmetries of the square, on molecules, border positions and spectra.
//!
//! Names and formulas are J. Forget's. Each transform is given by where the new
//! board takes each cell from, with p the width:
//!
//! | transform | new(r, c) = m(…) |
//! |-----------|------------------|
//! | `id`      | (r, c) |
//! | `rot90`   | (c, p+1−r) |
//! | `rot180`  | (p+1−r, p+1−c) |
//! | `rot270`  | (p+1−c, r) |
//! | `symm-h`  | (r, p+1−c) |
//! | `symm-v`  | (p+1−r, c) |
//! | `diag-1`  | (c, r) |
//! | `diag-2`  | (p+1−c, p+1−r) |
//!
//! The rules commute with every symmetry: the spectrum of g(m) is g applied to
//! the spectrum of m.
//!
//! ```
//! use bbx::{Molecule, Rules, Spectrum, Transform};
//! let m: Molecule = "O-O-------------".parse().unwrap();
//! let g = Transform::Rot180;
//! assert_eq!(g.molecule(&m).to_string(), "-------------O-O");
//! assert_eq!(
//!     Spectrum::of(&g.molecule(&m), Rules::Standard),
//!     g.spectrum(&Spectrum::of(&m, Rules::Standard)),
//! );
//! ```

use crate::rules::board::{Molecule, port, position_at};
use crate::rules::ray::Outcome;
use crate::rules::spectrum::Spectrum;

/// One of the eight symmetries of the square, named as J. Forget names
/// them: `id`, `rot90`, `rot180`, `rot270`, `symm-h`, `symm-v`, `diag-1`,
/// `diag-2`.
#[derive(
    Debug,
    Clone,
    Copy,
    PartialEq,
    Eq,
    Hash,
    PartialOrd,
    Ord,
    strum::Display,
    strum::IntoStaticStr,
    strum::EnumString,
)]
#[strum(serialize_all = "kebab-case")]
#[strum(parse_err_ty = String, parse_err_fn = unknown_transform)]
pub enum Transform {
    /// The identity.
    Id,
    /// Half turn.
    Rot180,
    /// Quarter turn: new(r, c) = m(c, p+1−r).
    Rot90,
    /// Three quarter turns: new(r, c) = m(p+1−c, r).
    Rot270,
    /// Mirror left–right: new(r, c) = m(r, p+1−c).
    SymmH,
    /// Mirror top–bottom: new(r, c) = m(p+1−r, c).
    SymmV,
    /// Transpose: new(r, c) = m(c, r).
    #[strum(to_string = "diag-1")]
    Diag1,
    /// Anti-transpose: new(r, c) = m(p+1−c, p+1−r).
    #[strum(to_string = "diag-2")]
    Diag2,
}

impl Transform {
    /// All eight, in the order that breaks ties when several transforms map the
    /// canonical molecule onto a symmetric one.
    pub const ALL: [Transform; 8] = [
        Transform::Id,
        Transform::Rot180,
        Transform::Rot90,
        Transform::Rot270,
        Transform::SymmH,
        Transform::SymmV,
        Transform::Diag1,
        Transform::Diag2,
    ];

    /// J. Forget's name: `id`, `rot90`, `rot180`, `rot270`, `symm-h`, `symm-v`,
    /// `diag-1`, `diag-2`.
    pub fn name(self) -> &'static str {
        self.into()
    }

    /// The transform that undoes this one.
    pub fn inverse(self) -> Transform {
        match self {
            Transform::Rot90 => Transform::Rot270,
            Transform::Rot270 => Transform::Rot90,
            t => t,
        }
    }

    /// Where the new board takes cell (`r`, `c`) from: new(r, c) = m(source(r, c)).
    /// Works on padded coordinates 0..=p+1 as well as on cells 1..=p.
    pub fn source(self, width: usize, r: usize, c: usize) -> (usize, usize) {
        let q = width + 1;
        match self {
            Transform::Id => (r, c),
            Transform::Rot90 => (c, q - r),
            Transform::Rot180 => (q - r, q - c),
            Transform::Rot270 => (q - c, r),
            Transform::SymmH => (r, q - c),
            Transform::SymmV => (q - r, c),
            Transform::Diag1 => (c, r),
            Transform::Diag2 => (q - c, q - r),
        }
    }

    /// Where cell (`r`, `c`) of the old board goes on the new one.
    pub fn image(self, width: usize, r: usize, c: usize) -> (usize, usize) {
        self.inverse().source(width, r, c)
    }

    /// The image of linear cell index `cell` on a `width`-wide box.
    pub fn cell(self, width: usize, cell: usize) -> usize {
        let (r, c) = self.image(width, cell / width + 1, cell % width + 1);
        (r - 1) * width + (c - 1)
    }

    /// The image of border position `pos` (1..=4p).
    pub fn position(self, width: usize, pos: usize) -> usize {
        let q = port(width, pos);
        let (r, c) = self.image(width, q.row, q.col);
        position_at(width, r, c).expect("a symmetry maps the border onto itself")
    }

    /// The image of a molecule.
    pub fn molecule(self, m: &Molecule) -> Molecule {
        let w = m.width();
        let mut atoms: Vec<usize> = m.atoms().iter().map(|&a| self.cell(w, a)).collect();
        atoms.sort_unstable();
        Molecule::from_sorted_unchecked(w, atoms)
    }

    /// The image of a spectrum: the spectrum of the transformed molecule.
    pub fn spectrum(self, s: &Spectrum) -> Spectrum {
        let w = s.width();
        let mut out = vec![Outcome::Miss; 4 * w];
        for (i, &r) in s.outcomes().iter().enumerate() {
            let r = match r {
                Outcome::Exit(k) => Outcome::Exit(self.position(w, k)),
                other => other,
            };
            out[self.position(w, i + 1) - 1] = r;
        }
        Spectrum::from_outcomes_unchecked(w, out)
    }

    /// J. Forget's string formulas, applied to a raw spectrum string (4p
    /// characters) before renormalising its letters. [`Transform::spectrum`]
    /// agrees with these.
    pub fn spectrum_string(self, s: &str) -> String {
        let c: Vec<char> = s.chars().collect();
        let n = c.len();
        let p = n / 4;
        let f: Vec<char> = c.iter().rev().copied().collect();
        let rotate = |v: &[char], k: usize| -> String { v[k..].iter().chain(&v[..k]).collect() };
        match self {
            Transform::Id => c.iter().collect(),
            Transform::Rot90 => rotate(&c, 3 * p),
            Transform::Rot180 => rotate(&c, 2 * p),
            Transform::Rot270 => rotate(&c, p),
            Transform::Diag1 => f.iter().collect(),
            Transform::SymmH => rotate(&f, p),
            Transform::SymmV => rotate(&f, 3 * p),
            Transform::Diag2 => rotate(&f, 2 * p),
        }
    }
}

/// The error of a name that is no transform.
fn unknown_transform(s: &str) -> String {
    let names = Transform::ALL.map(Transform::name).join(", ");
    format!(
        "unknown transform {} (expected one of {names})",
        crate::error::quote(s)
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::ray::Rules;

    #[test]
    fn names_are_j_forget_s() {
        let names = Transform::ALL.map(Transform::name).join(" ");
        assert_eq!(names, "id rot180 rot90 rot270 symm-h symm-v diag-1 diag-2");
        for t in Transform::ALL {
            assert_eq!(t.to_string().parse::<Transform>(), Ok(t));
        }
        assert_eq!(
            "Rot90".parse::<Transform>(),
            Err("unknown transform 'Rot90' (expected one of id, rot180, rot90, rot270, symm-h, symm-v, diag-1, diag-2)".to_string())
        );
    }

    #[test]
    fn inverse_and_image() {
        for t in Transform::ALL {
            for p in 1..=5 {
                for r in 0..=p + 1 {
                    for c in 0..=p + 1 {
                        let (a, b) = t.source(p, r, c);
                        assert_eq!(t.image(p, a, b), (r, c), "{t} p={p}");
                    }
                }
            }
        }
    }

    #[test]
    fn seed_enantiomers() {
        // J. Forget's example and two of its seven enantiomers.
        let m: Molecule = "-OO-----\
                           -O------\
                           O-------\
                           --------\
                           --------\
                           --------\
                           --------\
                           --------"
            .parse()
            .unwrap();
        let r270 = Transform::Rot270.molecule(&m).to_string();
        assert_eq!(&r270[..24], "-----O--------OO-------O");
        let r90 = Transform::Rot90.molecule(&m).to_string();
        assert_eq!(&r90[40..], "O-------OO--------O-----");
    }

    #[test]
    fn string_formulas_agree() {
        let m: Molecule = "O-O-----------O---------O-----------".parse().unwrap();
        let s = Spectrum::of(&m, Rules::Standard);
        let raw = s.to_string();
        for t in Transform::ALL {
            let via_string = Spectrum::parse(&t.spectrum_string(&raw), "t").unwrap();
            assert_eq!(via_string, t.spectrum(&s), "{t}");
        }
        assert_eq!(
            Transform::Rot180.spectrum(&s).to_string(),
            "a@b@&@cd&@&@@&@&@&@a@bdc"
        );
    }
}
