//! Filling the catalogue: every molecule in number order, one transaction a
//! chunk, then the `spectrums` table.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc;

use rayon::prelude::*;
use rusqlite::params;

use crate::catalogue::rows::{INSERT_SQL, MoleculeRow, insert_row};
use crate::catalogue::{Catalogue, SANE_LIMIT, sql_err};
use crate::control::{Budget, Cut, Ended, Halt, stop_after};
use crate::error::{Error, quote};
use crate::rules::board::Molecule;
use crate::rules::config::Config;
use crate::rules::enumeration::Walk;
use crate::rules::ray::{Rules, Tracer};
use crate::rules::symmetry::Transform;
use crate::setting::{Job, Setting};

/// Options for [`Catalogue::explore`].
#[derive(Debug, Clone, Default)]
pub struct ExploreOptions {
    /// Delete what is stored for the configuration and start again.
    pub fresh: bool,
    /// Explore even above [`SANE_LIMIT`] molecules.
    pub force: bool,
    /// What stops it (Ctrl-C, a deadline): storing molecules stops after
    /// the chunk in hand, building the `spectrums` table at once (its one
    /// transaction is rolled back, and the next run builds it). Its faults:
    /// `unit-size` molecules a transaction, `stop-after` transactions (with
    /// every molecule stored by then, before the `spectrums` table is built).
    pub budget: Budget,
}

/// How an exploration ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
pub struct Explored {
    /// Molecules in the configuration (`molecules` in JSON).
    #[serde(rename = "molecules")]
    pub nb_mol: u64,
    /// Molecules stored before this run.
    pub resumed_from: u64,
    /// Molecules stored now.
    pub stored: u64,
    /// How it ended: complete once every molecule and the `spectrums`
    /// table are stored (in JSON `complete`, true or false).
    #[serde(rename = "complete", serialize_with = "is_complete")]
    pub ended: Ended,
    /// Whether it was already complete (nothing was done).
    pub already_complete: bool,
    /// Spectra shared by two molecules or more.
    pub ambiguous_spectra: u64,
}

/// An exploration as its JSON shows it: the configuration, the rules and
/// the catalogue file beside what it did, and the seconds taken.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct ExploreReport {
    /// The configuration.
    pub config: String,
    /// The ray rules (a catalogue's are [`RULES`](crate::catalogue::RULES)).
    pub rules: crate::rules::ray::Rules,
    /// The catalogue file.
    pub db: String,
    /// What the exploration did.
    #[serde(flatten)]
    pub explored: Explored,
    /// Seconds taken, to the millisecond.
    pub seconds: f64,
}

impl ExploreReport {
    /// The report of `explored`, of `config` into `db`, in `seconds`.
    pub fn new(config: Config, db: &str, explored: Explored, seconds: f64) -> ExploreReport {
        let (config, db) = (config.to_string(), db.to_string());
        let (rules, seconds) = (crate::catalogue::RULES, (seconds * 1000.0).round() / 1000.0);
        ExploreReport {
            config,
            rules,
            db,
            explored,
            seconds,
        }
    }
}

fn is_complete<S: serde::Serializer>(ended: &Ended, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_bool(ended.is_complete())
}

/// Progress of an exploration, for a progress bar.
#[derive(Debug, Clone, Copy)]
pub enum Progress {
    /// Molecules stored so far out of the total.
    Molecules(u64, u64),
    /// Building the spectrums table and the indexes.
    Spectra,
}

/// Catalogues larger than this many bytes are refused unless forced.
pub const SANE_BYTES: u64 = 20_000_000_000;

/// About how many bytes a row of `config` takes, on disk or in hand: the
/// molecule and the spectrum as text, the statistics, the index entry.
fn row_bytes(config: Config) -> u64 {
    (config.cells() + 2 * config.positions() + 150) as u64
}

impl Catalogue {
    /// The number of molecules of `config` when [`explore`](Self::explore)
    /// would take it: an error when it has too many to enumerate, or, without
    /// `force`, more than [`SANE_LIMIT`] or a catalogue of more than
    /// [`SANE_BYTES`]. Asking before opening a file
    /// leaves no empty catalogue behind a refusal.
    pub fn explorable(config: Config, force: bool) -> Result<u64, Error> {
        let nb_mol = config.molecule_count().ok_or_else(|| {
            Error::invalid(format!(
                "configuration {config} has too many molecules to enumerate"
            ))
        })?;
        if nb_mol > SANE_LIMIT && !force {
            return Err(Error::invalid(crate::text![
                format!(
                    "configuration {config} has {nb_mol} molecules, more than bbx explores without "
                ),
                Setting::Force,
                format!(" ({SANE_LIMIT})")
            ]));
        }
        let bytes = nb_mol.saturating_mul(row_bytes(config));
        if bytes > SANE_BYTES && !force {
            return Err(Error::invalid(crate::text![
                format!(
                    "configuration {config} would make a catalogue of about {} GB (each of its {nb_mol} rows holds a {}-character molecule), more than bbx writes without ",
                    bytes / 1_000_000_000,
                    config.cells()
                ),
                Setting::Force,
                format!(
                    " ({} GB); to count it without a catalogue, ",
                    SANE_BYTES / 1_000_000_000
                ),
                Job::Census(config.to_string())
            ]));
        }
        Ok(nb_mol)
    }

    /// Enumerates every molecule of `config` not stored yet, computes its row
    /// and stores it, then builds the `spectrums` table. `progress` is called
    /// after each chunk. Stopped by [`ExploreOptions::budget`], it says how
    /// ([`Explored::ended`]); what it committed stays, and the next run
    /// resumes after it.
    pub fn explore(
        &mut self,
        config: Config,
        options: &ExploreOptions,
        mut progress: impl FnMut(Progress),
    ) -> Result<Explored, Error> {
        let nb_mol = Catalogue::explorable(config, options.force)?;
        if self.read_only {
            return Err(Error::Internal(format!(
                "{}: explore on a catalogue opened read-only",
                self.path
            )));
        }
        if let Some(done) = self.start(config, nb_mol, options.fresh)? {
            return Ok(done);
        }
        let resumed_from = self.status(config)?.map_or(0, |s| s.stored);
        let mut explored = Explored {
            nb_mol,
            resumed_from,
            stored: resumed_from,
            ended: Ended::Complete,
            already_complete: false,
            ambiguous_spectra: 0,
        };
        let stored = self.store_molecules(config, &mut explored.stored, options, &mut progress);
        let built = stored.and_then(|()| {
            progress(Progress::Spectra);
            self.build_spectrums_or_stop(config, &options.budget)
        });
        match built {
            Ok(ambiguous) => explored.ambiguous_spectra = ambiguous,
            Err(Halt::Cut(cut)) => explored.ended = cut.into(),
            Err(Halt::Failed(e)) => return Err(e),
        }
        Ok(explored)
    }

    /// Clears what is stored of `config` when asked to start `fresh`, and
    /// then: a configuration found complete (its pages checked and its rows
    /// counted) is the exploration's answer; a new one is registered.
    fn start(
        &mut self,
        config: Config,
        nb_mol: u64,
        fresh: bool,
    ) -> Result<Option<Explored>, Error> {
        let e = sql_err(&self.path);
        let key = config.to_string();
        if fresh {
            let tx = self.conn.transaction().map_err(&e)?;
            for table in ["molecules", "spectrums", "configurations"] {
                tx.execute(&format!("DELETE FROM {table} WHERE config = ?1"), [&key])
                    .map_err(&e)?;
            }
            tx.commit().map_err(&e)?;
        }
        let Some(s) = self.status(config)? else {
            let now = self.now()?;
            self.conn
                .execute(
                    "INSERT INTO configurations (config, nb_atoms, width, nb_mol, complete, created_at, updated_at)
                     VALUES (?1, ?2, ?3, ?4, 0, ?5, ?5)",
                    params![key, config.atoms as i64, config.width as i64, nb_mol as i64, now],
                )
                .map_err(&e)?;
            return Ok(None);
        };
        if !s.complete {
            return Ok(None);
        }
        // A damaged file can still say complete: check every page, and
        // count what is there.
        let check: String = self
            .conn
            .query_row("PRAGMA quick_check(1)", [], |r| r.get(0))
            .map_err(&e)?;
        let damaged = |detail: String| Error::Damaged {
            path: self.path.clone(),
            detail,
        };
        if check != "ok" {
            return Err(damaged(
                check.split_whitespace().collect::<Vec<_>>().join(" "),
            ));
        }
        let rows = self.count_rows("molecules", config)?;
        if rows != nb_mol {
            return Err(damaged(format!(
                "it says {config} is complete but holds {rows} of its {nb_mol} molecules"
            )));
        }
        Ok(Some(Explored {
            nb_mol,
            resumed_from: s.stored,
            stored: s.stored,
            ended: Ended::Complete,
            already_complete: true,
            ambiguous_spectra: self.count_rows("spectrums", config)?,
        }))
    }

    /// Stores the molecules after `stored` (updated as chunks commit), one
    /// transaction a chunk, computed on other threads while this one
    /// writes; stops after the chunk in hand when the budget says so.
    fn store_molecules(
        &mut self,
        config: Config,
        stored: &mut u64,
        options: &ExploreOptions,
        progress: &mut impl FnMut(Progress),
    ) -> Result<(), Halt> {
        let walk = Walk::new(config)?;
        let nb_mol = walk.count();
        let chunk = options.budget.faults.unit_size.unwrap_or_else(|| {
            // About a second of work, and at most 64 MB of rows in hand.
            (64_000_000 / row_bytes(config)).clamp(1, 50_000)
        });
        let budget = options.budget.clone();
        let (tx, rx) = mpsc::sync_channel::<Result<Vec<MoleculeRow>, Cut>>(2);
        let first = *stored + 1;
        let producer = std::thread::spawn(move || {
            let mut first = first;
            while first <= nb_mol {
                let last = (first + chunk - 1).min(nb_mol);
                let rows = compute_rows(config, &walk, first, last, &budget);
                let cut = rows.is_err();
                if tx.send(rows).is_err() || cut {
                    break;
                }
                first = last + 1;
            }
        });
        progress(Progress::Molecules(*stored, nb_mol));
        let key = config.to_string();
        let check = |chunks: u64| {
            options
                .budget
                .check()
                .and(stop_after(options.budget.faults.stop_after, chunks))
        };
        let mut result = check(0).map_err(Halt::Cut);
        let mut chunks = 0;
        while result.is_ok()
            && let Ok(rows) = rx.recv()
        {
            result = rows.map_err(Halt::Cut).and_then(|rows| {
                self.insert_rows(&key, &rows)?;
                *stored = rows.last().map_or(*stored, |r| r.number);
                chunks += 1;
                progress(Progress::Molecules(*stored, nb_mol));
                check(chunks).map_err(Halt::Cut)
            });
        }
        drop(rx);
        let _ = producer.join();
        if result.is_ok() && *stored < nb_mol {
            return Err(Halt::Failed(Error::Internal(format!(
                "the rows of {config} after molecule {stored} were never computed"
            ))));
        }
        result
    }

    /// [`build_spectrums`](Self::build_spectrums), interrupting SQLite when
    /// the budget is spent: the table is built in one transaction, which
    /// then rolls back, and the next run builds it.
    fn build_spectrums_or_stop(&mut self, config: Config, budget: &Budget) -> Result<u64, Halt> {
        let finished = Arc::new(AtomicBool::new(false));
        let watcher = {
            let interrupt = self.conn.get_interrupt_handle();
            let finished = Arc::clone(&finished);
            let budget = budget.clone();
            std::thread::spawn(move || {
                while !finished.load(Ordering::SeqCst) {
                    if let Err(cut) = budget.check() {
                        interrupt.interrupt();
                        return Some(cut);
                    }
                    std::thread::sleep(std::time::Duration::from_millis(50));
                }
                None
            })
        };
        let built = self.build_spectrums(config);
        finished.store(true, Ordering::SeqCst);
        let cut = watcher.join().ok().flatten();
        match (built, cut.or_else(|| budget.check().err())) {
            (Err(Error::Database { ref source, .. }), Some(cut))
                if source.sqlite_error_code()
                    == Some(rusqlite::ErrorCode::OperationInterrupted) =>
            {
                Err(Halt::Cut(cut))
            }
            (built, _) => built.map_err(Halt::Failed),
        }
    }

    fn insert_rows(&mut self, key: &str, rows: &[MoleculeRow]) -> Result<(), Error> {
        let e = sql_err(&self.path);
        let now = self.now()?;
        let tx = self.conn.transaction().map_err(&e)?;
        let mut stmt = tx.prepare_cached(&INSERT_SQL).map_err(&e)?;
        for r in rows {
            insert_row(&mut stmt, key, r, &now).map_err(&e)?;
        }
        drop(stmt);
        tx.execute(
            "UPDATE configurations SET updated_at = ?2 WHERE config = ?1",
            params![key, now],
        )
        .map_err(&e)?;
        tx.commit().map_err(&e)
    }

    /// Builds the indexes and the `spectrums` table, and marks the configuration
    /// complete; returns the number of ambiguous spectra.
    fn build_spectrums(&mut self, config: Config) -> Result<u64, Error> {
        let e = sql_err(&self.path);
        let key = config.to_string();
        self.conn
            .execute_batch(
                "CREATE INDEX IF NOT EXISTS molecules_spectrum ON molecules (config, spectrum);
                 CREATE INDEX IF NOT EXISTS molecules_canonical ON molecules (config, canonical_number);
                 CREATE INDEX IF NOT EXISTS spectrums_nb_mol ON spectrums (config, nb_mol);",
            )
            .map_err(&e)?;
        // Spectra shared by two molecules or more (a scan of the spectrum
        // index in order: no sorting).
        let spectra = self.query(
            "SELECT spectrum, count(*) FROM molecules INDEXED BY molecules_spectrum
             WHERE config = ?1 GROUP BY spectrum HAVING count(*) > 1",
            &[&key],
            |r| Ok((r.get::<_, String>(0)?, r.get::<_, i64>(1)?)),
        )?;
        // Each is stamped by the member first in the order of canonical
        // numbers, then transforms, then numbers: the canonical molecules'
        // groups taken in increasing canonical number, each member in
        // transform order, and the first to reach a spectrum stamps it.
        let mut stamped = Vec::with_capacity(spectra.len());
        for (spectrum, n) in spectra {
            let members = self.query(
                "SELECT canonical_number, transform, number FROM molecules INDEXED BY molecules_spectrum
                 WHERE config = ?1 AND spectrum = ?2",
                &[&key, &spectrum],
                |r| Ok((r.get::<_, i64>(0)?, r.get::<_, String>(1)?, r.get::<_, i64>(2)?)),
            )?;
            let mut first = None;
            for (canonical, t, number) in members {
                let transform = Transform::ALL
                    .iter()
                    .position(|x| x.name() == t)
                    .ok_or_else(|| Error::Damaged {
                        path: self.path.clone(),
                        detail: format!(
                            "a molecule of {key} has transform {}, which is none of the eight",
                            quote(&t)
                        ),
                    })?;
                let member = (canonical, transform, number);
                first = Some(first.map_or(member, |f: (i64, usize, i64)| f.min(member)));
            }
            let (canonical, transform, _) = first.unwrap_or((0, 0, 0));
            stamped.push((spectrum, n, Transform::ALL[transform].name(), canonical));
        }
        let now = self.now()?;
        let tx = self.conn.transaction().map_err(&e)?;
        tx.execute("DELETE FROM spectrums WHERE config = ?1", [&key])
            .map_err(&e)?;
        for (spectrum, n, transform, canonical) in &stamped {
            tx.prepare_cached(
                "INSERT INTO spectrums (config, spectrum, nb_mol, transform, canonical_number, created_at, updated_at)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?6)",
            )
            .and_then(|mut stmt| stmt.execute(params![key, spectrum, n, transform, canonical, now]))
            .map_err(&e)?;
        }
        tx.execute(
            "UPDATE configurations SET complete = 1, updated_at = ?2 WHERE config = ?1",
            params![key, now],
        )
        .map_err(&e)?;
        tx.commit().map_err(&e)?;
        Ok(stamped.len() as u64)
    }

    fn count_rows(&self, table: &str, config: Config) -> Result<u64, Error> {
        self.conn
            .query_row(
                &format!("SELECT count(*) FROM {table} WHERE config = ?1"),
                [config.to_string()],
                |r| r.get::<_, i64>(0),
            )
            .map(|n| n as u64)
            .map_err(sql_err(&self.path))
    }
}

/// The rows of molecules `first..=last`, computed in parallel ([`Walk`]);
/// none when the budget is spent on the way.
fn compute_rows(
    config: Config,
    walk: &Walk,
    first: u64,
    last: u64,
    budget: &Budget,
) -> Result<Vec<MoleculeRow>, Cut> {
    let numbering = walk.numbering();
    let chunks: Vec<Vec<MoleculeRow>> = walk
        .chunks(first..=last, 4096)
        .map(|chunk| {
            let mut tracer = Tracer::new(config.shape(), Rules::Standard);
            let mut out = Vec::with_capacity(chunk.len());
            chunk
                .visit(budget, |number, atoms, _| {
                    let m = Molecule::from_sorted_unchecked(config.shape(), atoms.to_vec());
                    let (c, t) = numbering.canonical(&m);
                    out.push(MoleculeRow::with_canonical(&mut tracer, &m, number, c, t));
                })
                .map(|()| out)
        })
        .collect::<Result<_, Cut>>()?;
    Ok(chunks.concat())
}
