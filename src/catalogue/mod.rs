//! The catalogue: every molecule of a configuration, its spectrum and
//! statistics, stored in SQLite, and the spectra shared by several molecules.
//!
//! The tables follow the seed's SQLite version, in snake_case:
//!
//! * `configurations`: one row per configuration explored (`config`, `nb_atoms`,
//!   `width`, `nb_mol`, `complete`, timestamps);
//! * `molecules`: one row per molecule (`config`, `number`, `canonical_number`,
//!   `molecule`, `spectrum`, `transform`, the 17 statistics, timestamps);
//! * `spectrums`: one row per spectrum shared by two molecules or more
//!   (`config`, `spectrum`, `nb_mol`, `transform`, `canonical_number`).
//!
//! [`Catalogue::explore`] writes molecules in number order, one transaction per
//! chunk, so an interrupted or killed exploration loses nothing committed and
//! the next one resumes after the last committed molecule. Every row depends
//! only on its number, so a resumed catalogue is identical, row for row, to one
//! built in one go. The `spectrums` table is rebuilt in one transaction once the
//! last molecule is in.
//!
//! ```
//! use bbx::catalogue::{Catalogue, ExploreOptions};
//! let mut c = Catalogue::open_in_memory().unwrap();
//! let config = "A2_B4".parse().unwrap();
//! let done = c.explore(config, &ExploreOptions::default(), |_| {}).unwrap();
//! assert!(done.complete);
//! let row = c.molecule(config, 2).unwrap().unwrap();
//! assert_eq!(row.spectrum, "@&ab@&@cbac@&@&@");
//! ```

use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc;

mod report;

use rayon::prelude::*;
use rusqlite::{Connection, OptionalExtension, params};

use crate::error::Error;
use crate::rules::board::Molecule;
use crate::rules::config::Config;
use crate::rules::enumeration::{Numbering, canonical, next_combination, unrank};
use crate::rules::ray::{Rules, Tracer};
use crate::rules::spectrum::{Analysis, Stats};
use crate::rules::symmetry::Transform;
use crate::tables::AmbiguityRow;

/// The schema version stored in `PRAGMA user_version` (with the application id
/// `bbx1` in `PRAGMA application_id`).
pub const SCHEMA_VERSION: i32 = 1;
const APPLICATION_ID: i32 = 0x6262_7831; // "bbx1"

/// Configurations with more molecules than this are refused unless forced.
pub const SANE_LIMIT: u64 = 50_000_000;

const STAT_COLUMNS: [&str; 17] = [
    "absorbed_number",
    "absorbed_max_length",
    "absorbed_max_turns",
    "absorbed_tot_length",
    "absorbed_tot_turns",
    "reflected_number",
    "reflected_edge",
    "reflected_deep",
    "reflected_max_length",
    "reflected_max_turns",
    "reflected_tot_length",
    "reflected_tot_turns",
    "out_number",
    "out_max_length",
    "out_max_turns",
    "out_tot_length",
    "out_tot_turns",
];

/// One row of the `molecules` table.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct MoleculeRow {
    /// The molecule's number (1-based rank).
    pub number: u64,
    /// The smallest number in its enantiomer group.
    pub canonical_number: u64,
    /// Linear form.
    pub molecule: String,
    /// Normalised spectrum.
    pub spectrum: String,
    /// The transform mapping the canonical molecule onto this one.
    pub transform: String,
    /// The 17 statistics.
    pub stats: Stats,
}

impl MoleculeRow {
    /// Computes the row of molecule `m`, numbered `number`, with `tracer` (of the
    /// molecule's width, standard rules).
    pub fn compute(tracer: &mut Tracer, m: &Molecule, number: u64) -> MoleculeRow {
        let (canonical_number, transform) = canonical(m).unwrap_or((number, Transform::Id));
        MoleculeRow::with_canonical(tracer, m, number, canonical_number, transform)
    }

    fn with_canonical(
        tracer: &mut Tracer,
        m: &Molecule,
        number: u64,
        canonical_number: u64,
        transform: Transform,
    ) -> MoleculeRow {
        tracer.load(m);
        let a = Analysis::from_tracer(tracer);
        MoleculeRow {
            number,
            canonical_number,
            molecule: m.to_string(),
            spectrum: a.spectrum.to_string(),
            transform: transform.name().to_string(),
            stats: a.stats,
        }
    }
}

/// One row of the `spectrums` table.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct SpectrumRow {
    /// The normalised spectrum.
    pub spectrum: String,
    /// How many molecules share it.
    pub nb_mol: u64,
    /// The transform stamped on it (see SPEC: from the lowest-numbered canonical
    /// molecule whose spectrum is ambiguous).
    pub transform: String,
    /// The canonical number stamped on it.
    pub canonical_number: u64,
}

/// What the catalogue knows of a configuration.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Status {
    /// Molecules in the configuration.
    pub nb_mol: u64,
    /// Molecules stored so far (they are stored in number order).
    pub stored: u64,
    /// Whether exploration finished, spectrums table included.
    pub complete: bool,
}

/// Options for [`Catalogue::explore`].
#[derive(Debug, Default)]
pub struct ExploreOptions {
    /// Delete what is stored for the configuration and start again.
    pub fresh: bool,
    /// Explore even above [`SANE_LIMIT`] molecules.
    pub force: bool,
    /// Molecules per transaction (0: a default that commits about every second).
    pub chunk: u64,
    /// Set to stop after the chunk in hand (Ctrl-C).
    pub stop: Option<&'static AtomicBool>,
}

/// How an exploration ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Explored {
    /// Molecules in the configuration.
    pub nb_mol: u64,
    /// Molecules stored before this run.
    pub resumed_from: u64,
    /// Molecules stored now.
    pub stored: u64,
    /// Whether the configuration is complete (false when stopped).
    pub complete: bool,
    /// Whether it was already complete (nothing was done).
    pub already_complete: bool,
    /// Spectra shared by two molecules or more.
    pub ambiguous_spectra: u64,
}

/// Progress of an exploration, for a progress bar.
#[derive(Debug, Clone, Copy)]
pub enum Progress {
    /// Molecules stored so far out of the total.
    Molecules(u64, u64),
    /// Building the spectrums table and the indexes.
    Spectra,
}

/// A bbx catalogue in an SQLite database.
#[derive(Debug)]
pub struct Catalogue {
    conn: Connection,
    path: String,
}

fn sql_err(path: &str) -> impl Fn(rusqlite::Error) -> Error + use<> {
    let path = path.to_string();
    move |e| Error::Invalid(format!("{path}: {e}"))
}

impl Catalogue {
    /// Opens (or creates) the catalogue in file `path`. Refuses a file that is
    /// not an SQLite database, an SQLite database that is not bbx's, or a bbx
    /// catalogue of another schema version.
    pub fn open(path: impl AsRef<Path>) -> Result<Catalogue, Error> {
        let p = path.as_ref().display().to_string();
        let conn = Connection::open(path.as_ref()).map_err(|e| {
            Error::Invalid(format!(
                "{p}: cannot open the catalogue: {e} (is the directory writable?)"
            ))
        })?;
        Catalogue::init(conn, p)
    }

    /// A catalogue held in memory (for computing without a file).
    pub fn open_in_memory() -> Result<Catalogue, Error> {
        let conn = Connection::open_in_memory().map_err(sql_err("memory"))?;
        Catalogue::init(conn, "memory".into())
    }

    /// Opens an existing catalogue read-only; `None` when the file does not exist.
    pub fn open_existing(path: impl AsRef<Path>) -> Result<Option<Catalogue>, Error> {
        if !path.as_ref().exists() {
            return Ok(None);
        }
        Catalogue::open(path).map(Some)
    }

    fn init(conn: Connection, path: String) -> Result<Catalogue, Error> {
        let e = sql_err(&path);
        let not_bbx = |detail: &str| {
            Error::Invalid(format!(
                "{path}: not a bbx catalogue ({detail}); give another file with --db, or remove this one"
            ))
        };
        let app: i32 = conn
            .query_row("PRAGMA application_id", [], |r| r.get(0))
            .map_err(|err| not_bbx(&err.to_string()))?;
        let version: i32 = conn
            .query_row("PRAGMA user_version", [], |r| r.get(0))
            .map_err(&e)?;
        let tables: i64 = conn
            .query_row(
                "SELECT count(*) FROM sqlite_master WHERE type = 'table'",
                [],
                |r| r.get(0),
            )
            .map_err(&e)?;
        if app == 0 && tables > 0 {
            return Err(not_bbx("it holds other tables"));
        }
        if app != 0 && app != APPLICATION_ID {
            return Err(not_bbx("another application's database"));
        }
        if app == APPLICATION_ID && version != SCHEMA_VERSION {
            return Err(Error::Invalid(format!(
                "{path}: a bbx catalogue of schema version {version}, but this bbx reads version {SCHEMA_VERSION}: rebuild it with `bbx explore … --db` on a new file"
            )));
        }
        if app == 0 {
            // Larger pages suit long tables of short rows; only possible while empty.
            conn.execute_batch("PRAGMA page_size = 16384;")
                .map_err(&e)?;
        }
        // A rollback journal writes appended rows once (a write-ahead log writes
        // them twice: measured 3.5 s against 3.2 s for A4_B8); readers still read
        // between commits, waiting out a commit with the busy timeout. The
        // sorter may use threads to build the indexes.
        conn.execute_batch(
            "PRAGMA journal_mode = DELETE; PRAGMA synchronous = NORMAL; PRAGMA busy_timeout = 5000;
             PRAGMA cache_size = -262144; PRAGMA temp_store = MEMORY; PRAGMA threads = 4; PRAGMA mmap_size = 1073741824;",
        )
        .map_err(&e)?;
        if app == 0 {
            let stats: String = STAT_COLUMNS
                .iter()
                .map(|c| format!("  {c} INTEGER NOT NULL,\n"))
                .collect();
            conn.execute_batch(&format!(
                "BEGIN;
                 PRAGMA application_id = {APPLICATION_ID};
                 PRAGMA user_version = {SCHEMA_VERSION};
                 CREATE TABLE configurations (
                   config TEXT PRIMARY KEY,
                   nb_atoms INTEGER NOT NULL,
                   width INTEGER NOT NULL,
                   nb_mol INTEGER NOT NULL,
                   complete INTEGER NOT NULL DEFAULT 0,
                   created_at TEXT NOT NULL,
                   updated_at TEXT NOT NULL
                 );
                 CREATE TABLE molecules (
                   config TEXT NOT NULL,
                   number INTEGER NOT NULL,
                   canonical_number INTEGER NOT NULL,
                   molecule TEXT NOT NULL,
                   spectrum TEXT NOT NULL,
                   transform TEXT NOT NULL,
                 {stats}  created_at TEXT NOT NULL,
                   updated_at TEXT NOT NULL,
                   PRIMARY KEY (config, number)
                 ) WITHOUT ROWID;
                 CREATE TABLE spectrums (
                   config TEXT NOT NULL,
                   spectrum TEXT NOT NULL,
                   nb_mol INTEGER NOT NULL,
                   transform TEXT NOT NULL,
                   canonical_number INTEGER NOT NULL,
                   created_at TEXT NOT NULL,
                   updated_at TEXT NOT NULL,
                   PRIMARY KEY (config, spectrum)
                 ) WITHOUT ROWID;
                 COMMIT;"
            ))
            .map_err(&e)?;
        }
        Ok(Catalogue { conn, path })
    }

    /// The file this catalogue lives in.
    pub fn path(&self) -> &str {
        &self.path
    }

    /// The underlying connection, for queries of one's own.
    pub fn connection(&self) -> &Connection {
        &self.conn
    }

    fn now(&self) -> Result<String, Error> {
        self.conn
            .query_row("SELECT strftime('%Y-%m-%dT%H:%M:%fZ', 'now')", [], |r| {
                r.get(0)
            })
            .map_err(sql_err(&self.path))
    }

    /// What is stored of `config`, if anything.
    pub fn status(&self, config: Config) -> Result<Option<Status>, Error> {
        let e = sql_err(&self.path);
        let key = config.to_string();
        let row: Option<(i64, bool)> = self
            .conn
            .query_row(
                "SELECT nb_mol, complete FROM configurations WHERE config = ?1",
                [&key],
                |r| Ok((r.get(0)?, r.get(1)?)),
            )
            .optional()
            .map_err(&e)?;
        let Some((nb_mol, complete)) = row else {
            return Ok(None);
        };
        let stored: Option<i64> = self
            .conn
            .query_row(
                "SELECT max(number) FROM molecules WHERE config = ?1",
                [&key],
                |r| r.get(0),
            )
            .map_err(&e)?;
        Ok(Some(Status {
            nb_mol: nb_mol as u64,
            stored: stored.unwrap_or(0) as u64,
            complete,
        }))
    }

    /// Enumerates every molecule of `config` not stored yet, computes its row
    /// and stores it, then builds the `spectrums` table. `progress` is called
    /// after each chunk.
    pub fn explore(
        &mut self,
        config: Config,
        options: &ExploreOptions,
        mut progress: impl FnMut(Progress),
    ) -> Result<Explored, Error> {
        let e = sql_err(&self.path);
        let nb_mol = config.molecule_count().ok_or_else(|| {
            Error::Invalid(format!(
                "configuration {config} has too many molecules to enumerate"
            ))
        })?;
        if nb_mol > SANE_LIMIT && !options.force {
            return Err(Error::Invalid(format!(
                "configuration {config} has {nb_mol} molecules, more than bbx explores without --force ({SANE_LIMIT})"
            )));
        }
        let key = config.to_string();
        if options.fresh {
            let tx = self.conn.transaction().map_err(&e)?;
            for table in ["molecules", "spectrums", "configurations"] {
                tx.execute(&format!("DELETE FROM {table} WHERE config = ?1"), [&key])
                    .map_err(&e)?;
            }
            tx.commit().map_err(&e)?;
        }
        if let Some(s) = self.status(config)? {
            if s.complete {
                let ambiguous = self.count_spectra(config)?;
                return Ok(Explored {
                    nb_mol,
                    resumed_from: s.stored,
                    stored: s.stored,
                    complete: true,
                    already_complete: true,
                    ambiguous_spectra: ambiguous,
                });
            }
        } else {
            let now = self.now()?;
            self.conn
                .execute(
                    "INSERT INTO configurations (config, nb_atoms, width, nb_mol, complete, created_at, updated_at)
                     VALUES (?1, ?2, ?3, ?4, 0, ?5, ?5)",
                    params![key, config.atoms as i64, config.width as i64, nb_mol as i64, now],
                )
                .map_err(&e)?;
        }
        let resumed_from = self.status(config)?.map_or(0, |s| s.stored);
        let chunk = if options.chunk > 0 {
            options.chunk
        } else {
            50_000
        };
        // Compute chunks on other threads while this one writes.
        let (tx, rx) = mpsc::sync_channel::<Vec<MoleculeRow>>(2);
        let stop = options.stop;
        let producer = std::thread::spawn(move || {
            let mut first = resumed_from + 1;
            while first <= nb_mol {
                if stop.is_some_and(|s| s.load(Ordering::SeqCst)) {
                    break;
                }
                let last = (first + chunk - 1).min(nb_mol);
                let rows = compute_rows(config, first, last);
                if tx.send(rows).is_err() {
                    break;
                }
                first = last + 1;
            }
        });
        let mut stored = resumed_from;
        progress(Progress::Molecules(stored, nb_mol));
        let result = (|| -> Result<(), Error> {
            for rows in rx.iter() {
                self.insert_rows(&key, &rows)?;
                stored = rows.last().map_or(stored, |r| r.number);
                progress(Progress::Molecules(stored, nb_mol));
                if stop.is_some_and(|s| s.load(Ordering::SeqCst)) {
                    break;
                }
            }
            Ok(())
        })();
        drop(rx);
        let _ = producer.join();
        result?;
        if stored < nb_mol {
            return Ok(Explored {
                nb_mol,
                resumed_from,
                stored,
                complete: false,
                already_complete: false,
                ambiguous_spectra: 0,
            });
        }
        progress(Progress::Spectra);
        let ambiguous = self.build_spectrums(config)?;
        Ok(Explored {
            nb_mol,
            resumed_from,
            stored,
            complete: true,
            already_complete: false,
            ambiguous_spectra: ambiguous,
        })
    }

    fn insert_rows(&mut self, key: &str, rows: &[MoleculeRow]) -> Result<(), Error> {
        let e = sql_err(&self.path);
        let now = self.now()?;
        let tx = self.conn.transaction().map_err(&e)?;
        {
            let placeholders: Vec<String> = (1..=25).map(|i| format!("?{i}")).collect();
            let sql = format!(
                "INSERT INTO molecules (config, number, canonical_number, molecule, spectrum, transform, {}, created_at, updated_at) VALUES ({})",
                STAT_COLUMNS.join(", "),
                placeholders.join(", ")
            );
            let mut stmt = tx.prepare_cached(&sql).map_err(&e)?;
            for r in rows {
                let s = r.stats.named();
                stmt.execute(params![
                    key,
                    r.number as i64,
                    r.canonical_number as i64,
                    r.molecule,
                    r.spectrum,
                    r.transform,
                    s[0].1,
                    s[1].1,
                    s[2].1,
                    s[3].1,
                    s[4].1,
                    s[5].1,
                    s[6].1,
                    s[7].1,
                    s[8].1,
                    s[9].1,
                    s[10].1,
                    s[11].1,
                    s[12].1,
                    s[13].1,
                    s[14].1,
                    s[15].1,
                    s[16].1,
                    now,
                    now
                ])
                .map_err(&e)?;
            }
            tx.execute(
                "UPDATE configurations SET updated_at = ?2 WHERE config = ?1",
                params![key, now],
            )
            .map_err(&e)?;
        }
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
        // Spectra shared by two molecules or more, with their molecules.
        struct Member {
            spectrum: usize,
            canonical: u64,
            transform: usize,
            number: u64,
        }
        let spectra: Vec<(String, u64)>;
        let mut members: Vec<Member> = Vec::new();
        {
            // A scan of the spectrum index in order: no sorting.
            let mut stmt = self
                .conn
                .prepare(
                    "SELECT spectrum, count(*) FROM molecules INDEXED BY molecules_spectrum
                     WHERE config = ?1 GROUP BY spectrum HAVING count(*) > 1",
                )
                .map_err(&e)?;
            let rows = stmt
                .query_map([&key], |r| {
                    Ok((r.get::<_, String>(0)?, r.get::<_, i64>(1)? as u64))
                })
                .map_err(&e)?;
            spectra = rows.collect::<Result<Vec<_>, _>>().map_err(&e)?;
            let mut stmt = self
                .conn
                .prepare(
                    "SELECT number, canonical_number, transform FROM molecules INDEXED BY molecules_spectrum
                     WHERE config = ?1 AND spectrum = ?2",
                )
                .map_err(&e)?;
            for (idx, (s, _)) in spectra.iter().enumerate() {
                let mut rows = stmt.query(params![key, s]).map_err(&e)?;
                while let Some(r) = rows.next().map_err(&e)? {
                    let t: String = r.get(2).map_err(&e)?;
                    let transform = Transform::ALL
                        .iter()
                        .position(|x| x.name() == t)
                        .unwrap_or(0);
                    members.push(Member {
                        spectrum: idx,
                        number: r.get::<_, i64>(0).map_err(&e)? as u64,
                        canonical: r.get::<_, i64>(1).map_err(&e)? as u64,
                        transform,
                    });
                }
            }
        }
        // Stamp: groups in increasing canonical number; within a group, members in
        // transform order; the first to reach a spectrum stamps it.
        members.sort_by_key(|m| (m.canonical, m.transform, m.number));
        let mut stamp: Vec<Option<(usize, u64)>> = vec![None; spectra.len()];
        for m in &members {
            if stamp[m.spectrum].is_none() {
                stamp[m.spectrum] = Some((m.transform, m.canonical));
            }
        }
        let now = self.now()?;
        let tx = self.conn.transaction().map_err(&e)?;
        tx.execute("DELETE FROM spectrums WHERE config = ?1", [&key])
            .map_err(&e)?;
        {
            let mut stmt = tx
                .prepare(
                    "INSERT INTO spectrums (config, spectrum, nb_mol, transform, canonical_number, created_at, updated_at)
                     VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?6)",
                )
                .map_err(&e)?;
            for (i, (s, n)) in spectra.iter().enumerate() {
                let (t, c) = stamp[i].unwrap_or((0, 0));
                stmt.execute(params![
                    key,
                    s,
                    *n as i64,
                    Transform::ALL[t].name(),
                    c as i64,
                    now
                ])
                .map_err(&e)?;
            }
        }
        tx.execute(
            "UPDATE configurations SET complete = 1, updated_at = ?2 WHERE config = ?1",
            params![key, now],
        )
        .map_err(&e)?;
        tx.commit().map_err(&e)?;
        Ok(spectra.len() as u64)
    }

    fn count_spectra(&self, config: Config) -> Result<u64, Error> {
        self.conn
            .query_row(
                "SELECT count(*) FROM spectrums WHERE config = ?1",
                [config.to_string()],
                |r| r.get::<_, i64>(0),
            )
            .map(|n| n as u64)
            .map_err(sql_err(&self.path))
    }

    fn row(r: &rusqlite::Row<'_>) -> rusqlite::Result<MoleculeRow> {
        let mut v = [0u32; 17];
        for (i, x) in v.iter_mut().enumerate() {
            *x = r.get(6 + i)?;
        }
        Ok(MoleculeRow {
            number: r.get::<_, i64>(1)? as u64,
            canonical_number: r.get::<_, i64>(2)? as u64,
            molecule: r.get(3)?,
            spectrum: r.get(4)?,
            transform: r.get(5)?,
            stats: Stats {
                absorbed_number: v[0],
                absorbed_max_length: v[1],
                absorbed_max_turns: v[2],
                absorbed_tot_length: v[3],
                absorbed_tot_turns: v[4],
                reflected_number: v[5],
                reflected_edge: v[6],
                reflected_deep: v[7],
                reflected_max_length: v[8],
                reflected_max_turns: v[9],
                reflected_tot_length: v[10],
                reflected_tot_turns: v[11],
                out_number: v[12],
                out_max_length: v[13],
                out_max_turns: v[14],
                out_tot_length: v[15],
                out_tot_turns: v[16],
            },
        })
    }

    fn select(
        &self,
        filter: &str,
        args: &[&dyn rusqlite::ToSql],
    ) -> Result<Vec<MoleculeRow>, Error> {
        let e = sql_err(&self.path);
        // Without statistics SQLite prefers the primary key (it covers every
        // column) to the spectrum index; name the index when it is the one.
        let indexed = if filter.contains("spectrum = ") {
            "INDEXED BY molecules_spectrum"
        } else {
            ""
        };
        let sql = format!(
            "SELECT config, number, canonical_number, molecule, spectrum, transform, {} FROM molecules {indexed} WHERE {filter}",
            STAT_COLUMNS.join(", ")
        );
        let mut stmt = self.conn.prepare_cached(&sql).map_err(&e)?;
        let rows = stmt.query_map(args, Catalogue::row).map_err(&e)?;
        rows.collect::<Result<Vec<_>, _>>().map_err(&e)
    }

    /// The row of molecule `number`, if stored.
    pub fn molecule(&self, config: Config, number: u64) -> Result<Option<MoleculeRow>, Error> {
        let key = config.to_string();
        Ok(self
            .select("config = ?1 AND number = ?2", &[&key, &(number as i64)])?
            .pop())
    }

    /// The rows of molecules `from..=to` that are stored.
    pub fn molecules(&self, config: Config, from: u64, to: u64) -> Result<Vec<MoleculeRow>, Error> {
        let key = config.to_string();
        self.select(
            "config = ?1 AND number BETWEEN ?2 AND ?3 ORDER BY number",
            &[&key, &(from as i64), &(to as i64)],
        )
    }

    /// Every stored molecule with this (normalised) spectrum, by number.
    pub fn with_spectrum(&self, config: Config, spectrum: &str) -> Result<Vec<MoleculeRow>, Error> {
        let key = config.to_string();
        self.select(
            "config = ?1 AND spectrum = ?2 ORDER BY number",
            &[&key, &spectrum],
        )
    }

    /// Every stored spectrum with the numbers of its molecules, in spectrum
    /// order (one scan of the spectrum index).
    pub fn spectral_groups(&self, config: Config) -> Result<Vec<(String, Vec<u64>)>, Error> {
        let e = sql_err(&self.path);
        let mut stmt = self
            .conn
            .prepare(
                "SELECT spectrum, number FROM molecules INDEXED BY molecules_spectrum
                 WHERE config = ?1 ORDER BY spectrum, number",
            )
            .map_err(&e)?;
        let mut rows = stmt.query([config.to_string()]).map_err(&e)?;
        let mut out: Vec<(String, Vec<u64>)> = Vec::new();
        while let Some(r) = rows.next().map_err(&e)? {
            let s: String = r.get(0).map_err(&e)?;
            let n = r.get::<_, i64>(1).map_err(&e)? as u64;
            match out.last_mut() {
                Some((last, v)) if *last == s => v.push(n),
                _ => out.push((s, vec![n])),
            }
        }
        Ok(out)
    }

    /// The `spectrums` row of a spectrum, if it is ambiguous.
    pub fn spectrum(&self, config: Config, spectrum: &str) -> Result<Option<SpectrumRow>, Error> {
        self.spectra_where(
            "config = ?1 AND spectrum = ?2",
            &[&config.to_string(), &spectrum],
        )
        .map(|mut v| v.pop())
    }

    /// The `spectrums` rows, largest groups first.
    pub fn spectra(&self, config: Config) -> Result<Vec<SpectrumRow>, Error> {
        self.spectra_where(
            "config = ?1 ORDER BY nb_mol DESC, canonical_number, spectrum",
            &[&config.to_string()],
        )
    }

    fn spectra_where(
        &self,
        filter: &str,
        args: &[&dyn rusqlite::ToSql],
    ) -> Result<Vec<SpectrumRow>, Error> {
        let e = sql_err(&self.path);
        let mut stmt = self
            .conn
            .prepare_cached(&format!(
                "SELECT spectrum, nb_mol, transform, canonical_number FROM spectrums WHERE {filter}"
            ))
            .map_err(&e)?;
        let rows = stmt
            .query_map(args, |r| {
                Ok(SpectrumRow {
                    spectrum: r.get(0)?,
                    nb_mol: r.get::<_, i64>(1)? as u64,
                    transform: r.get(2)?,
                    canonical_number: r.get::<_, i64>(3)? as u64,
                })
            })
            .map_err(&e)?;
        rows.collect::<Result<Vec<_>, _>>().map_err(&e)
    }

    /// The ambiguity table: for each group size (molecules per spectrum), the
    /// spectra up to symmetry, the spectra, and the molecules.
    pub fn ambiguity(&self, config: Config) -> Result<Vec<AmbiguityRow>, Error> {
        let e = sql_err(&self.path);
        let mut stmt = self
            .conn
            .prepare(
                "SELECT nb_mol, sum(transform = 'id'), count(*), sum(nb_mol) FROM spectrums
                 WHERE config = ?1 GROUP BY nb_mol ORDER BY nb_mol",
            )
            .map_err(&e)?;
        let rows = stmt
            .query_map([config.to_string()], |r| {
                Ok(AmbiguityRow {
                    nb_mol: r.get::<_, i64>(0)? as u64,
                    spectra_up_to_symmetry: r.get::<_, i64>(1)? as u64,
                    spectra: r.get::<_, i64>(2)? as u64,
                    molecules: r.get::<_, i64>(3)? as u64,
                })
            })
            .map_err(&e)?;
        rows.collect::<Result<Vec<_>, _>>().map_err(&e)
    }

    /// The molecule with the largest value of a statistics column (ties: lowest
    /// number), with that value.
    pub fn record(&self, config: Config, column: &str) -> Result<Option<(u64, u32)>, Error> {
        if !STAT_COLUMNS.contains(&column) {
            return Err(Error::Invalid(format!(
                "no statistics column named {column}"
            )));
        }
        self.conn
            .query_row(
                &format!(
                    "SELECT number, {column} FROM molecules WHERE config = ?1 ORDER BY {column} DESC, number LIMIT 1"
                ),
                [config.to_string()],
                |r| Ok((r.get::<_, i64>(0)? as u64, r.get::<_, u32>(1)?)),
            )
            .optional()
            .map_err(sql_err(&self.path))
    }
}

/// The rows of molecules `first..=last`, computed in parallel.
fn compute_rows(config: Config, first: u64, last: u64) -> Vec<MoleculeRow> {
    let per_task = 4096u64;
    let starts: Vec<u64> = (first..=last).step_by(per_task as usize).collect();
    starts
        .par_iter()
        .flat_map_iter(|&start| {
            let end = (start + per_task - 1).min(last);
            let mut tracer = Tracer::new(config.width, Rules::Standard);
            let numbering = Numbering::new(config).expect("a numbered configuration");
            let mut atoms = unrank(config, start)
                .map(|m| m.atoms().to_vec())
                .unwrap_or_default();
            let cells = config.cells();
            let mut out = Vec::with_capacity((end - start + 1) as usize);
            for number in start..=end {
                let m =
                    Molecule::new(config.width, atoms.iter().copied()).expect("valid combination");
                let (c, t) = numbering.canonical(&m);
                out.push(MoleculeRow::with_canonical(&mut tracer, &m, number, c, t));
                next_combination(&mut atoms, cells);
            }
            out
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a2_b4_catalogue() {
        let mut c = Catalogue::open_in_memory().unwrap();
        let config: Config = "A2_B4".parse().unwrap();
        let done = c
            .explore(
                config,
                &ExploreOptions {
                    chunk: 7,
                    ..Default::default()
                },
                |_| {},
            )
            .unwrap();
        assert_eq!((done.stored, done.complete), (120, true));
        let row = c.molecule(config, 2).unwrap().unwrap();
        assert_eq!(row.molecule, "O-O-------------");
        assert_eq!(row.transform, "id");
        let last = c.molecule(config, 119).unwrap().unwrap();
        assert_eq!(
            (last.canonical_number, last.transform.as_str()),
            (2, "rot180")
        );
        let again = c
            .explore(config, &ExploreOptions::default(), |_| {})
            .unwrap();
        assert!(again.already_complete);
        let n: i64 = c
            .connection()
            .query_row(
                "SELECT count(DISTINCT number) FROM molecules WHERE config = 'A2_B4'",
                [],
                |r| r.get(0),
            )
            .unwrap();
        assert_eq!(n, 120);
    }

    #[test]
    fn refuses_foreign_databases() {
        let dir = std::env::temp_dir().join(format!("bbx-catalogue-test-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let text = dir.join("text.sqlite");
        std::fs::write(
            &text,
            "hello, this is not a database at all, just some text to fill a page",
        )
        .unwrap();
        assert!(
            Catalogue::open(&text)
                .unwrap_err()
                .to_string()
                .contains("not a bbx catalogue")
        );
        let other = dir.join("other.sqlite");
        let conn = Connection::open(&other).unwrap();
        conn.execute_batch("CREATE TABLE t (x INTEGER);").unwrap();
        drop(conn);
        assert!(
            Catalogue::open(&other)
                .unwrap_err()
                .to_string()
                .contains("other tables")
        );
        let old = dir.join("old.sqlite");
        let conn = Connection::open(&old).unwrap();
        conn.execute_batch(&format!(
            "PRAGMA application_id = {APPLICATION_ID}; PRAGMA user_version = 0;"
        ))
        .unwrap();
        drop(conn);
        assert!(
            Catalogue::open(&old)
                .unwrap_err()
                .to_string()
                .contains("schema version 0")
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
