//! Molecule numbers and the enumeration of a configuration.
//!
//! A molecule's *number* is its 1-based rank in the lexicographic order of its
//! sorted atom indices: in A2_B4, `OO--…` is 1, `O-O-…` is 2 and `…--OO` is 120.
//! [`rank`] and [`unrank`] compute it directly with the combinatorial number
//! system, without walking the order. The *canonical number* of a molecule is
//! the smallest number among its images under the box's symmetries (eight
//! for a square, four for a rectangle: [`Transform::of`]), and its
//! *transform* the first symmetry (in [`Transform::ALL`] order) that maps the
//! canonical molecule onto it.
//!
//! ```
//! use bbx::rules::enumeration;
//! use bbx::{Config, Molecule, Transform};
//! let m: Molecule = "--O---------O-O---------O-----------".parse().unwrap();
//! assert_eq!(enumeration::rank(&m), Some(15993));
//! // Its group's canonical molecule is number 7361, which rot90 maps onto it.
//! assert_eq!(enumeration::canonical(&m), Some((7361, Transform::Rot90)));
//! let c: Config = "A4_B6".parse().unwrap();
//! assert_eq!(enumeration::unrank(c, 15993).unwrap(), m);
//! ```

use std::ops::RangeInclusive;

use rayon::prelude::*;

use crate::control::{Budget, Cut};
use crate::error::Error;
use crate::rules::board::Molecule;
pub use crate::rules::config::binomial;
use crate::rules::config::{Config, Shape};
use crate::rules::symmetry::Transform;

/// The molecule's number (1-based lexicographic rank), or `None` when its
/// configuration has too many molecules to number in a `u64`.
pub fn rank(m: &Molecule) -> Option<u64> {
    let cells = m.shape().cells();
    // Every binomial the rank takes is at most the configuration's count.
    binomial(cells as u64, m.atoms().len() as u64)?;
    Some(rank_with(cells, m.atoms(), wide))
}

/// The molecule with the given number (1..=count) in configuration `config`.
pub fn unrank(config: Config, number: u64) -> Result<Molecule, Error> {
    let total = config.molecule_count().ok_or_else(|| {
        Error::invalid(format!(
            "configuration {config} has too many molecules to number"
        ))
    })?;
    if number == 0 || number > total {
        return Err(Error::invalid(format!(
            "molecule number {number} is out of range: configuration {config} has molecules 1 to {total}"
        )));
    }
    let mut atoms = Vec::with_capacity(config.atoms);
    unrank_with(config.cells(), config.atoms, number, wide, &mut atoms);
    Ok(Molecule::from_sorted_unchecked(config.shape(), atoms))
}

/// C(n, k), saturating at `u64::MAX`.
fn wide(n: usize, k: usize) -> u64 {
    binomial(n as u64, k as u64).unwrap_or(u64::MAX)
}

/// The number of the molecule whose sorted atoms among `cells` cells are
/// `atoms`, with `c(n, k)` = C(n, k): C(N, n) − Σ C(N − 1 − a_i, n − i).
fn rank_with(cells: usize, atoms: &[usize], c: impl Fn(usize, usize) -> u64) -> u64 {
    let n = atoms.len();
    let sub: u64 = (atoms.iter().enumerate())
        .map(|(i, &a)| c(cells - 1 - a, n - i))
        .sum();
    c(cells, n) - sub
}

/// The sorted cells of molecule `number` of `atoms` atoms among `cells`
/// cells, into `out`, with `c(n, k)` = C(n, k): each cell in turn starts
/// the rest or not.
fn unrank_with(
    cells: usize,
    atoms: usize,
    number: u64,
    c: impl Fn(usize, usize) -> u64,
    out: &mut Vec<usize>,
) {
    out.clear();
    let mut rest = number.saturating_sub(1);
    let mut left = atoms;
    let mut cell = 0;
    while left > 0 && cell < cells {
        // Molecules whose next atom is at `cell`: C(cells − cell − 1, left − 1).
        let with = c(cells - cell - 1, left - 1);
        if rest < with {
            out.push(cell);
            left -= 1;
        } else {
            rest -= with;
        }
        cell += 1;
    }
}

/// The canonical number of the molecule's enantiomer group and the transform
/// that maps the canonical molecule onto it; `None` when the configuration is
/// not numbered.
pub fn canonical(m: &Molecule) -> Option<(u64, Transform)> {
    // ranks[i]: the number of the image of m under the box's i-th symmetry.
    let group = Transform::of(m.shape());
    let mut ranks = [0u64; 8];
    for (i, t) in group.iter().enumerate() {
        ranks[i] = rank(&t.molecule(m))?;
    }
    Some(least(group, &ranks[..group.len()]))
}

/// The least of the numbers of a molecule's images (`ranks[i]` under
/// `group[i]`, the box's symmetries), and the first transform that maps the
/// molecule of that number onto the molecule.
fn least(group: &[Transform], ranks: &[u64]) -> (u64, Transform) {
    let min = ranks.iter().copied().min().unwrap_or(0);
    // g maps the canonical molecule onto m iff g⁻¹ maps m onto the canonical one.
    let index = |t: Transform| group.iter().position(|&u| u == t).unwrap_or(0);
    let t = group
        .iter()
        .copied()
        .find(|g| ranks[index(g.inverse())] == min)
        .unwrap_or(Transform::Id);
    (min, t)
}

/// Molecule numbers of one configuration, with the binomials precomputed: for
/// numbering many molecules (the catalogue numbers millions).
#[derive(Debug, Clone)]
pub struct Numbering {
    cells: usize,
    atoms: usize,
    /// `table[n * (atoms + 1) + k]` = C(n, k) for n ≤ cells, k ≤ atoms + 1.
    table: Vec<u64>,
}

impl Numbering {
    /// The numbering of `config`, or `None` when it has too many molecules to
    /// number in a `u64`.
    ///
    /// Every binomial a rank or an unrank takes is at most the
    /// configuration's count, but the table holds others, and in a box
    /// nearly full (A79_B9) some of those pass 64 bits: they saturate.
    pub fn new(config: Config) -> Option<Numbering> {
        config.molecule_count()?;
        let (cells, atoms) = (config.cells(), config.atoms);
        let w = atoms + 2;
        let mut table = vec![0u64; (cells + 1) * w];
        for n in 0..=cells {
            for k in 0..w {
                table[n * w + k] = binomial(n as u64, k as u64).unwrap_or(u64::MAX);
            }
        }
        Some(Numbering {
            cells,
            atoms,
            table,
        })
    }

    fn c(&self, n: usize, k: usize) -> u64 {
        self.table[n * (self.atoms + 2) + k]
    }

    /// The number of the molecule with these sorted atom cells.
    pub fn rank(&self, atoms: &[usize]) -> u64 {
        rank_with(self.cells, atoms, |n, k| self.c(n, k))
    }

    /// The sorted atom cells of molecule `number` (1-based, at most the
    /// configuration's count), as [`unrank`] gives them, into `out`.
    pub fn unrank_into(&self, number: u64, out: &mut Vec<usize>) {
        unrank_with(self.cells, self.atoms, number, |n, k| self.c(n, k), out);
    }

    /// Canonical number and transform, as [`canonical`] computes them.
    pub fn canonical(&self, m: &Molecule) -> (u64, Transform) {
        let shape = m.shape();
        let group = Transform::of(shape);
        let mut ranks = [0u64; 8];
        let mut image: Vec<usize> = Vec::with_capacity(m.atoms().len());
        for (i, t) in group.iter().enumerate() {
            image.clear();
            image.extend(m.atoms().iter().map(|&a| t.cell(shape, a)));
            image.sort_unstable();
            ranks[i] = self.rank(&image);
        }
        least(group, &ranks[..group.len()])
    }
}

/// Iterates over every molecule of a configuration in number order.
///
/// ```
/// use bbx::rules::enumeration::Molecules;
/// let all: Vec<String> = Molecules::new("A2_B2".parse().unwrap()).map(|m| m.to_string()).collect();
/// assert_eq!(all, ["OO--", "O-O-", "O--O", "-OO-", "-O-O", "--OO"]);
/// ```
#[derive(Debug, Clone)]
pub struct Molecules {
    shape: Shape,
    cells: usize,
    atoms: Vec<usize>,
    done: bool,
}

impl Molecules {
    /// All molecules of `config`, from number 1.
    pub fn new(config: Config) -> Molecules {
        Molecules {
            shape: config.shape(),
            cells: config.cells(),
            atoms: (0..config.atoms).collect(),
            done: false,
        }
    }

    /// The molecules from `first` on (the first is `first` itself).
    pub fn from(first: &Molecule) -> Molecules {
        Molecules {
            shape: first.shape(),
            cells: first.shape().cells(),
            atoms: first.atoms().to_vec(),
            done: false,
        }
    }
}

/// Advances sorted indices `a` (each below `len`) to the next combination in
/// lexicographic order, returning the first index of `a` that changed
/// (those before it are as they were); `None` after the last combination.
///
/// The one combination walker of bbx, for the hot loops: molecules in
/// number order (the atoms' cells), the canonical molecules of the census
/// (indices into the cells allowed after a first atom), and the molecules
/// the solver's forward counts, strategy and the catalogue walk. It
/// allocates nothing and says where a combination changed, which
/// `itertools`' `combinations` (a new `Vec` each) does not.
///
/// ```
/// use bbx::rules::enumeration::next_combination;
/// let mut a = [0, 1, 3];
/// assert_eq!(next_combination(&mut a, 4), Some(1));
/// assert_eq!(a, [0, 2, 3]);
/// assert_eq!(next_combination(&mut a, 4), Some(0));
/// assert_eq!(a, [1, 2, 3]);
/// assert_eq!(next_combination(&mut a, 4), None);
/// ```
#[inline]
pub fn next_combination(a: &mut [usize], len: usize) -> Option<usize> {
    let n = a.len();
    let mut i = n;
    while i > 0 {
        i -= 1;
        if a[i] < len - n + i {
            a[i] += 1;
            for j in i + 1..n {
                a[j] = a[j - 1] + 1;
            }
            return Some(i);
        }
    }
    None
}

/// The molecules of a configuration, walked in parallel: the one walk of
/// bbx over a whole configuration (the forward counts, the strategy's
/// spectra, the catalogue, verify's groups).
///
/// [`chunks`](Walk::chunks) splits a range of numbers into chunks of
/// consecutive numbers as a rayon parallel iterator, so that each caller
/// reduces them its own way (a fold, an ordered collect, slices written in
/// place); [`Chunk::visit`] walks one chunk in number order with
/// [`next_combination`] after checking the [`Budget`].
///
/// ```
/// use rayon::prelude::*;
/// use bbx::control::Budget;
/// use bbx::rules::enumeration::Walk;
///
/// let walk = Walk::new("A2_B4".parse().unwrap()).unwrap();
/// let budget = Budget::default();
/// // Every molecule's lowest atom, summed over the configuration.
/// let sum: usize = walk
///     .chunks(1..=walk.count(), 7)
///     .map(|chunk| {
///         let mut s = 0;
///         chunk.visit(&budget, |_, atoms, _| s += atoms[0]).map(|()| s)
///     })
///     .sum::<Result<usize, _>>()
///     .unwrap();
/// let by_hand: usize = (0..16).map(|a| a * (15 - a)).sum();
/// assert_eq!(sum, by_hand);
/// ```
#[derive(Debug, Clone)]
pub struct Walk {
    numbering: Numbering,
    count: u64,
}

/// A run of consecutive molecule numbers of a [`Walk`].
#[derive(Debug, Clone, Copy)]
pub struct Chunk<'a> {
    walk: &'a Walk,
    /// Its place among the chunks of the range, from 0.
    pub index: usize,
    /// Its first molecule's number.
    pub first: u64,
    /// Its last molecule's number.
    pub last: u64,
}

impl Walk {
    /// The walk of `config`; an error when it has too many molecules to
    /// number in a `u64`.
    pub fn new(config: Config) -> Result<Walk, Error> {
        let count = config.molecule_count();
        match (Numbering::new(config), count) {
            (Some(numbering), Some(count)) => Ok(Walk { numbering, count }),
            _ => Err(Error::invalid(format!(
                "configuration {config} has too many molecules to number"
            ))),
        }
    }

    /// The configuration's number of molecules.
    pub fn count(&self) -> u64 {
        self.count
    }

    /// The numbering the walk uses.
    pub fn numbering(&self) -> &Numbering {
        &self.numbering
    }

    /// The molecules numbered `numbers` (within 1..=[`count`](Walk::count)),
    /// in chunks of `size` numbers (the last may be shorter), in order.
    pub fn chunks(
        &self,
        numbers: RangeInclusive<u64>,
        size: u64,
    ) -> impl IndexedParallelIterator<Item = Chunk<'_>> {
        let first = (*numbers.start()).max(1);
        let last = (*numbers.end()).min(self.count);
        let size = size.max(1);
        let n = if last < first {
            0
        } else {
            (last - first) / size + 1
        };
        (0..n as usize).into_par_iter().map(move |index| {
            let start = first + index as u64 * size;
            Chunk {
                walk: self,
                index,
                first: start,
                last: (start + size - 1).min(last),
            }
        })
    }
}

impl Chunk<'_> {
    /// Its number of molecules.
    pub fn len(&self) -> usize {
        (self.last - self.first + 1) as usize
    }

    /// Whether it holds no molecule (never, for a chunk of
    /// [`Walk::chunks`]).
    pub fn is_empty(&self) -> bool {
        self.last < self.first
    }

    /// Calls `f(number, atoms, moved)` for each molecule in number order:
    /// its number, its atoms' cells (sorted), and the index of the first
    /// atom that moved since the molecule before (0 for the chunk's first).
    /// Checks `budget` first, and walks nothing when it is spent.
    pub fn visit(
        &self,
        budget: &Budget,
        mut f: impl FnMut(u64, &[usize], usize),
    ) -> Result<(), Cut> {
        budget.check()?;
        let numbering = &self.walk.numbering;
        let mut atoms = Vec::with_capacity(numbering.atoms);
        numbering.unrank_into(self.first, &mut atoms);
        let mut moved = 0;
        for number in self.first..=self.last {
            f(number, &atoms, moved);
            moved = next_combination(&mut atoms, numbering.cells).unwrap_or(0);
        }
        Ok(())
    }
}

impl Iterator for Molecules {
    type Item = Molecule;
    fn next(&mut self) -> Option<Molecule> {
        if self.done {
            return None;
        }
        let m = Molecule::from_sorted_unchecked(self.shape, self.atoms.clone());
        self.done = next_combination(&mut self.atoms, self.cells).is_none();
        Some(m)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn binomials() {
        assert_eq!(binomial(64, 4), Some(635_376));
        assert_eq!(binomial(4, 5), Some(0));
        assert_eq!(binomial(0, 0), Some(1));
        assert_eq!(binomial(67, 33), Some(14_226_520_737_620_288_370));
        assert_eq!(binomial(68, 34), None);
    }

    #[test]
    fn seed_numbers() {
        let m: Molecule = "O-O-------------".parse().unwrap();
        assert_eq!(rank(&m), Some(2));
        assert_eq!(canonical(&m), Some((2, Transform::Id)));
        let m: Molecule = "O-O-----------O---------O-----------".parse().unwrap();
        assert_eq!(rank(&m), Some(868));
        assert_eq!(canonical(&m), Some((868, Transform::Id)));
        // J. Forget's rot180 image of molecule 2 is number 119.
        let m: Molecule = "-------------O-O".parse().unwrap();
        assert_eq!(rank(&m), Some(119));
        assert_eq!(canonical(&m), Some((2, Transform::Rot180)));
    }

    #[test]
    fn enumeration_matches_rank() {
        for cfg in ["A0_B3", "A1_B3", "A2_B4", "A3_B4", "A9_B3"] {
            let c: Config = cfg.parse().unwrap();
            let mut count = 0;
            for (i, m) in Molecules::new(c).enumerate() {
                assert_eq!(rank(&m), Some(i as u64 + 1));
                assert_eq!(unrank(c, i as u64 + 1).unwrap(), m);
                count += 1;
            }
            assert_eq!(Some(count), c.molecule_count());
        }
    }

    #[test]
    fn numbering_agrees() {
        for cfg in ["A2_B4", "A3_B5", "A4_B4"] {
            let c: Config = cfg.parse().unwrap();
            let n = Numbering::new(c).unwrap();
            let mut atoms = Vec::new();
            for m in Molecules::new(c) {
                assert_eq!(Some(n.rank(m.atoms())), rank(&m));
                n.unrank_into(n.rank(m.atoms()), &mut atoms);
                assert_eq!(atoms, m.atoms());
                assert_eq!(Some(n.canonical(&m)), canonical(&m));
            }
        }
    }

    #[test]
    fn rectangles_are_numbered_under_their_four_symmetries() {
        for cfg in ["A2_B3x2", "A3_B4x3", "A2_B1x5"] {
            let c: Config = cfg.parse().unwrap();
            let n = Numbering::new(c).unwrap();
            let mut count = 0;
            for (i, m) in Molecules::new(c).enumerate() {
                assert_eq!(m.shape(), c.shape());
                assert_eq!(rank(&m), Some(i as u64 + 1));
                assert_eq!(unrank(c, i as u64 + 1).unwrap(), m);
                // The canonical number is the least of the four images'.
                let least = Transform::RECTANGLE
                    .iter()
                    .map(|t| rank(&t.molecule(&m)).unwrap())
                    .min();
                let (number, t) = canonical(&m).unwrap();
                assert_eq!(Some(number), least);
                assert!(Transform::RECTANGLE.contains(&t), "{t}");
                assert_eq!(t.molecule(&unrank(c, number).unwrap()), m);
                assert_eq!(n.canonical(&m), (number, t));
                count += 1;
            }
            assert_eq!(Some(count), c.molecule_count());
        }
    }

    #[test]
    fn a_nearly_full_box_is_numbered() {
        // C(81, 40) passes 64 bits; no molecule of A79_B9 needs it.
        let c: Config = "A79_B9".parse().unwrap();
        let n = Numbering::new(c).expect("numbered");
        let mut atoms = Vec::new();
        for number in [1, 2, 1000, 3239, 3240] {
            let m = unrank(c, number).unwrap();
            assert_eq!(n.rank(m.atoms()), number);
            n.unrank_into(number, &mut atoms);
            assert_eq!(atoms, m.atoms());
        }
    }

    #[test]
    fn unrank_out_of_range() {
        let c: Config = "A2_B4".parse().unwrap();
        assert!(unrank(c, 0).is_err());
        let e = unrank(c, 121).unwrap_err().to_string();
        assert!(e.contains("1 to 120"), "{e}");
    }

    #[test]
    fn the_walk_visits_every_molecule_once_in_number_order_in_any_chunking() {
        let config: Config = "A3_B4".parse().unwrap();
        let walk = Walk::new(config).unwrap();
        let expected: Vec<(u64, Vec<usize>)> = Molecules::new(config)
            .enumerate()
            .map(|(i, m)| (i as u64 + 1, m.atoms().to_vec()))
            .collect();
        for size in [1, 3, 7, 560, 1000] {
            let chunks: Vec<Vec<(u64, Vec<usize>, usize)>> = walk
                .chunks(1..=walk.count(), size)
                .map(|c| {
                    let mut seen = Vec::new();
                    c.visit(&Budget::default(), |n, a, moved| {
                        seen.push((n, a.to_vec(), moved))
                    })
                    .unwrap();
                    seen
                })
                .collect();
            let seen: Vec<_> = chunks.concat();
            let got: Vec<(u64, Vec<usize>)> =
                seen.iter().map(|(n, a, _)| (*n, a.clone())).collect();
            assert_eq!(got, expected, "chunks of {size}");
            for w in seen.windows(2) {
                let (a, b, moved) = (&w[0].1, &w[1].1, w[1].2);
                if moved > 0 || a[0] == b[0] {
                    assert_eq!(a[..moved], b[..moved], "{a:?} → {b:?} said {moved}");
                }
            }
        }
        let some: Vec<u64> = walk.chunks(5..=9, 2).map(|c| c.first).collect();
        assert_eq!(some, [5, 7, 9]);
        let cancelled = Budget::default();
        cancelled.cancel.cancel();
        let chunk = walk.chunks(1..=10, 10).collect::<Vec<_>>()[0];
        assert_eq!(chunk.visit(&cancelled, |_, _, _| ()), Err(Cut::Cancelled));
    }
}
