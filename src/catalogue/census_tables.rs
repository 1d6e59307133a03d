//! Census groups: the ambiguous spectra of a configuration too large to
//! catalogue, and their molecules, stored beside the catalogue's tables.
//!
//! A census (`bbx stats --store-groups`) keeps only the spectra that several
//! molecules share. They go to tables of their own, so that nothing reading
//! the `molecules` table can take them for a catalogue, complete or partial:
//!
//! * `census_configurations`: one row per configuration counted (`config`,
//!   `nb_atoms`, `width`, `nb_mol`, `ambiguous_spectra`,
//!   `ambiguous_molecules`, `report` — the census's report as JSON —,
//!   timestamps);
//! * `census_groups`: one row per ambiguous spectrum (`config`, `spectrum`,
//!   `molecules` — its molecules' numbers, ascending, as 8-byte
//!   little-endian integers), with an index on (`config`, `spectrum`).
//!
//! A molecule's statistics are not stored: they are traced when read
//! ([`Store`](super::Store)), which costs less than storing them.
//!
//! A file takes a census only when it holds nothing else: no catalogue
//! (complete or not) and no other configuration's census, so storing never
//! modifies anyone's data but an earlier census of the same configuration.

use rusqlite::{Transaction, TransactionBehavior, params};

use crate::catalogue::rows::MoleculeRow;
use crate::catalogue::{Catalogue, sql_err};
use crate::control::{Cut, Finished};
use crate::error::{Error, field};
use crate::rules::config::Config;
use crate::rules::enumeration::unrank;
use crate::rules::ray::Tracer;
use crate::setting::{Job, Setting};
use crate::text;

/// Molecule numbers as a `census_groups` blob.
fn numbers_blob(numbers: &[u64]) -> Vec<u8> {
    numbers.iter().flat_map(|n| n.to_le_bytes()).collect()
}

/// Why a file holding something else does not take a census, before the
/// setting that chooses another.
const OWN_FILE: &str = "a census is stored only in a file of its own: give another ";

/// One class of a census's ambiguous spectra as it is stored: each spectrum
/// (as text) with its molecules' numbers, in order.
pub type ClassGroups = Vec<(String, Vec<u64>)>;

/// What a catalogue file holds of a census.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CensusStatus {
    /// Molecules in the configuration.
    pub nb_mol: u64,
    /// Ambiguous spectra stored.
    pub ambiguous_spectra: u64,
    /// Their molecules.
    pub ambiguous_molecules: u64,
    /// The census's report, as JSON.
    pub report: String,
}

impl Catalogue {
    fn has_table(&self, name: &str) -> Result<bool, Error> {
        let found = self.query(
            "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?1",
            &[&name],
            |_| Ok(()),
        )?;
        Ok(!found.is_empty())
    }

    /// Refuses, with the reason, when this file must not take a census of
    /// `config`: it holds a catalogue (of any configuration, complete or not)
    /// or another configuration's census.
    pub fn check_census_target(&self, config: Config) -> Result<(), Error> {
        self.reading(|| self.check_census_target_once(config))
    }

    fn check_census_target_once(&self, config: Config) -> Result<(), Error> {
        let explored = self.query(
            "SELECT config, complete FROM configurations ORDER BY config LIMIT 1",
            &[],
            |r| Ok((r.get::<_, String>(0)?, r.get::<_, bool>(1)?)),
        )?;
        if let Some((c, complete)) = explored.first() {
            let path = &self.path;
            return Err(Error::invalid(if *c == config.to_string() && *complete {
                text![
                    format!(
                        "{path}: holds the complete catalogue of {config}, which has every group already: "
                    ),
                    Job::ReadTables(config.to_string(), path.clone()),
                    " instead; store a census in another file"
                ]
            } else {
                let what = if *complete {
                    "the catalogue"
                } else {
                    "an unfinished exploration"
                };
                text![
                    format!("{path}: holds {what} of {}; {OWN_FILE}", field(c)),
                    Setting::Db
                ]
            }));
        }
        if self.has_table("census_configurations")? {
            let other = self.query(
                "SELECT config FROM census_configurations WHERE config <> ?1 LIMIT 1",
                &[&config.to_string()],
                |r| r.get::<_, String>(0),
            )?;
            if let Some(other) = other.first() {
                return Err(Error::invalid(text![
                    format!(
                        "{}: holds the census of {}; {OWN_FILE}",
                        self.path,
                        field(other)
                    ),
                    Setting::Db
                ]));
            }
        }
        Ok(())
    }

    /// Stores the census of `config`: its report (JSON) and, class by class,
    /// its ambiguous spectra with their molecules' numbers, replacing an
    /// earlier census of it, all in one transaction that first checks
    /// [`check_census_target`](Self::check_census_target) again: the file
    /// holds the census whole or is as it was. `check(n)` is asked before
    /// each class, `n` classes in, and before the commit (`n` being then
    /// every class): when it fails the transaction is rolled back, nothing
    /// is stored, and the answer says how it ended. Returns the numbers of
    /// spectra and molecules stored.
    pub fn store_census<I>(
        &mut self,
        config: Config,
        report_json: &str,
        classes: I,
        mut check: impl FnMut(u64) -> Result<(), Cut>,
    ) -> Result<Finished<(u64, u64)>, Error>
    where
        I: IntoIterator<Item = Result<ClassGroups, Error>>,
    {
        if self.read_only {
            return Err(Error::Internal(format!(
                "{}: a census stored in a catalogue opened read-only",
                self.path
            )));
        }
        let e = sql_err(&self.path);
        // Immediate: no other program writes between the check and the end.
        let tx =
            Transaction::new_unchecked(&self.conn, TransactionBehavior::Immediate).map_err(&e)?;
        self.check_census_target_once(config)?;
        // The index is made after the rows: sorting them once costs less
        // than keeping it in order row by row.
        tx.execute_batch(
            "CREATE TABLE IF NOT EXISTS census_configurations (
               config TEXT PRIMARY KEY,
               nb_atoms INTEGER NOT NULL,
               width INTEGER NOT NULL,
               nb_mol INTEGER NOT NULL,
               ambiguous_spectra INTEGER NOT NULL,
               ambiguous_molecules INTEGER NOT NULL,
               report TEXT NOT NULL,
               created_at TEXT NOT NULL,
               updated_at TEXT NOT NULL
             );
             CREATE TABLE IF NOT EXISTS census_groups (
               config TEXT NOT NULL,
               spectrum TEXT NOT NULL,
               molecules BLOB NOT NULL
             );
             DROP INDEX IF EXISTS census_groups_spectrum;",
        )
        .map_err(&e)?;
        let now = self.now()?;
        let key = config.to_string();
        let (mut spectrum_count, mut molecule_count) = (0u64, 0u64);
        for table in ["census_groups", "census_configurations"] {
            tx.execute(&format!("DELETE FROM {table} WHERE config = ?1"), [&key])
                .map_err(&e)?;
        }
        let mut done = 0u64;
        {
            let mut insert = tx
                .prepare(
                    "INSERT INTO census_groups (config, spectrum, molecules) VALUES (?1, ?2, ?3)",
                )
                .map_err(&e)?;
            for class in classes {
                if let Err(cut) = check(done) {
                    return Ok(Finished::new((0, 0), cut.into()));
                }
                let groups = class?;
                done += 1;
                for (spectrum, numbers) in &groups {
                    spectrum_count += 1;
                    molecule_count += numbers.len() as u64;
                    insert
                        .execute(params![key, spectrum, numbers_blob(numbers)])
                        .map_err(&e)?;
                }
            }
            tx.execute_batch(
                "CREATE UNIQUE INDEX census_groups_spectrum ON census_groups (config, spectrum);",
            )
            .map_err(&e)?;
            tx.execute(
                "INSERT INTO census_configurations (config, nb_atoms, width, nb_mol, ambiguous_spectra, ambiguous_molecules, report, created_at, updated_at)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?8)",
                params![
                    key,
                    config.atoms as i64,
                    config.width as i64,
                    config.molecule_count().unwrap_or(0) as i64,
                    spectrum_count as i64,
                    molecule_count as i64,
                    report_json,
                    now
                ],
            )
            .map_err(&e)?;
        }
        if let Err(cut) = check(done) {
            return Ok(Finished::new((0, 0), cut.into()));
        }
        tx.commit().map_err(&e)?;
        Ok(Finished::complete((spectrum_count, molecule_count)))
    }

    /// The census of `config` stored in this file, if any.
    pub fn census_status(&self, config: Config) -> Result<Option<CensusStatus>, Error> {
        if !self.has_table("census_configurations")? {
            return Ok(None);
        }
        let mut found = self.query(
            "SELECT nb_mol, ambiguous_spectra, ambiguous_molecules, report FROM census_configurations WHERE config = ?1",
            &[&config.to_string()],
            |r| {
                Ok(CensusStatus {
                    nb_mol: r.get::<_, i64>(0)? as u64,
                    ambiguous_spectra: r.get::<_, i64>(1)? as u64,
                    ambiguous_molecules: r.get::<_, i64>(2)? as u64,
                    report: r.get(3)?,
                })
            },
        )?;
        Ok(found.pop())
    }

    /// The stored census molecules with this (normalised) spectrum, by number
    /// (read through [`Store::with_spectrum`](super::Store::with_spectrum)),
    /// their rows traced under `tracer`'s rules.
    pub(super) fn census_with_spectrum(
        &self,
        config: Config,
        spectrum: &str,
        tracer: &mut Tracer,
    ) -> Result<Vec<MoleculeRow>, Error> {
        let blobs = self.query(
            "SELECT molecules FROM census_groups WHERE config = ?1 AND spectrum = ?2",
            &[&config.to_string(), &spectrum],
            |r| r.get::<_, Vec<u8>>(0),
        )?;
        let Some(blob) = blobs.first() else {
            return Ok(Vec::new());
        };
        self.blob_rows(config, spectrum, blob)?
            .into_iter()
            .map(|n| {
                let m = unrank(config, n)?;
                Ok(MoleculeRow::compute(tracer, &m, n))
            })
            .collect()
    }

    /// The numbers of a `census_groups` blob, checked: ascending molecule
    /// numbers of the configuration, two or more.
    fn blob_rows(&self, config: Config, spectrum: &str, blob: &[u8]) -> Result<Vec<u64>, Error> {
        let count = config.molecule_count().unwrap_or(u64::MAX);
        let v: Vec<u64> = blob
            .chunks_exact(8)
            .map(|c| u64::from_le_bytes(c.try_into().unwrap_or([0; 8])))
            .collect();
        match v.as_slice() {
            [first, .., last]
                if blob.len().is_multiple_of(8)
                    && v.windows(2).all(|w| w[0] < w[1])
                    && *first >= 1
                    && *last <= count =>
            {
                Ok(v)
            }
            _ => Err(Error::Damaged {
                path: self.path.clone(),
                detail: format!(
                    "the census group of {config} with spectrum {spectrum} is not a list of its molecules"
                ),
            }),
        }
    }

    /// Every stored ambiguous spectrum with its molecules' numbers, in spectrum
    /// order.
    pub(super) fn census_groups(&self, config: Config) -> Result<Vec<(String, Vec<u64>)>, Error> {
        let rows = self.query(
            "SELECT spectrum, molecules FROM census_groups INDEXED BY census_groups_spectrum
             WHERE config = ?1 ORDER BY spectrum",
            &[&config.to_string()],
            |r| Ok((r.get::<_, String>(0)?, r.get::<_, Vec<u8>>(1)?)),
        )?;
        rows.into_iter()
            .map(|(s, blob)| {
                let numbers = self.blob_rows(config, &s, &blob)?;
                Ok((s, numbers))
            })
            .collect()
    }
}
