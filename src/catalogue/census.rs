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
//! * `census_molecules`: the `molecules` columns, for the molecules of
//!   ambiguous spectra only;
//! * `census_spectrums`: the `spectrums` columns, one row per ambiguous
//!   spectrum.
//!
//! A file takes a census only when it holds nothing else: no catalogue
//! (complete or not) and no other configuration's census, so storing never
//! modifies anyone's data but an earlier census of the same configuration.

use rusqlite::{OptionalExtension, Transaction, TransactionBehavior, params};

use crate::catalogue::rows::{MoleculeRow, SpectrumRow, insert_row, insert_sql, row_tables_sql};
use crate::catalogue::{Catalogue, sql_err};
use crate::error::Error;
use crate::rules::config::Config;

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
        self.reading(|| {
            self.conn
                .query_row(
                    "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = ?1",
                    [name],
                    |r| r.get::<_, i64>(0),
                )
                .map(|n| n > 0)
                .map_err(sql_err(&self.path))
        })
    }

    /// Refuses, with the reason, when this file must not take a census of
    /// `config`: it holds a catalogue (of any configuration, complete or not)
    /// or another configuration's census.
    pub fn check_census_target(&self, config: Config) -> Result<(), Error> {
        self.reading(|| self.check_census_target_once(config))
    }

    fn check_census_target_once(&self, config: Config) -> Result<(), Error> {
        let e = sql_err(&self.path);
        let mut explored: Vec<(String, bool)> = Vec::new();
        {
            let mut stmt = self
                .conn
                .prepare("SELECT config, complete FROM configurations ORDER BY config")
                .map_err(&e)?;
            let rows = stmt
                .query_map([], |r| Ok((r.get::<_, String>(0)?, r.get::<_, bool>(1)?)))
                .map_err(&e)?;
            for r in rows {
                explored.push(r.map_err(&e)?);
            }
        }
        if let Some((c, complete)) = explored.first() {
            return Err(Error::Invalid(if *c == config.to_string() && *complete {
                format!(
                    "{}: holds the complete catalogue of {config}, which has every group already: `bbx stats {config} --db {}` reads it; store a census in another file",
                    self.path, self.path
                )
            } else {
                format!(
                    "{}: holds {} of {c}; a census is stored only in a file of its own: give another --db",
                    self.path,
                    if *complete {
                        "the catalogue"
                    } else {
                        "an unfinished exploration"
                    }
                )
            }));
        }
        if self.has_table("census_configurations")? {
            let other: Option<String> = self
                .conn
                .query_row(
                    "SELECT config FROM census_configurations WHERE config <> ?1 LIMIT 1",
                    [config.to_string()],
                    |r| r.get(0),
                )
                .optional()
                .map_err(&e)?;
            if let Some(other) = other {
                return Err(Error::Invalid(format!(
                    "{}: holds the census of {other}; a census is stored only in a file of its own: give another --db",
                    self.path
                )));
            }
        }
        Ok(())
    }

    /// Stores the census of `config`: its report (JSON) and, class by class,
    /// its ambiguous spectra and their molecules, replacing an earlier census
    /// of it, all in one transaction that first checks
    /// [`check_census_target`](Self::check_census_target) again: the file
    /// holds the census whole or is as it was. `stopped(n)` is asked before
    /// each class, `n` classes in, and before the commit (`n` being then
    /// every class): when it says so the transaction is rolled back and
    /// `None` returned. Returns the numbers of spectra and molecules stored.
    pub fn store_census<I>(
        &mut self,
        config: Config,
        report_json: &str,
        classes: I,
        mut stopped: impl FnMut(u64) -> bool,
    ) -> Result<Option<(u64, u64)>, Error>
    where
        I: IntoIterator<Item = Result<(Vec<SpectrumRow>, Vec<MoleculeRow>), Error>>,
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
        let tables = row_tables_sql(
            "CREATE TABLE IF NOT EXISTS",
            "census_molecules",
            "census_spectrums",
        );
        tx.execute_batch(&format!(
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
             {tables}
             CREATE INDEX IF NOT EXISTS census_molecules_spectrum ON census_molecules (config, spectrum);"
        ))
        .map_err(&e)?;
        let now = self.now()?;
        let key = config.to_string();
        let (mut spectrum_count, mut molecule_count) = (0u64, 0u64);
        for table in [
            "census_molecules",
            "census_spectrums",
            "census_configurations",
        ] {
            tx.execute(&format!("DELETE FROM {table} WHERE config = ?1"), [&key])
                .map_err(&e)?;
        }
        let mut done = 0u64;
        {
            let mut stmt = tx
                .prepare(
                    "INSERT INTO census_spectrums (config, spectrum, nb_mol, transform, canonical_number, created_at, updated_at)
                     VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?6)",
                )
                .map_err(&e)?;
            let mut rows = tx.prepare(&insert_sql("census_molecules")).map_err(&e)?;
            for class in classes {
                if stopped(done) {
                    return Ok(None);
                }
                let (spectra, molecules) = class?;
                done += 1;
                spectrum_count += spectra.len() as u64;
                molecule_count += molecules.len() as u64;
                for s in &spectra {
                    stmt.execute(params![
                        key,
                        s.spectrum,
                        s.nb_mol as i64,
                        s.transform,
                        s.canonical_number as i64,
                        now
                    ])
                    .map_err(&e)?;
                }
                for r in &molecules {
                    insert_row(&mut rows, &key, r, &now).map_err(&e)?;
                }
            }
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
        if stopped(done) {
            return Ok(None);
        }
        tx.commit().map_err(&e)?;
        Ok(Some((spectrum_count, molecule_count)))
    }

    /// The census of `config` stored in this file, if any.
    pub fn census_status(&self, config: Config) -> Result<Option<CensusStatus>, Error> {
        if !self.has_table("census_configurations")? {
            return Ok(None);
        }
        self.reading(|| {
            self.conn
                .query_row(
                    "SELECT nb_mol, ambiguous_spectra, ambiguous_molecules, report FROM census_configurations WHERE config = ?1",
                    [config.to_string()],
                    |r| {
                        Ok(CensusStatus {
                            nb_mol: r.get::<_, i64>(0)? as u64,
                            ambiguous_spectra: r.get::<_, i64>(1)? as u64,
                            ambiguous_molecules: r.get::<_, i64>(2)? as u64,
                            report: r.get(3)?,
                        })
                    },
                )
                .optional()
                .map_err(sql_err(&self.path))
        })
    }

    fn census_select(
        &self,
        filter: &str,
        args: &[&dyn rusqlite::ToSql],
    ) -> Result<Vec<MoleculeRow>, Error> {
        self.select_from("census_molecules", filter, args)
    }

    /// The stored census molecules with this (normalised) spectrum, by number
    /// (read through [`Store::with_spectrum`](super::Store::with_spectrum)).
    pub(super) fn census_with_spectrum(
        &self,
        config: Config,
        spectrum: &str,
    ) -> Result<Vec<MoleculeRow>, Error> {
        let key = config.to_string();
        self.census_select(
            "config = ?1 AND spectrum = ?2 ORDER BY number",
            &[&key, &spectrum],
        )
    }

    /// Every stored ambiguous spectrum with its molecules' numbers, in spectrum
    /// order.
    pub(super) fn census_groups(&self, config: Config) -> Result<Vec<(String, Vec<u64>)>, Error> {
        self.numbers_by_spectrum("census_molecules", config)
    }
}
