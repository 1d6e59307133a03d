//! Spectra as the census handles them: one byte a border position, and one
//! canonical form per class under the symmetries.
//!
//! A spectrum is written as 2(w+h) codes (4p on a square), one byte each: the outcomes' codes
//! ([`Outcome::code`]: `0` for a hit, `1` for a reflection, `2 + k` for a ray
//! that comes out at border position k). Those codes name partners
//! directly, so two spectra are equal exactly when their codes are, without
//! renormalising letters.
//!
//! A symmetry g moves the ray entering at position i to position g(i) and its
//! exit k to g(k). The *canonical* form of a spectrum is the smallest of its
//! images under the eight slots of symmetries ([`Transform::slots`]: a
//! rectangle's four twice over), bytewise; spectra of one class share it, and
//! the number of slots reaching it is the size of the spectrum's stabiliser
//! (twice it on a rectangle, as the slots are). Most
//! images differ from the best one so far in their first byte or two, so
//! [`SpectrumSymmetries::canonical`] compares lazily and builds an image only
//! when it wins.
//!
//! ```
//! use bbx::census::canonical::{SpectrumSymmetries, Traced};
//! use bbx::Molecule;
//! let m: Molecule = "O-O-----------O---------O-----------".parse().unwrap();
//! let mut traced = Traced::new(6.into());
//! traced.trace(m.atoms());
//! assert_eq!(traced.spectrum().to_string(), "@&@&@&@a@bcda@b@&@dc&@&@");
//! let sym = SpectrumSymmetries::new(6.into());
//! let canon = sym.canonical(traced.codes());
//! // The class of molecule 15993's spectrum (rot90 of this one's) has the same form.
//! let r90 = sym.image(2, traced.codes());
//! assert_eq!(sym.canonical(&r90).codes, canon.codes);
//! ```

use crate::rules::config::Shape;
use crate::rules::ray::{Outcome, Rules};
use crate::rules::spectrum::Spectrum;
use crate::rules::sweep::Sweep;
use crate::rules::symmetry::Transform;

/// The widest square whose spectra fit in one byte a position (a box of
/// w + h ≤ 126, 252 border positions).
pub const MAX_CODE_WIDTH: usize = 63;

/// The six record values of one molecule, in the order of
/// [`RECORDS`](crate::tables::RECORDS): most turns and longest path of its
/// absorbed, reflected and exit rays (0 when it has none of that kind).
pub type RecordValues = [u32; 6];

/// A tracer that keeps a molecule's spectrum as codes and its record values.
#[derive(Debug, Clone)]
pub struct Traced {
    sweep: Sweep,
}

impl Traced {
    /// A tracer for boxes of `shape` (at most 64 border positions: see
    /// [`MAX_SWEEP_POSITIONS`](crate::rules::sweep::MAX_SWEEP_POSITIONS))
    /// under the standard rules.
    pub fn new(shape: Shape) -> Traced {
        Traced {
            sweep: Sweep::new(shape, Rules::Standard),
        }
    }

    /// Traces every ray of the molecule with these atoms (linear cell
    /// indices), from scratch.
    #[inline]
    pub fn trace(&mut self, atoms: &[usize]) {
        self.sweep.trace(atoms);
    }

    /// Traces the molecule with these atoms (sorted linear cell indices)
    /// from the rays of its first atoms, shared with the molecule traced
    /// before it when they are the same ([`Sweep::next`]): for molecules
    /// met in number order.
    #[inline]
    pub fn next(&mut self, atoms: &[usize]) {
        self.sweep.next(atoms);
    }

    /// The codes of the last molecule traced.
    pub fn codes(&self) -> &[u8] {
        self.sweep.codes()
    }

    /// The record values of the last molecule traced.
    pub fn records(&self) -> RecordValues {
        self.sweep.records()
    }

    /// At least the most turns and the longest path of the last
    /// molecule's rays ([`Sweep::longest`]): a bound on its record values.
    pub fn longest(&self) -> (u32, u32) {
        self.sweep.longest()
    }

    /// The last spectrum traced, as a [`Spectrum`].
    pub fn spectrum(&self) -> Spectrum {
        spectrum_of(self.sweep.shape(), self.codes())
    }

    /// Rays [`next`](Self::next) traced so far (exit pairs once, its
    /// levels' included), and its levels ([`Sweep`]).
    pub fn rays_traced(&self) -> (u64, u64) {
        (self.sweep.rays_traced, self.sweep.levels_traced)
    }
}

/// The spectrum these codes stand for.
pub fn spectrum_of(shape: Shape, codes: &[u8]) -> Spectrum {
    let outcomes = codes
        .iter()
        .map(|&c| Outcome::from_code(usize::from(c)))
        .collect();
    Spectrum::from_outcomes(shape, outcomes).expect("codes of a traced spectrum")
}

/// The canonical form of a spectrum: its smallest image.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Canonical {
    /// The codes of the smallest image.
    pub codes: Vec<u8>,
    /// The first slot of symmetry (index into [`Transform::slots`]) that
    /// takes the spectrum to it.
    pub transform: usize,
    /// How many slots of symmetries fix it (1, 2, 4 or 8).
    pub stabilizer: u8,
}

/// The symmetries of one box, as tables on border positions.
#[derive(Debug, Clone)]
pub struct SpectrumSymmetries {
    /// The box's border positions.
    n: usize,
    /// Whether the box is a square (eight distinct slots, not four twice).
    square: bool,
    /// `from[g][j]`: the position (0-based) that the symmetry of slot `g`
    /// ([`Transform::slots`]) sends to j.
    from: Box<[[u8; 256]; 8]>,
    /// `code[g][c]`: the image of code c (a hit, a reflection and a miss
    /// stay, an exit moves with its position; codes no spectrum of the box
    /// has are kept).
    code: Box<[[u8; 256]; 8]>,
}

impl SpectrumSymmetries {
    /// The tables of a box of `shape` (at most 252 border positions).
    pub fn new(shape: Shape) -> SpectrumSymmetries {
        let n = shape.positions();
        assert!(
            Outcome::codes(n) <= 256,
            "spectra of up to 252 border positions"
        );
        let slots = Transform::slots(shape);
        let to: [Vec<u8>; 8] = std::array::from_fn(|g| {
            (0..n)
                .map(|i| (slots[g].position(shape, i + 1) - 1) as u8)
                .collect()
        });
        let mut from = Box::new([[0u8; 256]; 8]);
        let mut code = Box::new([[0u8; 256]; 8]);
        let exit = Outcome::Exit(1).code();
        for g in 0..8 {
            for (i, &j) in to[g].iter().enumerate() {
                from[g][j as usize] = i as u8;
            }
            for (c, image) in code[g].iter_mut().enumerate() {
                *image = match c.checked_sub(exit) {
                    Some(i) if i < n => to[g][i] + exit as u8,
                    _ => c as u8,
                };
            }
        }
        SpectrumSymmetries {
            n,
            square: shape.is_square(),
            from,
            code,
        }
    }

    /// Code `j` of the image of `codes` under symmetry `g`.
    #[inline(always)]
    fn at(&self, g: usize, codes: &[u8], j: usize) -> u8 {
        self.code[g][codes[self.from[g][j] as usize] as usize]
    }

    /// The image of a spectrum under the symmetry of slot `g` (index into
    /// [`Transform::slots`]).
    pub fn image(&self, g: usize, codes: &[u8]) -> Vec<u8> {
        (0..codes.len()).map(|j| self.at(g, codes, j)).collect()
    }

    /// The canonical form of a spectrum.
    pub fn canonical(&self, codes: &[u8]) -> Canonical {
        let mut out = Canonical {
            codes: Vec::with_capacity(codes.len()),
            transform: 0,
            stabilizer: 1,
        };
        self.canonical_into(codes, &mut out);
        out
    }

    /// [`canonical`](Self::canonical), reusing `out`'s buffer.
    ///
    /// The images are compared a position at a time, all together: at
    /// each position only the images that have tied so far are read, and
    /// those above the least drop out. Most spectra are settled within a
    /// few positions. A rectangle's slots hold its four symmetries twice
    /// over: the first four are compared, and the stabiliser doubled.
    ///
    /// # Panics
    /// When `codes` is not a spectrum of the box (its length differs).
    #[inline]
    pub fn canonical_into(&self, codes: &[u8], out: &mut Canonical) {
        let n = self.n;
        assert_eq!(codes.len(), n, "a spectrum of the box");
        let image = |g: u32, j: u8| {
            let g = g as usize & 7;
            let from = self.from[g][j as usize] as usize;
            debug_assert!(from < n);
            // SAFETY: `from[g]` holds positions of the box, below n, which
            // is `codes.len()`.
            self.code[g][unsafe { *codes.get_unchecked(from) } as usize]
        };
        let mut alive: u8 = if self.square { 0xFF } else { 0x0F };
        let mut j = 0u8;
        while alive & (alive - 1) != 0 && usize::from(j) < n {
            let mut least = u8::MAX;
            let mut at_least = 0u8;
            let mut slots = alive;
            while slots != 0 {
                let g = slots.trailing_zeros();
                slots &= slots - 1;
                let v = image(g, j);
                if v < least {
                    least = v;
                    at_least = 1 << g;
                } else if v == least {
                    at_least |= 1 << g;
                }
            }
            alive = at_least;
            j += 1;
        }
        let best = alive.trailing_zeros() as usize & 7;
        let (from, code) = (&self.from[best][..n], &self.code[best]);
        out.codes.resize(n, 0);
        for (o, &f) in out.codes.iter_mut().zip(from) {
            // SAFETY: as above.
            *o = code[unsafe { *codes.get_unchecked(f as usize) } as usize];
        }
        out.transform = best;
        out.stabilizer = alive.count_ones() as u8 * if self.square { 1 } else { 2 };
    }

    /// The slots of symmetries that fix a spectrum, as indices into
    /// [`Transform::slots`].
    pub fn stabilizer(&self, codes: &[u8]) -> Vec<usize> {
        (0..8)
            .filter(|&g| (0..codes.len()).all(|j| self.at(g, codes, j) == codes[j]))
            .collect()
    }
}

/// The 64-bit key of a canonical spectrum: where its records are sent and
/// sorted. Equal spectra have equal keys; the census checks spectra, not
/// keys, before it counts a group, so a collision costs time, not accuracy.
#[inline]
pub fn key(canonical: &[u8]) -> u64 {
    xxhash_rust::xxh3::xxh3_64(canonical)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::board::Molecule;
    use crate::rules::enumeration::Molecules;

    #[test]
    fn codes_and_records_agree_with_the_analysis() {
        let config = "A3_B4".parse().unwrap();
        let mut t = Traced::new(Shape::square(4));
        for m in Molecules::new(config) {
            t.trace(m.atoms());
            let a = crate::Analysis::of(&m, Rules::Standard);
            assert_eq!(t.spectrum(), a.spectrum);
            let s = a.stats;
            assert_eq!(
                t.records(),
                [
                    s.absorbed_max_turns,
                    s.absorbed_max_length,
                    s.reflected_max_turns,
                    s.reflected_max_length,
                    s.out_max_turns,
                    s.out_max_length
                ]
            );
        }
    }

    #[test]
    fn images_follow_the_transforms() {
        let m: Molecule = "O-O-----------O---------O-----------".parse().unwrap();
        let mut t = Traced::new(Shape::square(6));
        t.trace(m.atoms());
        let sym = SpectrumSymmetries::new(Shape::square(6));
        for (g, tr) in Transform::ALL.iter().enumerate() {
            let image = sym.image(g, t.codes());
            assert_eq!(
                spectrum_of(Shape::square(6), &image),
                tr.spectrum(&t.spectrum()),
                "{tr}"
            );
        }
        let m: Molecule = "O-O-----/--------/---O---O".parse().unwrap();
        let shape = m.shape();
        let mut t = Traced::new(shape);
        t.trace(m.atoms());
        let sym = SpectrumSymmetries::new(shape);
        for (g, tr) in Transform::slots(shape).iter().enumerate() {
            let image = sym.image(g, t.codes());
            assert_eq!(
                spectrum_of(shape, &image),
                tr.spectrum(&t.spectrum()),
                "{tr}"
            );
        }
    }

    #[test]
    fn canonical_forms_are_shared_by_a_class_and_count_its_stabilizer() {
        for (w, h) in [(3, 3), (4, 4), (5, 5), (4, 3), (2, 5)] {
            let shape = Shape::new(w, h).unwrap();
            let config = crate::Config::shaped(2, shape).unwrap();
            let sym = SpectrumSymmetries::new(shape);
            let mut t = Traced::new(shape);
            for m in Molecules::new(config) {
                t.trace(m.atoms());
                let c = sym.canonical(t.codes());
                assert_eq!(c.codes, sym.image(c.transform, t.codes()));
                let images: Vec<Vec<u8>> = (0..8).map(|g| sym.image(g, t.codes())).collect();
                assert_eq!(&c.codes, images.iter().min().unwrap());
                assert_eq!(
                    c.stabilizer as usize,
                    images.iter().filter(|x| **x == c.codes).count()
                );
                assert_eq!(sym.stabilizer(&c.codes).len(), c.stabilizer as usize);
                for image in &images {
                    assert_eq!(sym.canonical(image).codes, c.codes);
                }
            }
        }
    }
}
