//! The spectra of a configuration grouped by spectrum, each with the numbers
//! of its molecules: by forward enumeration or read from a catalogue.

use rayon::prelude::*;

use crate::catalogue::Store;
use crate::control::{Budget, Cut, Ended, Finished};
use crate::error::Error;
use crate::rules::config::{Config, Shape};
use crate::rules::enumeration::Walk;
use crate::rules::ray::{Outcome, Rules, Tracer};
use crate::rules::spectrum::Spectrum;

/// Every distinct spectrum of a configuration with the numbers of the
/// molecules that produce it, in spectrum order.
///
/// Stored compactly (two bytes an outcome, all spectra in one array), so that
/// A5_B8's 7.6 million molecules fit in well under a gigabyte.
///
/// ```
/// use bbx::control::Budget;
/// use bbx::verify::spectra;
/// use bbx::Rules;
/// let groups = spectra("A4_B6".parse().unwrap(), Rules::Standard, &Budget::default())
///     .unwrap()
///     .value;
/// assert_eq!(groups.len(), 58033);
/// let shared = (0..groups.len()).filter(|&i| groups.molecules(i).len() > 1).count();
/// assert_eq!(shared, 764);
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SpectralGroups {
    shape: Shape,
    /// 2(w+h) outcome codes per spectrum (see [`code`]).
    codes: Vec<u16>,
    /// The molecules' numbers, spectrum after spectrum, each group in order.
    numbers: Vec<u64>,
    /// Spectrum i's molecules are `numbers[starts[i]..starts[i + 1]]`.
    starts: Vec<usize>,
    /// Distinct spectra in the configuration, those not held included.
    spectra: usize,
}

/// An outcome's [`code`](Outcome::code) in two bytes ([`spectra`] refuses
/// the boxes whose codes would not fit).
pub(super) fn code(o: Outcome) -> u16 {
    u16::try_from(o.code()).unwrap_or(u16::MAX)
}

impl SpectralGroups {
    /// Groups spectra given as (outcome codes, molecule number) records, in
    /// any order.
    fn from_records(shape: Shape, codes: Vec<u16>, numbers: Vec<u64>) -> SpectralGroups {
        Self::from_records_within(shape, codes, numbers, &Budget::default())
            .unwrap_or_else(|_| SpectralGroups::empty(shape))
    }

    /// No spectrum, of a box of `shape`.
    fn empty(shape: Shape) -> SpectralGroups {
        SpectralGroups {
            shape,
            codes: Vec::new(),
            numbers: Vec::new(),
            starts: vec![0],
            spectra: 0,
        }
    }

    /// [`from_records`](Self::from_records) within `budget`, polled between
    /// the buckets of the sort (the records are first counted out by their
    /// first two outcomes, then each bucket sorted on its own), so that a
    /// stop is heard within one bucket's sort.
    fn from_records_within(
        shape: Shape,
        codes: Vec<u16>,
        numbers: Vec<u64>,
        budget: &Budget,
    ) -> Result<SpectralGroups, Cut> {
        let n = shape.positions();
        let key = |i: usize| &codes[i * n..(i + 1) * n];
        let order = bucket_sort(numbers.len(), n, &codes, budget, |bucket| {
            bucket.sort_unstable_by(|&a, &b| key(a).cmp(key(b)).then(numbers[a].cmp(&numbers[b])));
        })?;
        let mut out = SpectralGroups {
            numbers: Vec::with_capacity(numbers.len()),
            ..SpectralGroups::empty(shape)
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
        out.spectra = out.len();
        Ok(out)
    }

    /// The box.
    pub fn shape(&self) -> Shape {
        self.shape
    }

    /// Number of distinct spectra.
    pub fn len(&self) -> usize {
        self.starts.len() - 1
    }

    /// Distinct spectra in the whole configuration: [`len`](Self::len),
    /// unless these are only the shared ones (a census's stored groups).
    pub fn spectra(&self) -> usize {
        self.spectra
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
        self.codes_of(i)
            .iter()
            .map(|&c| Outcome::from_code(usize::from(c)))
            .collect()
    }

    /// Spectrum `i`.
    pub fn spectrum(&self, i: usize) -> Spectrum {
        Spectrum::from_outcomes_unchecked(self.shape, self.outcomes(i))
    }

    pub(super) fn codes_of(&self, i: usize) -> &[u16] {
        let n = self.shape.positions();
        &self.codes[i * n..(i + 1) * n]
    }
}

/// Every distinct spectrum of a configuration with the numbers of the molecules
/// that produce it, by forward enumeration (in parallel, through
/// [`Walk`]). Stopped by `budget`, it answers no spectrum (what was traced
/// is let go at once), and how it ended.
pub fn spectra(
    config: Config,
    rules: Rules,
    budget: &Budget,
) -> Result<Finished<SpectralGroups>, Error> {
    let walk = Walk::new(config)?;
    let positions = config.positions();
    if u16::try_from(Outcome::codes(positions)).is_err() {
        return Err(Error::invalid(format!(
            "configuration {config}: a box over {} cells wide is too wide to verify",
            (u16::MAX as usize - 2) / 4
        )));
    }
    let chunks: Vec<(Vec<u16>, Vec<u64>)> = walk
        .chunks(1..=walk.count(), 8192)
        .map(|chunk| {
            let mut tracer = Tracer::new(config.shape(), rules);
            let mut rays = Vec::new();
            let mut codes = Vec::with_capacity(chunk.len() * positions);
            let mut numbers = Vec::with_capacity(chunk.len());
            // Cut, the chunk keeps the molecules it traced.
            let _ = chunk.visit(budget, |number, atoms, _| {
                tracer.update_cells(atoms);
                tracer.trace_all(&mut rays);
                codes.extend(rays.iter().map(|r| code(r.outcome)));
                numbers.push(number);
            });
            (codes, numbers)
        })
        .collect();
    let (codes, numbers): (Vec<Vec<u16>>, Vec<Vec<u64>>) = chunks.into_iter().unzip();
    let traced: usize = numbers.iter().map(Vec::len).sum();
    let none = |cut| {
        Ok(Finished::new(
            SpectralGroups::empty(config.shape()),
            Ended::from(cut),
        ))
    };
    if let Err(cut) = budget.check()
        && traced as u64 != walk.count()
    {
        return none(cut);
    }
    match SpectralGroups::from_records_within(
        config.shape(),
        codes.concat(),
        numbers.concat(),
        budget,
    ) {
        Ok(groups) => Ok(Finished::complete(groups)),
        Err(cut) => none(cut),
    }
}

/// The record indices `0..records` in order: counted out into buckets by
/// their first two codes (each record is `n` codes of `codes`), which is
/// the order of those codes, then each bucket put in order by `sort`, the
/// buckets in parallel. `budget` is polled before each bucket; spent, the
/// order is abandoned.
fn bucket_sort(
    records: usize,
    n: usize,
    codes: &[u16],
    budget: &Budget,
    sort: impl Fn(&mut [usize]) + Sync,
) -> Result<Vec<usize>, Cut> {
    let codes_per_position = codes
        .iter()
        .copied()
        .max()
        .map_or(1, |c| usize::from(c) + 1);
    let bucket = |i: usize| match n {
        0 => 0,
        1 => usize::from(codes[i]),
        _ => usize::from(codes[i * n]) * codes_per_position + usize::from(codes[i * n + 1]),
    };
    let buckets = codes_per_position * codes_per_position;
    let mut starts = vec![0usize; buckets + 1];
    for i in 0..records {
        starts[bucket(i) + 1] += 1;
    }
    for b in 0..buckets {
        starts[b + 1] += starts[b];
    }
    let mut next = starts.clone();
    let mut order = vec![0usize; records];
    for i in 0..records {
        let b = bucket(i);
        order[next[b]] = i;
        next[b] += 1;
    }
    budget.check()?;
    let mut slices = Vec::with_capacity(buckets);
    let mut rest = order.as_mut_slice();
    for b in 0..buckets {
        let (this, after) = rest.split_at_mut(starts[b + 1] - starts[b]);
        slices.push(this);
        rest = after;
    }
    slices.into_par_iter().try_for_each(|bucket| {
        budget.check()?;
        sort(bucket);
        Ok(())
    })?;
    Ok(order)
}

/// The spectral groups a [`Store`] holds with their molecules' numbers:
/// every spectrum of a complete catalogue (standard rules), as [`spectra`]
/// computes them, or the spectra a stored census found shared by two
/// molecules or more (`bbx stats --store-groups`), and only those; `None`
/// when the store holds neither.
pub fn spectra_from_store(store: &Store) -> Result<Option<SpectralGroups>, Error> {
    let Some(held) = store.groups()? else {
        return Ok(None);
    };
    let config = store.config();
    let mut codes = Vec::new();
    let mut numbers = Vec::new();
    for (s, v) in held.groups {
        let s = Spectrum::parse_in(&s, config.shape(), store.path())?;
        if s.shape() != config.shape() {
            return Err(Error::invalid(format!(
                "{}: a spectrum of {} rays is stored for {config}",
                store.path(),
                s.outcomes().len()
            )));
        }
        for n in v {
            codes.extend(s.outcomes().iter().map(|&r| code(r)));
            numbers.push(n);
        }
    }
    let mut groups = SpectralGroups::from_records(config.shape(), codes, numbers);
    groups.spectra = usize::try_from(held.spectra).map_err(|_| {
        Error::invalid(format!(
            "{}: {} spectra are more than this machine counts",
            store.path(),
            held.spectra
        ))
    })?;
    Ok(Some(groups))
}
