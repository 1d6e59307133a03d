//! Puzzles with exactly one answer: random molecules whose spectrum (or a
//! minimal part of it) admits no other molecule.
//!
//! ```
//! use bbx::assistant::generate::{Rng, unique, minimize};
//! use bbx::Rules;
//! let config = "A4_B8".parse().unwrap();
//! let mut rng = Rng::new(7);
//! let g = unique(config, Rules::Standard, &mut rng, 1000).unwrap();
//! let small = minimize(&g.observation, Rules::Standard, 4, &mut rng).unwrap();
//! assert!(small.shot_count() <= g.observation.shot_count());
//! ```

use crate::error::Error;
use crate::rules::board::Molecule;
use crate::rules::config::Config;
use crate::rules::ray::Rules;
use crate::rules::spectrum::{Observation, Spectrum};
use crate::solver::{self, Limits};

/// A small reproducible random generator (xorshift64*).
#[derive(Debug, Clone)]
pub struct Rng(u64);

impl Rng {
    /// A generator from a seed (any value; 0 is replaced).
    pub fn new(seed: u64) -> Rng {
        let mut r = Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1);
        r.next_u64();
        r
    }

    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    /// A number in `0..n` (n ≥ 1).
    pub fn below(&mut self, n: usize) -> usize {
        (self.next_u64() % n.max(1) as u64) as usize
    }

    /// The slice shuffled in place (Fisher–Yates).
    pub fn shuffle<T>(&mut self, v: &mut [T]) {
        for i in (1..v.len()).rev() {
            let j = self.below(i + 1);
            v.swap(i, j);
        }
    }
}

/// A random molecule of `config`.
pub fn random_molecule(config: Config, rng: &mut Rng) -> Molecule {
    let mut cells: Vec<usize> = (0..config.cells()).collect();
    // Partial shuffle: the first n cells.
    for i in 0..config.atoms {
        let j = i + rng.below(cells.len() - i);
        cells.swap(i, j);
    }
    Molecule::new(config.width, cells[..config.atoms].iter().copied()).expect("distinct cells")
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
    rng: &mut Rng,
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
    rng: &mut Rng,
) -> Result<Observation, Error> {
    let mut o = observed.clone();
    let mut rays: Vec<usize> = o.rays().into_iter().map(|(p, _)| p).collect();
    rng.shuffle(&mut rays);
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
            let mut rng = Rng::new(seed);
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
