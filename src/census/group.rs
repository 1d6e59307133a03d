//! Grouping one partition: which spectra are shared, by whom.
//!
//! Records are sorted by key. The payloads of a run of equal keys say how
//! many molecules share each spectrum of its class (orbit sizes times the
//! spectrum's stabiliser, over 8): even a single orbit can share a spectrum
//! within itself, when the spectrum has more symmetries than the molecule.
//! Runs whose spectra may be shared are *candidates*: their canonical
//! molecules are traced again and split by their actual canonical spectra, so
//! a key collision never merges two spectra. The candidates of a partition
//! are traced together in number order, by a [`Traced`]'s sweep, which
//! traces again only the rays a molecule's atoms change from the molecules
//! before it; the runs are then counted in key order.
//!
//! For a class of spectra with canonical form s, fixed by the symmetries H,
//! the molecules with spectrum exactly s are found from the orbits' canonical
//! molecules alone: if g takes molecule r's spectrum to s, they are h∘g(r) for
//! h in H. Everything the report says about a class follows: its size, how far
//! apart its molecules are, the lowest canonical number among them (the
//! catalogue shows that molecule's spectrum), and the numbers of that group.

use itertools::Itertools;

use crate::census::canonical::{Canonical, SpectrumSymmetries, Traced, spectrum_of};
use crate::census::orbits::CellSymmetries;
use crate::census::record::{Record, number, orbit_size, spectrum_stabilizer};
use crate::census::sink::{BottomK, Group, GroupSink};
use crate::census::summary::{Summary, TopGroup};
use crate::control::{Budget, Ended};
use crate::error::Error;
use crate::rules::config::Config;
use crate::rules::enumeration::Numbering;
use crate::tables::GroupReport;

/// What grouping needs: the box's symmetry tables and a tracer.
#[derive(Debug, Clone)]
pub struct Grouper {
    config: Config,
    numbering: Numbering,
    cells: CellSymmetries,
    positions: SpectrumSymmetries,
    traced: Traced,
    /// The canonical form of the last spectrum traced.
    canonical: Canonical,
    /// A buffer of records, kept from one partition to the next.
    spare: Vec<Record>,
    /// Keep each class's molecules (for storing the groups).
    keep_classes: bool,
}

/// A candidate orbit, traced again: its canonical molecule's number, its
/// orbit's size, and the slot of symmetry that takes its spectrum to the
/// canonical form.
#[derive(Debug, Clone, Copy)]
struct Retraced {
    number: u64,
    orbit_size: u8,
    transform: usize,
}

/// Where a grouper hands its groups over (see [`crate::census::sink`]).
#[derive(Default)]
pub struct Handover<'a> {
    /// Takes every class of ambiguous spectra (`None`: they are not handed
    /// over, say because an earlier run did).
    pub sink: Option<&'a mut dyn GroupSink>,
    /// Keeps the sample of unique spectra.
    pub sample: Option<&'a mut BottomK>,
}

impl Grouper {
    /// A grouper for `config` (a numbered configuration within the census's
    /// limits); `keep_classes` keeps every class's molecules in the summary.
    pub fn new(config: Config, keep_classes: bool) -> Option<Grouper> {
        Some(Grouper {
            config,
            numbering: Numbering::new(config)?,
            cells: CellSymmetries::new(config.shape()),
            positions: SpectrumSymmetries::new(config.shape()),
            traced: Traced::new(config.shape()),
            canonical: Canonical {
                codes: Vec::new(),
                transform: 0,
                stabilizer: 1,
            },
            spare: Vec::new(),
            keep_classes,
        })
    }

    /// Groups one partition's records into `summary`, handing each class
    /// of ambiguous spectra to `hand.sink` and offering each class of
    /// unique spectra to `hand.sample`. Stopped by `budget` (asked every
    /// thousand runs of records), it says how, and `summary` then holds
    /// part of the partition. Fails when the sink does.
    pub fn group(
        &mut self,
        records: Vec<Record>,
        summary: &mut Summary,
        budget: &Budget,
        hand: &mut Handover<'_>,
    ) -> Result<Ended, Error> {
        let mut ticker = budget.ticker(1024);
        if let Err(cut) = ticker.check() {
            return Ok(cut.into());
        }
        let records = sort_records(records, &mut self.spare);
        // The runs whose spectra may be shared (their records' places), and
        // their orbits, by number, with their places among the candidates.
        let mut runs: Vec<(usize, usize)> = Vec::new();
        let mut orbits: Vec<(u64, usize)> = Vec::new();
        let mut i = 0;
        while i < records.len() {
            if let Err(cut) = ticker.tick() {
                return Ok(cut.into());
            }
            let mut j = i + 1;
            while j < records.len() && records[j].0 == records[i].0 {
                j += 1;
            }
            let run = &records[i..j];
            // A class of spectra with stabiliser H holds, per spectrum, its
            // orbits' sizes times |H| / 8 molecules. Summed over a run, that
            // is at least 2 unless the run is one class of unique spectra (a
            // collision of two classes sums to 2 at least).
            let molecules: u64 = run
                .iter()
                .map(|&(_, p)| orbit_size(p) as u64 * spectrum_stabilizer(p) as u64)
                .sum();
            if molecules >= 16 {
                runs.push((i, j));
                let first = orbits.len();
                orbits.extend(
                    run.iter()
                        .enumerate()
                        .map(|(k, &(_, p))| (number(p), first + k)),
                );
            } else if let Some(sample) = hand.sample.as_deref_mut() {
                // One class of unique spectra: one orbit, whose molecules
                // have a spectrum each.
                for &(_, p) in run {
                    sample.offer(number(p), orbit_size(p));
                }
            }
            i = j;
        }
        // Their canonical spectra, traced in number order.
        orbits.sort_unstable();
        let n = self.config.shape().positions();
        let mut forms = vec![0u8; orbits.len() * n];
        let mut transforms = vec![0u8; orbits.len()];
        let mut atoms = Vec::new();
        for &(number, c) in &orbits {
            if let Err(cut) = ticker.tick() {
                return Ok(cut.into());
            }
            self.numbering.unrank_into(number, &mut atoms);
            self.traced.next(&atoms);
            self.positions
                .canonical_into(self.traced.codes(), &mut self.canonical);
            forms[c * n..][..n].copy_from_slice(&self.canonical.codes);
            transforms[c] = self.canonical.transform as u8;
        }
        drop(orbits);
        // Each run's classes, in key order.
        let mut c = 0;
        for (i, j) in runs {
            if let Err(cut) = ticker.tick() {
                return Ok(cut.into());
            }
            let len = j - i;
            let run = &records[i..j];
            self.candidates(
                run,
                &forms[c * n..(c + len) * n],
                &transforms[c..c + len],
                summary,
                hand,
            )?;
            c += len;
        }
        Ok(Ended::Complete)
    }

    /// Counts each actual class of a run's orbits, given their canonical
    /// spectra (`forms`, one after the other) and the slots of symmetry that
    /// take their spectra there.
    fn candidates(
        &mut self,
        run: &[Record],
        forms: &[u8],
        transforms: &[u8],
        summary: &mut Summary,
        hand: &mut Handover<'_>,
    ) -> Result<(), Error> {
        let n = forms.len() / run.len();
        let form = |k: usize| &forms[k * n..(k + 1) * n];
        let mut order: Vec<usize> = (0..run.len()).collect();
        order.sort_by(|&a, &b| form(a).cmp(form(b)));
        let mut i = 0;
        let mut classes = 0;
        let mut orbits = Vec::new();
        while i < order.len() {
            let mut j = i + 1;
            while j < order.len() && form(order[j]) == form(order[i]) {
                j += 1;
            }
            orbits.clear();
            orbits.extend(order[i..j].iter().map(|&k| Retraced {
                number: number(run[k].1),
                orbit_size: orbit_size(run[k].1),
                transform: usize::from(transforms[k]),
            }));
            self.class(form(order[i]), &orbits, summary, hand)?;
            classes += 1;
            i = j;
        }
        if classes > 1 {
            summary.collisions += classes - 1;
        }
        Ok(())
    }

    /// Counts one class of spectra, canonical form `cs`, given the
    /// canonical molecules of the orbits whose spectra lie in it.
    fn class(
        &mut self,
        cs: &[u8],
        orbits: &[Retraced],
        summary: &mut Summary,
        hand: &mut Handover<'_>,
    ) -> Result<(), Error> {
        let fixing = self.positions.stabilizer(cs);
        // The molecules whose spectrum is exactly cs.
        let mut members: Vec<Vec<usize>> = Vec::new();
        let mut atoms = Vec::new();
        let mut once = Vec::new();
        for o in orbits {
            self.numbering.unrank_into(o.number, &mut atoms);
            self.cells.apply(o.transform, &atoms, &mut once);
            for &h in &fixing {
                let mut m = Vec::new();
                self.cells.apply(h, &once, &mut m);
                members.push(m);
            }
        }
        members.sort_unstable();
        members.dedup();
        let n = members.len();
        if n < 2 {
            // A class of unique spectra (its key shared with another
            // class's): one orbit.
            if let Some(sample) = hand.sample.as_deref_mut() {
                for o in orbits {
                    sample.offer(o.number, o.orbit_size);
                }
            }
            return Ok(());
        }
        let apart = members
            .iter()
            .cartesian_product(&members)
            .map(|(a, b)| a.iter().filter(|x| b.binary_search(x).is_err()).count())
            .max()
            .unwrap_or(0);
        summary.add_class(n as u64, (8 / fixing.len()) as u64, apart);
        if self.keep_classes || hand.sink.is_some() {
            let mut numbers: Vec<u64> = members.iter().map(|m| self.numbering.rank(m)).collect();
            numbers.sort_unstable();
            if let Some(sink) = hand.sink.as_deref_mut() {
                sink.group(&Group {
                    spectrum: &spectrum_of(self.config.shape(), cs),
                    molecules: &numbers,
                    spectra: (8 / fixing.len()) as u64,
                })?;
            }
            if self.keep_classes {
                summary.classes.push(numbers);
            }
        }
        if !summary.could_rank(n, apart) {
            return Ok(());
        }
        // The lowest-numbered molecule among the images of the class: its
        // spectrum is the one the catalogue shows.
        let mut image = Vec::new();
        let (c, t) = (0..8)
            .cartesian_product(&members)
            .map(|(t, m)| {
                self.cells.apply(t, m, &mut image);
                (self.numbering.rank(&image), t)
            })
            .min()
            .unwrap_or((u64::MAX, 0));
        let mut numbers: Vec<u64> = members
            .iter()
            .map(|m| {
                self.cells.apply(t, m, &mut image);
                self.numbering.rank(&image)
            })
            .collect();
        numbers.sort_unstable();
        let spectrum = spectrum_of(self.config.shape(), &self.positions.image(t, cs)).to_string();
        summary.offer(TopGroup {
            group: GroupReport {
                atoms_apart: apart,
                spectrum,
                numbers,
            },
            canonical_number: c,
        });
        Ok(())
    }

    /// The sampled unique spectrum `image` of the orbit of canonical
    /// molecule `number` (see [`crate::census::sink`]): the orbit's
    /// `image`-th distinct image, in the order of the symmetries, and its
    /// spectrum. `None` when the orbit has no such image.
    pub fn sampled(
        &mut self,
        number: u64,
        image: u8,
    ) -> Option<(u64, crate::rules::spectrum::Spectrum)> {
        let mut atoms = Vec::new();
        self.numbering.unrank_into(number, &mut atoms);
        let mut images: Vec<Vec<usize>> = Vec::with_capacity(8);
        for t in 0..8 {
            let mut m = Vec::new();
            self.cells.apply(t, &atoms, &mut m);
            if !images.contains(&m) {
                images.push(m);
            }
        }
        let m = images.get(usize::from(image))?;
        self.traced.trace(m);
        Some((self.numbering.rank(m), self.traced.spectrum()))
    }
}
/// Sorts records as `sort_unstable` does (by key, then payload), by their
/// keys' bytes from the highest (a radix sort, 256 buckets a byte): the keys
/// are hashes, spread evenly, so each byte cuts a part into 256 of about the
/// same size, and parts of a few dozen records are sorted by comparison.
/// The first byte scatters the records into `spare` (resized), read and
/// written in order; each bucket is then sorted in place, within the
/// processor's caches. Returns the sorted records, and leaves `records`'
/// buffer in `spare`.
pub fn sort_records(records: Vec<Record>, spare: &mut Vec<Record>) -> Vec<Record> {
    let mut sorted = std::mem::take(spare);
    if records.len() <= 1 << 12 {
        *spare = sorted;
        let mut records = records;
        sort_from_byte(&mut records, 56);
        return records;
    }
    let byte = |r: &Record| (r.0 >> 56) as usize;
    let mut next = [0usize; 256];
    for r in &records {
        next[byte(r)] += 1;
    }
    let mut ends = [0usize; 256];
    let mut at = 0;
    for b in 0..256 {
        let count = next[b];
        next[b] = at;
        at += count;
        ends[b] = at;
    }
    sorted.clear();
    sorted.resize(records.len(), (0, 0));
    for &r in &records {
        let b = byte(&r);
        sorted[next[b]] = r;
        next[b] += 1;
    }
    *spare = records;
    let mut start = 0;
    for &end in &ends {
        if end - start > 1 {
            sort_from_byte(&mut sorted[start..end], 48);
        }
        start = end;
    }
    sorted
}

/// [`sort_records`] of records whose keys agree above bit `shift + 8`.
fn sort_from_byte(records: &mut [Record], shift: u32) {
    if records.len() <= 48 {
        records.sort_unstable();
        return;
    }
    let byte = |r: &Record| (r.0 >> shift) as u8 as usize;
    let mut ends = [0usize; 256];
    for r in records.iter() {
        ends[byte(r)] += 1;
    }
    let mut next = [0usize; 256];
    let mut at = 0;
    for b in 0..256 {
        next[b] = at;
        at += ends[b];
        ends[b] = at;
    }
    // Each record goes to the next free place of its bucket, the record
    // there taking its turn, until a bucket's places are all its own.
    for b in 0..256 {
        while next[b] < ends[b] {
            let mut r = records[next[b]];
            let mut d = byte(&r);
            while d != b {
                std::mem::swap(&mut r, &mut records[next[d]]);
                next[d] += 1;
                d = byte(&r);
            }
            records[next[b]] = r;
            next[b] += 1;
        }
    }
    let mut start = 0;
    for &end in &ends {
        if end - start > 1 {
            if shift == 0 {
                records[start..end].sort_unstable();
            } else {
                sort_from_byte(&mut records[start..end], shift - 8);
            }
        }
        start = end;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn records_sort_as_sort_unstable_sorts_them() {
        let mut x = 0x9E37_79B9_7F4A_7C15u64;
        let mut draw = move || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        };
        let mut spare: Vec<Record> = Vec::new();
        for len in [0, 1, 2, 47, 48, 49, 1000, 5000, 100_000] {
            // Spread keys, keys sharing their high bytes, repeated keys,
            // and one key throughout.
            let kinds: [&dyn Fn(u64) -> u64; 4] = [&|k| k, &|k| k & 0xFFFF, &|k| k % 97, &|_| {
                0xABCD_EF01_2345_6789
            }];
            for kind in kinds {
                let records: Vec<Record> = (0..len).map(|_| (kind(draw()), draw() % 50)).collect();
                let mut expected = records.clone();
                expected.sort_unstable();
                assert_eq!(sort_records(records, &mut spare), expected, "{len} records");
            }
        }
    }
}
