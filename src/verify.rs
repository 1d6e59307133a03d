//! Enumeration and SAT check each other, spectrum by spectrum.
//!
//! The forward enumeration says, for every spectrum, which molecules produce
//! it; the SAT solver, given only that spectrum (or the rays of it that remain
//! when some are hidden), must find exactly the molecules the enumeration
//! predicts. Any difference is a bug in one of the two, reported with the
//! spectrum and the molecules only one side found.
//!
//! The two sides share nothing but the board's numbering: the SAT side
//! encodes every observed ray as clauses ([`RayModel::encode_all_rays`]) and
//! never asks the ray engine whether a candidate fits, so a wrong rule in
//! either shows up as a mismatch.
//!
//! ```
//! use bbx::verify::{verify, VerifyOptions};
//! let v = verify("A2_B4".parse().unwrap(), &VerifyOptions::default(), |_, _| {}).unwrap();
//! assert!(v.agrees());
//! assert_eq!(v.checked, 120); // every A2_B4 spectrum is unique
//! ```

use std::collections::BTreeMap;

use rayon::prelude::*;

use crate::board::Molecule;
use crate::catalogue::Catalogue;
use crate::config::Config;
use crate::enumeration::{Molecules, rank, unrank};
use crate::error::Error;
use crate::generate::Rng;
use crate::ray::{Outcome, Rules, Tracer};
use crate::sat::RayModel;
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
    /// Hide this fraction of the rays of each checked spectrum (see [`hide`]).
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
    // Observations to check (the random choices made in order, so that a seed
    // always gives the same ones), with the spectral group they come from.
    let mut work: Vec<(Observation, usize)> = Vec::with_capacity(chosen.len());
    for &i in &chosen {
        let spectrum = Spectrum::from_outcomes(p, groups[i].0.clone()).ok_or_else(|| {
            Error::Invalid("enumeration produced an inconsistent spectrum".into())
        })?;
        let mut o = Observation::full(&spectrum);
        if let Some(f) = options.partial {
            hide(&mut o, f, &mut rng);
        }
        work.push((o, i));
    }
    let index = options.partial.map(|_| RayIndex::new(&groups, 4 * p));
    let done = std::sync::atomic::AtomicUsize::new(0);
    let total = work.len();
    let name = |n: u64| unrank(config, n).map(|m: Molecule| m.to_string());
    // Per spectrum: molecules expected, molecules found, the disagreement if any.
    type Checked = Result<(usize, usize, Option<Mismatch>), Error>;
    let results: Vec<Checked> = work
        .par_iter()
        .map(|(o, i)| {
            // What the enumeration predicts: the spectrum's group, or with
            // hidden rays every molecule that agrees on the rays left.
            let mut want: Vec<u64> = match &index {
                Some(index) => index.matching(&groups, o),
                None => groups[*i].1.clone(),
            };
            want.sort_unstable();
            // Every ray as clauses, none checked by the ray engine: the SAT
            // side shares nothing with the enumeration but the observation.
            let mut model = RayModel::simplified(o, options.sat_rules, config.atoms);
            model.encode_all_rays();
            let s = model.solve(config.atoms..=config.atoms, None, None)?;
            let mut found: Vec<u64> = s
                .molecules
                .iter()
                .map(|m| {
                    rank(m).ok_or_else(|| Error::Invalid(format!("molecule {m} has no number")))
                })
                .collect::<Result<_, _>>()?;
            found.sort_unstable();
            let n = done.fetch_add(1, std::sync::atomic::Ordering::Relaxed) + 1;
            if n.is_multiple_of(64) || n == total {
                progress(n, total);
            }
            let mismatch = if found == want {
                None
            } else {
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

/// Hides `fraction` of the rays of `o` (rounded to the nearest whole ray),
/// chosen at random. An exit pair is one ray: shooting either end shows both,
/// so its two positions are hidden together, and the positions hidden are on
/// average the same fraction of the border.
pub fn hide(o: &mut Observation, fraction: f64, rng: &mut Rng) {
    let rays = o.rays();
    let n = ((fraction.clamp(0.0, 1.0) * rays.len() as f64).round() as usize).min(rays.len());
    let mut order: Vec<usize> = (0..rays.len()).collect();
    for k in 0..n {
        let j = k + rng.below(order.len() - k);
        order.swap(k, j);
    }
    for &i in &order[..n] {
        o.forget(rays[i].0);
    }
}

/// For partial observations: which spectra have a given outcome at a given
/// position, so that the molecules matching the rays that remain are found
/// without scanning every spectrum. Rare outcomes (exits) keep a list of
/// spectra; common ones (hits, reflections) a bit set, so that an observation
/// with no exit left is matched by intersecting a few bit sets.
struct RayIndex {
    /// Outcome codes per position (see [`RayIndex::key`]).
    codes: usize,
    /// Position × outcome code → the spectra with that outcome there.
    keys: Vec<Option<Posting>>,
}

/// The spectra with one outcome at one position.
enum Posting {
    /// Their indices, in order.
    List(Vec<u32>),
    /// One bit per spectrum.
    Bits(Vec<u64>),
}

impl RayIndex {
    fn new(groups: &[SpectralGroup], positions: usize) -> RayIndex {
        let codes = positions + 3;
        let mut lists: Vec<Vec<u32>> = vec![Vec::new(); positions * codes];
        for (i, (s, _)) in groups.iter().enumerate() {
            for (pos, &r) in s.iter().enumerate().take(positions) {
                lists[pos * codes + Self::code(r)].push(i as u32);
            }
        }
        let words = groups.len().div_ceil(64);
        let keys = lists
            .into_iter()
            .map(|v| {
                if v.is_empty() {
                    None
                } else if v.len() * 32 < groups.len() {
                    // A list costs 32 bits a spectrum, a bit set 1 bit for every one.
                    Some(Posting::List(v))
                } else {
                    let mut bits = vec![0u64; words];
                    for i in v {
                        bits[i as usize / 64] |= 1 << (i % 64);
                    }
                    Some(Posting::Bits(bits))
                }
            })
            .collect();
        RayIndex { codes, keys }
    }

    fn code(r: Outcome) -> usize {
        match r {
            Outcome::Absorbed => 0,
            Outcome::Reflected => 1,
            Outcome::Miss => 2,
            Outcome::Exit(k) => 2 + k,
        }
    }

    /// The molecules whose full spectrum agrees with every ray of `o`.
    fn matching(&self, groups: &[SpectralGroup], o: &Observation) -> Vec<u64> {
        let known: Vec<(usize, Outcome)> = o
            .results()
            .iter()
            .enumerate()
            .filter_map(|(i, r)| r.map(|r| (i, r)))
            .collect();
        let mut postings = Vec::with_capacity(known.len());
        for &(i, r) in &known {
            match self.keys.get(i * self.codes + Self::code(r)) {
                Some(Some(p)) => postings.push(p),
                _ => return Vec::new(), // no spectrum has this outcome there
            }
        }
        let rarest = postings
            .iter()
            .filter_map(|p| match p {
                Posting::List(v) => Some(v),
                Posting::Bits(_) => None,
            })
            .min_by_key(|v| v.len());
        let spectra: Vec<usize> = if let Some(list) = rarest {
            list.iter()
                .map(|&g| g as usize)
                .filter(|&g| known.iter().all(|&(i, r)| groups[g].0[i] == r))
                .collect()
        } else if postings.is_empty() {
            (0..groups.len()).collect()
        } else {
            let mut acc: Vec<u64> = vec![u64::MAX; groups.len().div_ceil(64)];
            for p in &postings {
                if let Posting::Bits(bits) = p {
                    acc.iter_mut().zip(bits).for_each(|(a, b)| *a &= b);
                }
            }
            let mut out = Vec::new();
            for (w, &word) in acc.iter().enumerate() {
                let mut word = word;
                while word != 0 {
                    out.push(w * 64 + word.trailing_zeros() as usize);
                    word &= word - 1;
                }
            }
            out
        };
        spectra
            .into_iter()
            .flat_map(|g| groups[g].1.iter().copied())
            .collect()
    }
}

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
    fn hiding_takes_the_fraction_of_the_rays_and_exit_pairs_whole() {
        // A4_B6 molecule 868: 20 rays, 4 of them exit pairs.
        let m: Molecule = "O-O-----------O---------O-----------".parse().unwrap();
        let full = Observation::full(&Spectrum::of(&m, Rules::Standard));
        let rays = full.rays().len();
        assert_eq!(rays, 20);
        let mut rng = Rng::new(3);
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
