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

use rand::rngs::ChaCha8Rng;
use rand::seq::index;
use rand::{Rng, SeedableRng};
use rayon::prelude::*;

use crate::catalogue::Catalogue;
use crate::error::Error;
use crate::rules::board::Molecule;
use crate::rules::config::Config;
use crate::rules::enumeration::{Molecules, rank, unrank};
use crate::rules::ray::{Outcome, Rules, Tracer};
use crate::rules::spectrum::{Observation, Spectrum};
use crate::solver::RayModel;

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
    /// Seed of the random choices (a ChaCha8 generator seeded with
    /// [`SeedableRng::seed_from_u64`], reproducible on every platform).
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

/// Every distinct spectrum of a configuration with the numbers of the
/// molecules that produce it, in spectrum order.
///
/// Stored compactly (two bytes an outcome, all spectra in one array), so that
/// A5_B8's 7.6 million molecules fit in well under a gigabyte.
///
/// ```
/// use bbx::verify::spectra;
/// use bbx::Rules;
/// let groups = spectra("A4_B6".parse().unwrap(), Rules::Standard).unwrap();
/// assert_eq!(groups.len(), 58033);
/// let shared = (0..groups.len()).filter(|&i| groups.molecules(i).len() > 1).count();
/// assert_eq!(shared, 764);
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SpectralGroups {
    width: usize,
    /// 4p outcome codes per spectrum (see [`code`]).
    codes: Vec<u16>,
    /// The molecules' numbers, spectrum after spectrum, each group in order.
    numbers: Vec<u64>,
    /// Spectrum i's molecules are `numbers[starts[i]..starts[i + 1]]`.
    starts: Vec<usize>,
}

/// The two-byte code of an outcome: `@` 0, `&` 1, `~` 2, exit at k 2 + k.
fn code(r: Outcome) -> u16 {
    match r {
        Outcome::Absorbed => 0,
        Outcome::Reflected => 1,
        Outcome::Miss => 2,
        Outcome::Exit(k) => (2 + k) as u16,
    }
}

fn outcome(c: u16) -> Outcome {
    match c {
        0 => Outcome::Absorbed,
        1 => Outcome::Reflected,
        2 => Outcome::Miss,
        k => Outcome::Exit(k as usize - 2),
    }
}

impl SpectralGroups {
    /// Groups spectra given as (outcome codes, molecule number) records, in
    /// any order.
    fn from_records(width: usize, codes: Vec<u16>, numbers: Vec<u64>) -> SpectralGroups {
        let n = 4 * width;
        let key = |i: usize| &codes[i * n..(i + 1) * n];
        let mut order: Vec<usize> = (0..numbers.len()).collect();
        order.par_sort_unstable_by(|&a, &b| key(a).cmp(key(b)).then(numbers[a].cmp(&numbers[b])));
        let mut out = SpectralGroups {
            width,
            codes: Vec::new(),
            numbers: Vec::with_capacity(numbers.len()),
            starts: vec![0],
        };
        for (j, &i) in order.iter().enumerate() {
            if j > 0 && key(order[j - 1]) != key(i) {
                out.starts.push(out.numbers.len());
            }
            if j == 0 || key(order[j - 1]) != key(i) {
                out.codes.extend_from_slice(key(i));
            }
            out.numbers.push(numbers[i]);
        }
        if !out.numbers.is_empty() {
            out.starts.push(out.numbers.len());
        }
        out.codes.shrink_to_fit();
        out
    }

    /// Width of the box.
    pub fn width(&self) -> usize {
        self.width
    }

    /// Number of distinct spectra.
    pub fn len(&self) -> usize {
        self.starts.len() - 1
    }

    /// True when there is no spectrum at all.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The numbers of the molecules with spectrum `i`, in order.
    pub fn molecules(&self, i: usize) -> &[u64] {
        &self.numbers[self.starts[i]..self.starts[i + 1]]
    }

    /// The outcomes of spectrum `i`, position 1 first.
    pub fn outcomes(&self, i: usize) -> Vec<Outcome> {
        self.codes_of(i).iter().map(|&c| outcome(c)).collect()
    }

    /// Spectrum `i`.
    pub fn spectrum(&self, i: usize) -> Spectrum {
        Spectrum::from_outcomes_unchecked(self.width, self.outcomes(i))
    }

    fn codes_of(&self, i: usize) -> &[u16] {
        let n = 4 * self.width;
        &self.codes[i * n..(i + 1) * n]
    }
}

/// Every distinct spectrum of a configuration with the numbers of the molecules
/// that produce it, by forward enumeration (in parallel).
pub fn spectra(config: Config, rules: Rules) -> Result<SpectralGroups, Error> {
    let total = config.molecule_count().ok_or_else(|| {
        Error::Invalid(format!(
            "configuration {config} has too many molecules to enumerate"
        ))
    })?;
    if 4 * config.width + 2 > u16::MAX as usize {
        return Err(Error::Invalid(format!(
            "configuration {config}: a box over {} cells wide is too wide to verify",
            (u16::MAX as usize - 2) / 4
        )));
    }
    let per_task = 8192u64;
    let starts: Vec<u64> = (1..=total).step_by(per_task as usize).collect();
    let chunks: Vec<(Vec<u16>, Vec<u64>)> = starts
        .par_iter()
        .map(|&start| {
            let end = (start + per_task - 1).min(total);
            let count = (end - start + 1) as usize;
            let mut tracer = Tracer::new(config.width, rules);
            let mut rays = Vec::new();
            let mut codes = Vec::with_capacity(count * 4 * config.width);
            let first = unrank(config, start).expect("in range");
            for m in Molecules::from(&first).take(count) {
                tracer.load(&m);
                tracer.trace_all(&mut rays);
                codes.extend(rays.iter().map(|r| code(r.outcome)));
            }
            (codes, (start..=end).collect())
        })
        .collect();
    let mut codes = Vec::with_capacity(total as usize * 4 * config.width);
    let mut numbers = Vec::with_capacity(total as usize);
    for (c, n) in chunks {
        codes.extend(c);
        numbers.extend(n);
    }
    Ok(SpectralGroups::from_records(config.width, codes, numbers))
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
pub fn spectra_from_catalogue(cat: &Catalogue, config: Config) -> Result<SpectralGroups, Error> {
    let mut codes = Vec::new();
    let mut numbers = Vec::new();
    for (s, v) in cat.spectral_groups(config)? {
        let s = Spectrum::parse(&s, cat.path())?;
        if s.width() != config.width {
            return Err(Error::Invalid(format!(
                "{}: a spectrum of {} rays is stored for {config}",
                cat.path(),
                s.outcomes().len()
            )));
        }
        for n in v {
            codes.extend(s.outcomes().iter().map(|&r| code(r)));
            numbers.push(n);
        }
    }
    Ok(SpectralGroups::from_records(config.width, codes, numbers))
}

/// Checks the given spectra (with the numbers of the molecules that produce
/// them, as [`spectra`] returns them).
pub fn verify_spectra(
    config: Config,
    groups: SpectralGroups,
    options: &VerifyOptions,
    progress: impl Fn(usize, usize) + Sync,
) -> Result<Verification, Error> {
    if groups.width() != config.width {
        return Err(Error::Invalid(format!(
            "spectra of a {w}×{w} box cannot be checked against {config}",
            w = groups.width()
        )));
    }
    let mut chosen: Vec<usize> = (0..groups.len())
        .filter(|&i| !options.ambiguous_only || groups.molecules(i).len() > 1)
        .collect();
    let mut rng = ChaCha8Rng::seed_from_u64(options.seed);
    if let Some(n) = options.sample
        && n < chosen.len()
    {
        let ambiguous: Vec<usize> = chosen
            .iter()
            .copied()
            .filter(|&i| groups.molecules(i).len() > 1)
            .collect();
        let mut pick: Vec<usize> = if ambiguous.len() < n {
            ambiguous
        } else {
            Vec::new()
        };
        let rest: Vec<usize> = chosen
            .iter()
            .copied()
            .filter(|i| pick.binary_search(i).is_err())
            .collect();
        let need = (n - pick.len()).min(rest.len());
        pick.extend(
            index::sample(&mut rng, rest.len(), need)
                .into_iter()
                .map(|j| rest[j]),
        );
        pick.sort_unstable();
        chosen = pick;
    }
    let p = config.width;
    // Observations to check (the random choices made in order, so that a seed
    // always gives the same ones), with the spectral group they come from.
    let mut work: Vec<(Observation, usize)> = Vec::with_capacity(chosen.len());
    for &i in &chosen {
        let spectrum = Spectrum::from_outcomes(p, groups.outcomes(i)).ok_or_else(|| {
            Error::Invalid("enumeration produced an inconsistent spectrum".into())
        })?;
        let mut o = Observation::full(&spectrum);
        if let Some(f) = options.partial {
            hide(&mut o, f, &mut rng);
        }
        work.push((o, i));
    }
    let index = match options.partial {
        Some(_) => Some(RayIndex::new(&groups)?),
        None => None,
    };
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
                None => groups.molecules(*i).to_vec(),
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
pub fn hide(o: &mut Observation, fraction: f64, rng: &mut (impl Rng + ?Sized)) {
    let rays = o.rays();
    let n = ((fraction.clamp(0.0, 1.0) * rays.len() as f64).round() as usize).min(rays.len());
    for i in index::sample(rng, rays.len(), n) {
        o.forget(rays[i].0);
    }
}

/// For partial observations: which spectra have a given outcome at a given
/// position, so that the molecules matching the rays that remain are found
/// without scanning every spectrum. Rare outcomes (exits) keep a list of
/// spectra; common ones (hits, reflections) a bit set, so that an observation
/// with no exit left is matched by intersecting a few bit sets.
struct RayIndex {
    /// Outcome codes per position.
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
    fn new(groups: &SpectralGroups) -> Result<RayIndex, Error> {
        if u32::try_from(groups.len()).is_err() {
            return Err(Error::Invalid(format!(
                "{} spectra are too many to index for hidden rays",
                groups.len()
            )));
        }
        let positions = 4 * groups.width;
        let codes = positions + 3;
        let key = |pos: usize, c: u16| pos * codes + c as usize;
        let mut counts = vec![0usize; positions * codes];
        for g in 0..groups.len() {
            for (pos, &c) in groups.codes_of(g).iter().enumerate() {
                counts[key(pos, c)] += 1;
            }
        }
        let words = groups.len().div_ceil(64);
        let mut keys: Vec<Option<Posting>> = counts
            .iter()
            .map(|&n| {
                if n == 0 {
                    None
                } else if n * 32 < groups.len() {
                    // A list costs 32 bits a spectrum, a bit set 1 bit for every one.
                    Some(Posting::List(Vec::with_capacity(n)))
                } else {
                    Some(Posting::Bits(vec![0u64; words]))
                }
            })
            .collect();
        for g in 0..groups.len() {
            for (pos, &c) in groups.codes_of(g).iter().enumerate() {
                match &mut keys[key(pos, c)] {
                    Some(Posting::List(v)) => v.push(g as u32),
                    Some(Posting::Bits(b)) => b[g / 64] |= 1 << (g % 64),
                    None => unreachable!("counted above"),
                }
            }
        }
        Ok(RayIndex { codes, keys })
    }

    /// The molecules whose full spectrum agrees with every ray of `o`.
    fn matching(&self, groups: &SpectralGroups, o: &Observation) -> Vec<u64> {
        let known: Vec<(usize, u16)> = o
            .results()
            .iter()
            .enumerate()
            .filter_map(|(i, r)| r.map(|r| (i, code(r))))
            .collect();
        let mut postings = Vec::with_capacity(known.len());
        for &(i, c) in &known {
            match self.keys.get(i * self.codes + c as usize) {
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
                .filter(|&g| {
                    let s = groups.codes_of(g);
                    known.iter().all(|&(i, c)| s[i] == c)
                })
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
            .flat_map(|g| groups.molecules(g).iter().copied())
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
    fn the_catalogue_gives_the_groups_enumeration_gives() {
        let config: Config = "A4_B5".parse().unwrap();
        let mut cat = Catalogue::open_in_memory().unwrap();
        cat.explore(config, &crate::catalogue::ExploreOptions::default(), |_| {})
            .unwrap();
        let enumerated = spectra(config, Rules::Standard).unwrap();
        assert_eq!(spectra_from_catalogue(&cat, config).unwrap(), enumerated);
        // 12650 molecules; 665 of them share 279 spectra (the README's table).
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
        sizes.remove(&1);
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
    fn spectra_of_another_box_are_refused() {
        let groups = spectra("A2_B4".parse().unwrap(), Rules::Standard).unwrap();
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
