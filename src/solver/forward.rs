//! The molecules that fit, counted forward: every molecule of the
//! configuration walked in number order and traced, the rays shot first.
//!
//! The SAT search lists molecules one by one, so what it says about them —
//! which ray splits them best, where the atoms probably are — rests on the
//! ones it listed, the first it found, which are no sample. Where the
//! configuration can be walked (up to [`FORWARD_LIMIT`] molecules, A5_B8's
//! 7.6 million in a second or two) this counts on every molecule that fits,
//! without keeping any: per unshot ray, how many give each outcome; per cell,
//! how many hold an atom there.
//!
//! ```
//! use bbx::control::Budget;
//! use bbx::solver::forward::tally;
//! use bbx::{Molecule, Observation, Rules, Spectrum};
//! let m: Molecule = "O-O-------------".parse().unwrap();
//! let mut seen = Observation::full(&Spectrum::of(&m, Rules::Standard));
//! for pos in 3..=16 {
//!     seen.forget(pos);
//! }
//! let t = tally(&seen, Rules::Standard, 2..=2, &Budget::default()).unwrap().whole().unwrap();
//! assert!(t.molecules > 1);
//! let best = &t.splits()[0];
//! assert!(best.expected_remaining < t.molecules as f64);
//! ```

use std::ops::RangeInclusive;

use rand::RngExt as _;
use rand::SeedableRng as _;
use rand::rngs::ChaCha8Rng;
use rand::seq::index;
use rayon::prelude::*;

use crate::control::{Budget, Cut, Ended, Finished};
use crate::error::Error;
use crate::rules::config::{Config, Shape};
use crate::rules::enumeration::Walk;
use crate::rules::ray::{Outcome, Rules, Tracer};
use crate::rules::spectrum::Observation;
use crate::solver::DEFAULT_MEMORY;
use crate::solver::solution::{Split, best_first};

/// The most molecules walked: beyond, the SAT search (and its first
/// molecules) is all there is.
pub const FORWARD_LIMIT: u64 = 100_000_000;

/// The most rays traced for the rays not shot (molecules walked × rays):
/// A5_B8's opening traces 244 million.
pub const FORWARD_TRACES: u64 = 4_000_000_000;

/// The most counters in a tally (rays not shot × outcomes), 8 bytes each:
/// boxes up to about 500 wide.
const FORWARD_TABLE: u64 = 1 << 22;

/// Molecule numbers per task, at most: fewer on a large box, so that a task
/// traces about [`CHUNK_STEPS`] cells and the budget is asked often.
const CHUNK: u64 = 1 << 15;

/// The cells a task of a walk traces, about (its molecules times their rays
/// times the box's width).
const CHUNK_STEPS: u64 = 1 << 24;

/// Draws between two looks at the budget inside a task of a sample.
const DRAW_TICKS: u32 = 16;

/// The molecules a sample aims at: the expected values of the best rays are
/// then known to a few percent.
pub const SAMPLE_SIZE: u64 = 10_000;

/// The fewest molecules a sample must reach to rank on: below, the ranking
/// stays on the molecules the solver found, and says so.
pub const SAMPLE_MIN: u64 = 1_000;

/// The most molecules drawn at random for a sample (each traced only until
/// one of its shot rays disagrees).
pub const SAMPLE_DRAWS: u64 = 20_000_000;

/// Molecules drawn after which a sample that reached [`SAMPLE_MIN`] stops
/// short of [`SAMPLE_SIZE`] (about half a second's draws on one core):
/// where few draws fit, the rest of the sample would cost seconds for an
/// interval about twice as narrow.
pub const SAMPLE_ENOUGH_DRAWS: u64 = 2_000_000;

/// Draws per task of a sample.
const SAMPLE_CHUNK: u64 = 1 << 12;

/// The most tasks in a round of a sample: the sample grows by whole rounds,
/// the same on every machine whatever its number of threads.
const SAMPLE_ROUND: u64 = 16;

/// Counts over a uniform random sample of the molecules that fit, where
/// there are too many to walk.
#[derive(Debug, Clone, PartialEq)]
pub struct ForwardSample {
    /// The counts over the sample (`molecules` is the sample's size).
    pub tally: ForwardTally,
    /// Molecules drawn at random (uniformly among all the configuration's
    /// molecules) to find the sample: those that fit are the sample.
    pub drawn: u64,
    /// The molecules that fit, estimated from the share of those drawn that
    /// fit.
    pub estimated: f64,
    /// The seed of the draws (fixed by the observation, so that the same
    /// question gets the same answer).
    pub seed: u64,
}

impl ForwardSample {
    /// Whether the sample holds enough molecules to rank on
    /// ([`SAMPLE_MIN`]).
    pub fn is_enough(&self) -> bool {
        self.tally.molecules >= SAMPLE_MIN
    }

    /// The unshot rays that tell the molecules apart, best first, from the
    /// sample: each ray's expected molecules left is the estimated number
    /// that fit times the sampled chance that two of them agree on it.
    pub fn splits(&self) -> Vec<Split> {
        let scale = self.estimated / self.tally.molecules.max(1) as f64;
        let mut splits = self.tally.splits();
        for s in &mut splits {
            s.expected_remaining *= scale;
        }
        splits
    }

    /// The 95% interval of the molecules that fit: Wilson's interval of the
    /// share of the draws that fit, times the molecules drawn from.
    pub fn interval(&self) -> (f64, f64) {
        let (n, k) = (self.drawn as f64, self.tally.molecules as f64);
        if n == 0.0 || k == 0.0 {
            return (0.0, 0.0);
        }
        let all = self.estimated * n / k;
        let (p, z) = (k / n, 1.96f64);
        let centre = (p + z * z / (2.0 * n)) / (1.0 + z * z / n);
        let half = z / (1.0 + z * z / n) * (p * (1.0 - p) / n + z * z / (4.0 * n * n)).sqrt();
        (all * (centre - half).max(0.0), all * (centre + half))
    }

    /// The relative margin (95%) of the best ray's expected value, as a
    /// share (0.03 is ±3%): the sampling error of the chance that two
    /// molecules agree on that ray, and of the estimated number that fit.
    pub fn margin(&self) -> f64 {
        let n = self.tally.molecules as f64;
        let Some(best) = self.tally.splits().into_iter().next() else {
            return 0.0;
        };
        let shares: Vec<f64> = best.classes.iter().map(|c| c.count as f64 / n).collect();
        let s2: f64 = shares.iter().map(|q| q * q).sum();
        let s3: f64 = shares.iter().map(|q| q * q * q).sum();
        // The estimator of sum q^2 has variance about 4 (sum q^3 - (sum q^2)^2) / n.
        let agree = (4.0 * (s3 - s2 * s2).max(0.0) / n).sqrt() / s2;
        // The share of draws that fit is a binomial proportion.
        let fit = n / self.drawn.max(1) as f64;
        let found = ((1.0 - fit).max(0.0) / n).sqrt();
        1.96 * (agree * agree + found * found).sqrt()
    }
}

/// Exact counts over every molecule that fits an observation.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ForwardTally {
    /// The box.
    pub shape: Shape,
    /// Molecules that fit.
    pub molecules: u64,
    /// Molecules walked.
    pub walked: u64,
    /// Per border position (index = position − 1): for a ray not shot, each
    /// outcome and how many molecules that fit give it; empty for a ray shot.
    pub outcomes: Vec<Vec<(Outcome, u64)>>,
    /// Per cell (linear index): molecules that fit with an atom there.
    pub atoms: Vec<u64>,
}

impl ForwardTally {
    /// The unshot rays that tell the molecules apart, best first (fewest
    /// molecules expected to remain; ties by the lowest position), counted on
    /// all of them.
    pub fn splits(&self) -> Vec<Split> {
        let mut out: Vec<Split> = (self.outcomes.iter().enumerate())
            .filter(|(_, c)| c.len() >= 2)
            .map(|(i, c)| Split::new(i + 1, c.iter().map(|&(o, k)| (o, k as usize)).collect()))
            .collect();
        best_first(&mut out);
        out
    }

    /// Per cell, the share of the molecules that fit with an atom there (0
    /// to 1); empty when none fits.
    pub fn probabilities(&self) -> Vec<f64> {
        if self.molecules == 0 {
            return Vec::new();
        }
        self.atoms
            .iter()
            .map(|&k| k as f64 / self.molecules as f64)
            .collect()
    }
}

/// Counts, over every molecule of `atoms` atoms that fits `observed` under
/// `rules`, the outcomes of the rays not shot and the atoms of each cell,
/// walking the configuration within `budget` (checked every 32,768
/// molecules, fewer on a large box: a task traces about 16 million cells).
/// It ends [`Ended::TooLarge`] past [`FORWARD_LIMIT`] molecules to walk,
/// [`FORWARD_TRACES`] rays to trace, or on a box too wide for the tallies,
/// and [`Ended::OverMemory`] when its tallies (one per thread, at most, and
/// the total) would pass the budget's memory bound ([`DEFAULT_MEMORY`]
/// when it gives none); cut short or too large, it counted nothing (a part
/// of the walk would be no sample).
pub fn tally(
    observed: &Observation,
    rules: Rules,
    atoms: RangeInclusive<usize>,
    budget: &Budget,
) -> Result<Finished<ForwardTally>, Error> {
    let p = observed.shape();
    let counts = Counts::new(observed);
    let nothing = |ended| Ok(Finished::new(counts.part().into_tally(0), ended));
    let mut configs = Vec::new();
    let mut walk = 0u64;
    for k in atoms.filter(|&k| k <= p.cells()) {
        let config = Config::shaped(k, p)?;
        let Some(n) = config.molecule_count() else {
            return nothing(Ended::TooLarge);
        };
        walk = walk.saturating_add(n);
        configs.push(config);
    }
    // Bounded in molecules, in rays traced, and in the size of a tally (one
    // counter per unshot ray and outcome, a few per thread).
    if walk > FORWARD_LIMIT
        || walk.saturating_mul(counts.unshot.len().max(1) as u64) > FORWARD_TRACES
        || counts.too_wide()
    {
        return nothing(Ended::TooLarge);
    }
    let Some(parts) = counts.parts_within(budget) else {
        return nothing(Ended::OverMemory);
    };
    // Each molecule traces every ray, each across the box.
    let steps = p.positions() * p.width.max(p.height);
    let size = (CHUNK_STEPS / steps.max(1) as u64).clamp(64, CHUNK);
    let mut total = counts.part();
    for config in configs {
        let walk = Walk::new(config)?;
        // One tally per share of the chunks, at most `parts` of them, merged
        // as they finish: never one per chunk.
        let chunks = walk.count().div_ceil(size) as usize;
        let part: Result<Part, Cut> = walk
            .chunks(1..=walk.count(), size)
            .with_min_len(chunks.div_ceil(parts).max(1))
            .try_fold(
                || counts.part(),
                |mut part, chunk| {
                    let mut tracer = Tracer::new(p, rules);
                    chunk.visit(budget, |_, atoms, _| {
                        tracer.update_cells(atoms);
                        counts.count(&mut part, &tracer, atoms);
                    })?;
                    Ok(part)
                },
            )
            .try_reduce(|| counts.part(), Part::merged);
        match part {
            Ok(part) => total.merge(&part),
            Err(cut) => return nothing(cut.into()),
        }
    }
    Ok(Finished::complete(total.into_tally(walk)))
}

/// Counts over a uniform random sample of the molecules of `atoms` atoms
/// that fit `observed` under `rules`, for when there are too many to walk
/// ([`tally`] ends [`Ended::TooLarge`]). Molecules are drawn uniformly
/// among all of the configuration's (an atom count in proportion to its
/// molecules, then the cells), and those that fit form the sample: a
/// rejection sample, so uniform among the molecules that fit. It draws in
/// rounds of up to 65,536 (4,096 first, then as many as the share of draws
/// that fit so far says are needed) until it has [`SAMPLE_SIZE`] molecules,
/// or [`SAMPLE_MIN`] after [`SAMPLE_ENOUGH_DRAWS`] draws, or has drawn
/// [`SAMPLE_DRAWS`], checking `budget` every few draws; cut short, the
/// sample is what the whole rounds drawn found (uniform all the same, and
/// used when it reaches [`SAMPLE_MIN`]). Its tallies, one
/// per thread and the total, keep to the budget's memory bound
/// ([`DEFAULT_MEMORY`] when it gives none): when not even two fit, it ends
/// [`Ended::OverMemory`], drawing nothing. A sample of fewer than [`SAMPLE_MIN`]
/// molecules is too thin to rank on ([`ForwardSample::is_enough`]). The
/// draws are seeded by the observation, so the same question gets the same
/// sample. It ends [`Ended::TooLarge`], drawing nothing, when the
/// configuration's count passes what a float holds or the box is too wide
/// for the tallies.
pub fn sample(
    observed: &Observation,
    rules: Rules,
    atoms: RangeInclusive<usize>,
    budget: &Budget,
) -> Result<Finished<ForwardSample>, Error> {
    let seed = sample_seed(observed, rules, &atoms);
    sample_seeded(observed, rules, atoms, budget, seed)
}

/// [`sample`] with its draws seeded by `seed`.
pub(crate) fn sample_seeded(
    observed: &Observation,
    rules: Rules,
    atoms: RangeInclusive<usize>,
    budget: &Budget,
    seed: u64,
) -> Result<Finished<ForwardSample>, Error> {
    let cells = observed.shape().cells();
    let counts = Counts::new(observed);
    // Each atom count's share of the molecules, from the logarithms of their
    // counts (which pass any integer type on a large box).
    let logs: Vec<(usize, f64)> = atoms
        .filter(|&k| k <= cells)
        .map(|k| (k, ln_binomial(cells, k)))
        .collect();
    let top = logs
        .iter()
        .map(|c| c.1)
        .reduce(f64::max)
        .unwrap_or(f64::INFINITY);
    let shares: Vec<(usize, f64)> = logs.iter().map(|&(k, l)| (k, (l - top).exp())).collect();
    let total: f64 = shares.iter().map(|c| c.1).sum();
    let ln_total = top + total.ln();
    let mut fit = counts.part();
    let mut drawn = 0u64;
    let sample = |fit: Part, drawn: u64| ForwardSample {
        estimated: ln_total.exp() * fit.fit as f64 / drawn.max(1) as f64,
        tally: fit.into_tally(drawn),
        drawn,
        seed,
    };
    if logs.is_empty() || ln_total > 700.0 || counts.too_wide() {
        return Ok(Finished::new(sample(fit, 0), Ended::TooLarge));
    }
    let Some(parts) = counts.parts_within(budget) else {
        return Ok(Finished::new(sample(fit, 0), Ended::OverMemory));
    };
    // Whole rounds of chunks in order, each chunk drawn from its own seed,
    // so that the sample does not depend on which thread finishes first;
    // each round as long as the share of draws that fit so far says is
    // needed (one chunk first, twice as many while none fits).
    let mut round = 1;
    while fit.fit < SAMPLE_SIZE
        && drawn < SAMPLE_DRAWS
        && (fit.fit < SAMPLE_MIN || drawn < SAMPLE_ENOUGH_DRAWS)
    {
        if let Err(cut) = budget.check() {
            return Ok(Finished::new(sample(fit, drawn), cut.into()));
        }
        if fit.fit > 0 && drawn > 0 {
            let need = (SAMPLE_SIZE - fit.fit) as f64 * drawn as f64 / fit.fit as f64;
            round = ((1.1 * need / SAMPLE_CHUNK as f64).ceil() as u64).clamp(1, SAMPLE_ROUND);
        }
        let chunk = drawn / SAMPLE_CHUNK;
        let drawn_round: Result<Part, Cut> = (0..round as usize)
            .into_par_iter()
            .map(|i| chunk + i as u64)
            .with_min_len(round.div_ceil(parts as u64).max(1) as usize)
            .try_fold(
                || counts.part(),
                |mut part, c| {
                    let mut rng =
                        ChaCha8Rng::seed_from_u64(seed ^ c.wrapping_mul(0x9E37_79B9_7F4A_7C15));
                    draw_chunk(
                        &counts,
                        &mut part,
                        &mut rng,
                        rules,
                        (&shares, total),
                        budget,
                    )?;
                    Ok(part)
                },
            )
            .try_reduce(|| counts.part(), Part::merged);
        match drawn_round {
            Ok(part) => fit.merge(&part),
            // The round cut short is left out: the sample is whole rounds.
            Err(cut) => return Ok(Finished::new(sample(fit, drawn), cut.into())),
        }
        drawn += round * SAMPLE_CHUNK;
        if fit.fit == 0 {
            round = (2 * round).min(SAMPLE_ROUND);
        }
    }
    Ok(Finished::complete(sample(fit, drawn)))
}

/// The natural logarithm of the binomial coefficient C(n, k).
fn ln_binomial(n: usize, k: usize) -> f64 {
    let k = k.min(n - k);
    (1..=k).map(|i| ((n - k + i) as f64 / i as f64).ln()).sum()
}

/// The seed of a sample: a hash of the question.
pub(crate) fn sample_seed(
    observed: &Observation,
    rules: Rules,
    atoms: &RangeInclusive<usize>,
) -> u64 {
    use std::hash::{Hash, Hasher};
    let mut h = std::collections::hash_map::DefaultHasher::new();
    observed.rays().hash(&mut h);
    observed.width().hash(&mut h);
    if !observed.shape().is_square() {
        observed.shape().height.hash(&mut h);
    }
    (rules == Rules::Standard).hash(&mut h);
    atoms.hash(&mut h);
    // Below 2^53, as every seed bbx prints, so that JSON readers keep it.
    h.finish() & ((1 << 53) - 1)
}

/// Draws [`SAMPLE_CHUNK`] molecules uniformly at random (an atom count
/// `k` with the chance `shares` give it over their `total`), counting
/// those that fit into `part`; stops when `budget` says so.
fn draw_chunk(
    counts: &Counts,
    part: &mut Part,
    rng: &mut ChaCha8Rng,
    rules: Rules,
    (shares, total): (&[(usize, f64)], f64),
    budget: &Budget,
) -> Result<(), Cut> {
    let p = counts.shape;
    let mut tracer = Tracer::new(p, rules);
    let mut atoms: Vec<usize> = Vec::new();
    let mut ticker = budget.ticker(DRAW_TICKS);
    for _ in 0..SAMPLE_CHUNK {
        ticker.tick()?;
        // An atom count in proportion to its molecules.
        let mut x = rng.random::<f64>() * total;
        let mut k = shares[shares.len() - 1].0;
        for &(n, c) in shares {
            if x < c {
                k = n;
                break;
            }
            x -= c;
        }
        atoms.clear();
        atoms.extend(index::sample(rng, p.cells(), k).iter());
        atoms.sort_unstable();
        tracer.load_cells(&atoms);
        counts.count(part, &tracer, &atoms);
    }
    Ok(())
}

/// What a count looks at: the rays shot, which a molecule must reproduce,
/// and the rays not shot, whose outcomes it tallies.
struct Counts {
    shape: Shape,
    shot: Vec<(usize, Outcome)>,
    unshot: Vec<usize>,
    /// Outcome codes a ray can have ([`Outcome::codes`]).
    codes: usize,
}

impl Counts {
    fn new(observed: &Observation) -> Counts {
        let shape = observed.shape();
        Counts {
            shape,
            shot: observed.rays(),
            unshot: (1..=shape.positions())
                .filter(|&q| observed.get(q).is_none())
                .collect(),
            codes: Outcome::codes(shape.positions()),
        }
    }

    /// Whether a tally (a counter per unshot ray and outcome) is past
    /// [`FORWARD_TABLE`].
    fn too_wide(&self) -> bool {
        (self.unshot.len() * self.codes) as u64 > FORWARD_TABLE
    }

    /// The bytes one part takes: a counter per unshot ray and outcome, and
    /// one per cell.
    fn part_bytes(&self) -> u64 {
        8 * (self.unshot.len() * self.codes + self.shape.cells()) as u64
    }

    /// How many parts may be counted at once within the budget's memory
    /// bound ([`DEFAULT_MEMORY`] when it gives none), beside the total: one
    /// per thread at most, `None` when not even one fits.
    fn parts_within(&self, budget: &Budget) -> Option<usize> {
        let fit = budget.memory_or(DEFAULT_MEMORY) / self.part_bytes().max(1);
        let parts = fit
            .saturating_sub(1)
            .min(rayon::current_num_threads() as u64);
        (parts > 0).then_some(parts as usize)
    }

    /// Counts nothing yet.
    fn part(&self) -> Part<'_> {
        Part {
            counts: self,
            fit: 0,
            tallies: vec![0; self.unshot.len() * self.codes],
            atoms: vec![0; self.shape.cells()],
        }
    }

    /// Counts the molecule of `atoms` (loaded in `tracer`) into `part` when
    /// it gives the rays shot their outcomes.
    fn count(&self, part: &mut Part, tracer: &Tracer, atoms: &[usize]) {
        if self.shot.iter().all(|&(q, o)| tracer.trace(q).outcome == o) {
            part.fit += 1;
            for (i, &q) in self.unshot.iter().enumerate() {
                part.tallies[i * self.codes + tracer.trace(q).outcome.code()] += 1;
            }
            for &a in atoms {
                part.atoms[a] += 1;
            }
        }
    }
}

/// One task's counts.
struct Part<'a> {
    counts: &'a Counts,
    fit: u64,
    /// Unshot ray index × outcome code.
    tallies: Vec<u64>,
    atoms: Vec<u64>,
}

impl<'a> Part<'a> {
    /// The counts as a tally, over `walked` molecules walked or drawn.
    fn into_tally(self, walked: u64) -> ForwardTally {
        let Counts {
            shape,
            codes,
            ref unshot,
            ..
        } = *self.counts;
        let mut outcomes = vec![Vec::new(); shape.positions()];
        for (i, &q) in unshot.iter().enumerate() {
            outcomes[q - 1] = self.tallies[i * codes..(i + 1) * codes]
                .iter()
                .enumerate()
                .filter(|(_, k)| **k > 0)
                .map(|(code, &k)| (Outcome::from_code(code), k))
                .collect();
        }
        ForwardTally {
            shape,
            molecules: self.fit,
            walked,
            outcomes,
            atoms: self.atoms,
        }
    }

    /// The two parts' counts together, as a parallel reduction merges them.
    fn merged(mut self, other: Part<'a>) -> Result<Part<'a>, Cut> {
        self.merge(&other);
        Ok(self)
    }

    fn merge(&mut self, other: &Part) {
        self.fit += other.fit;
        for (a, b) in self.tallies.iter_mut().zip(&other.tallies) {
            *a += b;
        }
        for (a, b) in self.atoms.iter_mut().zip(&other.atoms) {
            *a += b;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::board::Molecule;
    use crate::rules::enumeration::Molecules;
    use crate::rules::spectrum::Spectrum;

    #[test]
    fn counts_equal_a_plain_walk_over_every_molecule() {
        let hidden: Molecule = "-O----O-----O---".parse().unwrap();
        for rules in [Rules::Standard, Rules::EdgeMiss] {
            let mut seen = Observation::empty(4);
            let s = Spectrum::of(&hidden, rules);
            for q in [1, 6, 11] {
                seen.record(q, s.get(q));
            }
            let t = tally(&seen, rules, 2..=3, &Budget::default())
                .unwrap()
                .whole()
                .unwrap();
            let fit: Vec<Molecule> = (2..=3)
                .flat_map(|k| Molecules::new(Config::new(k, 4).unwrap()))
                .filter(|m| seen.matches(&Spectrum::of(m, rules)))
                .collect();
            assert_eq!(t.molecules, fit.len() as u64);
            for q in 1..=16 {
                let mut want: Vec<(Outcome, u64)> = Vec::new();
                if seen.get(q).is_none() {
                    for m in &fit {
                        let o = Spectrum::of(m, rules).get(q);
                        match want.iter_mut().find(|(x, _)| *x == o) {
                            Some(c) => c.1 += 1,
                            None => want.push((o, 1)),
                        }
                    }
                }
                let mut got = t.outcomes[q - 1].clone();
                got.sort();
                want.sort();
                assert_eq!(got, want, "ray {q}");
            }
            for cell in 0..16 {
                let want = fit.iter().filter(|m| m.atoms().contains(&cell)).count();
                assert_eq!(t.atoms[cell], want as u64);
            }
        }
    }

    #[test]
    fn limits_are_kept() {
        let ended = |seen: &Observation, atoms, budget: &Budget| {
            let t = tally(seen, Rules::Standard, atoms, budget).unwrap();
            assert_eq!(t.value.walked, 0, "nothing counted");
            t.ended
        };
        let seen = Observation::empty(20);
        assert_eq!(ended(&seen, 8..=8, &Budget::default()), Ended::TooLarge);
        // Few molecules but a box too wide for the tallies (2,400 rays × 2,403
        // outcomes a tally).
        let wide = Observation::empty(600);
        assert_eq!(ended(&wide, 1..=1, &Budget::default()), Ended::TooLarge);
        let past = Budget::default().with_timeout(std::time::Duration::ZERO);
        let small = Observation::empty(8);
        assert_eq!(ended(&small, 4..=4, &past), Ended::TimedOut);
        let cancelled = Budget::default();
        cancelled.cancel.cancel();
        assert_eq!(ended(&small, 4..=4, &cancelled), Ended::Cancelled);
        assert_eq!(
            sample(&small, Rules::Standard, 4..=4, &cancelled)
                .unwrap()
                .ended,
            Ended::Cancelled
        );
    }

    #[test]
    fn the_tallies_keep_to_the_memory_bound() {
        // A tally of 8×8 takes 32 rays × 34 outcomes and 64 cells, 9 KB a
        // part, and a sample of 60×60 about 490 KB a part: a bound that
        // holds fewer than two parts (the total and one being counted)
        // counts nothing, and says so.
        let small = Observation::empty(8);
        let tight = Budget::default().with_memory(Some(10_000));
        let t = tally(&small, Rules::Standard, 4..=4, &tight).unwrap();
        assert_eq!((t.ended, t.value.walked), (Ended::OverMemory, 0));
        let roomy = Budget::default().with_memory(Some(40_000));
        assert!(
            tally(&small, Rules::Standard, 2..=2, &roomy)
                .unwrap()
                .is_complete()
        );
        let wide = Observation::empty(60);
        let tight = Budget::default().with_memory(Some(600_000));
        let sm = sample(&wide, Rules::Standard, 3..=3, &tight).unwrap();
        assert_eq!((sm.ended, sm.value.drawn), (Ended::OverMemory, 0));
        let roomy = Budget::default().with_memory(Some(2_000_000));
        let sm = sample(&wide, Rules::Standard, 3..=3, &roomy).unwrap();
        assert!(sm.is_complete() && sm.value.is_enough());
    }

    #[test]
    fn a_sample_agrees_with_the_exact_counts_within_its_margin() {
        // Three atoms in 6×6 with two rays shot: thousands fit, few enough to
        // count exactly, and sampled here as if they were too many.
        let hidden: Molecule = "------O------------O------O---------".parse().unwrap();
        let rules = Rules::Standard;
        let s = Spectrum::of(&hidden, rules);
        let mut seen = Observation::empty(6);
        for q in [2, 9] {
            seen.record(q, s.get(q));
        }
        let exact = tally(&seen, rules, 3..=3, &Budget::default())
            .unwrap()
            .whole()
            .unwrap();
        let got = sample(&seen, rules, 3..=3, &Budget::default())
            .unwrap()
            .whole()
            .unwrap();
        assert!(got.is_enough());
        assert!(
            got.tally.molecules >= SAMPLE_SIZE,
            "{}",
            got.tally.molecules
        );
        // The estimated number that fit: a binomial proportion of the draws.
        let rel = (got.estimated - exact.molecules as f64).abs() / exact.molecules as f64;
        assert!(
            rel < 0.05,
            "{} estimated, {} fit",
            got.estimated,
            exact.molecules
        );
        // Every ray's expected value within the margin (with room: the
        // margin is the best ray's, at 95%).
        let margin = got.margin();
        assert!(margin > 0.0 && margin < 0.1, "{margin}");
        let truth: std::collections::HashMap<usize, f64> = exact
            .splits()
            .iter()
            .map(|s| (s.position, s.expected_remaining))
            .collect();
        for s in got.splits() {
            let t = truth[&s.position];
            assert!(
                (s.expected_remaining - t).abs() <= 2.0 * margin * t,
                "ray {}: {} sampled, {t} exact, margin {margin}",
                s.position,
                s.expected_remaining
            );
        }
        // Each cell's share of the atoms.
        let n = got.tally.molecules as f64;
        for (a, b) in got.tally.atoms.iter().zip(exact.probabilities()) {
            assert!((*a as f64 / n - b).abs() < 0.03);
        }
        // The same question draws the same sample.
        let again = sample(&seen, rules, 3..=3, &Budget::default())
            .unwrap()
            .whole()
            .unwrap();
        assert_eq!(again, got);
        assert!(got.seed < 1 << 53);
    }

    #[test]
    fn a_sample_too_thin_to_rank_on_says_so() {
        // Every ray of a 10×10 box shot: one molecule fits among 10^13.
        let hidden: Molecule = Molecule::new(10, [5, 38, 61, 99]).unwrap();
        let s = Spectrum::of(&hidden, Rules::Standard);
        let mut seen = Observation::empty(10);
        for q in 1..=40 {
            seen.record(q, s.get(q));
        }
        let budget = Budget::default().with_timeout(std::time::Duration::from_secs(60));
        let thin = sample(&seen, Rules::Standard, 4..=4, &budget).unwrap();
        assert!(thin.is_complete() && !thin.value.is_enough());
    }

    /// Where few draws fit, a sample stops once it has enough to rank on
    /// and has drawn its share, short of its full size.
    #[test]
    fn a_sample_where_few_fit_stops_once_it_is_enough() {
        // Tatham's 10×10 box of 4 to 10 balls: an exit pair and an
        // absorbed ray, which one molecule in 3,000 fits.
        let seen = Observation::parse("?a????@??????????a??????????????????????", "t").unwrap();
        let sm = sample(&seen, Rules::Standard, 4..=10, &Budget::default()).unwrap();
        let sm = sm.whole().unwrap();
        assert!(sm.is_enough() && sm.tally.molecules < SAMPLE_SIZE);
        assert!(sm.drawn >= SAMPLE_ENOUGH_DRAWS && sm.drawn < SAMPLE_DRAWS);
        let (low, high) = sm.interval();
        assert!(low < sm.estimated && sm.estimated < high && high < 1.2 * low);
    }

    /// The 95% interval of an estimated count holds the true count (counted
    /// exactly) in at least 19 of 20 samples drawn with different seeds.
    #[test]
    fn an_estimates_interval_holds_the_count_19_times_in_20() {
        use crate::rules::board::Molecule;
        use crate::rules::spectrum::Spectrum;
        let hidden = Molecule::new(6, [3, 14, 22]).unwrap();
        let s = Spectrum::of(&hidden, Rules::Standard);
        let mut seen = Observation::empty(6);
        for q in [2, 9, 17] {
            seen.record(q, s.get(q));
        }
        let exact = crate::solver::count::count(&seen, Rules::Standard, 2..=4, &Budget::default())
            .unwrap()
            .whole()
            .unwrap()
            .unwrap()
            .total() as f64;
        let mut held = 0;
        for seed in 0..20u64 {
            let sm = sample_seeded(&seen, Rules::Standard, 2..=4, &Budget::default(), seed)
                .unwrap()
                .whole()
                .unwrap();
            let (low, high) = sm.interval();
            if low <= exact && exact <= high {
                held += 1;
            }
            assert!(low < high && sm.estimated > 0.0);
        }
        assert!(held >= 19, "{held} of 20 intervals hold {exact}");
    }
}
