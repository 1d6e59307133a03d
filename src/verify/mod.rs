//! Enumeration and SAT check each other, spectrum by spectrum.
//!
//! The forward enumeration says, for every spectrum, which molecules produce
//! it; the SAT solver, given only that spectrum (or the rays of it that remain
//! when some are hidden), must find exactly the molecules the enumeration
//! predicts. Any difference is a bug in one of the two, reported with the
//! spectrum and the molecules only one side found.
//!
//! The two sides share nothing but the board's numbering: the SAT side
//! encodes every observed ray as clauses ([`ObservationClauses`]) and
//! never asks the ray engine whether a candidate fits, so a wrong rule in
//! either shows up as a mismatch.
//!
//! ```
//! use bbx::verify::{verify, VerifyOptions};
//! let done = verify("A2_B4".parse().unwrap(), &VerifyOptions::default(), |_, _| {}).unwrap();
//! assert!(done.is_complete());
//! let v = done.value;
//! assert!(v.agrees());
//! assert_eq!(v.checked, 120); // every A2_B4 spectrum is unique
//! ```

use std::collections::BTreeMap;

use rand::rngs::ChaCha8Rng;
use rand::seq::index::sample;
use rand::{Rng, SeedableRng};
use rayon::prelude::*;

mod groups;
mod index;
mod source;
mod stream;

pub use groups::{SpectralGroups, spectra, spectra_from_store};
use index::RayIndex;
pub use source::{Spectra, SpectraSource, spectra_or_stream};
pub use stream::{
    DEFAULT_SAMPLE, LISTED_MISMATCHES, Streamed, Streaming, unfinished, verify_streaming,
};

pub use crate::census::sink::Seed;
use crate::control::{Budget, Ended, Finished};
use crate::error::Error;
use crate::rules::board::Molecule;
use crate::rules::config::Config;
use crate::rules::enumeration::{rank, unrank};
use crate::rules::ray::Rules;
use crate::rules::spectrum::{Observation, Spectrum};
use crate::setting::Setting;
use crate::solver::{ObservationClauses, RayModel};
use crate::text;

/// What to check.
#[derive(Debug, Clone)]
pub struct VerifyOptions {
    /// The rules (of the enumeration and of the SAT side).
    pub rules: Rules,
    /// Check every ambiguous spectrum and this many unique ones drawn at
    /// random (all of them when there are fewer); `None`: every spectrum (in
    /// memory), or [`DEFAULT_SAMPLE`] unique ones
    /// (streamed).
    pub sample: Option<usize>,
    /// Seed of the random choices (a ChaCha8 generator seeded with
    /// [`SeedableRng::seed_from_u64`], reproducible on every platform; a
    /// streamed verify samples with it too). A streamed verify that resumes
    /// work recorded with another seed takes that one when this one was
    /// drawn, and is refused when it was given.
    pub seed: Seed,
    /// Check only the spectra shared by two molecules or more.
    pub ambiguous_only: bool,
    /// Hide this fraction of the rays of each checked spectrum (see [`hide`]).
    pub partial: Option<f64>,
    /// What stops the enumeration and the checks in memory (Ctrl-C, a
    /// deadline): they answer with what they did, and how they ended. (A
    /// streamed verify is stopped by its census's budget.) Its faults:
    /// `crossed-rules` makes the SAT side use the other rules, to prove the
    /// check can fail; `busy-timeout-ms` is how long to wait for other
    /// programs to let go of a catalogue.
    pub budget: Budget,
}

impl Default for VerifyOptions {
    fn default() -> VerifyOptions {
        VerifyOptions {
            rules: Rules::Standard,
            sample: None,
            seed: Seed::default(),
            ambiguous_only: false,
            partial: None,
            budget: Budget::default(),
        }
    }
}

impl VerifyOptions {
    /// The rules of the SAT side: [`rules`](Self::rules), or the others
    /// with the `crossed-rules` fault.
    fn sat_rules(&self) -> Rules {
        match (self.rules, self.budget.faults.crossed_rules) {
            (rules, false) => rules,
            (Rules::Standard, true) => Rules::EdgeMiss,
            (Rules::EdgeMiss, true) => Rules::Standard,
        }
    }
}

/// One row of the verification table: spectra whose group has `size` molecules.
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct SizeRow {
    /// Molecules per spectrum (or per observation, with hidden rays).
    pub size: usize,
    /// Checked spectra with this many molecules by enumeration.
    pub enumeration_spectra: usize,
    /// Their molecules.
    pub enumeration_molecules: usize,
    /// Checked spectra for which SAT found this many molecules.
    pub sat_spectra: usize,
    /// Their molecules.
    pub sat_molecules: usize,
    /// Spectra of this enumeration size where the two disagree.
    pub mismatches: usize,
}

/// The rows of the verification table, by size, as checks add up.
#[derive(Debug, Clone, Default, serde::Serialize, serde::Deserialize)]
struct Rows(BTreeMap<usize, SizeRow>);

impl Rows {
    fn row(&mut self, size: usize) -> &mut SizeRow {
        self.0.entry(size).or_insert_with(|| SizeRow {
            size,
            ..SizeRow::default()
        })
    }

    /// Counts one check, standing for `weight` spectra.
    fn count(&mut self, c: &Checked, weight: usize) {
        let row = self.row(c.expected);
        row.enumeration_spectra += weight;
        row.enumeration_molecules += weight * c.expected;
        row.mismatches += weight * usize::from(c.mismatch.is_some());
        let row = self.row(c.found);
        row.sat_spectra += weight;
        row.sat_molecules += weight * c.found;
    }

    /// Adds rows counted elsewhere.
    fn merge(&mut self, other: Rows) {
        for (size, r) in other.0 {
            let row = self.row(size);
            row.enumeration_spectra += r.enumeration_spectra;
            row.enumeration_molecules += r.enumeration_molecules;
            row.sat_spectra += r.sat_spectra;
            row.sat_molecules += r.sat_molecules;
            row.mismatches += r.mismatches;
        }
    }

    /// Spectra checked (counted by the enumeration's sizes) whose group
    /// has at least `size` molecules.
    fn checked_from(&self, size: usize) -> usize {
        self.0
            .range(size..)
            .map(|(_, r)| r.enumeration_spectra)
            .sum()
    }
}

/// A spectrum on which enumeration and SAT disagree.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, serde::Serialize, serde::Deserialize)]
pub struct Mismatch {
    /// The observation checked (`?` for hidden rays).
    pub observation: String,
    /// Molecules only the enumeration found (linear form).
    pub only_enumeration: Vec<String>,
    /// Molecules only SAT found.
    pub only_sat: Vec<String>,
}

/// The outcome of a verification.
#[derive(Debug, Clone, serde::Serialize)]
pub struct Verification {
    /// The configuration.
    pub config: String,
    /// The rules of the enumeration.
    pub rules: Rules,
    /// Distinct spectra in the configuration.
    pub spectra: usize,
    /// Spectra checked.
    pub checked: usize,
    /// Whether only the spectra shared by two molecules or more were checked.
    pub ambiguous_only: bool,
    /// The fraction of the rays of each checked spectrum that was hidden
    /// (`--partial`), if any.
    pub partial: Option<f64>,
    /// The seed of the random choices, when there were any (`sample` or
    /// `partial`).
    pub seed: Option<u64>,
    /// One row per group size.
    pub rows: Vec<SizeRow>,
    /// Every disagreement.
    pub mismatches: Vec<Mismatch>,
}

impl Verification {
    /// True when enumeration and SAT agree on every checked spectrum.
    pub fn agrees(&self) -> bool {
        self.mismatches.is_empty()
    }
}

/// Checks the spectra of `config` chosen by `options`; `progress(done, total)`
/// is called as spectra are checked. Stopped by the options' budget, it
/// answers what it checked (nothing, when the enumeration was stopped), and
/// how it ended.
pub fn verify(
    config: Config,
    options: &VerifyOptions,
    progress: impl Fn(usize, usize) + Sync,
) -> Result<Finished<Verification>, Error> {
    let groups = spectra(config, options.rules, &options.budget)?;
    // Cut, the budget stays spent: nothing more is checked.
    let checked = verify_spectra(config, groups.value, options, progress)?;
    Ok(Finished::new(
        checked.value,
        groups.ended.and(checked.ended),
    ))
}

/// Observations made and checked at a time by [`verify_spectra`].
const BATCH: usize = 1 << 16;

/// Checks the given spectra (with the numbers of the molecules that produce
/// them, as [`spectra`] returns them). Stopped by the options' budget, it
/// answers with the checks done (those in hand are finished), and how it
/// ended.
pub fn verify_spectra(
    config: Config,
    groups: SpectralGroups,
    options: &VerifyOptions,
    progress: impl Fn(usize, usize) + Sync,
) -> Result<Finished<Verification>, Error> {
    if groups.shape() != config.shape() {
        return Err(Error::invalid(format!(
            "spectra of a {} box cannot be checked against {config}",
            groups.shape()
        )));
    }
    if options.sample == Some(0) {
        return Err(Error::invalid(text![
            "a sample of 0 unique spectra: give at least 1, or check the ambiguous spectra alone with ",
            Setting::Ambiguous
        ]));
    }
    let mut chosen: Vec<usize> = (0..groups.len())
        .filter(|&i| !options.ambiguous_only || groups.molecules(i).len() > 1)
        .collect();
    let seed = options.seed.value();
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    if let Some(n) = options.sample {
        // Every ambiguous spectrum, and n of the unique ones at random.
        let (mut pick, unique): (Vec<usize>, Vec<usize>) = chosen
            .iter()
            .copied()
            .partition(|&i| groups.molecules(i).len() > 1);
        let need = n.min(unique.len());
        pick.extend(
            sample(&mut rng, unique.len(), need)
                .into_iter()
                .map(|j| unique[j]),
        );
        pick.sort_unstable();
        chosen = pick;
    }
    let p = config.shape();
    let total = chosen.len();
    let budget = &options.budget;
    let index = match options.partial {
        Some(_) => match RayIndex::new(&groups, budget)? {
            Some(index) => Some(index),
            // Stopped: nothing is checked.
            None => {
                chosen.clear();
                None
            }
        },
        None => None,
    };
    let done = std::sync::atomic::AtomicUsize::new(0);
    let mut rows = Rows::default();
    let mut mismatches = Vec::new();
    let mut checked = 0;
    // The observations are made batch after batch (the random choices in
    // order, so that a seed always gives the same ones), each batch checked
    // in parallel: the memory held is one batch's, whatever the sample.
    for batch in chosen.chunks(BATCH) {
        let mut work: Vec<(Observation, usize)> = Vec::with_capacity(batch.len());
        for &i in batch {
            let spectrum = Spectrum::from_outcomes(p, groups.outcomes(i)).ok_or_else(|| {
                Error::Internal("the enumeration produced an inconsistent spectrum".into())
            })?;
            let mut o = Observation::full(&spectrum);
            if let Some(f) = options.partial {
                hide(&mut o, f, &mut rng);
            }
            work.push((o, i));
        }
        // A check not started once the budget is spent is left out.
        let results: Vec<Option<Result<Checked, Error>>> = work
            .par_iter()
            .map_init(
                || Checker::new(config, options.sat_rules()),
                |checker, (o, i)| {
                    budget.check().ok()?;
                    // What the enumeration predicts: the spectrum's group, or
                    // with hidden rays every molecule that agrees on the rays
                    // left.
                    let want: Vec<u64> = match &index {
                        Some(index) => index.matching(&groups, o),
                        None => groups.molecules(*i).to_vec(),
                    };
                    let checked = checker.check(o, want);
                    let n = done.fetch_add(1, std::sync::atomic::Ordering::Relaxed) + 1;
                    if n.is_multiple_of(64) || n == total {
                        progress(n, total);
                    }
                    Some(checked)
                },
            )
            .collect();
        for r in results.into_iter().flatten() {
            let c = r?;
            rows.count(&c, 1);
            mismatches.extend(c.mismatch);
            checked += 1;
        }
        if budget.check().is_err() {
            break;
        }
    }
    let ended = match budget.check() {
        Err(cut) if checked < total => Ended::from(cut),
        _ => Ended::Complete,
    };
    let v = Verification {
        config: config.to_string(),
        rules: options.rules,
        spectra: groups.spectra(),
        checked,
        ambiguous_only: options.ambiguous_only,
        partial: options.partial,
        seed: (options.sample.is_some() || options.partial.is_some()).then_some(seed),
        rows: rows.0.into_values().collect(),
        mismatches,
    };
    Ok(Finished::new(v, ended))
}

/// What one observation's check found: how many molecules the enumeration
/// expects, how many SAT found, and the disagreement if any.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Checked {
    /// Molecules the enumeration predicts.
    pub expected: usize,
    /// Molecules the SAT solver found.
    pub found: usize,
    /// The difference, when the two disagree.
    pub mismatch: Option<Mismatch>,
}

/// Checks one observation: the SAT solver, given only `o` under `sat_rules`,
/// must find exactly the molecules `want` (numbers in `config`, in any
/// order). Every ray is encoded as clauses and none is checked by the ray
/// engine, so the SAT side shares nothing with the enumeration but the
/// observation. To check many observations, keep a [`Checker`]: this
/// builds one for the one observation.
pub fn check_observation(
    config: Config,
    o: &Observation,
    want: Vec<u64>,
    sat_rules: Rules,
) -> Result<Checked, Error> {
    Checker::new(config, sat_rules).check(o, want)
}

/// The check as [`check_observation`] made it before [`Checker`] kept a
/// solver: a new model of `o` alone (its cells inferred first, every ray
/// encoded with only its observed ending), whose every solution is listed
/// and blocked until none is left. Slower, and kept as the reference that
/// tests and benchmarks compare the checker with.
pub fn check_afresh(
    config: Config,
    o: &Observation,
    mut want: Vec<u64>,
    sat_rules: Rules,
) -> Result<Checked, Error> {
    want.sort_unstable();
    let mut model = RayModel::simplified(o, sat_rules, config.atoms);
    model.encode_all_rays();
    let s = model.solve(config.atoms..=config.atoms, None)?;
    let found: Vec<u64> = s.molecules.iter().map(number).collect::<Result<_, _>>()?;
    compare(config, o, want, found)
}

/// The number of a molecule SAT found.
fn number(m: &Molecule) -> Result<u64, Error> {
    rank(m).ok_or_else(|| {
        Error::Internal(format!(
            "the solver found molecule {m}, which has no number"
        ))
    })
}

/// What the check of `o` found: `want` (sorted) from the enumeration
/// against `found` from SAT.
fn compare(
    config: Config,
    o: &Observation,
    want: Vec<u64>,
    mut found: Vec<u64>,
) -> Result<Checked, Error> {
    found.sort_unstable();
    let mismatch = if found == want {
        None
    } else {
        let name = |n: u64| unrank(config, n).map(|m: Molecule| m.to_string());
        let only = |a: &[u64], b: &[u64]| -> Result<Vec<String>, Error> {
            a.iter()
                .filter(|m| b.binary_search(m).is_err())
                .map(|&m| name(m))
                .collect()
        };
        Some(Mismatch {
            observation: o.to_string(),
            only_enumeration: only(&want, &found)?,
            only_sat: only(&found, &want)?,
        })
    };
    Ok(Checked {
        expected: want.len(),
        found: found.len(),
        mismatch,
    })
}

/// The SAT side of the check, one per thread: checks observation after
/// observation of one configuration under the same rules.
///
/// A check builds the clauses of the observation ([`ObservationClauses`])
/// and asks two things of them, both answered by the clauses alone: whether
/// each molecule the enumeration expects satisfies them (the clauses
/// evaluated at it), and, with all those molecules blocked at once, every
/// other molecule that does, until the solver proves there is none. A
/// molecule the enumeration missed and an expected one the clauses reject
/// both show as a mismatch.
#[derive(Debug, Clone)]
pub struct Checker {
    config: Config,
    sat_rules: Rules,
}

impl Checker {
    /// A checker of `config`'s observations, solving under `sat_rules`.
    pub fn new(config: Config, sat_rules: Rules) -> Checker {
        Checker { config, sat_rules }
    }

    /// Checks one observation: see [`check_observation`].
    pub fn check(&mut self, o: &Observation, mut want: Vec<u64>) -> Result<Checked, Error> {
        want.sort_unstable();
        let expected: Vec<Molecule> = want
            .iter()
            .map(|&n| unrank(self.config, n))
            .collect::<Result<_, _>>()?;
        let mut clauses = ObservationClauses::new(o, self.sat_rules, self.config.atoms);
        let mut found = Vec::with_capacity(want.len());
        for (&n, m) in want.iter().zip(&expected) {
            if clauses.fits(m)? {
                found.push(n);
            }
        }
        for m in clauses.others(&expected)? {
            found.push(number(&m)?);
        }
        found.sort_unstable();
        // A number the enumeration gave twice is still one molecule.
        found.dedup();
        compare(self.config, o, want, found)
    }
}

/// Hides `fraction` of the rays of `o` (rounded to the nearest whole ray),
/// chosen at random. An exit pair is one ray: shooting either end shows both,
/// so its two positions are hidden together, and the positions hidden are on
/// average the same fraction of the border.
pub fn hide(o: &mut Observation, fraction: f64, rng: &mut (impl Rng + ?Sized)) {
    let rays = o.rays();
    let n = ((fraction.clamp(0.0, 1.0) * rays.len() as f64).round() as usize).min(rays.len());
    for i in sample(rng, rays.len(), n) {
        o.forget(rays[i].0);
    }
}

/// A verification as its JSON shows it: its fields, where the spectra came
/// from (`{"kind", "db"}`: `catalogue`, `census` or `enumeration` read
/// whole, `stream` handed over by a census) and the seconds taken.
#[derive(Debug, serde::Serialize)]
pub struct Verified<'a, T> {
    /// The verification (a [`Verification`] or a [`Streamed`]).
    #[serde(flatten)]
    pub verification: &'a T,
    /// Where the spectra came from.
    pub source: VerifiedSource<'a>,
    /// Seconds taken, to the millisecond.
    pub seconds: f64,
}

/// Where a verification's spectra came from, as its JSON says.
#[derive(Debug, serde::Serialize)]
pub struct VerifiedSource<'a> {
    /// `catalogue`, `census`, `enumeration` or `stream`.
    pub kind: &'a str,
    /// The file read, if one was.
    pub db: Option<&'a str>,
}

impl<'a, T> Verified<'a, T> {
    /// `verification`, of spectra from `source` (`None`: streamed by a
    /// census), done in `seconds`.
    pub fn new(verification: &'a T, source: Option<&'a SpectraSource>, seconds: f64) -> Self {
        let (kind, db) = match source {
            Some(SpectraSource::Catalogue(db)) => ("catalogue", Some(db.as_str())),
            Some(SpectraSource::Census(db)) => ("census", Some(db.as_str())),
            Some(SpectraSource::Enumeration) => ("enumeration", None),
            None => ("stream", None),
        };
        let seconds = (seconds * 1000.0).round() / 1000.0;
        let source = VerifiedSource { kind, db };
        Verified {
            verification,
            source,
            seconds,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::catalogue::Catalogue;
    use crate::rules::ray::Outcome;

    #[test]
    fn a3_b4_agrees_fully_and_partially() {
        let config: Config = "A3_B4".parse().unwrap();
        let v = verify(config, &VerifyOptions::default(), |_, _| {})
            .unwrap()
            .value;
        assert!(v.agrees(), "{:?}", v.mismatches);
        assert_eq!(v.checked, v.spectra);
        let molecules: usize = v.rows.iter().map(|r| r.enumeration_molecules).sum();
        assert_eq!(molecules, 560);
        let v = verify(
            config,
            &VerifyOptions {
                partial: Some(0.5),
                ..Default::default()
            },
            |_, _| {},
        )
        .unwrap()
        .value;
        assert!(v.agrees(), "{:?}", v.mismatches);
    }

    #[test]
    fn the_catalogue_gives_the_groups_enumeration_gives() {
        let config: Config = "A4_B5".parse().unwrap();
        let dir = tempfile::tempdir().unwrap();
        let db = dir.path().join("bbx.sqlite");
        let mut cat = Catalogue::open(&db).unwrap();
        cat.explore(config, &crate::catalogue::ExploreOptions::default(), |_| {})
            .unwrap();
        drop(cat);
        let store = crate::catalogue::Store::open(&db, config, 1000).unwrap();
        let enumerated = spectra(config, Rules::Standard, &Budget::default())
            .unwrap()
            .value;
        let read = spectra_from_store(&store).unwrap().unwrap();
        assert_eq!(read, enumerated);
        assert_eq!(read.spectra(), read.len());
        // Counted here molecule by molecule, apart from the enumeration and
        // the catalogue: how many molecules give each spectrum.
        let mut counted: std::collections::HashMap<Spectrum, usize> = Default::default();
        for m in crate::rules::enumeration::Molecules::new(config) {
            *counted
                .entry(Spectrum::of(&m, Rules::Standard))
                .or_default() += 1;
        }
        let mut counted_sizes = BTreeMap::new();
        for &k in counted.values() {
            *counted_sizes.entry(k).or_insert(0) += 1;
        }
        assert_eq!(enumerated.len(), counted.len());
        // 12650 molecules; 665 of them share 279 spectra. These values were
        // computed by bbx (docs/findings.md), not taken from elsewhere: they
        // pin today's answer, and the count above checks it.
        assert_eq!(enumerated.len(), 12650 - 665 + 279);
        let mut sizes = BTreeMap::new();
        let mut all = Vec::new();
        for i in 0..enumerated.len() {
            let group = enumerated.molecules(i);
            *sizes.entry(group.len()).or_insert(0) += 1;
            assert!(group.windows(2).all(|w| w[0] < w[1]));
            for &n in group {
                let m = unrank(config, n).unwrap();
                assert_eq!(Spectrum::of(&m, Rules::Standard), enumerated.spectrum(i));
            }
            all.extend_from_slice(group);
        }
        assert_eq!(sizes, counted_sizes);
        sizes.remove(&1);
        // Computed by bbx, as above.
        assert_eq!(sizes, BTreeMap::from([(2, 216), (3, 60), (12, 2), (29, 1)]));
        all.sort_unstable();
        assert_eq!(all, (1..=12650).collect::<Vec<u64>>());
    }

    #[test]
    fn hiding_takes_the_fraction_of_the_rays_and_exit_pairs_whole() {
        // A4_B6 molecule 868: 20 rays, 4 of them exit pairs.
        let m: Molecule = "O-O-----------O---------O-----------".parse().unwrap();
        let full = Observation::full(&Spectrum::of(&m, Rules::Standard));
        let rays = full.rays().len();
        assert_eq!(rays, 20);
        let mut rng = ChaCha8Rng::seed_from_u64(3);
        for (f, left) in [(0.0, 20), (0.5, 10), (0.25, 15), (0.9, 2), (1.0, 0)] {
            for _ in 0..20 {
                let mut o = full.clone();
                hide(&mut o, f, &mut rng);
                assert_eq!(o.rays().len(), left, "fraction {f}");
                // What is left is the full spectrum's, exit pairs with both ends.
                for (pos, r) in o.rays() {
                    assert_eq!(full.get(pos), Some(r));
                    if let Outcome::Exit(k) = r {
                        assert_eq!(o.get(k), Some(Outcome::Exit(pos)));
                    }
                }
            }
        }
        // Every ray gets hidden sometimes: the choice is random.
        let mut hidden = std::collections::BTreeSet::new();
        for _ in 0..200 {
            let mut o = full.clone();
            hide(&mut o, 0.5, &mut rng);
            hidden.extend((1..=24).filter(|&p| o.get(p).is_none()));
        }
        assert_eq!(hidden.len(), 24);
    }

    #[test]
    fn a_spent_budget_stops_the_enumeration_and_the_checks() {
        let config: Config = "A3_B5".parse().unwrap();
        let cancel = crate::control::Cancel::new();
        cancel.cancel();
        let options = VerifyOptions {
            budget: Budget::default().with_cancel(cancel),
            ..VerifyOptions::default()
        };
        let stopped = verify(config, &options, |_, _| {}).unwrap();
        assert_eq!(stopped.ended, Ended::Cancelled);
        assert_eq!(stopped.value.checked, 0);
        let groups = spectra(config, Rules::Standard, &Budget::default()).unwrap();
        assert!(groups.is_complete());
        let stopped = verify_spectra(config, groups.value, &options, |_, _| {}).unwrap();
        assert_eq!(
            (stopped.ended, stopped.value.checked),
            (Ended::Cancelled, 0)
        );
    }

    #[test]
    fn spectra_of_another_box_are_refused() {
        let groups = spectra(
            "A2_B4".parse().unwrap(),
            Rules::Standard,
            &Budget::default(),
        )
        .unwrap()
        .value;
        let err = verify_spectra(
            "A2_B5".parse().unwrap(),
            groups,
            &VerifyOptions::default(),
            |_, _| {},
        )
        .unwrap_err();
        assert!(err.to_string().contains("4×4"), "{err}");
    }

    #[test]
    fn the_check_can_fail() {
        // Enumerate under the standard rules, solve under edge-miss: the two
        // must disagree, and the report must name the spectra.
        let config: Config = "A2_B4".parse().unwrap();
        let options = VerifyOptions {
            budget: Budget::default().with_faults(crate::control::Faults {
                crossed_rules: true,
                ..crate::control::Faults::default()
            }),
            ..Default::default()
        };
        let v = verify(config, &options, |_, _| {}).unwrap().value;
        assert!(!v.agrees());
        let m = &v.mismatches[0];
        assert_eq!(m.observation.len(), 16);
        assert!(!m.only_enumeration.is_empty() || !m.only_sat.is_empty());
        assert!(v.rows.iter().any(|r| r.mismatches > 0));
    }

    /// Checks every spectrum of `config` (enumerated under `rules`, with
    /// `partial` of the rays hidden) with a checker and with the reference
    /// check: both must say the same. Returns how many mismatches there were.
    fn same_as_afresh(config: &str, rules: Rules, sat_rules: Rules, partial: Option<f64>) -> usize {
        let config: Config = config.parse().unwrap();
        let groups = spectra(config, rules, &Budget::default()).unwrap().value;
        let index = RayIndex::new(&groups, &Budget::default()).unwrap().unwrap();
        let mut rng = ChaCha8Rng::seed_from_u64(7);
        let mut checker = Checker::new(config, sat_rules);
        let mut mismatches = 0;
        for i in 0..groups.len() {
            let spectrum = Spectrum::from_outcomes(config.shape(), groups.outcomes(i)).unwrap();
            let mut o = Observation::full(&spectrum);
            let want = match partial {
                Some(f) => {
                    hide(&mut o, f, &mut rng);
                    index.matching(&groups, &o)
                }
                None => groups.molecules(i).to_vec(),
            };
            let new = checker.check(&o, want.clone()).unwrap();
            let old = check_afresh(config, &o, want, sat_rules).unwrap();
            assert_eq!(new, old, "{config} {o}");
            mismatches += usize::from(new.mismatch.is_some());
        }
        mismatches
    }

    #[test]
    fn the_checker_says_what_the_check_afresh_says() {
        for (config, rules) in [
            ("A3_B4", Rules::Standard),
            ("A2_B5", Rules::Standard),
            ("A3_B4", Rules::EdgeMiss),
        ] {
            for partial in [None, Some(0.3), Some(0.7)] {
                assert_eq!(same_as_afresh(config, rules, rules, partial), 0);
            }
        }
        // Under other rules the two fail alike, spectrum by spectrum.
        for (rules, sat_rules) in [
            (Rules::Standard, Rules::EdgeMiss),
            (Rules::EdgeMiss, Rules::Standard),
        ] {
            for partial in [None, Some(0.5)] {
                assert!(same_as_afresh("A3_B4", rules, sat_rules, partial) > 0);
            }
        }
    }

    #[test]
    fn the_checker_finds_a_missed_molecule_and_a_wrong_one() {
        // A4_B6 molecules 868 and 15993 share a spectrum.
        let config: Config = "A4_B6".parse().unwrap();
        let m: Molecule = "O-O-----------O---------O-----------".parse().unwrap();
        let o = Observation::full(&Spectrum::of(&m, Rules::Standard));
        let mut checker = Checker::new(config, Rules::Standard);
        let right = checker.check(&o, vec![15993, 868]).unwrap();
        assert_eq!((right.expected, right.found, right.mismatch), (2, 2, None));
        // The enumeration missed one: SAT finds it.
        let missed = checker.check(&o, vec![868]).unwrap();
        let mismatch = missed.mismatch.unwrap();
        assert_eq!(mismatch.only_sat, ["--O---------O-O---------O-----------"]);
        assert!(mismatch.only_enumeration.is_empty());
        // The enumeration gave one too many: the clauses reject it.
        let extra = checker.check(&o, vec![868, 15993, 1]).unwrap();
        let mismatch = extra.mismatch.unwrap();
        assert_eq!(
            mismatch.only_enumeration,
            [unrank(config, 1).unwrap().to_string()]
        );
        assert!(mismatch.only_sat.is_empty());
        assert_eq!((extra.expected, extra.found), (3, 2));
        // Nothing expected: SAT finds both.
        let none = checker.check(&o, vec![]).unwrap();
        assert_eq!((none.expected, none.found), (0, 2));
        // The same as the check afresh, each time.
        for want in [vec![868], vec![868, 15993, 1], vec![], vec![1, 2]] {
            assert_eq!(
                checker.check(&o, want.clone()).unwrap(),
                check_afresh(config, &o, want, Rules::Standard).unwrap()
            );
        }
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(48))]
        /// A random molecule's spectrum, some of it hidden, and the
        /// enumeration's answer with a molecule dropped or added: the
        /// checker and the check afresh agree.
        #[test]
        fn checker_and_check_afresh_agree(
            config in proptest::sample::select(vec!["A3_B5", "A4_B5", "A2_B6"]),
            edge_miss in proptest::bool::ANY,
            pick in 0.0f64..1.0,
            hidden in 0.0f64..1.0,
            seed in proptest::num::u64::ANY,
            change in 0usize..3,
        ) {
            let config: Config = config.parse().unwrap();
            let rules = if edge_miss { Rules::EdgeMiss } else { Rules::Standard };
            let total = config.molecule_count().unwrap();
            let n = 1 + ((pick * total as f64) as u64).min(total - 1);
            let m = unrank(config, n).unwrap();
            let mut o = Observation::full(&Spectrum::of(&m, rules));
            let mut rng = ChaCha8Rng::seed_from_u64(seed);
            hide(&mut o, hidden, &mut rng);
            let mut want: Vec<u64> = crate::rules::enumeration::Molecules::new(config)
                .filter(|x| o.matches(&Spectrum::of(x, rules)))
                .map(|x| rank(&x).unwrap())
                .collect();
            match change {
                0 => {}
                1 => { want.retain(|&x| x != n); }
                _ => want.push(1 + seed % total),
            }
            let new = Checker::new(config, rules).check(&o, want.clone()).unwrap();
            let old = check_afresh(config, &o, want, rules).unwrap();
            proptest::prop_assert_eq!(new, old);
        }
    }
}
