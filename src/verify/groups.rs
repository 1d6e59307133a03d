//! The spectra of a configuration grouped by spectrum, each with the numbers
//! of its molecules: by forward enumeration or read from a catalogue.

use rayon::prelude::*;

use crate::catalogue::Store;
use crate::control::Budget;
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
/// use bbx::verify::spectra;
/// use bbx::Rules;
/// let groups = spectra("A4_B6".parse().unwrap(), Rules::Standard).unwrap();
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
        let n = shape.positions();
        let key = |i: usize| &codes[i * n..(i + 1) * n];
        let mut order: Vec<usize> = (0..numbers.len()).collect();
        order.par_sort_unstable_by(|&a, &b| key(a).cmp(key(b)).then(numbers[a].cmp(&numbers[b])));
        let mut out = SpectralGroups {
            shape,
            codes: Vec::new(),
            numbers: Vec::with_capacity(numbers.len()),
            starts: vec![0],
            spectra: 0,
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
        out
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
/// [`Walk`]).
pub fn spectra(config: Config, rules: Rules) -> Result<SpectralGroups, Error> {
    let walk = Walk::new(config)?;
    let positions = config.positions();
    if u16::try_from(Outcome::codes(positions)).is_err() {
        return Err(Error::invalid(format!(
            "configuration {config}: a box over {} cells wide is too wide to verify",
            (u16::MAX as usize - 2) / 4
        )));
    }
    let budget = Budget::default();
    let chunks: Vec<Vec<u16>> = walk
        .chunks(1..=walk.count(), 8192)
        .map(|chunk| {
            let mut tracer = Tracer::new(config.shape(), rules);
            let mut rays = Vec::new();
            let mut codes = Vec::with_capacity(chunk.len() * positions);
            // The default budget never stops a chunk.
            let _ = chunk.visit(&budget, |_, atoms, _| {
                tracer.update_cells(atoms);
                tracer.trace_all(&mut rays);
                codes.extend(rays.iter().map(|r| code(r.outcome)));
            });
            codes
        })
        .collect();
    let codes = chunks.concat();
    Ok(SpectralGroups::from_records(
        config.shape(),
        codes,
        (1..=walk.count()).collect(),
    ))
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
