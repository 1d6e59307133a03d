//! The symmetries of the box, on molecules, border positions and spectra:
//! eight for a square, four for a rectangle (`id`, `rot180`, `symm-h`,
//! `symm-v`: a quarter turn or a diagonal mirror would make it w high and h
//! wide), given by [`Transform::of`].
//!
//! Names and formulas are J. Forget's. Each transform is given by where the new
//! board takes each cell from, with p the width of a square (on a rectangle,
//! h+1−r and w+1−c):
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
use crate::rules::config::Shape;
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

    /// The four that map a rectangle onto itself, in the order of
    /// [`Transform::ALL`].
    pub const RECTANGLE: [Transform; 4] = [
        Transform::Id,
        Transform::Rot180,
        Transform::SymmH,
        Transform::SymmV,
    ];

    /// The symmetries of a box of `shape`: [`Transform::ALL`] for a square,
    /// [`Transform::RECTANGLE`] otherwise.
    ///
    /// ```
    /// use bbx::Transform;
    /// use bbx::rules::config::Shape;
    /// assert_eq!(Transform::of(Shape::square(8)).len(), 8);
    /// assert_eq!(Transform::of(Shape::new(8, 6).unwrap()), Transform::RECTANGLE);
    /// ```
    pub fn of(shape: Shape) -> &'static [Transform] {
        if shape.is_square() {
            &Transform::ALL
        } else {
            &Transform::RECTANGLE
        }
    }

    /// The box's symmetries in eight slots, for tables that keep one entry
    /// per symmetry of the square: [`Transform::ALL`] for a square, and a
    /// rectangle's four twice over (`id rot180 symm-h symm-v id rot180
    /// symm-h symm-v`). Each symmetry then fills 8/|G| slots, so counts over
    /// the slots keep their meaning: a molecule fixed by s slots has an
    /// orbit of 8/s, and the first slot holding a transform is its first in
    /// [`Transform::ALL`] order.
    pub fn slots(shape: Shape) -> [Transform; 8] {
        if shape.is_square() {
            Transform::ALL
        } else {
            let [a, b, c, d] = Transform::RECTANGLE;
            [a, b, c, d, a, b, c, d]
        }
    }

    /// Whether this transform maps a box of `shape` onto itself (every one
    /// does for a square; a quarter turn or a diagonal mirror never does for
    /// a rectangle).
    pub fn fits(self, shape: Shape) -> bool {
        shape.is_square() || Transform::RECTANGLE.contains(&self)
    }

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
    /// Works on padded coordinates (rows 0..=h+1, columns 0..=w+1) as well as
    /// on cells.
    ///
    /// # Panics
    /// When the transform does not [fit](Transform::fits) the box.
    pub fn source(self, shape: impl Into<Shape>, r: usize, c: usize) -> (usize, usize) {
        let shape = shape.into();
        assert!(self.fits(shape), "{self} is no symmetry of a {shape} box");
        let (qr, qc) = (shape.height + 1, shape.width + 1);
        match self {
            Transform::Id => (r, c),
            Transform::Rot90 => (c, qc - r),
            Transform::Rot180 => (qr - r, qc - c),
            Transform::Rot270 => (qr - c, r),
            Transform::SymmH => (r, qc - c),
            Transform::SymmV => (qr - r, c),
            Transform::Diag1 => (c, r),
            Transform::Diag2 => (qr - c, qc - r),
        }
    }

    /// Where cell (`r`, `c`) of the old board goes on the new one.
    pub fn image(self, shape: impl Into<Shape>, r: usize, c: usize) -> (usize, usize) {
        self.inverse().source(shape, r, c)
    }

    /// The image of linear cell index `cell` on a box of `shape`.
    pub fn cell(self, shape: impl Into<Shape>, cell: usize) -> usize {
        let shape = shape.into();
        let (r, c) = shape.row_col(cell);
        let (r, c) = self.image(shape, r, c);
        shape.index(r, c)
    }

    /// The image of border position `pos` (1..=2(w+h)).
    pub fn position(self, shape: impl Into<Shape>, pos: usize) -> usize {
        let shape = shape.into();
        let q = port(shape, pos);
        let (r, c) = self.image(shape, q.row, q.col);
        position_at(shape, r, c).expect("a symmetry maps the border onto itself")
    }

    /// The image of a molecule.
    pub fn molecule(self, m: &Molecule) -> Molecule {
        let shape = m.shape();
        let mut atoms: Vec<usize> = m.atoms().iter().map(|&a| self.cell(shape, a)).collect();
        atoms.sort_unstable();
        Molecule::from_sorted_unchecked(shape, atoms)
    }

    /// The image of a spectrum: the spectrum of the transformed molecule.
    pub fn spectrum(self, s: &Spectrum) -> Spectrum {
        let shape = s.shape();
        let mut out = vec![Outcome::Miss; shape.positions()];
        for (i, &r) in s.outcomes().iter().enumerate() {
            let r = match r {
                Outcome::Exit(k) => Outcome::Exit(self.position(shape, k)),
                other => other,
            };
            out[self.position(shape, i + 1) - 1] = r;
        }
        Spectrum::from_outcomes_unchecked(shape, out)
    }

    /// J. Forget's string formulas, applied to a raw spectrum string (4p
    /// characters) before renormalising its letters. [`Transform::spectrum`]
    /// agrees with these. On a rectangle, see
    /// [`spectrum_string_in`](Transform::spectrum_string_in).
    pub fn spectrum_string(self, s: &str) -> String {
        self.spectrum_string_in(s, Shape::square(s.chars().count() / 4))
    }

    /// The string formulas on a box of `shape` (a string of 2(w+h)
    /// characters), with f = reverse(s): rot180 = s[w+h..] + s[..w+h],
    /// symm-h = f[w..] + f[..w], symm-v = f[2w+h..] + f[..2w+h] (on a
    /// square, J. Forget's).
    ///
    /// # Panics
    /// When the transform does not [fit](Transform::fits) the box.
    pub fn spectrum_string_in(self, s: &str, shape: Shape) -> String {
        assert!(self.fits(shape), "{self} is no symmetry of a {shape} box");
        let c: Vec<char> = s.chars().collect();
        let (w, h) = (shape.width, shape.height);
        let p = w;
        let f: Vec<char> = c.iter().rev().copied().collect();
        let rotate = |v: &[char], k: usize| -> String { v[k..].iter().chain(&v[..k]).collect() };
        match self {
            Transform::Id => c.iter().collect(),
            Transform::Rot90 => rotate(&c, 3 * p),
            Transform::Rot180 => rotate(&c, w + h),
            Transform::Rot270 => rotate(&c, p),
            Transform::Diag1 => f.iter().collect(),
            Transform::SymmH => rotate(&f, w),
            Transform::SymmV => rotate(&f, 2 * w + h),
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

    #[test]
    fn a_rectangle_has_four_symmetries_that_commute_with_the_rules() {
        for text in ["O-O-----/--------/---O----", "-O-/---/O--/---/--O"] {
            let m: Molecule = text.parse().unwrap();
            let shape = m.shape();
            let s = Spectrum::of(&m, Rules::Standard);
            let raw = s.to_string();
            for &t in Transform::of(shape) {
                let image = t.molecule(&m);
                assert_eq!(image.shape(), shape);
                assert_eq!(Spectrum::of(&image, Rules::Standard), t.spectrum(&s), "{t}");
                let via_string =
                    Spectrum::parse_in(&t.spectrum_string_in(&raw, shape), shape, "t").unwrap();
                assert_eq!(via_string, t.spectrum(&s), "{t} {text}");
                assert_eq!(t.molecule(&image), m, "{t} is its own inverse");
            }
            for t in [
                Transform::Rot90,
                Transform::Rot270,
                Transform::Diag1,
                Transform::Diag2,
            ] {
                assert!(!t.fits(shape));
            }
        }
        // symm-h mirrors left and right: column 1 goes to column w.
        let m: Molecule = "O--/---".parse().unwrap();
        assert_eq!(Transform::SymmH.molecule(&m).to_string(), "--O/---");
        assert_eq!(Transform::SymmV.molecule(&m).to_string(), "---/O--");
        assert_eq!(Transform::Rot180.molecule(&m).to_string(), "---/--O");
    }
}
