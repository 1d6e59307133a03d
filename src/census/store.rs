//! Storing a census's ambiguous spectra and their molecules in a catalogue
//! file (see [`crate::catalogue::Catalogue::store_census`]).
//!
//! The census keeps, per class of ambiguous spectra, the molecules sharing
//! its canonical spectrum s. The molecules with spectrum g(s), for each of
//! the symmetries g of the box, are the images g(m) of those molecules: one
//! molecule is traced to find s, its images give the class's spectra, and
//! the molecules' images their groups. Only that is stored — each spectrum
//! with its molecules' numbers —; a molecule's statistics are traced when
//! they are read, since tracing is cheaper than storing them.
//!
//! The groups go into tables of their own (`census_configurations`,
//! `census_groups`), so that nothing takes them for a catalogue, and only
//! into a file holding nothing else of the kind. The store holds the file's
//! writer lock (`FILE.lock`, as an exploration does) and checks the file
//! again under it, in the one transaction that writes the groups: the file
//! then holds the census whole, or is as it was. A refused store creates no
//! file. The census's work directory is kept until the groups are stored, so
//! Ctrl-C while storing stops at once (a file the store created is removed)
//! and the same command stores them without counting again.

use std::collections::BTreeMap;

use crate::catalogue::{Catalogue, ClassGroups, busy_ms};
use crate::census::canonical::{SpectrumSymmetries, Traced, spectrum_of};
use crate::census::orbits::CellSymmetries;
use crate::control::{Budget, Finished, stop_after};
use crate::error::Error;
use crate::rules::config::{Config, Shape};
use crate::rules::enumeration::Numbering;
use crate::tables::StatsReport;

/// How much was stored.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Stored {
    /// Ambiguous spectra.
    pub spectra: u64,
    /// Their molecules.
    pub molecules: u64,
}

/// The spectral groups of one class of ambiguous spectra.
struct ClassImages {
    shape: Shape,
    numbering: Numbering,
    cells: CellSymmetries,
    positions: SpectrumSymmetries,
    traced: Traced,
}

impl ClassImages {
    fn new(config: Config) -> Result<ClassImages, Error> {
        Ok(ClassImages {
            shape: config.shape(),
            numbering: Numbering::new(config).ok_or_else(|| {
                Error::Internal(format!(
                    "the census of {config} is stored, but the configuration is not numbered"
                ))
            })?,
            cells: CellSymmetries::new(config.shape()),
            positions: SpectrumSymmetries::new(config.shape()),
            traced: Traced::new(config.shape()),
        })
    }

    /// The groups of the class whose canonical spectrum the molecules
    /// numbered `class` share: each distinct image of that spectrum (as
    /// text) with its molecules' numbers in order.
    fn groups(&mut self, class: &[u64]) -> Result<ClassGroups, Error> {
        let Some(&first) = class.first() else {
            return Ok(Vec::new());
        };
        let mut atoms = Vec::new();
        self.numbering.unrank_into(first, &mut atoms);
        self.traced.trace(&atoms);
        let codes = self.traced.codes().to_vec();
        // Symmetries giving distinct spectra, each with its image.
        let mut images: BTreeMap<Vec<u8>, usize> = BTreeMap::new();
        for g in 0..8 {
            images.entry(self.positions.image(g, &codes)).or_insert(g);
        }
        let mut image = Vec::new();
        let mut groups = Vec::with_capacity(images.len());
        for (spectrum, g) in images {
            let mut numbers: Vec<u64> = class
                .iter()
                .map(|&n| {
                    self.numbering.unrank_into(n, &mut atoms);
                    self.cells.apply(g, &atoms, &mut image);
                    self.numbering.rank(&image)
                })
                .collect();
            numbers.sort_unstable();
            if numbers.windows(2).any(|w| w[0] == w[1]) {
                return Err(Error::Internal(format!(
                    "a class of the census holds molecule {} twice",
                    numbers
                        .windows(2)
                        .find(|w| w[0] == w[1])
                        .map_or(0, |w| w[0])
                )));
            }
            groups.push((spectrum_of(self.shape, &spectrum).to_string(), numbers));
        }
        Ok(groups)
    }
}

/// Stores the census of `config` (its report and classes) in catalogue file
/// `db`, which must hold nothing but, possibly, an earlier census of
/// `config`. Holds the file's writer lock throughout and checks the file
/// again under it; the census goes in whole, in one transaction, or not at
/// all. Stopped by `budget` (or after the `stop-storing-after` classes of
/// its faults; `busy-timeout-ms` is how long to wait for other programs) or
/// failed, the file is as it was, and a file this call created is removed.
pub fn store(
    db: &str,
    config: Config,
    report: &StatsReport,
    classes: &[Vec<u64>],
    budget: &Budget,
) -> Result<Finished<Stored>, Error> {
    let faults = &budget.faults;
    let json = serde_json::to_string(report)?;
    let mut groups = ClassImages::new(config)?;
    let mut cat = Catalogue::open_waiting(db, busy_ms(faults))?;
    let stored = cat.store_census(
        config,
        &json,
        classes.iter().map(|c| groups.groups(c)),
        |done| {
            budget
                .check()
                .and(stop_after(faults.stop_storing_after, done))
        },
    );
    match stored {
        Ok(stored) if stored.is_complete() => {
            Ok(stored.map(|(spectra, molecules)| Stored { spectra, molecules }))
        }
        other => {
            cat.discard();
            other.map(|stopped| stopped.map(|_| Stored::default()))
        }
    }
}
