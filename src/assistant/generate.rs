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
//! use bbx::control::Budget;
//! use bbx::Rules;
//! let config = "A4_B8".parse().unwrap();
//! let mut rng = seeded(7);
//! let anytime = Budget::default();
//! let g = unique(config, Rules::Standard, &mut rng, 1000, &anytime).unwrap();
//! let small = minimize(&g.observation, Rules::Standard, 4, &mut rng, &anytime).unwrap();
//! assert!(small.is_complete()); // minimal: every ray left is needed
//! assert!(small.value.shot_count() <= g.observation.shot_count());
//! ```

use rand::rngs::ChaCha8Rng;
use rand::seq::{SliceRandom, index};
use rand::{Rng, RngExt as _, SeedableRng, TryRng};

use crate::control::{Budget, Cut, Ended, Finished};
use crate::error::{Error, quantity};
use crate::rules::board::Molecule;
use std::ops::RangeInclusive;

use crate::puzzle::{TathamParams, game_id};
use crate::rules::config::{Config, ConfigRange};
use crate::rules::ray::Rules;
use crate::rules::spectrum::{Observation, Spectrum};
use crate::setting::{Setting, Text};
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
            Error::system(
                Text::from(format!(
                    "cannot draw a seed from the operating system's randomness: {e} (give one with "
                ))
                .and(Setting::Seed)
                .and(")"),
            )
        })
}

/// A random molecule of `config`: its atoms on distinct cells drawn uniformly.
pub fn random_molecule(config: Config, rng: &mut (impl Rng + ?Sized)) -> Molecule {
    let cells = index::sample(rng, config.cells(), config.atoms);
    Molecule::new(config.shape(), cells).expect("distinct cells inside the box")
}

/// A random molecule of a range of atom counts, drawn as Simon Tatham's
/// Black Box draws one (its `new_game_desc`): the count uniformly in the
/// range, then the atoms on distinct cells uniformly. A range of one count
/// draws as [`random_molecule`] does, number for number.
pub fn random_in(range: ConfigRange, rng: &mut (impl Rng + ?Sized)) -> Molecule {
    let atoms = if range.min_atoms < range.max_atoms {
        rng.random_range(range.atoms())
    } else {
        range.min_atoms
    };
    random_molecule(range.with_atoms(atoms), rng)
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
    Ok(unique_within(observed, rules, atoms..=atoms, &Budget::default())?.whole() == Ok(true))
}

/// Whether `observed` admits exactly one molecule of any of the counts
/// `atoms`, known unless the budget's deadline or token stopped the search.
fn unique_within(
    observed: &Observation,
    rules: Rules,
    atoms: RangeInclusive<usize>,
    budget: &Budget,
) -> Result<Finished<bool>, Error> {
    let limits = Limits {
        max: Some(2),
        budget: budget.clone(),
    };
    let s = solver::solve(observed, rules, atoms, &limits, |_| {})?;
    Ok(match s.ended.cut() {
        Some(Cut::TimedOut | Cut::Cancelled) => Finished::new(false, s.ended),
        _ => Finished::complete(s.molecules.len() == 1 && s.ended.is_complete()),
    })
}

/// Draws random molecules until one's full spectrum has exactly one answer
/// (like the generator of S. Manecke's molekularis); gives up after
/// `max_draws`, or when the budget's deadline or token stops it (an error
/// either way).
pub fn unique(
    config: Config,
    rules: Rules,
    rng: &mut (impl Rng + ?Sized),
    max_draws: usize,
    budget: &Budget,
) -> Result<Generated, Error> {
    unique_in(config.into(), rules, rng, max_draws, budget)
}

/// [`unique`] for a range of atom counts: each molecule drawn as
/// [`random_in`] draws it, and unique among the molecules of every count
/// of the range (the player is not told the count). The budget stopping
/// it is an error, as the run out of draws is ([`draw_unique`] says it
/// as an outcome).
pub fn unique_in(
    config: ConfigRange,
    rules: Rules,
    rng: &mut (impl Rng + ?Sized),
    max_draws: usize,
    budget: &Budget,
) -> Result<Generated, Error> {
    let drawn = draw_unique(config, rules, rng, max_draws, budget)?;
    drawn.value.map_err(Error::invalid)
}

/// [`unique_in`], which says what stopped it as an outcome: the molecule
/// drawn, or (when the budget's deadline or token stopped the drawing, as
/// `ended` says) the sentence saying what was tried. Running out of draws
/// is an error.
pub fn draw_unique(
    config: ConfigRange,
    rules: Rules,
    rng: &mut (impl Rng + ?Sized),
    max_draws: usize,
    budget: &Budget,
) -> Result<Finished<Result<Generated, Text>>, Error> {
    for draws in 1..=max_draws {
        let m = random_in(config, rng);
        let o = Observation::full(&Spectrum::of(&m, rules));
        let u = unique_within(&o, rules, config.atoms(), budget)?;
        if u.is_complete() && u.value {
            let molecule = m;
            let observation = o;
            return Ok(Finished::complete(Ok(Generated {
                molecule,
                observation,
                draws,
            })));
        }
        let ended = u.ended.and(
            budget
                .check()
                .map_or_else(Ended::from, |()| Ended::Complete),
        );
        if !ended.is_complete() {
            let message = Text::from(format!(
                "no molecule of {config} with a unique spectrum before {} ({} tried): allow more time, or try more atoms or a smaller box",
                if ended == Ended::Cancelled {
                    "it was cancelled"
                } else {
                    "the time limit"
                },
                quantity(draws, "draw", "draws")
            ));
            return Ok(Finished::new(Err(message), ended));
        }
    }
    Err(Error::invalid(format!(
        "no molecule of {config} with a unique spectrum in {}: try more atoms or a smaller box",
        quantity(max_draws, "draw", "draws")
    )))
}

/// What puzzle to make.
#[derive(Debug, Clone)]
pub struct PuzzleOptions {
    /// The configuration, or a range of atom counts.
    pub config: ConfigRange,
    /// The ray rules.
    pub rules: Rules,
    /// The seed of every random choice.
    pub seed: u64,
    /// Draw until the full spectrum has exactly one answer.
    pub unique: bool,
    /// Then remove rays while the answer stays unique (implies `unique`).
    pub minimal: bool,
    /// The most draws.
    pub max_draws: usize,
    /// The deadline and token of the drawing and of the removal.
    pub budget: Budget,
}

/// A puzzle made: the hidden molecule and the rays shown.
#[derive(Debug, Clone)]
pub struct Made {
    /// What it was made under.
    pub options: PuzzleOptions,
    /// The hidden molecule.
    pub molecule: Molecule,
    /// The rays shown.
    pub observation: Observation,
    /// Molecules drawn.
    pub draws: usize,
    /// With `minimal`: whether every ray left is needed (false when the
    /// budget stopped the removal).
    pub minimal: Option<bool>,
    /// The game ID of the hidden molecule in Simon Tatham's Black Box, when
    /// his program can play it.
    pub tatham_id: Option<String>,
    /// Seconds taken.
    pub seconds: f64,
}

/// Makes a puzzle as `options` asks: a random molecule of the
/// configuration, its full spectrum shown; with `unique` one whose
/// spectrum has exactly one answer; with `minimal` its rays removed while
/// the answer stays unique. `removing` is called when the removal starts.
/// The puzzle made, or (the budget stopped the drawing, as `ended` says)
/// the sentence saying what was tried.
pub fn make_puzzle(
    options: &PuzzleOptions,
    removing: impl FnOnce(),
) -> Result<Finished<Result<Made, Text>>, Error> {
    let (config, rules, budget) = (options.config, options.rules, &options.budget);
    let start = crate::control::Instant::now();
    let mut rng = seeded(options.seed);
    let (molecule, full, draws) = if options.unique || options.minimal {
        let drawn = draw_unique(config, rules, &mut rng, options.max_draws, budget)?;
        match drawn.value {
            Ok(g) => (g.molecule, g.observation, g.draws),
            Err(message) => return Ok(Finished::new(Err(message), drawn.ended)),
        }
    } else {
        let m = random_in(config, &mut rng);
        let o = Observation::full(&Spectrum::of(&m, rules));
        (m, o, 1)
    };
    let (observation, minimal) = if options.minimal {
        removing();
        let small = minimize_in(&full, rules, config.atoms(), &mut rng, budget)?;
        (small.value, Some(small.ended.is_complete()))
    } else {
        (full, None)
    };
    // His program plays the standard rules, 2 to 255 cells a side, at
    // least one ball and fewer balls than cells.
    let tatham_id = (rules == Rules::Standard)
        .then(|| TathamParams::of(&config).ok())
        .flatten()
        .and_then(|params| game_id(&params, &molecule).ok());
    Ok(Finished::complete(Ok(Made {
        options: options.clone(),
        tatham_id,
        molecule,
        observation,
        draws,
        minimal,
        seconds: start.elapsed().as_secs_f64(),
    })))
}

/// Removes observed rays one at a time, in random order, while the answer
/// stays unique, so that every ray left is needed (an exit pair is one ray):
/// the rays kept, whose answer is still unique. When the budget's deadline
/// or token stops it, it keeps the rays not yet tried, and says so (the
/// puzzle is then perhaps not minimal).
pub fn minimize(
    observed: &Observation,
    rules: Rules,
    atoms: usize,
    rng: &mut (impl Rng + ?Sized),
    budget: &Budget,
) -> Result<Finished<Observation>, Error> {
    minimize_in(observed, rules, atoms..=atoms, rng, budget)
}

/// [`minimize`] when the answer is one molecule of any count in `atoms`.
pub fn minimize_in(
    observed: &Observation,
    rules: Rules,
    atoms: RangeInclusive<usize>,
    rng: &mut (impl Rng + ?Sized),
    budget: &Budget,
) -> Result<Finished<Observation>, Error> {
    let mut o = observed.clone();
    let mut rays: Vec<usize> = o.rays().into_iter().map(|(p, _)| p).collect();
    rays.shuffle(rng);
    for pos in rays {
        let Some(outcome) = o.get(pos) else { continue };
        if let Err(cut) = budget.check() {
            return Ok(Finished::new(o, cut.into()));
        }
        o.forget(pos);
        let u = unique_within(&o, rules, atoms.clone(), budget)?;
        if !u.value {
            o.record(pos, outcome);
        }
        if !u.is_complete() {
            return Ok(Finished::new(o, u.ended));
        }
    }
    Ok(Finished::complete(o))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_deadline_stops_drawing_and_removing() {
        let config: Config = "A4_B6".parse().unwrap();
        let past = Budget::default().with_timeout(std::time::Duration::ZERO);
        let e = unique(config, Rules::Standard, &mut seeded(1), 200, &past).unwrap_err();
        assert!(e.to_string().contains("before the time limit"), "{e}");
        // The same cut, as an outcome.
        let range = ConfigRange::from(config);
        let drawn = draw_unique(range, Rules::Standard, &mut seeded(1), 200, &past).unwrap();
        assert_eq!(drawn.ended, Ended::TimedOut);
        assert_eq!(drawn.value.unwrap_err().to_string(), e.to_string());
        let anytime = Budget::default();
        let g = unique(config, Rules::Standard, &mut seeded(1), 200, &anytime).unwrap();
        let cut = minimize(&g.observation, Rules::Standard, 4, &mut seeded(1), &past).unwrap();
        assert_eq!(cut.ended, Ended::TimedOut);
        assert_eq!(cut.value, g.observation);
        assert!(is_unique(&cut.value, Rules::Standard, 4).unwrap());
    }

    #[test]
    fn a_range_draws_its_count_and_a_single_count_draws_as_before() {
        let exact: Config = "A4_B8".parse().unwrap();
        for seed in 0..20 {
            assert_eq!(
                random_in(exact.into(), &mut seeded(seed)),
                random_molecule(exact, &mut seeded(seed))
            );
        }
        let range: ConfigRange = "A3-6_B8x6".parse().unwrap();
        let mut counts = [0usize; 7];
        for seed in 0..400 {
            let m = random_in(range, &mut seeded(seed));
            assert_eq!(m.shape(), range.shape);
            counts[m.atoms().len()] += 1;
        }
        assert_eq!(counts[..3], [0, 0, 0]);
        assert!(counts[3..].iter().all(|&n| n > 60), "{counts:?}");
        // Unique among every count of the range.
        let range: ConfigRange = "A2-3_B4".parse().unwrap();
        let anytime = Budget::default();
        let g = unique_in(range, Rules::Standard, &mut seeded(3), 500, &anytime).unwrap();
        let s = solver::solve(
            &g.observation,
            Rules::Standard,
            2..=3,
            &Limits::default(),
            |_| {},
        )
        .unwrap();
        assert_eq!(s.molecules, [g.molecule]);
    }

    #[test]
    fn minimal_puzzles_need_every_ray() {
        for seed in 1..=4 {
            let mut rng = seeded(seed);
            let config: Config = "A4_B6".parse().unwrap();
            let anytime = Budget::default();
            let g = unique(config, Rules::Standard, &mut rng, 200, &anytime).unwrap();
            let small = minimize(&g.observation, Rules::Standard, 4, &mut rng, &anytime).unwrap();
            let small = small.whole().expect("minimal");
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
