//! Every molecule of a configuration with its spectrum, held in memory for
//! the strategies played against all of them and the searches over them
//! ([`strategy`](super::strategy), [`optimal`](super::optimal)).
//!
//! Molecule `m` (from 0: number `m + 1`) has its atoms' cells and its
//! outcome codes ([`Outcome::code`]), one byte per ray. The table is filled
//! by one parallel walk over the configuration
//! ([`Walk`](crate::rules::enumeration::Walk)), which checks the budget as
//! it goes.

use std::collections::HashMap;

use rayon::prelude::*;

use crate::control::{Budget, Cut, Finished};
use crate::error::Error;
use crate::rules::board::Molecule;
use crate::rules::config::{Config, ConfigRange};
use crate::rules::enumeration::Walk;
use crate::rules::ray::{Outcome, Rules, Tracer};
use crate::rules::score::MISSED_ATOM_PENALTY;
use crate::setting::{Setting, Text};
use crate::solver::human_bytes;

/// The most molecules whose spectra are held (a strategy plays every one).
pub const STRATEGY_LIMIT: u64 = 50_000_000;

/// The memory bound of the spectra when the budget gives none: 4 GB.
pub const SPECTRA_MEMORY: u64 = 4_000_000_000;

/// Molecules a task of the walk fills.
const CHUNK: u64 = 1 << 14;

/// The largest set whose rays [`Spectra::ray_splits`] weighs pair by pair
/// (a pair's comparison costs about what a molecule's count does, and the
/// count clears and scans a cell per ray and outcome code besides).
const PAIRWISE_MOST: usize = 24;

/// The most rays that [`Spectra::ray_splits`] compares pair by pair (every
/// box up to 64×64).
const MOST_RAYS: usize = 256;

/// Every molecule of a configuration with its spectrum.
#[derive(Debug, Clone)]
pub(crate) struct Spectra {
    pub(crate) config: Config,
    /// Rays per spectrum (4p).
    pub(crate) rays: usize,
    /// Molecules.
    pub(crate) count: usize,
    /// Cells per molecule in `atoms` (its atoms, at least 1).
    stride: usize,
    /// Molecule m's atoms at `atoms[m * stride..][..atoms]` (cell indices).
    atoms: Vec<u16>,
    /// Molecule m's outcome codes at `codes[m * rays..(m + 1) * rays]`.
    pub(crate) codes: Vec<u8>,
    /// The molecules of a range of atom counts ([`Spectra::of_range`]):
    /// molecule m's count. Empty for one configuration (`config`'s count).
    counts: Vec<u8>,
    /// The range the molecules were drawn from, when they are of several
    /// counts (`config` then holds the most).
    pub(crate) range: Option<ConfigRange>,
}

impl Spectra {
    /// The spectra of every molecule of `config` under `rules`, within
    /// `budget`: an error when they are too many (past [`STRATEGY_LIMIT`]
    /// molecules, or boxes wider than 63) or would take, with the `beside`
    /// bytes a molecule the caller keeps while it works on them, more than
    /// its memory bound ([`SPECTRA_MEMORY`] when it gives none), before
    /// anything is allocated; nothing (`None`) when its deadline or token
    /// stopped the walk.
    pub(crate) fn new(
        config: Config,
        rules: Rules,
        budget: &Budget,
        beside: u64,
    ) -> Result<Finished<Option<Spectra>>, Error> {
        let count = config.molecule_count().unwrap_or(u64::MAX);
        if count > STRATEGY_LIMIT || config.width.max(config.height) > 63 {
            return Err(too_many(config, config.molecule_count()));
        }
        let bytes = count * (Spectra::bytes_per_molecule(config) + beside);
        let bound = budget.memory_or(SPECTRA_MEMORY);
        if bytes > bound {
            let what = if beside > 0 {
                ", with the games played on them,"
            } else {
                ""
            };
            let needs = format!(
                "the spectra of {config}'s {count} molecules{what} take about {}, more than the memory bound of {}: raise it (",
                human_bytes(bytes),
                human_bytes(bound)
            );
            return Err(Error::invalid(
                Text::from(needs).and(Setting::Memory).and(")"),
            ));
        }
        let n = count as usize;
        let mut spectra = Spectra::zeroed(config, n);
        let (rays, stride) = (spectra.rays, spectra.stride);
        let walk = Walk::new(config)?;
        let chunk = CHUNK as usize;
        let filled = walk
            .chunks(1..=count, CHUNK)
            .zip(spectra.atoms.par_chunks_mut(chunk * stride))
            .zip(spectra.codes.par_chunks_mut(chunk * rays))
            .try_for_each(|((part, atoms), codes)| {
                let mut tracer = Tracer::new(config.shape(), rules);
                let mut rows = atoms.chunks_mut(stride).zip(codes.chunks_mut(rays));
                part.visit(budget, |_, cells, _| {
                    if let Some((a, spectrum)) = rows.next() {
                        fill(&mut tracer, cells, a, spectrum);
                    }
                })
            });
        Ok(match filled {
            Ok(()) => Finished::complete(Some(spectra)),
            Err(cut) => Finished::new(None, cut.into()),
        })
    }

    /// The bytes a molecule takes in the table: an outcome code a ray and
    /// its atoms' cells (two bytes each).
    fn bytes_per_molecule(config: Config) -> u64 {
        (config.positions() + 2 * config.atoms.max(1)) as u64
    }

    /// A table of `n` molecules of `config`, every code and cell zero.
    fn zeroed(config: Config, n: usize) -> Spectra {
        let (rays, stride) = (config.positions(), config.atoms.max(1));
        Spectra {
            config,
            rays,
            count: n,
            stride,
            atoms: vec![0; n * stride],
            codes: vec![0; n * rays],
            counts: Vec::new(),
            range: None,
        }
    }

    /// The spectra of every molecule of every count of `range` under
    /// `rules`, the counts in order (the molecules of the fewest atoms
    /// first, each count in number order), within `budget`, as
    /// [`Spectra::new`] makes each count's.
    pub(crate) fn of_range(
        range: ConfigRange,
        rules: Rules,
        budget: &Budget,
        beside: u64,
    ) -> Result<Finished<Option<Spectra>>, Error> {
        if let Some(config) = range.exact() {
            return Spectra::new(config, rules, budget, beside);
        }
        let most = range.with_atoms(range.max_atoms);
        let total = range.molecule_count().unwrap_or(u64::MAX);
        if total > STRATEGY_LIMIT || most.width.max(most.height) > 63 {
            return Err(too_many(range, range.molecule_count()));
        }
        let mut all = Spectra::zeroed(most, 0);
        all.range = Some(range);
        for k in range.atoms() {
            let one = Spectra::new(range.with_atoms(k), rules, budget, beside)?;
            let Some(one) = one.value else {
                return Ok(Finished::new(None, one.ended));
            };
            for m in 0..one.count as u32 {
                let mut row = vec![0u16; all.stride];
                row[..k].copy_from_slice(one.atoms(m));
                all.atoms.extend(row);
                all.codes.extend_from_slice(one.spectrum(m));
                all.counts.push(k as u8);
            }
            all.count += one.count;
        }
        Ok(Finished::complete(Some(all)))
    }

    /// The spectra of `molecules`, all of `config`'s atom count and box, in
    /// the order given (molecule `m` of the table is `molecules[m]`), under
    /// `rules`: the table of a set of molecules that fit an observation, on
    /// which a policy chooses its next ray ([`next`](super::next)). Traced
    /// in parallel within `budget`: cut short by its deadline or token, or
    /// at once when the table would take more than its memory bound
    /// ([`SPECTRA_MEMORY`] when it gives none). The caller keeps to boxes
    /// of at most 63 on a side (outcome codes fit a byte).
    pub(crate) fn of_molecules(
        config: Config,
        rules: Rules,
        molecules: &[Molecule],
        budget: &Budget,
    ) -> Result<Spectra, Cut> {
        let n = molecules.len();
        let bytes = n as u64 * Spectra::bytes_per_molecule(config);
        if bytes > budget.memory_or(SPECTRA_MEMORY) {
            return Err(Cut::OverMemory);
        }
        budget.check()?;
        let mut spectra = Spectra::zeroed(config, n);
        let (rays, stride) = (spectra.rays, spectra.stride);
        let chunk = 1024;
        spectra
            .atoms
            .par_chunks_mut(chunk * stride)
            .zip(spectra.codes.par_chunks_mut(chunk * rays))
            .zip(molecules.par_chunks(chunk))
            .try_for_each(|((atoms, codes), part)| {
                budget.check()?;
                let mut tracer = Tracer::new(config.shape(), rules);
                let rows = atoms.chunks_mut(stride).zip(codes.chunks_mut(rays));
                for ((a, spectrum), molecule) in rows.zip(part) {
                    fill(&mut tracer, molecule.atoms(), a, spectrum);
                }
                Ok(())
            })?;
        Ok(spectra)
    }

    /// The outcome code of ray `q` (1..=rays) for molecule `m`.
    pub(crate) fn code(&self, m: u32, q: usize) -> u8 {
        self.codes[m as usize * self.rays + q - 1]
    }

    /// Molecule `m`'s spectrum, as outcome codes.
    pub(crate) fn spectrum(&self, m: u32) -> &[u8] {
        &self.codes[m as usize * self.rays..(m as usize + 1) * self.rays]
    }

    /// Molecule `m`'s atoms (cell indices, sorted).
    pub(crate) fn atoms(&self, m: u32) -> &[u16] {
        let at = m as usize * self.stride;
        let k = match self.counts.get(m as usize) {
            Some(&k) => usize::from(k),
            None => self.config.atoms,
        };
        &self.atoms[at..at + k]
    }

    /// How many atoms the seeker places for the molecules of `set`: their
    /// count, or, for a range, the count most of them have (the fewer on a
    /// tie).
    pub(crate) fn count_for(&self, set: &[u32]) -> usize {
        if self.counts.is_empty() {
            return self.config.atoms;
        }
        let mut by_count = [0u64; 256];
        for &m in set {
            by_count[usize::from(self.counts[m as usize])] += 1;
        }
        let most = by_count.iter().copied().max().unwrap_or(0);
        by_count.iter().position(|&n| n == most).unwrap_or(0)
    }

    /// The configuration or range the molecules are of, for reports.
    pub(crate) fn name(&self) -> String {
        self.range
            .map_or_else(|| self.config.to_string(), |r| r.to_string())
    }

    /// Per molecule, the number of its spectrum class (the molecules of one
    /// spectrum, numbered in order of first appearance), and each class's
    /// size.
    pub(crate) fn classes(&self) -> (Vec<u32>, Vec<u64>) {
        let mut by_spectrum: HashMap<&[u8], u32> = HashMap::new();
        let mut sizes = Vec::new();
        let class = (0..self.count as u32)
            .map(|m| {
                let next = by_spectrum.len() as u32;
                let c = *by_spectrum.entry(self.spectrum(m)).or_insert(next);
                if c == next {
                    sizes.push(0);
                }
                sizes[c as usize] += 1;
                c
            })
            .collect();
        (class, sizes)
    }

    /// Codes a ray's outcome can have.
    pub(crate) fn codes(&self) -> usize {
        Outcome::codes(self.rays)
    }

    /// How many molecules of `set` give each outcome code of ray `q`, into
    /// `counts` (one per code).
    pub(crate) fn count(&self, set: &[u32], q: usize, counts: &mut [u64]) {
        counts.fill(0);
        for &m in set {
            counts[usize::from(self.code(m, q))] += 1;
        }
    }

    /// How many molecules of `set` give each outcome code of every ray, into
    /// `counts`: ray `q`'s counts are `counts[(q - 1) * codes..q * codes]`
    /// (`codes` is [`Spectra::codes`]). One pass over the molecules' rows,
    /// where a count per ray ([`Spectra::count`]) goes through them once a
    /// ray.
    pub(crate) fn count_rays(&self, set: &[u32], counts: &mut Vec<u64>) {
        let codes = self.codes();
        counts.clear();
        counts.resize(self.rays * codes, 0);
        for &m in set {
            let row = &self.codes[m as usize * self.rays..][..self.rays];
            for (q, &c) in row.iter().enumerate() {
                counts[q * codes + usize::from(c)] += 1;
            }
        }
    }

    /// How each ray splits `set`, into `splits` (ray `q`'s at `q - 1`): the
    /// sum of its outcome classes' squared sizes and how many outcomes it
    /// has. A small set's molecules are compared pair by pair (a ray's
    /// equal pairs give its squares, a molecule equal to none before it a
    /// new outcome), which spares the clearing and the scan of a count per
    /// outcome code; a larger one is counted ([`Spectra::count_rays`], in
    /// `counts`).
    pub(crate) fn ray_splits(
        &self,
        set: &[u32],
        counts: &mut Vec<u64>,
        splits: &mut Vec<(u64, u32)>,
    ) {
        let (n, r) = (set.len(), self.rays);
        splits.clear();
        if n > PAIRWISE_MOST || r > MOST_RAYS {
            self.count_rays(set, counts);
            self.splits_of(counts, splits);
            return;
        }
        // Per ray: the pairs of molecules with one outcome, and the
        // molecules whose outcome an earlier one has.
        let (mut equal, mut repeated) = ([0u16; MOST_RAYS], [0u16; MOST_RAYS]);
        for (i, &m) in set.iter().enumerate().skip(1) {
            let a = self.spectrum(m);
            let (mut pairs, mut seen) = ([0u8; MOST_RAYS], [0u8; MOST_RAYS]);
            for &earlier in &set[..i] {
                let b = self.spectrum(earlier);
                for (((p, s), x), y) in pairs[..r].iter_mut().zip(&mut seen[..r]).zip(a).zip(b) {
                    let same = u8::from(x == y);
                    *p += same;
                    *s |= same;
                }
            }
            for (((e, d), p), s) in equal[..r]
                .iter_mut()
                .zip(&mut repeated[..r])
                .zip(&pairs)
                .zip(&seen)
            {
                *e += u16::from(*p);
                *d += u16::from(*s);
            }
        }
        let n = n as u64;
        splits.extend(
            equal[..r]
                .iter()
                .zip(&repeated[..r])
                .map(|(&e, &d)| (n + 2 * u64::from(e), (n - u64::from(d)) as u32)),
        );
    }

    /// How each ray splits a set whose counts ([`Spectra::count_rays`]) are
    /// `counts`, into `splits` as [`Spectra::ray_splits`] gives them.
    pub(crate) fn splits_of(&self, counts: &[u64], splits: &mut Vec<(u64, u32)>) {
        splits.clear();
        splits.extend(counts.chunks_exact(self.codes()).map(|c| {
            let outcomes = c.iter().filter(|&&c| c > 0).count() as u32;
            (c.iter().map(|&c| c * c).sum(), outcomes)
        }));
    }

    /// `set` sorted by the outcome of ray `q` as [`split`](Self::split)
    /// sorts it, into buffers of its own: the molecules, and each code's
    /// start.
    pub(crate) fn parts(&self, set: &[u32], q: usize) -> (Vec<u32>, Vec<usize>) {
        let (mut part, mut starts) = (vec![0u32; set.len()], Vec::new());
        self.split(set, q, &mut part, &mut starts);
        (part, starts)
    }

    /// Sorts `set` into `out` by the outcome of ray `q`, keeping their order
    /// within each outcome (a counting sort): the molecules of code `c` are
    /// then `out[starts[c]..starts[c + 1]]`.
    pub(crate) fn split(&self, set: &[u32], q: usize, out: &mut [u32], starts: &mut Vec<usize>) {
        starts.clear();
        starts.resize(self.codes() + 1, 0);
        for &m in set {
            starts[usize::from(self.code(m, q)) + 1] += 1;
        }
        for c in 0..self.codes() {
            starts[c + 1] += starts[c];
        }
        // Each code's start moves on as its molecules are placed, ending
        // at the next code's start: the starts are then one place ahead.
        for &m in set {
            let c = usize::from(self.code(m, q));
            out[starts[c]] = m;
            starts[c] += 1;
        }
        starts.copy_within(..self.codes(), 1);
        starts[0] = 0;
    }

    /// Per cell, how many molecules of `set` hold an atom there.
    pub(crate) fn frequencies(&self, set: &[u32]) -> Vec<u64> {
        let mut freq = vec![0u64; self.config.cells()];
        for &m in set {
            for &a in self.atoms(m) {
                freq[usize::from(a)] += 1;
            }
        }
        freq
    }

    /// Where the seeker places the atoms for the molecules of `set`: the
    /// cells most often holding one (ties: the lowest cells).
    pub(crate) fn placement(&self, set: &[u32]) -> Vec<u16> {
        let freq = self.frequencies(set);
        let mut order: Vec<u16> = (0..freq.len() as u16).collect();
        order.sort_by(|&a, &b| {
            freq[usize::from(b)]
                .cmp(&freq[usize::from(a)])
                .then(a.cmp(&b))
        });
        order.truncate(self.count_for(set));
        order
    }

    /// Hidden atoms of `m` not among `placed`.
    pub(crate) fn missed(&self, m: u32, placed: &[u16]) -> u64 {
        self.atoms(m).iter().filter(|a| !placed.contains(a)).count() as u64
    }

    /// The penalty of placing the atoms now, all molecules of `set`
    /// together: [`MISSED_ATOM_PENALTY`] per hidden atom not on the cells
    /// most often holding one.
    pub(crate) fn stop_total(&self, set: &[u32]) -> u64 {
        if !self.counts.is_empty() {
            let placed = self.placement(set);
            let missed: u64 = set.iter().map(|&m| self.missed(m, &placed)).sum();
            return MISSED_ATOM_PENALTY * missed;
        }
        let k = self.config.atoms;
        let covered = covered(&mut self.frequencies(set), k);
        MISSED_ATOM_PENALTY * (k as u64 * set.len() as u64 - covered)
    }
}

/// The atoms the `atoms` cells of highest frequency cover (`freq` is
/// sorted, most first).
fn covered(freq: &mut [u64], atoms: usize) -> u64 {
    freq.sort_unstable_by(|a, b| b.cmp(a));
    freq.iter().take(atoms).sum()
}

/// The refusal of a table of `what` (a configuration or a range) with `count`
/// molecules (`None`: past 2^64), too many to hold.
fn too_many(what: impl std::fmt::Display, count: Option<u64>) -> Error {
    let count = count.map_or("more than 2^64".to_string(), |n| n.to_string());
    Error::invalid(format!(
        "{what} has {count} molecules: a strategy is played against every one of them, their spectra held in memory, up to {STRATEGY_LIMIT} molecules in boxes up to 63×63"
    ))
}

/// Fills one row of a table: the molecule's atoms (`cells`) into `atoms`,
/// its outcome codes into `spectrum`.
fn fill(tracer: &mut Tracer, cells: &[usize], atoms: &mut [u16], spectrum: &mut [u8]) {
    tracer.update_cells(cells);
    for (x, &c) in atoms.iter_mut().zip(cells) {
        *x = c as u16;
    }
    for (q, out) in spectrum.iter_mut().enumerate() {
        *out = tracer.trace(q + 1).outcome.code() as u8;
    }
}

/// The expected penalty of placing the atoms now, for the `size`
/// molecules with these cell frequencies: [`MISSED_ATOM_PENALTY`] per atom,
/// less what the best cells cover.
pub(crate) fn stop_penalty(freq: &mut [u64], atoms: usize, size: u64) -> f64 {
    let covered = covered(freq, atoms);
    MISSED_ATOM_PENALTY as f64 * (atoms as f64 - covered as f64 / size as f64)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::control::{Cut, Ended};
    use crate::rules::enumeration::Molecules;
    use crate::rules::spectrum::Spectrum;

    fn spectra(config: &str, budget: &Budget) -> Result<Finished<Option<Spectra>>, Error> {
        Spectra::new(config.parse().unwrap(), Rules::Standard, budget, 0)
    }

    #[test]
    fn every_molecule_has_its_atoms_and_spectrum_in_number_order() {
        for config in ["A0_B3", "A1_B3", "A3_B4"] {
            let s = spectra(config, &Budget::default())
                .unwrap()
                .whole()
                .unwrap()
                .unwrap();
            let all: Vec<_> = Molecules::new(config.parse().unwrap()).collect();
            assert_eq!(s.count, all.len());
            for (m, molecule) in all.iter().enumerate() {
                let cells: Vec<usize> = s.atoms(m as u32).iter().map(|&a| a.into()).collect();
                assert_eq!(cells, molecule.atoms());
                let spectrum = Spectrum::of(molecule, Rules::Standard);
                for q in 1..=s.rays {
                    assert_eq!(
                        Outcome::from_code(s.code(m as u32, q).into()),
                        spectrum.get(q)
                    );
                }
            }
        }
    }

    #[test]
    fn the_walk_stops_with_the_budget_and_never_starts_past_its_memory() {
        let cancelled = Budget::default();
        cancelled.cancel.cancel();
        let r = spectra("A4_B6", &cancelled).unwrap();
        assert!(r.value.is_none() && r.ended == Ended::Cancelled);
        let past = Budget::default().with_timeout(std::time::Duration::ZERO);
        assert_eq!(
            spectra("A4_B6", &past).unwrap().ended,
            Ended::from(Cut::TimedOut)
        );
        // A4_B6: 58,905 molecules of 24 rays and 4 atoms, 1.9 MB.
        let small = Budget::default().with_memory(Some(1_000_000));
        let e = spectra("A4_B6", &small).unwrap_err();
        assert!(
            e.to_string().contains("more than the memory bound of 1 MB"),
            "{e}"
        );
        assert!(spectra("A9_B30", &Budget::default()).is_err());
    }

    /// Each ray's split worked out by hand: the molecules of each outcome
    /// counted by their codes, one ray at a time.
    fn splits_by_hand(s: &Spectra, set: &[u32]) -> Vec<(u64, u32)> {
        (1..=s.rays)
            .map(|q| {
                let mut sizes = std::collections::BTreeMap::new();
                for &m in set {
                    *sizes.entry(s.code(m, q)).or_insert(0u64) += 1;
                }
                (sizes.values().map(|n| n * n).sum(), sizes.len() as u32)
            })
            .collect()
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(64))]
        /// Pair by pair (small sets) or counted (larger ones), a ray's
        /// split is its outcome classes' squared sizes and their number.
        #[test]
        fn a_ray_splits_a_set_into_its_outcome_classes(
            picks in proptest::collection::vec(0u32..1820, 0..60),
        ) {
            static SPECTRA: std::sync::OnceLock<Spectra> = std::sync::OnceLock::new();
            let s = SPECTRA.get_or_init(|| {
                spectra("A4_B4", &Budget::default()).unwrap().whole().unwrap().unwrap()
            });
            let mut set = picks;
            set.sort_unstable();
            set.dedup();
            let (mut counts, mut splits) = (Vec::new(), Vec::new());
            s.ray_splits(&set, &mut counts, &mut splits);
            proptest::prop_assert_eq!(&splits, &splits_by_hand(s, &set));
            // And the split by one of its rays: each outcome's molecules
            // in their order.
            let q = 1 + set.len() % s.rays;
            let (mut out, mut starts) = (vec![0; set.len()], Vec::new());
            s.split(&set, q, &mut out, &mut starts);
            for c in 0..s.codes() {
                let want: Vec<u32> =
                    set.iter().copied().filter(|&m| usize::from(s.code(m, q)) == c).collect();
                proptest::prop_assert_eq!(&out[starts[c]..starts[c + 1]], &want[..]);
            }
        }
    }
}
