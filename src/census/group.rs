//! Grouping one partition: which spectra are shared, by whom.
//!
//! Records are sorted by key. The payloads of a run of equal keys say how
//! many molecules share each spectrum of its class (orbit sizes times the
//! spectrum's stabiliser, over 8): even a single orbit can share a spectrum
//! within itself, when the spectrum has more symmetries than the molecule.
//! Runs whose spectra may be shared are *candidates*: their canonical
//! molecules are traced again and split by their actual canonical spectra, so
//! a key collision never merges two spectra.
//!
//! For a class of spectra with canonical form s, fixed by the symmetries H,
//! the molecules with spectrum exactly s are found from the orbits' canonical
//! molecules alone: if g takes molecule r's spectrum to s, they are h∘g(r) for
//! h in H. Everything the report says about a class follows: its size, how far
//! apart its molecules are, the lowest canonical number among them (the
//! catalogue shows that molecule's spectrum), and the numbers of that group.

use itertools::Itertools;

use crate::census::orbits::CellSymmetries;
use crate::census::record::{Record, number, orbit_size, spectrum_stabilizer};
use crate::census::sink::{BottomK, Group, GroupSink};
use crate::census::spectra::{Canonical, SpectrumSymmetries, Traced, spectrum_of};
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
    /// Keep each class's molecules (for storing the groups).
    keep_classes: bool,
}

/// A candidate orbit, traced again.
struct Retraced {
    canonical: Canonical,
    atoms: Vec<usize>,
    number: u64,
    orbit_size: u8,
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
        mut records: Vec<Record>,
        summary: &mut Summary,
        budget: &Budget,
        hand: &mut Handover<'_>,
    ) -> Result<Ended, Error> {
        let mut ticker = budget.ticker(1024);
        if let Err(cut) = ticker.check() {
            return Ok(cut.into());
        }
        records.sort_unstable();
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
                self.candidates(run, summary, hand)?;
            } else if let Some(sample) = hand.sample.as_deref_mut() {
                // One class of unique spectra: one orbit, whose molecules
                // have a spectrum each.
                for &(_, p) in run {
                    sample.offer(number(p), orbit_size(p));
                }
            }
            i = j;
        }
        Ok(Ended::Complete)
    }

    /// Traces a run's orbits again and counts each actual class.
    fn candidates(
        &mut self,
        run: &[Record],
        summary: &mut Summary,
        hand: &mut Handover<'_>,
    ) -> Result<(), Error> {
        let mut items: Vec<Retraced> = run
            .iter()
            .map(|&(_, p)| {
                let mut atoms = Vec::new();
                self.numbering.unrank_into(number(p), &mut atoms);
                self.traced.trace(&atoms);
                Retraced {
                    canonical: self.positions.canonical(self.traced.codes()),
                    atoms,
                    number: number(p),
                    orbit_size: orbit_size(p),
                }
            })
            .collect();
        items.sort_by(|a, b| a.canonical.codes.cmp(&b.canonical.codes));
        let mut i = 0;
        let mut classes = 0;
        while i < items.len() {
            let mut j = i + 1;
            while j < items.len() && items[j].canonical.codes == items[i].canonical.codes {
                j += 1;
            }
            self.class(&items[i..j], summary, hand)?;
            classes += 1;
            i = j;
        }
        if classes > 1 {
            summary.collisions += classes - 1;
        }
        Ok(())
    }

    /// Counts one class of spectra, given the canonical molecules of the
    /// orbits whose spectra lie in it.
    fn class(
        &mut self,
        orbits: &[Retraced],
        summary: &mut Summary,
        hand: &mut Handover<'_>,
    ) -> Result<(), Error> {
        let cs = &orbits[0].canonical.codes;
        let fixing = self.positions.stabilizer(cs);
        // The molecules whose spectrum is exactly cs.
        let mut members: Vec<Vec<usize>> = Vec::new();
        let mut once = Vec::new();
        for o in orbits {
            self.cells.apply(o.canonical.transform, &o.atoms, &mut once);
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
