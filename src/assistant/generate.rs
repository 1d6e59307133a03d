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
//! let g = unique(config, Rules::Standard, &mut rng, 1000).unwrap();
//! let small = minimize(&g.observation, Rules::Standard, 4, &mut rng).unwrap();
//! assert!(small.shot_count() <= g.observation.shot_count());
//! ```

use rand::rngs::ChaCha8Rng;
use rand::seq::{SliceRandom, index};
use rand::{Rng, SeedableRng};

use crate::error::Error;
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
    let s = solver::solve(
        observed,
        rules,
        atoms..=atoms,
        &Limits {
            max: Some(2),
            deadline: None,
        },
        |_| {},
    )?;
    Ok(s.molecules.len() == 1 && s.complete)
}

/// Draws random molecules until one's full spectrum has exactly one answer
/// (like seed 003's generator); gives up after `max_draws`.
pub fn unique(
    config: Config,
    rules: Rules,
    rng: &mut (impl Rng + ?Sized),
    max_draws: usize,
) -> Result<Generated, Error> {
    for draws in 1..=max_draws {
        let m = random_molecule(config, rng);
        let o = Observation::full(&Spectrum::of(&m, rules));
        if is_unique(&o, rules, config.atoms)? {
            return Ok(Generated {
                molecule: m,
                observation: o,
                draws,
            });
        }
    }
    Err(Error::Invalid(format!(
        "no molecule of {config} with a unique spectrum in {max_draws} draws: try more atoms or a smaller box"
    )))
}

/// Removes observed rays one at a time, in random order, while the answer
/// stays unique, so that every ray left is needed. An exit pair is one ray.
pub fn minimize(
    observed: &Observation,
    rules: Rules,
    atoms: usize,
    rng: &mut (impl Rng + ?Sized),
) -> Result<Observation, Error> {
    let mut o = observed.clone();
    let mut rays: Vec<usize> = o.rays().into_iter().map(|(p, _)| p).collect();
    rays.shuffle(rng);
    for pos in rays {
        let Some(outcome) = o.get(pos) else { continue };
        o.forget(pos);
        if !is_unique(&o, rules, atoms)? {
            o.record(pos, outcome);
        }
    }
    Ok(o)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn minimal_puzzles_need_every_ray() {
        for seed in 1..=4 {
            let mut rng = seeded(seed);
            let config: Config = "A4_B6".parse().unwrap();
            let g = unique(config, Rules::Standard, &mut rng, 200).unwrap();
            let small = minimize(&g.observation, Rules::Standard, 4, &mut rng).unwrap();
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
