//! Storing a census's ambiguous spectra and their molecules in a catalogue
//! file (see [`crate::catalogue::Catalogue::store_census`]).
//!
//! The census keeps, per class of ambiguous spectra, the molecules sharing
//! its canonical spectrum. Their images under the eight symmetries are every
//! molecule of the class; each gets the row the catalogue would give it, and
//! each spectrum the stamp the catalogue would give it (the transform and
//! canonical number of the class's lowest canonical molecule's image that
//! has it), so the stored rows are the catalogue's rows for those spectra.

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicBool, Ordering};

use crate::catalogue::{Catalogue, MoleculeRow, SpectrumRow};
use crate::census::orbits::CellSymmetries;
use crate::error::Error;
use crate::rules::board::Molecule;
use crate::rules::config::Config;
use crate::rules::enumeration::Numbering;
use crate::rules::ray::{Rules, Tracer};
use crate::rules::symmetry::Transform;
use crate::tables::StatsReport;

/// How much was stored.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Stored {
    /// Ambiguous spectra.
    pub spectra: u64,
    /// Their molecules.
    pub molecules: u64,
}

/// The rows of one class of ambiguous spectra, as the catalogue has them.
struct ClassRows {
    config: Config,
    numbering: Numbering,
    cells: CellSymmetries,
    tracer: Tracer,
}

impl ClassRows {
    fn new(config: Config) -> Result<ClassRows, Error> {
        Ok(ClassRows {
            config,
            numbering: Numbering::new(config).ok_or_else(|| {
                Error::Internal(format!(
                    "the census of {config} is stored, but the configuration is not numbered"
                ))
            })?,
            cells: CellSymmetries::new(config.width),
            tracer: Tracer::new(config.width, Rules::Standard),
        })
    }

    /// The rows of the class whose canonical spectrum these molecules share.
    fn rows(&mut self, class: &[u64]) -> (Vec<SpectrumRow>, Vec<MoleculeRow>) {
        let mut atoms = Vec::new();
        let mut image = Vec::new();
        let mut numbers: Vec<u64> = Vec::new();
        for &n in class {
            self.numbering.unrank_into(n, &mut atoms);
            for g in 0..8 {
                self.cells.apply(g, &atoms, &mut image);
                numbers.push(self.numbering.rank(&image));
            }
        }
        numbers.sort_unstable();
        numbers.dedup();
        let mut rows: Vec<MoleculeRow> = Vec::with_capacity(numbers.len());
        for &n in &numbers {
            self.numbering.unrank_into(n, &mut atoms);
            let m = Molecule::from_sorted_unchecked(self.config.width, atoms.clone());
            let (c, t) = self.numbering.canonical(&m);
            rows.push(MoleculeRow::with_canonical(&mut self.tracer, &m, n, c, t));
        }
        // Stamps: by canonical number, then transform, then number; the first
        // molecule to reach a spectrum stamps it.
        let order = |r: &MoleculeRow| {
            let t = Transform::ALL
                .iter()
                .position(|x| x.name() == r.transform)
                .unwrap_or(0);
            (r.canonical_number, t, r.number)
        };
        let mut by_stamp: Vec<&MoleculeRow> = rows.iter().collect();
        by_stamp.sort_by_key(|r| order(r));
        let mut stamps: BTreeMap<&str, (&str, u64)> = BTreeMap::new();
        let mut counts: BTreeMap<&str, u64> = BTreeMap::new();
        for r in &by_stamp {
            stamps
                .entry(r.spectrum.as_str())
                .or_insert((r.transform.as_str(), r.canonical_number));
            *counts.entry(r.spectrum.as_str()).or_default() += 1;
        }
        let spectra = stamps
            .iter()
            .map(|(s, (t, c))| SpectrumRow {
                spectrum: s.to_string(),
                nb_mol: counts[s],
                transform: t.to_string(),
                canonical_number: *c,
            })
            .collect();
        (spectra, rows)
    }
}

/// How [`store`] goes about it.
#[derive(Debug, Clone, Copy)]
pub struct StoreOptions {
    /// How long to wait for other programs to let go of the file, in ms.
    pub busy_ms: u32,
    /// Set to stop (Ctrl-C): the file is left as it was.
    pub stop: Option<&'static AtomicBool>,
    /// Stop after this many classes, as Ctrl-C would (for tests).
    pub stop_after: Option<u64>,
}

impl Default for StoreOptions {
    fn default() -> StoreOptions {
        StoreOptions {
            busy_ms: crate::catalogue::BUSY_TIMEOUT_MS,
            stop: None,
            stop_after: None,
        }
    }
}

/// Stores the census of `config` (its report and classes) in catalogue file
/// `db`, which must hold nothing but, possibly, an earlier census of
/// `config`. Holds the file's writer lock throughout and checks the file
/// again under it; the census goes in whole, in one transaction, or not at
/// all. Stopped (`None`) or failed, the file is as it was, and a file this
/// call created is removed.
pub fn store(
    db: &str,
    config: Config,
    report: &StatsReport,
    classes: &[Vec<u64>],
    options: &StoreOptions,
) -> Result<Option<Stored>, Error> {
    let json = serde_json::to_string(report)?;
    let mut rows = ClassRows::new(config)?;
    let mut cat = Catalogue::open_waiting(db, options.busy_ms)?;
    let stopped = |done: u64| {
        options.stop.is_some_and(|s| s.load(Ordering::SeqCst))
            || options.stop_after.is_some_and(|n| done >= n)
    };
    let stored = cat.store_census(
        config,
        &json,
        classes.iter().map(|c| Ok(rows.rows(c))),
        stopped,
    );
    match stored {
        Ok(Some((spectra, molecules))) => Ok(Some(Stored { spectra, molecules })),
        Ok(None) => {
            cat.discard();
            Ok(None)
        }
        Err(e) => {
            cat.discard();
            Err(e)
        }
    }
}
