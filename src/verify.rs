//! Enumeration and SAT check each other, spectrum by spectrum.
//!
//! The forward enumeration says, for every spectrum, which molecules produce
//! it; the SAT solver, given only that spectrum (or the rays of it that remain
//! when some are hidden), must find exactly the molecules the enumeration
//! predicts. Any difference is a bug in one of the two, reported with the
//! spectrum and the molecules only one side found.
//!
//! ```
//! use bbx::verify::{verify, VerifyOptions};
//! let v = verify("A2_B4".parse().unwrap(), &VerifyOptions::default(), |_, _| {}).unwrap();
//! assert!(v.agrees());
//! assert_eq!(v.checked, 120); // every A2_B4 spectrum is unique
//! ```

use std::collections::{BTreeMap, HashMap};

use rayon::prelude::*;

use crate::board::Molecule;
use crate::catalogue::Catalogue;
use crate::config::Config;
use crate::enumeration::{Molecules, unrank};
use crate::error::Error;
use crate::generate::Rng;
use crate::ray::{Outcome, Rules, Tracer};
use crate::sat::{self, Limits};
use crate::spectrum::{Observation, Spectrum};

/// What to check.
#[derive(Debug, Clone)]
pub struct VerifyOptions {
    /// Rules of the enumeration.
    pub rules: Rules,
    /// Rules of the SAT side (the same, except to prove the check can fail).
    pub sat_rules: Rules,
    /// Check this many random spectra (every ambiguous one included when there
    /// are fewer ambiguous spectra than that).
    pub sample: Option<usize>,
    /// Seed of the random choices.
    pub seed: u64,
    /// Check only the spectra shared by two molecules or more.
    pub ambiguous_only: bool,
    /// Hide this fraction of the rays of each checked spectrum.
    pub partial: Option<f64>,
}

impl Default for VerifyOptions {
    fn default() -> VerifyOptions {
        VerifyOptions {
            rules: Rules::Standard,
            sat_rules: Rules::Standard,
            sample: None,
            seed: 1,
            ambiguous_only: false,
            partial: None,
        }
    }
}

/// One row of the verification table: spectra whose group has `size` molecules.
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize)]
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

/// A spectrum on which enumeration and SAT disagree.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
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
    /// Distinct spectra in the configuration.
    pub spectra: usize,
    /// Spectra checked.
    pub checked: usize,
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

/// A spectrum (its outcomes by position) and the numbers of the molecules that
/// produce it.
pub type SpectralGroup = (Vec<Outcome>, Vec<u64>);

/// Every distinct spectrum of a configuration with the numbers of the molecules
/// that produce it, by forward enumeration (in parallel).
pub fn spectra(config: Config, rules: Rules) -> Result<Vec<SpectralGroup>, Error> {
    let total = config.molecule_count().ok_or_else(|| {
        Error::Invalid(format!(
            "configuration {config} has too many molecules to enumerate"
        ))
    })?;
    let per_task = 8192u64;
    let starts: Vec<u64> = (1..=total).step_by(per_task as usize).collect();
    let mut all: Vec<(Vec<Outcome>, u64)> = starts
        .par_iter()
        .flat_map_iter(|&start| {
            let end = (start + per_task - 1).min(total);
            let mut tracer = Tracer::new(config.width, rules);
            let mut rays = Vec::new();
            let first = unrank(config, start).expect("in range");
            Molecules::from(&first)
                .take((end - start + 1) as usize)
                .enumerate()
                .map(|(i, m)| {
                    tracer.load(&m);
                    tracer.trace_all(&mut rays);
                    (
                        rays.iter().map(|r| r.outcome).collect::<Vec<_>>(),
                        start + i as u64,
                    )
                })
                .collect::<Vec<_>>()
        })
        .collect();
    all.par_sort_unstable();
    let mut out: Vec<(Vec<Outcome>, Vec<u64>)> = Vec::new();
    for (s, n) in all {
        match out.last_mut() {
            Some((last, v)) if *last == s => v.push(n),
            _ => out.push((s, vec![n])),
        }
    }
    Ok(out)
}

/// Checks the spectra of `config` chosen by `options`; `progress(done, total)`
/// is called as spectra are checked.
pub fn verify(
    config: Config,
    options: &VerifyOptions,
    progress: impl Fn(usize, usize) + Sync,
) -> Result<Verification, Error> {
    let groups = spectra(config, options.rules)?;
    verify_spectra(config, groups, options, progress)
}

/// The distinct spectra of a complete catalogue (standard rules) with their
/// molecules' numbers, as [`spectra`] computes them.
pub fn spectra_from_catalogue(
    cat: &Catalogue,
    config: Config,
) -> Result<Vec<SpectralGroup>, Error> {
    cat.spectral_groups(config)?
        .into_iter()
        .map(|(s, v)| Ok((Spectrum::parse(&s, cat.path())?.outcomes().to_vec(), v)))
        .collect()
}

/// Checks the given spectra (with the numbers of the molecules that produce
/// them, as [`spectra`] returns them).
pub fn verify_spectra(
    config: Config,
    groups: Vec<SpectralGroup>,
    options: &VerifyOptions,
    progress: impl Fn(usize, usize) + Sync,
) -> Result<Verification, Error> {
    let mut chosen: Vec<usize> = (0..groups.len())
        .filter(|&i| !options.ambiguous_only || groups[i].1.len() > 1)
        .collect();
    let mut rng = Rng::new(options.seed);
    if let Some(n) = options.sample
        && n < chosen.len()
    {
        let ambiguous: Vec<usize> = chosen
            .iter()
            .copied()
            .filter(|&i| groups[i].1.len() > 1)
            .collect();
        let mut pick: Vec<usize> = if ambiguous.len() < n {
            ambiguous
        } else {
            Vec::new()
        };
        let mut rest: Vec<usize> = chosen
            .iter()
            .copied()
            .filter(|i| !pick.contains(i))
            .collect();
        // Partial Fisher–Yates shuffle for the remaining picks.
        let need = n - pick.len();
        for k in 0..need.min(rest.len()) {
            let j = k + rng.below(rest.len() - k);
            rest.swap(k, j);
        }
        pick.extend(rest.into_iter().take(need));
        pick.sort_unstable();
        chosen = pick;
    }
    let p = config.width;
    // Observations to check, with the molecules the enumeration predicts.
    let index = options.partial.map(|_| RayIndex::new(&groups, 4 * p));
    let mut work: Vec<(Observation, Vec<u64>)> = Vec::with_capacity(chosen.len());
    for &i in &chosen {
        let (s, numbers) = &groups[i];
        let spectrum = Spectrum::from_outcomes(p, s.clone()).ok_or_else(|| {
            Error::Invalid("enumeration produced an inconsistent spectrum".into())
        })?;
        let mut o = Observation::full(&spectrum);
        match (options.partial, &index) {
            (Some(f), Some(index)) => {
                for pos in 1..=4 * p {
                    if o.get(pos).is_some() && (rng.next_u64() as f64 / u64::MAX as f64) < f {
                        o.forget(pos);
                    }
                }
                work.push((o.clone(), index.matching(&groups, &o)));
            }
            _ => work.push((o, numbers.clone())),
        }
    }
    let done = std::sync::atomic::AtomicUsize::new(0);
    let total = work.len();
    // Per spectrum: molecules expected, molecules found, the disagreement if any.
    type Checked = Result<(usize, usize, Option<Mismatch>), Error>;
    let results: Vec<Checked> = work
        .par_iter()
        .map(|(o, expected)| {
            let s = sat::solve(
                o,
                options.sat_rules,
                config.atoms..=config.atoms,
                &Limits::default(),
                |_| {},
            )?;
            let mut found: Vec<String> = s.molecules.iter().map(|m| m.to_string()).collect();
            found.sort();
            let mut want: Vec<String> = expected
                .iter()
                .map(|&n| unrank(config, n).map(|m: Molecule| m.to_string()))
                .collect::<Result<_, _>>()?;
            want.sort();
            let n = done.fetch_add(1, std::sync::atomic::Ordering::Relaxed) + 1;
            if n.is_multiple_of(64) || n == total {
                progress(n, total);
            }
            let mismatch = (found != want).then(|| Mismatch {
                observation: o.to_string(),
                only_enumeration: want
                    .iter()
                    .filter(|m| found.binary_search(m).is_err())
                    .cloned()
                    .collect(),
                only_sat: found
                    .iter()
                    .filter(|m| want.binary_search(m).is_err())
                    .cloned()
                    .collect(),
            });
            Ok((want.len(), found.len(), mismatch))
        })
        .collect();
    let mut rows: BTreeMap<usize, SizeRow> = BTreeMap::new();
    let mut mismatches = Vec::new();
    for r in results {
        let (want, found, mismatch) = r?;
        let row = rows.entry(want).or_insert_with(|| SizeRow {
            size: want,
            ..SizeRow::default()
        });
        row.enumeration_spectra += 1;
        row.enumeration_molecules += want;
        if mismatch.is_some() {
            row.mismatches += 1;
        }
        let row = rows.entry(found).or_insert_with(|| SizeRow {
            size: found,
            ..SizeRow::default()
        });
        row.sat_spectra += 1;
        row.sat_molecules += found;
        mismatches.extend(mismatch);
    }
    Ok(Verification {
        config: config.to_string(),
        spectra: groups.len(),
        checked: total,
        rows: rows.into_values().collect(),
        mismatches,
    })
}

/// For partial observations: which spectra have a given outcome at a given
/// position, so that the molecules matching the rays that remain are found
/// without scanning every spectrum.
struct RayIndex {
    by_ray: HashMap<(usize, Outcome), Vec<usize>>,
}

impl RayIndex {
    fn new(groups: &[SpectralGroup], positions: usize) -> RayIndex {
        let mut by_ray: HashMap<(usize, Outcome), Vec<usize>> = HashMap::new();
        for (i, (s, _)) in groups.iter().enumerate() {
            for (pos, &r) in s.iter().enumerate().take(positions) {
                by_ray.entry((pos, r)).or_default().push(i);
            }
        }
        RayIndex { by_ray }
    }

    /// The molecules whose full spectrum agrees with every ray of `o`.
    fn matching(&self, groups: &[SpectralGroup], o: &Observation) -> Vec<u64> {
        let known: Vec<(usize, Outcome)> = o
            .results()
            .iter()
            .enumerate()
            .filter_map(|(i, r)| r.map(|r| (i, r)))
            .collect();
        let Some(smallest) = known
            .iter()
            .filter_map(|k| self.by_ray.get(k))
            .min_by_key(|v| v.len())
            .or(if known.is_empty() { None } else { Some(&EMPTY) })
        else {
            return groups.iter().flat_map(|(_, n)| n.iter().copied()).collect();
        };
        smallest
            .iter()
            .filter(|&&g| known.iter().all(|&(i, r)| groups[g].0[i] == r))
            .flat_map(|&g| groups[g].1.iter().copied())
            .collect()
    }
}

static EMPTY: Vec<usize> = Vec::new();

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a3_b4_agrees_fully_and_partially() {
        let config: Config = "A3_B4".parse().unwrap();
        let v = verify(config, &VerifyOptions::default(), |_, _| {}).unwrap();
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
        .unwrap();
        assert!(v.agrees(), "{:?}", v.mismatches);
    }

    #[test]
    fn the_check_can_fail() {
        // Enumerate under the standard rules, solve under edge-miss: the two
        // must disagree, and the report must name the spectra.
        let config: Config = "A2_B4".parse().unwrap();
        let options = VerifyOptions {
            sat_rules: Rules::EdgeMiss,
            ..Default::default()
        };
        let v = verify(config, &options, |_, _| {}).unwrap();
        assert!(!v.agrees());
        let m = &v.mismatches[0];
        assert_eq!(m.observation.len(), 16);
        assert!(!m.only_enumeration.is_empty() || !m.only_sat.is_empty());
        assert!(v.rows.iter().any(|r| r.mismatches > 0));
    }
}
