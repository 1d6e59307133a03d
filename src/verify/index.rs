//! An index of spectra by the outcome at each position, for matching
//! partial observations quickly.

use crate::control::Budget;
use crate::error::Error;
use crate::rules::ray::Outcome;
use crate::rules::spectrum::Observation;
use crate::verify::groups::{SpectralGroups, code};

/// For partial observations: which spectra have a given outcome at a given
/// position, so that the molecules matching the rays that remain are found
/// without scanning every spectrum. Rare outcomes (exits) keep a list of
/// spectra; common ones (hits, reflections) a bit set, so that an observation
/// with no exit left is matched by intersecting a few bit sets.
pub(super) struct RayIndex {
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
    /// The index of `groups`, within `budget` (polled every few thousand
    /// spectra): `None` once it is spent.
    pub(super) fn new(groups: &SpectralGroups, budget: &Budget) -> Result<Option<RayIndex>, Error> {
        let mut ticker = budget.ticker(4096);
        if u32::try_from(groups.len()).is_err() {
            return Err(Error::invalid(format!(
                "{} spectra are too many to index for hidden rays",
                groups.len()
            )));
        }
        let positions = groups.shape().positions();
        let codes = Outcome::codes(positions);
        let key = |pos: usize, c: u16| pos * codes + c as usize;
        let mut counts = vec![0usize; positions * codes];
        for g in 0..groups.len() {
            if ticker.tick().is_err() {
                return Ok(None);
            }
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
            if ticker.tick().is_err() {
                return Ok(None);
            }
            for (pos, &c) in groups.codes_of(g).iter().enumerate() {
                match &mut keys[key(pos, c)] {
                    Some(Posting::List(v)) => v.push(g as u32),
                    Some(Posting::Bits(b)) => b[g / 64] |= 1 << (g % 64),
                    None => unreachable!("counted above"),
                }
            }
        }
        Ok(Some(RayIndex { codes, keys }))
    }

    /// The molecules whose full spectrum agrees with every ray of `o`.
    pub(super) fn matching(&self, groups: &SpectralGroups, o: &Observation) -> Vec<u64> {
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
