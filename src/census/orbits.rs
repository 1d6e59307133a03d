//! One molecule per orbit: the canonical molecules of a configuration.
//!
//! The eight symmetries of the square split the molecules into orbits of 1, 2,
//! 4 or 8 (the four of a rectangle, into orbits of 1, 2 or 4). The census
//! traces one molecule per orbit, its *canonical* molecule (the
//! lowest-numbered), and counts it as many times as its orbit has members.
//! The tables keep eight slots of symmetries whatever the box
//! ([`Transform::slots`]: a rectangle's four twice over).
//!
//! Numbers follow the lexicographic order of sorted atom indices, so molecule
//! A has a lower number than B exactly when the smallest cell in one of them
//! but not both is an atom of A. With cell i written as bit 255−i of a 256-bit
//! word, that is "A's word is the larger": a canonicity test is eight ORs of
//! precomputed images and seven comparisons. The walk keeps the words as
//! short as the box allows: one 64-bit word up to 64 cells (an 8×8 box),
//! two up to 128.
//!
//! The walk never looks at most non-canonical molecules. A canonical molecule's
//! first atom a₀ is the smallest cell of its orbit under the symmetries, and no
//! atom may have an image below a₀ (that image would start a lower-numbered
//! molecule of the same orbit). So for each possible a₀ the walk only combines
//! the cells whose images all lie at a₀ or beyond, and tests the rest.
//!
//! ```
//! use bbx::census::orbits::OrbitWalk;
//! let config = "A2_B4".parse().unwrap();
//! let mut walk = OrbitWalk::new(config, 1, 120, true).unwrap();
//! let mut orbits = 0;
//! let mut molecules = 0;
//! while let Some(rep) = walk.next_rep() {
//!     orbits += 1;
//!     molecules += rep.orbit_size as u64;
//! }
//! assert_eq!((orbits, molecules), (21, 120));
//! ```

use crate::error::Error;
use crate::rules::config::{Config, Shape};
use crate::rules::enumeration::{next_combination, unrank};
use crate::rules::symmetry::Transform;

/// The widest (and highest) box the census handles: a molecule is a 256-bit
/// word.
pub const MAX_CENSUS_WIDTH: usize = 16;

/// A molecule as 256 bits, cell i at bit 255−i: a larger word is a
/// lower-numbered molecule.
type Bits = [u64; 4];

fn bit(cell: usize) -> Bits {
    let mut b = [0u64; 4];
    b[cell / 64] = 1u64 << (63 - cell % 64);
    b
}

/// The symmetries of one box, as tables on cells.
#[derive(Debug, Clone)]
pub struct CellSymmetries {
    /// `image[g][x]`: the cell that transform `Transform::slots(shape)[g]`
    /// sends cell x to.
    pub image: [Vec<u16>; 8],
    /// `bits[x][g]`: the bit of that image.
    bits: Vec<[Bits; 8]>,
    /// The smallest image of each cell.
    orbit_min: Vec<usize>,
}

impl CellSymmetries {
    /// The tables of a box of `shape`.
    pub fn new(shape: Shape) -> CellSymmetries {
        let cells = shape.cells();
        let slots = Transform::slots(shape);
        let image: [Vec<u16>; 8] =
            std::array::from_fn(|g| (0..cells).map(|x| slots[g].cell(shape, x) as u16).collect());
        let bits = (0..cells)
            .map(|x| std::array::from_fn(|g| bit(image[g][x] as usize)))
            .collect();
        let orbit_min = (0..cells)
            .map(|x| (0..8).map(|g| image[g][x] as usize).min().unwrap_or(x))
            .collect();
        CellSymmetries {
            image,
            bits,
            orbit_min,
        }
    }

    /// How many of the eight slots' symmetries map the molecule with these
    /// atoms onto itself (1, 2, 4 or 8; its orbit has 8 over that many
    /// molecules), or `None` when one of them maps it onto a lower-numbered
    /// molecule (it is not canonical).
    #[inline]
    pub fn canonical_stabilizer(&self, atoms: &[usize]) -> Option<u8> {
        let mut images = [[0u64; 4]; 8];
        for &x in atoms {
            self.add(&mut images, x);
        }
        stabilizer_of(&images)
    }

    /// Adds cell x's images to a molecule's.
    #[inline(always)]
    fn add(&self, images: &mut [Bits; 8], x: usize) {
        let b = &self.bits[x];
        for g in 0..8 {
            for w in 0..4 {
                images[g][w] |= b[g][w];
            }
        }
    }

    /// The image of a molecule's atoms under the symmetry of slot `g`, sorted.
    pub fn apply(&self, g: usize, atoms: &[usize], out: &mut Vec<usize>) {
        out.clear();
        out.extend(atoms.iter().map(|&x| self.image[g][x] as usize));
        out.sort_unstable();
    }
}

/// [`CellSymmetries::canonical_stabilizer`] from the molecule's eight images.
#[inline]
fn stabilizer_of(images: &[Bits; 8]) -> Option<u8> {
    let me = images[0];
    let mut stab = 1;
    for image in &images[1..] {
        match image.cmp(&me) {
            std::cmp::Ordering::Greater => return None,
            std::cmp::Ordering::Equal => stab += 1,
            std::cmp::Ordering::Less => {}
        }
    }
    Some(stab)
}

/// One orbit's canonical molecule, as the walk yields it.
#[derive(Debug, Clone, Copy)]
pub struct Rep<'a> {
    /// Its atoms, sorted.
    pub atoms: &'a [usize],
    /// How many molecules it stands for: its orbit's size (1 without symmetry
    /// reduction).
    pub orbit_size: u8,
}

/// Walks the canonical molecules whose numbers lie in a range, in number order
/// (or every molecule of the range, without symmetry reduction).
///
/// Its molecules' images are words of as few 64-bit words as the box needs
/// (one up to 64 cells, two up to 128, four up to 256), which keeps the
/// canonicity test of a small box to a few operations.
#[derive(Debug, Clone)]
pub struct OrbitWalk {
    sym: CellSymmetries,
    inner: Inner,
}

/// The walk, with images of 1, 2 or 4 words.
#[derive(Debug, Clone)]
enum Inner {
    One(Walk<1>),
    Two(Walk<2>),
    Four(Walk<4>),
}

/// [`OrbitWalk`] with images of `W` words.
#[derive(Debug, Clone)]
struct Walk<const W: usize> {
    cells: usize,
    atoms: usize,
    symmetry: bool,
    /// The smallest image of each cell.
    orbit_min: Vec<usize>,
    /// `bits[x][g]`: the bit of cell x's image under slot g, cell i at bit
    /// 64·W−1−i.
    bits: Vec<[[u64; W]; 8]>,
    /// `allowed[a0]`: the cells after a₀ none of whose images lies before a₀
    /// (empty unless a₀ is the smallest cell of its orbit).
    allowed: Vec<Vec<usize>>,
    /// The current molecule; `None` once the walk is over.
    current: Option<Vec<usize>>,
    /// Indices of atoms 1.. into `allowed[a0]` (symmetry reduction only).
    idx: Vec<usize>,
    /// The last molecule of the range.
    last: Vec<usize>,
    started: bool,
    /// `prefix[k]`: the images of atoms 0..=k of the current molecule, valid
    /// for k below `valid`.
    prefix: Vec<[[u64; W]; 8]>,
    valid: usize,
}

impl OrbitWalk {
    /// The walk over molecules `first..=last` (1-based numbers) of `config`;
    /// with `symmetry`, only canonical molecules.
    pub fn new(config: Config, first: u64, last: u64, symmetry: bool) -> Result<OrbitWalk, Error> {
        if config.width.max(config.height) > MAX_CENSUS_WIDTH {
            return Err(Error::invalid(format!(
                "configuration {config}: the census handles boxes up to {MAX_CENSUS_WIDTH}×{MAX_CENSUS_WIDTH}"
            )));
        }
        let sym = CellSymmetries::new(config.shape());
        let inner = match config.cells() {
            0..=64 => Inner::One(Walk::new(config, &sym, first, last, symmetry)?),
            65..=128 => Inner::Two(Walk::new(config, &sym, first, last, symmetry)?),
            _ => Inner::Four(Walk::new(config, &sym, first, last, symmetry)?),
        };
        Ok(OrbitWalk { sym, inner })
    }

    /// The symmetry tables of the walk's box.
    pub fn symmetries(&self) -> &CellSymmetries {
        &self.sym
    }

    /// The next canonical molecule of the range (every molecule, without
    /// symmetry reduction), or `None` at the end.
    #[inline]
    pub fn next_rep(&mut self) -> Option<Rep<'_>> {
        match &mut self.inner {
            Inner::One(w) => w.next_rep(),
            Inner::Two(w) => w.next_rep(),
            Inner::Four(w) => w.next_rep(),
        }
    }
}

impl<const W: usize> Walk<W> {
    fn new(
        config: Config,
        sym: &CellSymmetries,
        first: u64,
        last: u64,
        symmetry: bool,
    ) -> Result<Walk<W>, Error> {
        let cells = config.cells();
        let bit = |cell: usize| {
            let mut b = [0u64; W];
            b[cell / 64] = 1u64 << (63 - cell % 64);
            b
        };
        let bits = (0..cells)
            .map(|x| std::array::from_fn(|g| bit(sym.image[g][x] as usize)))
            .collect();
        let allowed = (0..cells)
            .map(|a0| {
                if sym.orbit_min[a0] != a0 {
                    return Vec::new();
                }
                (a0 + 1..cells)
                    .filter(|&x| sym.orbit_min[x] >= a0)
                    .collect()
            })
            .collect();
        let mut walk = Walk {
            cells,
            atoms: config.atoms,
            symmetry,
            orbit_min: sym.orbit_min.clone(),
            bits,
            allowed,
            current: None,
            idx: Vec::new(),
            last: Vec::new(),
            started: false,
            prefix: vec![[[0; W]; 8]; config.atoms],
            valid: 0,
        };
        if first > last {
            return Ok(walk);
        }
        let start = unrank(config, first)?.atoms().to_vec();
        walk.last = unrank(config, last)?.atoms().to_vec();
        walk.current = if symmetry {
            walk.seek(&start)
        } else {
            Some(start)
        };
        Ok(walk)
    }

    /// The first molecule at or after `c` (in number order) that passes the
    /// first-atom test, with `idx` set for it.
    fn seek(&mut self, c: &[usize]) -> Option<Vec<usize>> {
        let n = self.atoms;
        if n == 0 {
            return Some(Vec::new());
        }
        let mut a0 = c[0];
        if self.orbit_min[a0] == a0
            && let Some(rest) = seek_in(&self.allowed[a0], &c[1..])
        {
            return Some(self.set(a0, rest));
        }
        a0 += 1;
        while a0 < self.cells {
            if self.orbit_min[a0] == a0 && self.allowed[a0].len() >= n - 1 {
                return Some(self.set(a0, (0..n - 1).collect()));
            }
            a0 += 1;
        }
        None
    }

    fn set(&mut self, a0: usize, idx: Vec<usize>) -> Vec<usize> {
        self.valid = 0;
        let mut m = Vec::with_capacity(self.atoms);
        m.push(a0);
        m.extend(idx.iter().map(|&i| self.allowed[a0][i]));
        self.idx = idx;
        m
    }

    /// Advances to the next molecule passing the first-atom test.
    fn advance(&mut self) {
        let Some(m) = self.current.as_mut() else {
            return;
        };
        if !self.symmetry {
            if next_combination(m, self.cells).is_none() {
                self.current = None;
            }
            return;
        }
        let n = self.atoms;
        if n == 0 {
            self.current = None;
            return;
        }
        let a0 = m[0];
        let list = &self.allowed[a0];
        if let Some(first) = next_combination(&mut self.idx, list.len()) {
            // Only the changed tail needs rewriting.
            for k in first..self.idx.len() {
                m[k + 1] = list[self.idx[k]];
            }
            self.valid = self.valid.min(first + 1);
            return;
        }
        let mut next = a0 + 1;
        while next < self.cells {
            if self.orbit_min[next] == next && self.allowed[next].len() >= n - 1 {
                let m = self.set(next, (0..n - 1).collect());
                self.current = Some(m);
                return;
            }
            next += 1;
        }
        self.current = None;
    }

    /// [`OrbitWalk::next_rep`].
    #[inline]
    fn next_rep(&mut self) -> Option<Rep<'_>> {
        loop {
            if self.started {
                self.advance();
            }
            self.started = true;
            let m = self.current.as_ref()?;
            if m.as_slice() > self.last.as_slice() {
                self.current = None;
                return None;
            }
            if !self.symmetry {
                return self.current.as_deref().map(|atoms| Rep {
                    atoms,
                    orbit_size: 1,
                });
            }
            // The images of the molecule, from those of its unchanged prefix.
            for (k, &atom) in m.iter().enumerate().skip(self.valid) {
                let mut images = if k == 0 {
                    [[0; W]; 8]
                } else {
                    self.prefix[k - 1]
                };
                let b = &self.bits[atom];
                for g in 0..8 {
                    for w in 0..W {
                        images[g][w] |= b[g][w];
                    }
                }
                self.prefix[k] = images;
            }
            self.valid = m.len();
            let images = self.prefix.last().copied().unwrap_or([[0; W]; 8]);
            let me = images[0];
            let mut stab = 1;
            let mut canonical = true;
            for image in &images[1..] {
                match image.cmp(&me) {
                    std::cmp::Ordering::Greater => {
                        canonical = false;
                        break;
                    }
                    std::cmp::Ordering::Equal => stab += 1,
                    std::cmp::Ordering::Less => {}
                }
            }
            if canonical {
                return self.current.as_deref().map(|atoms| Rep {
                    atoms,
                    orbit_size: 8 / stab,
                });
            }
        }
    }
}

/// The smallest choice of `target.len()` indices into `list` (sorted) whose
/// values are at or after `target` in lexicographic order.
fn seek_in(list: &[usize], target: &[usize]) -> Option<Vec<usize>> {
    let k = target.len();
    if k == 0 {
        return Some(Vec::new());
    }
    let mut j = list.partition_point(|&x| x < target[0]);
    if j < list.len() && list[j] == target[0] {
        if let Some(rest) = seek_in(&list[j + 1..], &target[1..]) {
            let mut out = vec![j];
            out.extend(rest.into_iter().map(|i| i + j + 1));
            return Some(out);
        }
        j += 1;
    }
    if j + k <= list.len() {
        Some((j..j + k).collect())
    } else {
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::enumeration::{Molecules, Numbering};

    /// Every canonical molecule of a range, the slow way.
    fn brute(config: Config, first: u64, last: u64) -> Vec<(Vec<usize>, u8)> {
        let numbering = Numbering::new(config).unwrap();
        Molecules::new(config)
            .enumerate()
            .filter(|(i, _)| (first..=last).contains(&(*i as u64 + 1)))
            .filter_map(|(i, m)| {
                let group = Transform::of(config.shape());
                let images: Vec<u64> = group
                    .iter()
                    .map(|t| numbering.rank(t.molecule(&m).atoms()))
                    .collect();
                let me = i as u64 + 1;
                if images.iter().all(|&x| x >= me) {
                    let stab = images.iter().filter(|&&x| x == me).count();
                    Some((m.atoms().to_vec(), (group.len() / stab) as u8))
                } else {
                    None
                }
            })
            .collect()
    }

    fn walk(config: Config, first: u64, last: u64) -> Vec<(Vec<usize>, u8)> {
        let mut w = OrbitWalk::new(config, first, last, true).unwrap();
        let mut out = Vec::new();
        while let Some(r) = w.next_rep() {
            out.push((r.atoms.to_vec(), r.orbit_size));
        }
        out
    }

    #[test]
    fn the_walk_finds_exactly_the_canonical_molecules() {
        for cfg in [
            "A0_B3", "A1_B1", "A1_B4", "A2_B3", "A2_B4", "A3_B5", "A4_B4", "A3_B6", "A5_B5",
            "A2_B3x2", "A3_B4x3", "A4_B5x3", "A3_B2x6", "A1_B1x4", "A4_B6x4",
            // Images of two words (65 to 128 cells) and of four.
            "A2_B9", "A3_B8x9", "A2_B12", "A2_B9x15",
        ] {
            let config: Config = cfg.parse().unwrap();
            let total = config.molecule_count().unwrap();
            let all = walk(config, 1, total);
            assert_eq!(all, brute(config, 1, total), "{cfg}");
            let molecules: u64 = all.iter().map(|(_, s)| *s as u64).sum();
            assert_eq!(molecules, total, "{cfg}");
            // Any split into ranges gives the same molecules.
            for parts in [2u64, 3, 7] {
                let mut joined = Vec::new();
                let step = total.div_ceil(parts);
                let mut first = 1;
                while first <= total {
                    let last = (first + step - 1).min(total);
                    joined.extend(walk(config, first, last));
                    first = last + 1;
                }
                assert_eq!(joined, all, "{cfg} in {parts} parts");
            }
        }
    }

    #[test]
    fn without_symmetry_every_molecule_of_the_range() {
        let config: Config = "A3_B4".parse().unwrap();
        let mut w = OrbitWalk::new(config, 17, 40, false).unwrap();
        let mut n = 0;
        while let Some(r) = w.next_rep() {
            assert_eq!(r.orbit_size, 1);
            n += 1;
        }
        assert_eq!(n, 24);
    }

    #[test]
    fn boxes_too_wide_are_refused() {
        let config: Config = "A1_B17".parse().unwrap();
        assert!(OrbitWalk::new(config, 1, 1, true).is_err());
        let config: Config = "A1_B4x17".parse().unwrap();
        assert!(OrbitWalk::new(config, 1, 1, true).is_err());
    }
}
