//! Puzzles with exactly one answer: random molecules whose spectrum (or a
//! minimal part of it) admits no other molecule.
//!
//! Every random choice comes from a generator the caller passes in; `bbx`
//! uses [`seeded`], a ChaCha8 generator whose output for a given seed is
//! documented as reproducible across platforms and `rand` releases, so that
//! `--seed` gives the same puzzle everywhere.
//!
//! ```
//! use bbx::assistant::generate::{minimize, seeded, unique};
//! use bbx::Rules;
//! let config = "A4_B8".parse().unwrap();
//! let mut rng = seeded(7);
//! let g = unique(config, Rules::Standard, &mut rng, 1000, None).unwrap();
//! let small = minimize(&g.observation, Rules::Standard, 4, &mut rng, None).unwrap();
//! assert!(small.minimal);
//! assert!(small.observation.shot_count() <= g.observation.shot_count());
//! ```

use crate::control::{Budget, Ended, Instant};

use rand::rngs::ChaCha8Rng;
use rand::seq::{SliceRandom, index};
use rand::{Rng, SeedableRng, TryRng};

use crate::error::{Error, quantity};
use crate::rules::board::Molecule;
use crate::rules::config::Config;
use crate::rules::ray::Rules;
use crate::rules::spectrum::{Observation, Spectrum};
use crate::solver::{self, Limits};

/// The random generator `bbx` uses for a seed: ChaCha8 seeded with
/// [`SeedableRng::seed_from_u64`]. The same seed gives the same numbers on
/// every platform.
pub fn seeded(seed: u64) -> ChaCha8Rng {
    ChaCha8Rng::seed_from_u64(seed)
}

/// The largest seed bbx draws or takes: 2^53 − 1, the largest whole number
/// that every JSON reader keeps exact (JavaScript, `jq` and most others hold
/// numbers as 64-bit floating point), so that a seed read back from `--json`
/// gives the same game.
pub const MAX_SEED: u64 = (1 << 53) - 1;

/// A fresh seed, from 0 to [`MAX_SEED`], drawn from the operating system's
/// randomness: for the commands and games started without `--seed`.
///
/// ```
/// use bbx::assistant::generate::{MAX_SEED, fresh_seed};
/// assert!(fresh_seed().unwrap() <= MAX_SEED);
/// ```
pub fn fresh_seed() -> Result<u64, Error> {
    rand::rngs::SysRng
        .try_next_u64()
        .map(|n| n & MAX_SEED)
        .map_err(|e| {
            Error::system(format!(
                "cannot draw a seed from the operating system's randomness: {e} (give one with --seed)"
            ))
        })
}

/// A random molecule of `config`: its atoms on distinct cells drawn uniformly.
pub fn random_molecule(config: Config, rng: &mut (impl Rng + ?Sized)) -> Molecule {
    let cells = index::sample(rng, config.cells(), config.atoms);
    Molecule::new(config.width, cells).expect("distinct cells inside the box")
}

/// A molecule whose full spectrum has exactly one answer.
#[derive(Debug, Clone)]
pub struct Generated {
    /// The hidden molecule.
    pub molecule: Molecule,
    /// Its full spectrum as an observation.
    pub observation: Observation,
    /// Molecules drawn until one was unique.
    pub draws: usize,
}

/// Whether `observed` admits exactly one molecule of `atoms` atoms.
pub fn is_unique(observed: &Observation, rules: Rules, atoms: usize) -> Result<bool, Error> {
    Ok(unique_before(observed, rules, atoms, None)? == Some(true))
}

/// Whether `observed` admits exactly one molecule of `atoms` atoms; `None`
/// when the deadline passed before the answer was known.
fn unique_before(
    observed: &Observation,
    rules: Rules,
    atoms: usize,
    deadline: Option<Instant>,
) -> Result<Option<bool>, Error> {
    let s = solver::solve(
        observed,
        rules,
        atoms..=atoms,
        &Limits {
            max: Some(2),
            budget: Budget::default().with_deadline(deadline),
        },
        |_| {},
    )?;
    Ok(if s.ended == Ended::TimedOut {
        None
    } else {
        Some(s.molecules.len() == 1 && s.ended.is_complete())
    })
}

/// True once `deadline` has passed.
fn past(deadline: Option<Instant>) -> bool {
    deadline.is_some_and(|d| Instant::now() >= d)
}

/// Draws random molecules until one's full spectrum has exactly one answer
/// (like the generator of S. Manecke's molekularis); gives up after `max_draws`, or at `deadline`.
pub fn unique(
    config: Config,
    rules: Rules,
    rng: &mut (impl Rng + ?Sized),
    max_draws: usize,
    deadline: Option<Instant>,
) -> Result<Generated, Error> {
    for draws in 1..=max_draws {
        let m = random_molecule(config, rng);
        let o = Observation::full(&Spectrum::of(&m, rules));
        match unique_before(&o, rules, config.atoms, deadline)? {
            Some(true) => {
                return Ok(Generated {
                    molecule: m,
                    observation: o,
                    draws,
                });
            }
            Some(false) if !past(deadline) => {}
            _ => {
                return Err(Error::invalid(format!(
                    "no molecule of {config} with a unique spectrum before the time limit ({} tried): allow more time, or try more atoms or a smaller box",
                    quantity(draws, "draw", "draws")
                )));
            }
        }
    }
    Err(Error::invalid(format!(
        "no molecule of {config} with a unique spectrum in {}: try more atoms or a smaller box",
        quantity(max_draws, "draw", "draws")
    )))
}

/// What [`minimize`] leaves.
#[derive(Debug, Clone)]
pub struct Minimized {
    /// The rays kept; their answer is still unique.
    pub observation: Observation,
    /// True when every ray left is needed; false when the deadline stopped
    /// the removal before every ray was tried.
    pub minimal: bool,
}

/// Removes observed rays one at a time, in random order, while the answer
/// stays unique, so that every ray left is needed. An exit pair is one ray.
/// At `deadline` it stops and keeps the rays not yet tried.
pub fn minimize(
    observed: &Observation,
    rules: Rules,
    atoms: usize,
    rng: &mut (impl Rng + ?Sized),
    deadline: Option<Instant>,
) -> Result<Minimized, Error> {
    let mut o = observed.clone();
    let mut rays: Vec<usize> = o.rays().into_iter().map(|(p, _)| p).collect();
    rays.shuffle(rng);
    for pos in rays {
        let Some(outcome) = o.get(pos) else { continue };
        if past(deadline) {
            return Ok(Minimized {
                observation: o,
                minimal: false,
            });
        }
        o.forget(pos);
        match unique_before(&o, rules, atoms, deadline)? {
            Some(true) => {}
            Some(false) => {
                o.record(pos, outcome);
            }
            None => {
                o.record(pos, outcome);
                return Ok(Minimized {
                    observation: o,
                    minimal: false,
                });
            }
        }
    }
    Ok(Minimized {
        observation: o,
        minimal: true,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_deadline_stops_drawing_and_removing() {
        let config: Config = "A4_B6".parse().unwrap();
        let past = Some(Instant::now());
        let e = unique(config, Rules::Standard, &mut seeded(1), 200, past).unwrap_err();
        assert!(e.to_string().contains("before the time limit"), "{e}");
        let g = unique(config, Rules::Standard, &mut seeded(1), 200, None).unwrap();
        let cut = minimize(&g.observation, Rules::Standard, 4, &mut seeded(1), past).unwrap();
        assert!(!cut.minimal);
        assert_eq!(cut.observation, g.observation);
        assert!(is_unique(&cut.observation, Rules::Standard, 4).unwrap());
    }

    #[test]
    fn minimal_puzzles_need_every_ray() {
        for seed in 1..=4 {
            let mut rng = seeded(seed);
            let config: Config = "A4_B6".parse().unwrap();
            let g = unique(config, Rules::Standard, &mut rng, 200, None).unwrap();
            let small = minimize(&g.observation, Rules::Standard, 4, &mut rng, None).unwrap();
            assert!(small.minimal);
            let small = small.observation;
            let s =
                solver::solve(&small, Rules::Standard, 4..=4, &Limits::default(), |_| {}).unwrap();
            assert_eq!(s.molecules, std::slice::from_ref(&g.molecule));
            for (pos, _) in small.rays() {
                let mut fewer = small.clone();
                fewer.forget(pos);
                assert!(
                    !is_unique(&fewer, Rules::Standard, 4).unwrap(),
                    "ray {pos} is not needed"
                );
            }
        }
    }
}
