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
//! use bbx::solver::forward::{tally, ForwardLimits};
//! use bbx::{Molecule, Observation, Rules, Spectrum};
//! let m: Molecule = "O-O-------------".parse().unwrap();
//! let mut seen = Observation::full(&Spectrum::of(&m, Rules::Standard));
//! for pos in 3..=16 {
//!     seen.forget(pos);
//! }
//! let t = tally(&seen, Rules::Standard, 2..=2, &ForwardLimits::default()).unwrap().unwrap();
//! assert!(t.molecules > 1);
//! let best = &t.splits()[0];
//! assert!(best.expected_remaining < t.molecules as f64);
//! ```

use std::ops::RangeInclusive;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Instant;

use rand::RngExt as _;
use rand::SeedableRng as _;
use rand::rngs::ChaCha8Rng;
use rand::seq::index;
use rayon::prelude::*;

use crate::error::Error;
use crate::rules::config::Config;
use crate::rules::enumeration::{Numbering, next_combination};
use crate::rules::ray::{Outcome, Rules, Tracer};
use crate::rules::spectrum::Observation;
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

/// Molecule numbers per task.
const CHUNK: u64 = 1 << 15;

/// How far a forward count may go.
#[derive(Debug, Clone, Copy, Default)]
pub struct ForwardLimits {
    /// Give up at this moment.
    pub deadline: Option<Instant>,
    /// Give up when this is set (Ctrl-C).
    pub stop: Option<&'static AtomicBool>,
}

/// The molecules a sample aims at: the expected values of the best rays are
/// then known to a few percent.
pub const SAMPLE_SIZE: u64 = 10_000;

/// The fewest molecules a sample must reach to rank on: below, the ranking
/// stays on the molecules the solver found, and says so.
pub const SAMPLE_MIN: u64 = 1_000;

/// The most molecules drawn at random for a sample (each traced only until
/// one of its shot rays disagrees).
pub const SAMPLE_DRAWS: u64 = 20_000_000;

/// Draws per task of a sample.
const SAMPLE_CHUNK: u64 = 1 << 12;

/// Tasks per round of a sample: the sample grows by whole rounds, the same
/// on every machine whatever its number of threads.
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

    /// The relative margin (95%) of the best ray's expected value, as a
    /// share (0.03 is ±3%): the sampling error of the chance that two
    /// molecules agree on that ray, and of the estimated number that fit.
    pub fn margin(&self) -> f64 {
        let n = self.tally.molecules as f64;
        let Some(best) = self.tally.splits().into_iter().next() else {
            return 0.0;
        };
        let shares: Vec<f64> = best.classes.iter().map(|&(_, k)| k as f64 / n).collect();
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
    /// The box's width.
    pub width: usize,
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
        let n = self.molecules as f64;
        let mut out: Vec<Split> = self
            .outcomes
            .iter()
            .enumerate()
            .filter(|(_, c)| c.len() >= 2)
            .map(|(i, c)| {
                let mut classes: Vec<(Outcome, usize)> =
                    c.iter().map(|&(o, k)| (o, k as usize)).collect();
                classes.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
                let squares: u128 = c.iter().map(|&(_, k)| u128::from(k) * u128::from(k)).sum();
                Split {
                    position: i + 1,
                    expected_remaining: squares as f64 / n,
                    entropy: c
                        .iter()
                        .map(|&(_, k)| {
                            let q = k as f64 / n;
                            -q * q.log2()
                        })
                        .sum(),
                    classes,
                }
            })
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

/// Why a forward count gave no answer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ForwardCut {
    /// More molecules than [`FORWARD_LIMIT`] to walk, more rays than
    /// [`FORWARD_TRACES`] to trace, or a box too wide for the tallies.
    TooMany,
    /// The deadline passed.
    TimeLimit,
    /// Interrupted.
    Interrupted,
}

/// Counts, over every molecule of `atoms` atoms that fits `observed` under
/// `rules`, the outcomes of the rays not shot and the atoms of each cell.
/// `Ok(Err(cut))` when it cannot be done within the limits (too many
/// molecules to walk, time, Ctrl-C).
pub fn tally(
    observed: &Observation,
    rules: Rules,
    atoms: RangeInclusive<usize>,
    limits: &ForwardLimits,
) -> Result<Result<ForwardTally, ForwardCut>, Error> {
    let p = observed.width();
    let cells = p * p;
    let mut walk = 0u64;
    for k in atoms.clone() {
        if k > cells {
            break;
        }
        let n = Config::new(k, p)?
            .molecule_count()
            .ok_or_else(|| Error::invalid("too many molecules to number"));
        match n {
            Ok(n) => walk = walk.saturating_add(n),
            Err(_) => return Ok(Err(ForwardCut::TooMany)),
        }
    }
    let shot: Vec<(usize, Outcome)> = observed.rays();
    let unshot: Vec<usize> = (1..=4 * p).filter(|&q| observed.get(q).is_none()).collect();
    // Bounded in molecules, in rays traced, and in the size of a tally (one
    // counter per unshot ray and outcome, a few per thread).
    let table = unshot.len() as u64 * Codes { width: p }.len() as u64;
    if walk > FORWARD_LIMIT
        || walk.saturating_mul(unshot.len().max(1) as u64) > FORWARD_TRACES
        || table > FORWARD_TABLE
    {
        return Ok(Err(ForwardCut::TooMany));
    }
    let mut total = Part::new(p, unshot.len());
    for k in atoms {
        if k > cells {
            break;
        }
        let config = Config::new(k, p)?;
        let numbering = Numbering::new(config).ok_or_else(|| {
            Error::Internal(format!("{config} has a molecule count but is not numbered"))
        })?;
        let count = config.molecule_count().unwrap_or(0);
        let chunks = count.div_ceil(CHUNK);
        // One tally per thread's share of the chunks, merged as they finish:
        // never one per chunk.
        let fresh = || Part::new(p, unshot.len());
        let part = (0..chunks)
            .into_par_iter()
            .try_fold(fresh, |mut acc, c| {
                if limits.stop.is_some_and(|s| s.load(Ordering::Relaxed)) {
                    return Err(ForwardCut::Interrupted);
                }
                if limits.deadline.is_some_and(|d| Instant::now() >= d) {
                    return Err(ForwardCut::TimeLimit);
                }
                let first = c * CHUNK + 1;
                let last = (first + CHUNK - 1).min(count);
                walk_chunk(&mut acc, &numbering, p, rules, first, last, &shot, &unshot);
                Ok(acc)
            })
            .try_reduce(fresh, |mut a, b| {
                a.merge(&b);
                Ok(a)
            });
        match part {
            Ok(part) => total.merge(&part),
            Err(cut) => return Ok(Err(cut)),
        }
    }
    Ok(Ok(total.into_tally(p, &unshot, walk)))
}

/// Counts over a uniform random sample of the molecules of `atoms` atoms
/// that fit `observed` under `rules`, for when there are too many to walk
/// ([`tally`] says [`ForwardCut::TooMany`]). Molecules are drawn uniformly
/// among all of the configuration's (an atom count in proportion to its
/// molecules, then the cells), and those that fit form the sample: a
/// rejection sample, so uniform among the molecules that fit. It draws in
/// rounds of 65,536 until it has [`SAMPLE_SIZE`] molecules or has drawn
/// [`SAMPLE_DRAWS`]; `Ok(None)` when
/// fewer than [`SAMPLE_MIN`] fit among the draws. The draws are seeded by
/// the observation, so the same question gets the same sample.
pub fn sample(
    observed: &Observation,
    rules: Rules,
    atoms: RangeInclusive<usize>,
    limits: &ForwardLimits,
) -> Result<Result<Option<ForwardSample>, ForwardCut>, Error> {
    let p = observed.width();
    let cells = p * p;
    // Each atom count's share of the molecules, from the logarithms of their
    // counts (which pass any integer type on a large box).
    let logs: Vec<(usize, f64)> = atoms
        .clone()
        .filter(|&k| k <= cells)
        .map(|k| (k, ln_binomial(cells, k)))
        .collect();
    let Some(top) = logs.iter().map(|c| c.1).reduce(f64::max) else {
        return Ok(Err(ForwardCut::TooMany));
    };
    let counts: Vec<(usize, f64)> = logs.iter().map(|&(k, l)| (k, (l - top).exp())).collect();
    let total: f64 = counts.iter().map(|c| c.1).sum();
    let ln_total = top + total.ln();
    let shot: Vec<(usize, Outcome)> = observed.rays();
    let unshot: Vec<usize> = (1..=4 * p).filter(|&q| observed.get(q).is_none()).collect();
    let table = unshot.len() as u64 * Codes { width: p }.len() as u64;
    if ln_total > 700.0 || table > FORWARD_TABLE {
        return Ok(Err(ForwardCut::TooMany));
    }
    let seed = sample_seed(observed, rules, &atoms);
    let mut total_part = Part::new(p, unshot.len());
    let mut drawn = 0u64;
    let mut chunk = 0u64;
    // Whole batches of chunks in order, so that the sample does not depend
    // on which thread finishes first.
    while total_part.fit < SAMPLE_SIZE && drawn < SAMPLE_DRAWS {
        if limits.stop.is_some_and(|s| s.load(Ordering::Relaxed)) {
            return Ok(Err(ForwardCut::Interrupted));
        }
        if limits.deadline.is_some_and(|d| Instant::now() >= d) {
            return Ok(Err(ForwardCut::TimeLimit));
        }
        let batch: Vec<Part> = (chunk..chunk + SAMPLE_ROUND)
            .into_par_iter()
            .map(|c| {
                let mut part = Part::new(p, unshot.len());
                let mut rng =
                    ChaCha8Rng::seed_from_u64(seed ^ c.wrapping_mul(0x9E37_79B9_7F4A_7C15));
                draw_chunk(
                    &mut part, &mut rng, p, rules, &counts, total, &shot, &unshot,
                );
                part
            })
            .collect();
        for part in &batch {
            total_part.merge(part);
        }
        chunk += SAMPLE_ROUND;
        drawn += SAMPLE_ROUND * SAMPLE_CHUNK;
    }
    if total_part.fit < SAMPLE_MIN {
        return Ok(Ok(None));
    }
    let fit = total_part.fit;
    Ok(Ok(Some(ForwardSample {
        tally: total_part.into_tally(p, &unshot, drawn),
        drawn,
        estimated: ln_total.exp() * fit as f64 / drawn as f64,
        seed,
    })))
}

/// The natural logarithm of the binomial coefficient C(n, k).
fn ln_binomial(n: usize, k: usize) -> f64 {
    let k = k.min(n - k);
    (1..=k).map(|i| ((n - k + i) as f64 / i as f64).ln()).sum()
}

/// The seed of a sample: a hash of the question.
fn sample_seed(observed: &Observation, rules: Rules, atoms: &RangeInclusive<usize>) -> u64 {
    use std::hash::{Hash, Hasher};
    let mut h = std::collections::hash_map::DefaultHasher::new();
    observed.rays().hash(&mut h);
    observed.width().hash(&mut h);
    (rules == Rules::Standard).hash(&mut h);
    atoms.hash(&mut h);
    // Below 2^53, as every seed bbx prints, so that JSON readers keep it.
    h.finish() & ((1 << 53) - 1)
}

/// Draws [`SAMPLE_CHUNK`] molecules uniformly at random, counting those that
/// fit into `part`.
#[allow(clippy::too_many_arguments)]
fn draw_chunk(
    part: &mut Part,
    rng: &mut ChaCha8Rng,
    width: usize,
    rules: Rules,
    counts: &[(usize, f64)],
    total: f64,
    shot: &[(usize, Outcome)],
    unshot: &[usize],
) {
    let codes = Codes { width };
    let mut tracer = Tracer::new(width, rules);
    let cells = width * width;
    let mut atoms: Vec<usize> = Vec::new();
    for _ in 0..SAMPLE_CHUNK {
        // An atom count in proportion to its molecules.
        let mut x = rng.random::<f64>() * total;
        let mut k = counts[counts.len() - 1].0;
        for &(n, c) in counts {
            if x < c {
                k = n;
                break;
            }
            x -= c;
        }
        atoms.clear();
        atoms.extend(index::sample(rng, cells, k).iter());
        atoms.sort_unstable();
        tracer.load_cells(&atoms);
        if shot.iter().all(|&(q, o)| tracer.trace(q).outcome == o) {
            part.fit += 1;
            for (i, &q) in unshot.iter().enumerate() {
                part.counts[i * codes.len() + codes.code(tracer.trace(q).outcome)] += 1;
            }
            for &a in &atoms {
                part.atoms[a] += 1;
            }
        }
    }
}

/// Outcomes as dense codes: 0 absorbed, 1 reflected, 2 miss, 2 + k out at k.
#[derive(Clone, Copy)]
struct Codes {
    width: usize,
}

impl Codes {
    fn len(self) -> usize {
        4 * self.width + 3
    }

    fn code(self, o: Outcome) -> usize {
        match o {
            Outcome::Absorbed => 0,
            Outcome::Reflected => 1,
            Outcome::Miss => 2,
            Outcome::Exit(k) => 2 + k,
        }
    }

    fn outcome(self, code: usize) -> Outcome {
        match code {
            0 => Outcome::Absorbed,
            1 => Outcome::Reflected,
            2 => Outcome::Miss,
            k => Outcome::Exit(k - 2),
        }
    }
}

/// One task's counts.
struct Part {
    fit: u64,
    /// Unshot ray index × outcome code.
    counts: Vec<u64>,
    atoms: Vec<u64>,
}

impl Part {
    fn new(width: usize, unshot: usize) -> Part {
        Part {
            fit: 0,
            counts: vec![0; unshot * Codes { width }.len()],
            atoms: vec![0; width * width],
        }
    }

    /// The counts as a tally of a box `width` wide whose rays `unshot` were
    /// counted, over `walked` molecules walked or drawn.
    fn into_tally(self, width: usize, unshot: &[usize], walked: u64) -> ForwardTally {
        let codes = Codes { width };
        let mut outcomes = vec![Vec::new(); 4 * width];
        for (i, &q) in unshot.iter().enumerate() {
            outcomes[q - 1] = self.counts[i * codes.len()..(i + 1) * codes.len()]
                .iter()
                .enumerate()
                .filter(|(_, k)| **k > 0)
                .map(|(code, &k)| (codes.outcome(code), k))
                .collect();
        }
        ForwardTally {
            width,
            molecules: self.fit,
            walked,
            outcomes,
            atoms: self.atoms,
        }
    }

    fn merge(&mut self, other: &Part) {
        self.fit += other.fit;
        for (a, b) in self.counts.iter_mut().zip(&other.counts) {
            *a += b;
        }
        for (a, b) in self.atoms.iter_mut().zip(&other.atoms) {
            *a += b;
        }
    }
}

/// Walks molecules `first..=last` of `numbering`'s configuration, counting
/// into `part`.
#[allow(clippy::too_many_arguments)]
fn walk_chunk(
    part: &mut Part,
    numbering: &Numbering,
    width: usize,
    rules: Rules,
    first: u64,
    last: u64,
    shot: &[(usize, Outcome)],
    unshot: &[usize],
) {
    let codes = Codes { width };
    let mut tracer = Tracer::new(width, rules);
    let mut atoms = Vec::new();
    numbering.unrank_into(first, &mut atoms);
    let cells = width * width;
    for _ in first..=last {
        tracer.update_cells(&atoms);
        if shot.iter().all(|&(q, o)| tracer.trace(q).outcome == o) {
            part.fit += 1;
            for (i, &q) in unshot.iter().enumerate() {
                part.counts[i * codes.len() + codes.code(tracer.trace(q).outcome)] += 1;
            }
            for &a in &atoms {
                part.atoms[a] += 1;
            }
        }
        if next_combination(&mut atoms, cells).is_none() {
            break;
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
            let t = tally(&seen, rules, 2..=3, &ForwardLimits::default())
                .unwrap()
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
        let seen = Observation::empty(20);
        assert_eq!(
            tally(&seen, Rules::Standard, 8..=8, &ForwardLimits::default()).unwrap(),
            Err(ForwardCut::TooMany)
        );
        // Few molecules but a box too wide for the tallies (2,400 rays × 2,403
        // outcomes a tally).
        assert_eq!(
            tally(
                &Observation::empty(600),
                Rules::Standard,
                1..=1,
                &ForwardLimits::default()
            )
            .unwrap(),
            Err(ForwardCut::TooMany)
        );
        let past = ForwardLimits {
            deadline: Some(Instant::now()),
            ..ForwardLimits::default()
        };
        assert_eq!(
            tally(&Observation::empty(8), Rules::Standard, 4..=4, &past).unwrap(),
            Err(ForwardCut::TimeLimit)
        );
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
        let exact = tally(&seen, rules, 3..=3, &ForwardLimits::default())
            .unwrap()
            .unwrap();
        let got = sample(&seen, rules, 3..=3, &ForwardLimits::default())
            .unwrap()
            .unwrap()
            .expect("enough of the draws fit");
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
        let again = sample(&seen, rules, 3..=3, &ForwardLimits::default())
            .unwrap()
            .unwrap()
            .unwrap();
        assert_eq!(again, got);
        assert!(got.seed < 1 << 53);
    }

    #[test]
    fn a_sample_too_thin_to_rank_on_is_none() {
        // Every ray of a 10×10 box shot: one molecule fits among 10^13.
        let hidden: Molecule = Molecule::new(10, [5, 38, 61, 99]).unwrap();
        let s = Spectrum::of(&hidden, Rules::Standard);
        let mut seen = Observation::empty(10);
        for q in 1..=40 {
            seen.record(q, s.get(q));
        }
        let limits = ForwardLimits {
            deadline: Some(Instant::now() + std::time::Duration::from_secs(60)),
            ..ForwardLimits::default()
        };
        assert_eq!(
            sample(&seen, Rules::Standard, 4..=4, &limits).unwrap(),
            Ok(None)
        );
    }
}
