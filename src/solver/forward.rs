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
            .ok_or_else(|| Error::Invalid("too many molecules to number".into()));
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
    let codes = Codes { width: p };
    let mut outcomes = vec![Vec::new(); 4 * p];
    for (i, &q) in unshot.iter().enumerate() {
        outcomes[q - 1] = total.counts[i * codes.len()..(i + 1) * codes.len()]
            .iter()
            .enumerate()
            .filter(|(_, k)| **k > 0)
            .map(|(code, &k)| (codes.outcome(code), k))
            .collect();
    }
    Ok(Ok(ForwardTally {
        width: p,
        molecules: total.fit,
        walked: walk,
        outcomes,
        atoms: total.atoms,
    }))
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
}
