//! What `bbx solve` reports: the molecules found, what is certain, the rays
//! that would tell them apart and the player's guess, as one value to print or
//! serialise.

use crate::control::{Budget, Ended};
use crate::error::Error;
use crate::rules::board::Molecule;
use crate::rules::config::Config;
use crate::rules::enumeration::rank;
use crate::rules::ray::{Outcome, Rules, outcome_table};
use crate::rules::spectrum::Spectrum;
use crate::setting::{Setting, Text};
use crate::solver::forward;
use crate::solver::{Solution, Split};

/// A large count for people: "2.3 million", "4.1e15".
fn about(n: f64) -> String {
    if n < 1e4 {
        format!("{n:.0}")
    } else if n < 1e6 {
        format!("{:.0} thousand", n / 1e3)
    } else if n < 1e9 {
        format!("{:.1} million", n / 1e6)
    } else if n < 1e12 {
        format!("{:.1} billion", n / 1e9)
    } else {
        format!("{n:.1e}")
    }
}

/// The uniform random sample the rays were ranked on.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct SampleReport {
    /// Molecules in the sample (those of the draws that fit).
    pub molecules: u64,
    /// Molecules drawn at random among all of the configuration's.
    pub drawn: u64,
    /// The molecules that fit, estimated from the share of the draws that fit.
    pub estimated_molecules: f64,
    /// The relative margin (95%) of the best ray's expected value: 0.03 is ±3%.
    pub margin: f64,
    /// The seed of the draws (a hash of the question).
    pub seed: u64,
}

/// Whether the player's guess fits, for JSON.
#[derive(Debug, Clone, serde::Serialize)]
pub struct GuessReport {
    /// The guess, linear form.
    pub molecule: String,
    /// Whether it has the right atom count and reproduces every observed ray.
    pub fits: bool,
    /// A ray on which it differs: position, observed and guessed results.
    pub differs_at: Option<(usize, Outcome, Outcome)>,
    /// Whether it is among the molecules found.
    pub among_solutions: bool,
}

/// Everything `bbx solve` reports, ready to print as text or JSON.
#[derive(Debug, Clone, serde::Serialize)]
pub struct SolveReport {
    /// The puzzle file.
    pub origin: String,
    /// The configuration, `An_Bp`, when one atom count is searched (`None`
    /// for a range: `atoms_min` and `atoms_max` give it).
    pub config: Option<String>,
    /// The rules used.
    pub rules: Rules,
    /// Smallest atom count searched.
    pub atoms_min: usize,
    /// Largest atom count searched.
    pub atoms_max: usize,
    /// The observation (spectrum string with `?` for rays not shot).
    pub observation: String,
    /// Rays shot (positions with a known result); `rays_shot` in JSON.
    #[serde(rename = "rays_shot")]
    pub shot: usize,
    /// Molecules that fit: exact when `complete`, else how many were found;
    /// `molecules` in JSON.
    #[serde(rename = "molecules")]
    pub count: u128,
    /// Molecules listed in `solutions` (at most `--max`).
    pub listed: usize,
    /// The fewest atoms the rays allow, when an atom count below it was asked
    /// for.
    pub fewest_atoms: Option<usize>,
    /// How the search ended (complete, `--max`, the timeout, Ctrl-C, the
    /// memory bound), in JSON as four flags: `complete`, `timed_out`,
    /// `interrupted` and `over_memory`.
    #[serde(flatten, serialize_with = "ended_flags")]
    pub ended: Ended,
    /// The molecules, linear form.
    pub solutions: Vec<String>,
    /// Their numbers, where the configuration is numbered.
    pub numbers: Vec<Option<u64>>,
    /// Their full spectra.
    pub spectra: Vec<String>,
    /// Linear indices of the cells that hold an atom in every molecule.
    pub certain_atoms: Vec<usize>,
    /// Linear indices of the cells empty in every molecule.
    pub certain_empty: Vec<usize>,
    /// When nothing fits: the positions of a smallest set of contradicting rays.
    pub conflict: Option<Vec<usize>>,
    /// Unshot rays that tell the molecules apart, best first, counted on the
    /// molecules listed: on all that fit only when `splits_exact`; `rays` in
    /// JSON, as in `bbx suggest`.
    #[serde(rename = "rays")]
    pub splits: Vec<Split>,
    /// True when `splits` rest on every molecule that fits; false when they
    /// rest on the first `listed` the solver found (not a random sample, so
    /// the ranking may differ from the true one); `ranking_exact` in JSON, as
    /// in `bbx suggest`.
    #[serde(rename = "ranking_exact")]
    pub splits_exact: bool,
    /// Why the rays could not be ranked on every molecule (too many to
    /// walk, the time limit, cancelled), when [`SolveReport::rank_exactly`]
    /// was tried and could not.
    #[serde(skip)]
    pub ranking_cut: Option<Ended>,
    /// When the rays are ranked on a uniform random sample of the molecules
    /// that fit (too many to walk): the sample; `ranking_sample` in JSON,
    /// `null` otherwise.
    #[serde(rename = "ranking_sample")]
    pub sample: Option<SampleReport>,
    /// Per cell (linear index), the share of the molecules that fit with an
    /// atom there, when asked for ([`SolveReport::count_atoms`]) and
    /// counted on all of them; `null` otherwise.
    pub probabilities: Option<Vec<f64>>,
    /// The player's guess, if the puzzle has one.
    pub guess: Option<GuessReport>,
    #[serde(skip)]
    solution: Solution,
}

impl SolveReport {
    /// When the rays are ranked on only some of the molecules that fit: a
    /// sentence saying so, and what ranks them on all.
    pub fn ranking_caveat(&self) -> Option<Text> {
        if self.splits_exact || self.listed < 2 {
            return None;
        }
        if let Some(sm) = &self.sample {
            return Some(Text::from(format!(
                "These rays are ranked on a uniform random sample of {} of the molecules that fit (about {} fit, estimated from {} molecules drawn at random; the best ray's expected value is within ±{:.1}% at 95%; the counts of each outcome are the sample's): there are too many to rank on all ({} molecules walked at most).",
                sm.molecules,
                about(sm.estimated_molecules),
                sm.drawn,
                100.0 * sm.margin,
                forward::FORWARD_LIMIT
            )));
        }
        let why = match self.ranking_cut {
            Some(Ended::TooLarge) => Text::from(format!(
                "; ranking on all of them is past what bbx walks ({} molecules, {} rays traced, boxes up to about 500 wide)",
                forward::FORWARD_LIMIT,
                forward::FORWARD_TRACES
            )),
            Some(Ended::TimedOut) => Text::from("; the time limit stopped ranking them on all (")
                .and(Setting::Timeout)
                .and(" raises it)"),
            Some(Ended::Cancelled) => "; interrupted before ranking them on all".into(),
            _ => Text::default(),
        };
        let first = if self.ended.is_complete() {
            format!(
                "These rays are ranked on the first {} of the {} molecules that fit, in the order the solver found them",
                self.listed, self.count
            )
        } else {
            format!(
                "These rays are ranked on the first {} molecules the solver found, in its order",
                self.listed
            )
        };
        let caveat = Text::from(first).and(": not a random sample, so the true ranking may differ");
        Some(if self.ended.is_complete() || why != Text::default() {
            caveat.and_text(why).and(".")
        } else {
            (caveat.and(" (raise ").and(Setting::Max).and(", "))
                .and(Setting::Timeout)
                .and(" or ")
                .and(Setting::Memory)
                .and(" to rank them on more).")
        })
    }

    /// When the rays are ranked on only some of the molecules that fit (the
    /// first ones the search listed), ranks them again on all of them,
    /// counted forward ([`forward::tally`]) within `budget`, or else on a
    /// uniform random sample ([`forward::sample`]) when they are too many
    /// to walk. Returns how ranking on all of them ended.
    pub fn rank_exactly(&mut self, budget: &Budget) -> Result<Ended, Error> {
        if self.splits_exact || self.listed < 2 {
            return Ok(Ended::Complete);
        }
        let sol = &self.solution;
        let (observed, rules, atoms) = (&sol.observation, sol.rules, sol.atoms.clone());
        let t = forward::tally(observed, rules, atoms.clone(), budget)?;
        match t.ended {
            Ended::Complete => {
                self.splits = t.value.splits();
                self.splits_exact = true;
                self.probabilities = (t.value.molecules > 0).then(|| t.value.probabilities());
            }
            Ended::TooLarge => {
                self.ranking_cut = Some(Ended::TooLarge);
                let sm = forward::sample(observed, rules, atoms, budget)?;
                if !sm.is_complete() {
                    self.ranking_cut = Some(sm.ended);
                } else if sm.value.is_enough() {
                    let sm = sm.value;
                    self.splits = sm.splits();
                    self.sample = Some(SampleReport {
                        molecules: sm.tally.molecules,
                        drawn: sm.drawn,
                        estimated_molecules: sm.estimated,
                        margin: sm.margin(),
                        seed: sm.seed,
                    });
                }
            }
            cut => self.ranking_cut = Some(cut),
        }
        Ok(t.ended)
    }

    /// Works out each cell's probability of holding an atom — the share of
    /// the molecules that fit with an atom there — from the molecules
    /// listed when they are all that fit, else counted forward within
    /// `budget` as [`SolveReport::rank_exactly`] does. Returns how the count
    /// ended: when not complete, `probabilities` stays `None`.
    pub fn count_atoms(&mut self, budget: &Budget) -> Result<Ended, Error> {
        let sol = &self.solution;
        if sol.ended.is_complete() && sol.count == sol.molecules.len() as u128 {
            if !sol.molecules.is_empty() {
                let mut atoms = vec![0u64; sol.observation.shape().cells()];
                for &a in sol.molecules.iter().flat_map(|m| m.atoms()) {
                    atoms[a] += 1;
                }
                let n = sol.molecules.len() as f64;
                self.probabilities = Some(atoms.iter().map(|&k| k as f64 / n).collect());
            }
            return Ok(Ended::Complete);
        }
        if self.probabilities.is_some() {
            return Ok(Ended::Complete);
        }
        // Not all listed and not yet counted forward.
        let t = forward::tally(&sol.observation, sol.rules, sol.atoms.clone(), budget)?;
        if t.is_complete() {
            // None fits: no cell has a probability.
            self.probabilities = (t.value.molecules > 0).then(|| t.value.probabilities());
        }
        Ok(t.ended)
    }

    /// Builds the report of `solution` for the puzzle from `origin`, with the
    /// player's `guess` if any.
    pub fn new(origin: &str, solution: Solution, guess: Option<&Molecule>) -> SolveReport {
        let rules = solution.rules;
        let p = solution.observation.shape();
        // Every ray of every molecule listed, traced once for the spectra
        // and the splits (on a large box, the longest part of the report).
        let outcomes = outcome_table(&solution.molecules, rules);
        let splits = solution.splits_from(&outcomes);
        let guess = guess.map(|g| {
            let s = Spectrum::of(g, rules);
            let differs = solution.observation.first_difference(&s);
            let count_ok = solution.atoms.contains(&g.atoms().len());
            GuessReport {
                molecule: g.to_string(),
                fits: differs.is_none() && count_ok,
                differs_at: differs.and_then(|p| Some((p, solution.observation.get(p)?, s.get(p)))),
                among_solutions: solution.molecules.contains(g),
            }
        });
        SolveReport {
            origin: origin.to_string(),
            config: (solution.atoms.start() == solution.atoms.end()).then(|| {
                Config {
                    atoms: *solution.atoms.start(),
                    width: p.width,
                    height: p.height,
                }
                .to_string()
            }),
            rules,
            atoms_min: *solution.atoms.start(),
            atoms_max: *solution.atoms.end(),
            observation: solution.observation.to_string(),
            shot: solution.observation.shot_count(),
            count: solution.count,
            listed: solution.molecules.len(),
            fewest_atoms: solution.fewest_atoms,
            ended: solution.ended,
            solutions: solution.molecules.iter().map(|m| m.to_string()).collect(),
            numbers: solution.molecules.iter().map(rank).collect(),
            spectra: outcomes
                .into_iter()
                .map(|o| Spectrum::from_outcomes_unchecked(p, o).to_string())
                .collect(),
            certain_atoms: solution.certain_atoms(),
            certain_empty: solution.certain_empty(),
            conflict: solution.conflict.clone(),
            splits,
            splits_exact: solution.ended.is_complete()
                && solution.count == solution.molecules.len() as u128,
            ranking_cut: None,
            sample: None,
            probabilities: None,
            guess,
            solution,
        }
    }

    /// The solution the report was built from.
    pub fn solution(&self) -> &Solution {
        &self.solution
    }
}

/// [`SolveReport::ended`] as the four flags of the JSON report.
fn ended_flags<S: serde::Serializer>(ended: &Ended, serializer: S) -> Result<S::Ok, S::Error> {
    use serde::ser::SerializeStruct;
    let mut flags = serializer.serialize_struct("Ended", 4)?;
    flags.serialize_field("complete", &ended.is_complete())?;
    flags.serialize_field("timed_out", &(*ended == Ended::TimedOut))?;
    flags.serialize_field("interrupted", &(*ended == Ended::Cancelled))?;
    flags.serialize_field("over_memory", &(*ended == Ended::OverMemory))?;
    flags.end()
}
