//! What `bbx solve` reports: the molecules found, what is certain, the rays
//! that would tell them apart and the player's guess, as one value to print or
//! serialise.

use rayon::prelude::*;

use crate::control::{Budget, Cut, Ended, Finished};
use crate::error::{Error, grouped};
use crate::rules::board::Molecule;
use crate::rules::config::Config;
use crate::rules::enumeration::rank;
use crate::rules::ray::{Outcome, Rules, Tracer};
use crate::rules::spectrum::Spectrum;
use crate::setting::{Setting, Text};
use crate::solver::count::{self, Counted, Prior};
use crate::solver::forward;
use crate::solver::solution::{OutcomeClass, best_first};
use crate::solver::{Certainty, DEFAULT_MEMORY, Solution, Split};
use rand::rngs::ChaCha8Rng;

/// The share of the time left that the exact count may take before the
/// report turns to a sample (which needs the rest).
pub const COUNT_SHARE: f64 = 0.5;

/// The molecules the search lists when the exact count gives the count,
/// the ranking and the chances: those a report shows (the coach's list,
/// the molecule once it is known).
pub const LISTED_WHEN_COUNTED: usize = 100;

/// How the number of molecules that fit is known.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Known {
    /// Exactly: every molecule that fits was listed or counted.
    Exact,
    /// At least: the search stopped before it had found them all, and they
    /// could neither be counted nor estimated in the time.
    AtLeast,
    /// Estimated from a uniform random sample, with its interval.
    Estimate,
}

/// An estimated number of molecules, with its 95% interval.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Estimate {
    /// The estimate.
    pub value: f64,
    /// The interval's low end.
    pub low: f64,
    /// The interval's high end.
    pub high: f64,
    /// Its confidence (0.95).
    pub confidence: f64,
}

/// The molecules of one count of atoms that fit.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct AtomsCount {
    /// The count of atoms.
    pub atoms: usize,
    /// The molecules of that many atoms that fit.
    pub molecules: u128,
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

/// One molecule that fits, as the report lists it.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Found {
    /// Its number in its configuration (`None` where the configuration is
    /// too large to number).
    pub number: Option<u64>,
    /// The molecule, linear form.
    pub molecule: String,
    /// Its full spectrum (`None` when a limit came before the molecules
    /// listed were traced: see [`SolveReport::after`]).
    pub spectrum: Option<String>,
}

/// Everything `bbx solve` reports, ready to print as text or JSON.
#[derive(Debug, Clone, serde::Serialize)]
pub struct SolveReport {
    /// The puzzle file.
    pub origin: String,
    /// The configuration, `An_Bp`, when one atom count is searched (`None`
    /// for a range: `atoms_min` and `atoms_max` give it).
    pub config: Option<String>,
    /// The box's width: a cell's linear index is row × width + column.
    pub width: usize,
    /// The box's height.
    pub height: usize,
    /// The rules used.
    pub rules: Rules,
    /// Smallest atom count searched.
    pub atoms_min: usize,
    /// Largest atom count searched.
    pub atoms_max: usize,
    /// The observation (spectrum string with `?` for rays not shot).
    pub observation: String,
    /// Rays shot, an exit pair once; `rays_shot` in JSON.
    #[serde(rename = "rays_shot")]
    pub shot: usize,
    /// Border marks known: the positions with a result, both ends of an
    /// exit pair; `marks_known` in JSON.
    #[serde(rename = "marks_known")]
    pub marks: usize,
    /// Molecules that fit: exact when `complete`, else how many were found;
    /// `molecules` in JSON.
    #[serde(rename = "molecules")]
    pub count: u128,
    /// How `molecules` is known: exactly, at least, or as an estimate
    /// (`molecules_known` in JSON).
    #[serde(rename = "molecules_known")]
    pub known: Known,
    /// When estimated: the estimate and its interval (`molecules` is then
    /// the estimate, rounded); `null` otherwise.
    #[serde(rename = "molecules_estimate")]
    pub estimate: Option<Estimate>,
    /// When counted exactly: the molecules of each count of atoms searched.
    #[serde(rename = "molecules_by_atoms")]
    pub by_atoms: Option<Vec<AtomsCount>>,
    /// How likely each molecule is taken to be, for the chances and the
    /// ranking: every molecule alike, or every count of atoms first.
    pub prior: Prior,
    /// Molecules listed in `found` (at most `--max`).
    pub listed: usize,
    /// True when every molecule that fits is listed (the search was
    /// complete and found no more than it lists); `complete` alone says the
    /// count is exact.
    pub list_complete: bool,
    /// The fewest atoms the rays allow, when an atom count below it was asked
    /// for.
    pub fewest_atoms: Option<usize>,
    /// How the search ended (complete, `--max`, the timeout, Ctrl-C, the
    /// memory bound); in JSON, with [`SolveReport::after`], as four flags
    /// ([`EndedFlags`]).
    #[serde(skip)]
    pub ended: Ended,
    /// How the work after the search ended: tracing the molecules listed
    /// (their spectra, and the rays' ranking on them), ranking the rays on
    /// every molecule that fits, counting each cell's probability. A limit
    /// that cut it leaves out what it cut, and says so here.
    #[serde(skip)]
    pub after: Ended,
    /// The search's ending and the work's after it, as JSON says them.
    #[serde(flatten)]
    flags: EndedFlags,
    /// The molecules listed, one record each: number, linear form, full
    /// spectrum.
    pub found: Vec<Found>,
    /// Linear indices of the cells that hold an atom in every molecule.
    pub certain_atoms: Vec<usize>,
    /// Linear indices of the cells empty in every molecule.
    pub certain_empty: Vec<usize>,
    /// When nothing fits: the positions of a smallest set of contradicting rays.
    pub conflict: Option<Vec<usize>>,
    /// Unshot rays that tell the molecules apart, best first: ranked on
    /// every molecule that fits (`splits_exact`) or on a uniform random
    /// sample of them (`sample`), never on the first ones found; empty when
    /// neither could be done (`ranking_cut` says why). `rays` in JSON, as in
    /// `bbx suggest`.
    #[serde(rename = "rays")]
    pub splits: Vec<Split>,
    /// True when `splits` rest on every molecule that fits; false when they
    /// rest on a sample, or there are none; `ranking_exact` in JSON, as in
    /// `bbx suggest`.
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
    /// Per cell, what every molecule that fits agrees on, when counted.
    #[serde(skip)]
    counted_certainty: Option<Vec<Certainty>>,
    /// The exact count, when one was made: it lists every molecule that
    /// fits for the work that needs them all (a policy's next ray).
    #[serde(skip)]
    counted: Option<Counted>,
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
        let cut_short = match self.ranking_cut {
            Some(Ended::TimedOut) => Some(Text::from("the time limit (").and(Setting::Timeout)),
            Some(Ended::Cancelled) => Some(Text::from("the interruption (Ctrl-C")),
            Some(Ended::OverMemory) => Some(Text::from("the memory bound (").and(Setting::Memory)),
            _ => None,
        };
        if let Some(sm) = &self.sample {
            let mut text = Text::from(format!(
                "These rays are ranked on a uniform random sample of {} of the molecules that fit ({}; the best ray's expected value is within ±{:.1}% at 95%; the counts of each outcome are the sample's): there are too many to rank on all",
                grouped(sm.molecules),
                match self.known {
                    Known::Exact => format!("{} fit, counted exactly", grouped(self.count)),
                    _ => format!(
                        "about {} fit, estimated from {} molecules drawn at random",
                        crate::error::about(
                            self.estimate.map_or(sm.estimated_molecules, |e| e.value)
                        ),
                        grouped(sm.drawn)
                    ),
                },
                100.0 * sm.margin,
            ));
            if let Some(why) = cut_short {
                text = text
                    .and(format!(
                        "; the sample was to be {}, and ",
                        grouped(forward::SAMPLE_SIZE as u128)
                    ))
                    .and_text(why)
                    .and(if self.ranking_cut == Some(Ended::Cancelled) {
                        ") cut it short"
                    } else {
                        " raises it) cut it short"
                    });
            }
            return Some(text.and("."));
        }
        let why = match self.ranking_cut {
            Some(Ended::TooLarge) => Text::from(format!(
                "there are too many molecules to rank on all (past {} molecules or {} rays traced), and too few of those drawn at random fit to rank them on a sample",
                grouped(forward::FORWARD_LIMIT as u128),
                grouped(forward::FORWARD_TRACES as u128)
            )),
            Some(Ended::TimedOut) => {
                Text::from("the time limit stopped ranking them on every molecule that fits or on a sample (")
                    .and(Setting::Timeout)
                    .and(" raises it)")
            }
            Some(Ended::Cancelled) => "interrupted before they were ranked".into(),
            Some(Ended::OverMemory) => {
                Text::from("ranking them would pass the memory bound (")
                    .and(Setting::Memory)
                    .and(" raises it)")
            }
            _ => Text::from(format!(
                "the search stopped after {} molecules, and the first ones found are no sample to rank on (raise ",
                grouped(self.listed as u128)
            ))
            .and(Setting::Max)
            .and(", ")
            .and(Setting::Timeout)
            .and(" or ")
            .and(Setting::Memory)
            .and(")"),
        };
        Some(
            Text::from("The rays are not ranked: ")
                .and_text(why)
                .and("."),
        )
    }

    /// Counts the molecules that fit exactly ([`count::count`]), within
    /// `budget`: the count (per count of atoms too), each cell's chance of
    /// an atom and the cells certain, and the rays not shot ranked, all on
    /// every molecule that fits, under `prior`; where following every ray
    /// not shot is too large, the rays are ranked on a uniform sample drawn
    /// from the count ([`Counted::sample`]). Returns how the count ended:
    /// when it did not finish, the report is as it was (and
    /// [`SolveReport::rank_exactly`] tries the forward walk or a sample).
    pub fn count_exactly(&mut self, prior: Prior, budget: &Budget) -> Result<Ended, Error> {
        let c = self.count_within(budget)?;
        self.take_count(c, prior, budget)
    }

    /// The exact count of the solution's question, within `budget`.
    fn count_within(&self, budget: &Budget) -> Result<Finished<Option<Counted>>, Error> {
        let sol = &self.solution;
        count::count(&sol.observation, sol.rules, sol.atoms.clone(), budget)
    }

    /// [`SolveReport::count_exactly`] with the count `c` already made (of
    /// the same question), for a caller that counted first to choose how
    /// many molecules to list.
    pub fn take_count(
        &mut self,
        c: Finished<Option<Counted>>,
        prior: Prior,
        budget: &Budget,
    ) -> Result<Ended, Error> {
        self.prior = prior;
        let Some(c) = c.value else {
            if c.ended.cut().is_some() {
                self.cut_after(c.ended);
            }
            return Ok(c.ended);
        };
        self.count = c.total();
        self.known = Known::Exact;
        self.estimate = None;
        self.by_atoms = Some(
            c.by_atoms()
                .into_iter()
                .map(|(atoms, molecules)| AtomsCount { atoms, molecules })
                .collect(),
        );
        self.list_complete = self.count == self.listed as u128;
        let certainty = c.certainty();
        if let Some(cert) = &certainty {
            let which = |want: Certainty| {
                (0..cert.len())
                    .filter(|&i| cert[i] == want)
                    .collect::<Vec<usize>>()
            };
            self.certain_atoms = which(Certainty::Atom);
            self.certain_empty = which(Certainty::Empty);
        }
        self.counted_certainty = certainty;
        self.probabilities = (self.count > 0).then(|| c.chances(prior));
        self.counted = Some(c.clone());
        if c.ranked() {
            self.splits = c.splits(prior);
            self.splits_exact = true;
            self.sample = None;
            self.ranking_cut = None;
        } else if self.count > 1 {
            let seed = forward::sample_seed(
                &self.solution.observation,
                self.solution.rules,
                &self.solution.atoms,
            );
            let mut rng = <ChaCha8Rng as rand::SeedableRng>::seed_from_u64(seed);
            if let Some(drawn) = c.sample(forward::SAMPLE_SIZE as usize, Prior::Molecules, &mut rng)
            {
                let ranked = rank_on_sample(&drawn, &self.solution, self.count, prior, budget);
                self.splits_exact = false;
                self.ranking_cut = Some(ranked.cut.map_or(Ended::TooLarge, Ended::from));
                if let Some(cut) = ranked.cut {
                    // The count stands; the ranking was cut short.
                    self.cut_after(Ended::from(cut));
                }
                if ranked.traced >= MIN_SAMPLE {
                    // The molecules traced before any cut are a uniform
                    // sample still, if a smaller one.
                    self.splits = ranked.splits;
                    self.sample = Some(SampleReport {
                        molecules: ranked.traced as u64,
                        drawn: ranked.traced as u64,
                        estimated_molecules: self.count as f64,
                        margin: ranked.margin,
                        seed,
                    });
                } else {
                    self.splits.clear();
                    self.sample = None;
                }
                if let Some(cut) = ranked.cut {
                    return Ok(Ended::from(cut));
                }
            }
        }
        Ok(Ended::Complete)
    }

    /// Works out, within `budget`, everything the report says of the
    /// molecules that fit beyond those listed: counted exactly where the
    /// count can walk them ([`SolveReport::count_exactly`], under `prior`),
    /// else the rays ranked on every molecule walked forward or on a
    /// uniform sample, with the count then estimated
    /// ([`SolveReport::rank_exactly`]), and each cell's chance of an atom
    /// ([`SolveReport::count_atoms`]). Returns how the work ended.
    pub fn work_out(&mut self, prior: Prior, budget: &Budget) -> Result<Ended, Error> {
        let c = self.count_within(&budget.share(COUNT_SHARE))?;
        self.work_out_with(c, prior, budget)
    }

    /// [`SolveReport::work_out`] with the count `c` already tried (within
    /// part of `budget`), for a caller that counted first to choose how many
    /// molecules to list.
    pub fn work_out_with(
        &mut self,
        c: Finished<Option<Counted>>,
        prior: Prior,
        budget: &Budget,
    ) -> Result<Ended, Error> {
        self.prior = prior;
        if c.value.is_some() {
            self.take_count(c, prior, budget)?;
        } else if c.ended == Ended::Cancelled {
            self.cut_after(c.ended);
            return Ok(c.ended);
        }
        let ranked = self.rank_exactly(budget)?;
        let chances = self.count_atoms(budget)?;
        Ok(ranked.and(chances))
    }

    /// Per cell, what every molecule that fits agrees on, when known: from
    /// the count, else from the search.
    pub fn certainty(&self) -> Option<&[Certainty]> {
        self.counted_certainty
            .as_deref()
            .or(self.solution.certainty.as_deref())
    }

    /// When the rays are ranked on only some of the molecules that fit (the
    /// first ones the search listed), ranks them again on all of them,
    /// counted forward ([`forward::tally`]) within `budget`, or else on a
    /// uniform random sample ([`forward::sample`]) when they are too many
    /// to walk. Returns how ranking on all of them ended.
    pub fn rank_exactly(&mut self, budget: &Budget) -> Result<Ended, Error> {
        if self.splits_exact
            || self.sample.is_some()
            || (self.listed < 2 && self.known == Known::Exact)
        {
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
                if self.known == Known::AtLeast {
                    self.count = t.value.molecules as u128;
                    self.known = Known::Exact;
                }
            }
            Ended::TooLarge => {
                self.ranking_cut = Some(Ended::TooLarge);
                let sm = forward::sample(observed, rules, atoms, budget)?;
                // A sample cut short is whole rounds of draws: uniform, and
                // its interval as wide as its size makes it.
                self.cut_after(sm.ended);
                if !sm.value.is_enough() {
                    if !sm.is_complete() {
                        self.ranking_cut = Some(sm.ended);
                    }
                } else {
                    let sm = sm.value;
                    if self.known == Known::AtLeast {
                        // The molecules found are a floor the interval
                        // and the estimate keep to.
                        let (low, high) = sm.interval();
                        let low = low.max(self.count as f64);
                        let high = high.max(low);
                        let value = sm.estimated.clamp(low, high);
                        self.known = Known::Estimate;
                        self.estimate = Some(Estimate {
                            value,
                            low,
                            high,
                            confidence: 0.95,
                        });
                        self.count = (value.round() as u128).max(self.count);
                    }
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
            cut => {
                self.ranking_cut = Some(cut);
                self.cut_after(cut);
            }
        }
        Ok(t.ended)
    }

    /// Works out each cell's probability of holding an atom — the share of
    /// the molecules that fit with an atom there — from the molecules
    /// listed when they are all that fit, else counted forward within
    /// `budget` as [`SolveReport::rank_exactly`] does. Returns how the count
    /// ended: when not complete, `probabilities` stays `None`.
    pub fn count_atoms(&mut self, budget: &Budget) -> Result<Ended, Error> {
        if self.by_atoms.is_some() {
            return Ok(Ended::Complete);
        }
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
        self.cut_after(t.ended);
        Ok(t.ended)
    }

    /// Builds the report of `solution` for the puzzle from `origin`, with the
    /// player's `guess` if any, within `budget`: the molecules listed are
    /// traced (for their spectra and the rays' ranking on them) until its
    /// deadline or token stops them, and only when the table of their
    /// outcomes fits in its memory bound ([`DEFAULT_MEMORY`] when it gives
    /// none); else the spectra and that ranking are left out, and
    /// [`SolveReport::after`] says why.
    pub fn new(
        origin: &str,
        solution: Solution,
        guess: Option<&Molecule>,
        budget: &Budget,
    ) -> SolveReport {
        let mut report = SolveReport::untraced(origin, solution, guess);
        let p = report.solution.observation.shape();
        // Every ray of every molecule listed, traced once for the spectra
        // and the splits (on a large box, the longest part of the report).
        match trace_listed(&report.solution, budget) {
            Ok(codes) => {
                for (found, row) in report.found.iter_mut().zip(&codes) {
                    let outcomes = row.iter().map(|&c| Outcome::from_code(c.into()));
                    found.spectrum =
                        Some(Spectrum::from_outcomes_unchecked(p, outcomes.collect()).to_string());
                }
                let sol = &report.solution;
                // Ranked on the molecules listed only when they are every
                // one that fits: the first ones found are not a sample.
                report.splits_exact =
                    sol.ended.is_complete() && sol.count == sol.molecules.len() as u128;
                if report.splits_exact {
                    report.splits = report.solution.splits_from(&codes);
                }
            }
            Err(ended) => {
                report.ranking_cut = Some(ended);
                report.cut_after(ended);
            }
        }
        report
    }

    /// The report of `solution` without the work that traces the molecules
    /// listed: no spectra and no ranking of the rays (for a count).
    pub fn untraced(origin: &str, solution: Solution, guess: Option<&Molecule>) -> SolveReport {
        let rules = solution.rules;
        let p = solution.observation.shape();
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
        let found = (solution.molecules.iter())
            .map(|m| Found {
                number: rank(m),
                molecule: m.to_string(),
                spectrum: None,
            })
            .collect();
        let listed = solution.molecules.len();
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
            width: p.width,
            height: p.height,
            rules,
            atoms_min: *solution.atoms.start(),
            atoms_max: *solution.atoms.end(),
            observation: solution.observation.to_string(),
            shot: solution.observation.ray_count(),
            marks: solution.observation.shot_count(),
            count: solution.count,
            known: if solution.ended.is_complete() {
                Known::Exact
            } else {
                Known::AtLeast
            },
            estimate: None,
            by_atoms: None,
            prior: Prior::default(),
            listed,
            list_complete: solution.ended.is_complete() && solution.count == listed as u128,
            fewest_atoms: solution.fewest_atoms,
            ended: solution.ended,
            after: Ended::Complete,
            flags: EndedFlags::of(solution.ended, Ended::Complete),
            found,
            certain_atoms: solution.certain_atoms(),
            certain_empty: solution.certain_empty(),
            conflict: solution.conflict.clone(),
            splits: Vec::new(),
            splits_exact: false,
            ranking_cut: None,
            sample: None,
            probabilities: None,
            guess,
            counted_certainty: None,
            counted: None,
            solution,
        }
    }

    /// Notes that a part of the work after the search ended as `ended`.
    fn cut_after(&mut self, ended: Ended) {
        if ended.cut().is_some() {
            self.after = self.after.and(ended);
            self.flags = EndedFlags::of(self.ended, self.after);
        }
    }

    /// The solution the report was built from.
    pub fn solution(&self) -> &Solution {
        &self.solution
    }

    /// The solution with every molecule that fits listed, for the work
    /// that weighs them all (a policy's next ray): the search's own when it
    /// listed them all, else listed from the exact count when at most
    /// `limit` fit; `None` when neither can give them.
    pub fn every_molecule(&self, limit: usize) -> Option<std::borrow::Cow<'_, Solution>> {
        let sol = &self.solution;
        if sol.ended.is_complete() && sol.count == sol.molecules.len() as u128 {
            return Some(std::borrow::Cow::Borrowed(sol));
        }
        let molecules = self.counted.as_ref()?.molecules(limit)?;
        Some(std::borrow::Cow::Owned(Solution {
            observation: sol.observation.clone(),
            rules: sol.rules,
            atoms: sol.atoms.clone(),
            count: molecules.len() as u128,
            molecules,
            families: Vec::new(),
            fewest_atoms: sol.fewest_atoms,
            ended: Ended::Complete,
            certainty: sol.certainty.clone(),
            certainty_cut: sol.certainty_cut,
            certainty_skipped: sol.certainty_skipped,
            conflict: sol.conflict.clone(),
            conflict_cut: sol.conflict_cut,
        }))
    }
}

/// How a search and the work after it ended, as the four flags of the JSON
/// reports of `solve` and `suggest`: `complete`, the search found every
/// molecule (or as many as `--max` asked); `timed_out`, `interrupted`,
/// `over_memory`, the time limit, Ctrl-C or the memory bound cut the
/// search or the work after it (the ranking, the spectra, the
/// probabilities).
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
pub struct EndedFlags {
    /// The search was done whole.
    pub complete: bool,
    /// The deadline cut the search or the work after it.
    pub timed_out: bool,
    /// The token (Ctrl-C) cut the search or the work after it.
    pub interrupted: bool,
    /// The memory bound cut the search or the work after it.
    pub over_memory: bool,
}

impl EndedFlags {
    /// The flags of a search that ended as `search`, and of the work after
    /// it, which ended as `after`.
    pub fn of(search: Ended, after: Ended) -> EndedFlags {
        let either = |e: Ended| search == e || after == e;
        EndedFlags {
            complete: search.is_complete(),
            timed_out: either(Ended::TimedOut),
            interrupted: either(Ended::Cancelled),
            over_memory: either(Ended::OverMemory),
        }
    }
}

/// The rays not shot of `solution` ranked on `drawn`, molecules drawn
/// uniformly among the `total` that fit: each outcome's molecules estimated
/// from its share of the sample, its chance under `prior` from the same
/// sample weighed by the prior; with the relative margin (95%) of the best
/// ray's expected value. Traced within `budget`: when a limit cuts the
/// tracing short, the rays are ranked on the molecules traced before it (a
/// uniform sample still, a smaller one), and the cut is said.
fn rank_on_sample(
    drawn: &[Molecule],
    solution: &Solution,
    total: u128,
    prior: Prior,
    budget: &Budget,
) -> SampleRanking {
    let p = solution.observation.shape();
    let positions = p.positions();
    let rules = solution.rules;
    let cells = p.cells() as u64;
    let weight = |m: &Molecule| match prior {
        Prior::Molecules => 1.0,
        Prior::CountsFirst => {
            let k = m.atoms().len() as u64;
            let k = k.min(cells - k);
            1.0 / (0..k).fold(1.0, |a, i| a * (cells - i) as f64 / (i + 1) as f64)
        }
    };
    let codes = Outcome::codes(positions);
    // Per ray, per code: molecules of the sample, and their prior weight.
    let mut tally = vec![(0u64, 0.0f64); positions * codes];
    let mut tracer = Tracer::new(p, rules);
    let mut rays = Vec::new();
    let mut ticker = budget.ticker(64);
    let mut mass = 0.0;
    let mut cut = None;
    let mut traced = 0usize;
    for m in drawn {
        if let Err(c) = ticker.tick() {
            cut = Some(c);
            break;
        }
        traced += 1;
        tracer.load(m);
        tracer.trace_all(&mut rays);
        let w = weight(m);
        mass += w;
        for q in (1..=positions).filter(|&q| solution.observation.get(q).is_none()) {
            let t = &mut tally[(q - 1) * codes + rays[q - 1].outcome.code()];
            t.0 += 1;
            t.1 += w;
        }
    }
    let n = traced.max(1) as f64;
    let mut splits = Vec::new();
    for q in (1..=positions).filter(|&q| solution.observation.get(q).is_none()) {
        let row = &tally[(q - 1) * codes..q * codes];
        let seen: Vec<(usize, &(u64, f64))> =
            row.iter().enumerate().filter(|(_, c)| c.0 > 0).collect();
        if seen.len() < 2 {
            continue;
        }
        let mut expected = 0.0;
        let mut entropy = 0.0;
        for &(_, &(k, w)) in &seen {
            let chance = w / mass;
            expected += chance * (total as f64) * (k as f64 / n);
            if chance > 0.0 {
                entropy -= chance * chance.log2();
            }
        }
        let mut classes: Vec<OutcomeClass> = seen
            .iter()
            .map(|&(code, &(k, _))| OutcomeClass {
                outcome: Outcome::from_code(code),
                count: k as usize,
            })
            .collect();
        classes.sort_by(|a, b| b.count.cmp(&a.count).then(a.outcome.cmp(&b.outcome)));
        splits.push(Split {
            position: q,
            classes,
            expected_remaining: expected,
            entropy,
        });
    }
    best_first(&mut splits);
    // The estimator of Σ q² has a variance of about 4 (Σ q³ − (Σ q²)²) / n.
    let margin = splits.first().map_or(0.0, |best| {
        let shares: Vec<f64> = best.classes.iter().map(|c| c.count as f64 / n).collect();
        let s2: f64 = shares.iter().map(|q| q * q).sum();
        let s3: f64 = shares.iter().map(|q| q * q * q).sum();
        1.96 * (4.0 * (s3 - s2 * s2).max(0.0) / n).sqrt() / s2
    });
    SampleRanking {
        splits,
        margin,
        traced,
        cut,
    }
}

/// The fewest molecules of a sample that the rays are ranked on: a sample
/// cut shorter than this ranks nothing.
const MIN_SAMPLE: usize = 200;

/// The rays ranked on a sample ([`rank_on_sample`]).
struct SampleRanking {
    /// The rays, best first.
    splits: Vec<Split>,
    /// The relative margin (95%) of the best ray's expected value.
    margin: f64,
    /// The molecules of the sample traced: all of them unless `cut`.
    traced: usize,
    /// The limit that stopped the tracing, if one did.
    cut: Option<Cut>,
}

/// Bytes a molecule listed takes while it is traced for the report: its
/// outcome codes (2 bytes a ray) and its spectrum (1 byte a ray).
const TRACED_BYTES_PER_RAY: u64 = 3;

/// The outcome codes of every ray of every molecule listed (a row of 4p a
/// molecule), traced in parallel within `budget`: how it ended when its
/// deadline or token stopped the tracing, or the table would pass its
/// memory bound.
fn trace_listed(solution: &Solution, budget: &Budget) -> Result<Vec<Vec<u16>>, Ended> {
    let molecules = &solution.molecules;
    let Some(first) = molecules.first() else {
        return Ok(Vec::new());
    };
    let p = first.shape();
    let bytes = (molecules.len() as u64)
        .saturating_mul(p.positions() as u64)
        .saturating_mul(TRACED_BYTES_PER_RAY);
    if bytes > budget.memory_or(DEFAULT_MEMORY) {
        return Err(Ended::OverMemory);
    }
    let rules = solution.rules;
    molecules
        .par_iter()
        .map_init(
            || (Tracer::new(p, rules), Vec::new()),
            |(tracer, rays), m| {
                budget.check()?;
                tracer.load(m);
                tracer.trace_all(rays);
                Ok(rays.iter().map(|r| r.outcome.code() as u16).collect())
            },
        )
        .collect::<Result<Vec<Vec<u16>>, Cut>>()
        .map_err(Ended::from)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::spectrum::Observation;
    use crate::solver::{Limits, solve};

    /// Every molecule of A2_B5 with no ray shot: 300 listed, none ranked yet.
    fn open_box() -> Solution {
        let seen = Observation::empty(5);
        solve(&seen, Rules::Standard, 2..=2, &Limits::default(), |_| {}).unwrap()
    }

    #[test]
    fn the_first_molecules_found_are_never_ranked_on() {
        // 300 fit; 50 listed: traced for their spectra, but the rays are
        // ranked on the count's walk of all 300, never on the 50.
        let seen = Observation::empty(5);
        let limits = Limits {
            max: Some(50),
            ..Limits::default()
        };
        let listed = || solve(&seen, Rules::Standard, 2..=2, &limits, |_| {}).unwrap();
        let first = SolveReport::new("t", listed(), None, &Budget::default());
        assert_eq!(first.listed, 50);
        assert!(first.splits.is_empty() && !first.splits_exact);
        let caveat = first.ranking_caveat().unwrap().show(&crate::setting::Plain);
        assert!(caveat.starts_with("The rays are not ranked: "), "{caveat}");
        let mut counted = SolveReport::new("t", listed(), None, &Budget::default());
        counted
            .work_out(Prior::Molecules, &Budget::default())
            .unwrap();
        assert!(counted.splits_exact && !counted.splits.is_empty());
        assert_eq!(counted.count, 300);
        let whole = SolveReport::new("t", open_box(), None, &Budget::default());
        let key = |r: &SolveReport| -> Vec<(usize, Vec<OutcomeClass>, String)> {
            (r.splits.iter())
                .map(|s| {
                    let left = format!("{:.9}", s.expected_remaining);
                    (s.position, s.classes.clone(), left)
                })
                .collect()
        };
        assert_eq!(key(&counted), key(&whole));
        // Past the time limit before the count: not ranked, and said so.
        let mut late = SolveReport::new("t", listed(), None, &Budget::default());
        let past = Budget::default().with_timeout(std::time::Duration::ZERO);
        late.work_out(Prior::Molecules, &past).unwrap();
        assert!(late.splits.is_empty() && late.sample.is_none());
        let caveat = late.ranking_caveat().unwrap().show(&crate::setting::Plain);
        assert!(
            caveat.contains("the time limit stopped ranking them"),
            "{caveat}"
        );
    }

    #[test]
    fn the_molecules_listed_are_traced_within_the_budget() {
        let whole = SolveReport::new("t", open_box(), None, &Budget::default());
        let traced = |r: &SolveReport| r.found.iter().filter(|f| f.spectrum.is_some()).count();
        assert_eq!(
            (whole.listed, whole.found.len(), traced(&whole)),
            (300, 300, 300)
        );
        assert!(whole.splits_exact && !whole.splits.is_empty());
        assert_eq!(whole.after, Ended::Complete);
        // Ctrl-C before the tracing: no spectra, no ranking, and said so.
        let cancelled = Budget::default();
        cancelled.cancel.cancel();
        let cut = SolveReport::new("t", open_box(), None, &cancelled);
        assert!(traced(&cut) == 0 && cut.splits.is_empty() && !cut.splits_exact);
        assert_eq!(
            cut.found.len(),
            300,
            "the molecules are listed all the same"
        );
        assert_eq!(cut.after, Ended::Cancelled);
        let json = serde_json::to_value(&cut).unwrap();
        assert_eq!(
            (json["complete"].as_bool(), json["interrupted"].as_bool()),
            (Some(true), Some(true))
        );
        // A table of outcomes past the memory bound (300 molecules, 20
        // rays, 3 bytes each: 18 KB) is not made.
        let tight = Budget::default().with_memory(Some(10_000));
        let over = SolveReport::new("t", open_box(), None, &tight);
        assert_eq!((over.after, traced(&over)), (Ended::OverMemory, 0));
        assert_eq!(serde_json::to_value(&over).unwrap()["over_memory"], true);
        // The time limit, in the ranking on every molecule.
        let mut late = SolveReport::new("t", open_box(), None, &Budget::default());
        late.splits_exact = false;
        let past = Budget::default().with_timeout(std::time::Duration::ZERO);
        assert_eq!(late.rank_exactly(&past).unwrap(), Ended::TimedOut);
        assert_eq!(serde_json::to_value(&late).unwrap()["timed_out"], true);
    }
}
