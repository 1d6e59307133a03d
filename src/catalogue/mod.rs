//! The catalogue: every molecule of a configuration, its spectrum and
//! statistics, stored in SQLite, and the spectra shared by several molecules.
//!
//! The tables follow J. Forget's SQLite version, in snake_case:
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
//! SQL lives here only: other layers get rows and reports from
//! [`Catalogue`]'s methods and [`Store`]'s ([`Catalogue::connection`] is for
//! a user's own queries). A read is never a write: readers open a file
//! read-only, wait for writers (`lock.rs`) before judging what a file is, and
//! the one write a reader makes is SQLite's recovery of a bbx catalogue's hot
//! journal, under the writer's lock. A catalogue's file counts as made only
//! when nothing at all (not even a link) was at its path, and is removed only
//! then, on a refused or interrupted first write; a journal beside no file is
//! refused rather than left for SQLite to delete.
//!
//! ```
//! use bbx::catalogue::{Catalogue, ExploreOptions};
//! let mut c = Catalogue::open_in_memory().unwrap();
//! let config = "A2_B4".parse().unwrap();
//! let done = c.explore(config, &ExploreOptions::default(), |_| {}).unwrap();
//! assert!(done.ended.is_complete());
//! let row = c.molecule(config, 2).unwrap().unwrap();
//! assert_eq!(row.spectrum, "@&ab@&@cbac@&@&@");
//! ```

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use rusqlite::{Connection, ErrorCode};

mod census_tables;
mod explore;
mod lock;
mod query;
mod rows;
mod schema;
mod stats_report;
mod store;

pub use census_tables::{CensusStatus, ClassGroups};
pub use explore::{ExploreOptions, ExploreReport, Explored, Progress, SANE_BYTES};
pub use lock::WriterLock;
pub use rows::{MoleculeRow, ShownRows, SpectrumRow};
pub use schema::{BUSY_TIMEOUT_MS, busy_ms};
pub use store::{Groups, Holding, RULES, Store, molecules_of};

use crate::error::Error;
use crate::files::shown;
use crate::rules::config::Config;
use crate::setting::Setting;
use crate::text;
use schema::{Holds, busy, header_app_id, not_bbx};

/// The schema version stored in `PRAGMA user_version` (with the application id
/// `bbx1` in `PRAGMA application_id`).
pub const SCHEMA_VERSION: i32 = 1;
const APPLICATION_ID: i32 = 0x6262_7831; // "bbx1"

/// Configurations with more molecules than this are refused unless forced.
pub const SANE_LIMIT: u64 = 50_000_000;

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

/// A bbx catalogue in an SQLite database.
#[derive(Debug)]
pub struct Catalogue {
    conn: Connection,
    path: String,
    /// How long to wait for other programs to let go of the file, in ms.
    busy_ms: u32,
    /// Opened read-only, by a command that only reads.
    read_only: bool,
    /// Whether opening it created the file.
    created: bool,
    /// The writer's lock, held as long as a catalogue opened for writing
    /// (declared last: released after the connection is closed).
    lock: Option<WriterLock>,
}

fn sql_err(path: &str) -> impl Fn(rusqlite::Error) -> Error + use<> {
    let path = path.to_string();
    move |source| Error::Database {
        path: path.clone(),
        source,
    }
}

/// Refuses names that keep nothing and directories, with what to do instead.
fn check_path(path: &Path) -> Result<(), Error> {
    let name = path.as_os_str();
    if name.is_empty() || name == ":memory:" {
        return Err(Error::invalid(text![
            Setting::Db,
            format!(
                " {:?} keeps nothing: give the catalogue a file name, such as bbx.sqlite",
                name.to_string_lossy()
            )
        ]));
    }
    if let Some(parent) = path.parent()
        && !parent.as_os_str().is_empty()
        && !parent.is_dir()
    {
        return Err(Error::invalid(format!(
            "{}: cannot open the catalogue: directory {} does not exist",
            shown(path),
            shown(parent)
        )));
    }
    if path.is_dir() {
        return Err(Error::invalid(text![
            format!("{}: is a directory: give ", shown(path)),
            Setting::Db,
            format!(" a file in it, such as {}", shown(path.join("bbx.sqlite")))
        ]));
    }
    Ok(())
}

/// SQLite's rollback journal of the database at `path`.
fn journal_path(path: &Path) -> PathBuf {
    lock::beside(path, "-journal")
}

/// Whether a read-only connection met a journal it may not roll back:
/// a writer's, or one a writer left when it was killed.
fn journal_in_the_way(e: &Error) -> bool {
    matches!(e, Error::Database { source, .. } if source.sqlite_error_code() == Some(ErrorCode::ReadOnly))
}

/// A read-only reader met a journal beside the file at `path` (`error`).
/// `Ok` when reading may be tried again (the journal went with its writer's
/// commit, a bbx writer holds the file for a while yet, or the journal a
/// killed writer left is rolled back); an error when the wait is over or the
/// journal cannot be rolled back.
fn wait_out_journal(
    path: &Path,
    deadline: Instant,
    busy_ms: u32,
    error: Error,
) -> Result<(), Error> {
    let p = shown(path);
    let over = Instant::now() >= deadline;
    if !journal_path(path).exists() {
        // SQLite saw the journal of a transaction that committed a moment
        // later (a catalogue is written with a rollback journal); anything
        // else is what SQLite said.
        if header_app_id(path) != Some(APPLICATION_ID) {
            return Err(error);
        }
        return if over { Err(busy(&p, busy_ms)) } else { Ok(()) };
    }
    if WriterLock::is_held(path) {
        // A bbx writer is at work: its journal is no one else's to roll back.
        if over {
            return Err(busy(&p, busy_ms));
        }
        std::thread::sleep(Duration::from_millis(20));
        return Ok(());
    }
    roll_back(path, busy_ms)
}

/// Rolls back the journal a writer killed in the middle of a transaction
/// left beside catalogue `path`, as SQLite does when a program that may
/// write opens the file: the file goes back to its last commit, losing
/// nothing committed. Only a bbx catalogue's journal, and only under the
/// writer's lock, so that no bbx writer is at work; SQLite itself rolls back
/// only a journal no live writer holds.
fn roll_back(path: &Path, busy_ms: u32) -> Result<(), Error> {
    let p = shown(path);
    let journal = journal_path(path);
    if header_app_id(path) != Some(APPLICATION_ID) {
        return Err(not_bbx(
            &p,
            &format!(
                "an SQLite database another program was writing when it stopped, which left its journal {}",
                shown(&journal)
            ),
        ));
    }
    let cannot = |detail: String| {
        Error::system(format!(
            "{p}: a program writing it stopped in the middle of a transaction and left its journal {}; SQLite rolls the file back to its last commit before anyone reads it, which needs write access to the file and its directory ({detail}): run the command as someone who may write them",
            shown(&journal)
        ))
    };
    let _lock = match WriterLock::take(path) {
        Ok(lock) => lock,
        // A writer came: the journal is its to roll back.
        Err(Error::Busy(_)) => return Ok(()),
        Err(e) => return Err(cannot(e.to_string())),
    };
    let flags =
        rusqlite::OpenFlags::SQLITE_OPEN_READ_WRITE | rusqlite::OpenFlags::SQLITE_OPEN_NO_MUTEX;
    let conn = Connection::open_with_flags(path, flags).map_err(|e| cannot(e.to_string()))?;
    conn.busy_timeout(Duration::from_millis(u64::from(busy_ms)))
        .map_err(|e| cannot(e.to_string()))?;
    // The first read rolls the journal back.
    conn.query_row("SELECT count(*) FROM sqlite_master", [], |r| {
        r.get::<_, i64>(0)
    })
    .map_err(|e| match e.sqlite_error_code() {
        Some(ErrorCode::DatabaseBusy | ErrorCode::DatabaseLocked) => busy(&p, busy_ms),
        Some(ErrorCode::DatabaseCorrupt) => Error::Damaged {
            path: p.clone(),
            detail: e.to_string(),
        },
        _ => cannot(e.to_string()),
    })?;
    Ok(())
}

impl Catalogue {
    fn new(conn: Connection, path: String, busy_ms: u32, read_only: bool) -> Catalogue {
        Catalogue {
            conn,
            path,
            busy_ms,
            read_only,
            created: false,
            lock: None,
        }
    }

    /// Opens (or creates) the catalogue in file `path` to write it, holding
    /// the writer's lock (`FILE.lock`) until it is dropped: the lock is taken
    /// before the file is created or read, and another bbx writing the file
    /// is an [`Error::Busy`]. Refuses a name that keeps nothing (empty,
    /// `:memory:`), a directory, a file that is not an SQLite database, an
    /// SQLite database that is not bbx's, or a bbx catalogue of another
    /// schema version.
    pub fn open(path: impl AsRef<Path>) -> Result<Catalogue, Error> {
        Catalogue::open_waiting(path, schema::BUSY_TIMEOUT_MS)
    }

    /// [`open`](Self::open), waiting at most `busy_ms` milliseconds for
    /// other programs to let go of the file before a write gives up.
    pub fn open_waiting(path: impl AsRef<Path>, busy_ms: u32) -> Result<Catalogue, Error> {
        let path = path.as_ref();
        // The file's name as given: the catalogue keeps it to reach the file.
        let p = path.display().to_string();
        check_path(path)?;
        let lock = WriterLock::take(path).map_err(|e| match e {
            Error::Io { path: lock, source } => Error::system(format!(
                "{lock}: cannot create the writer's lock beside the catalogue ({source}): the directory must be writable"
            )),
            other => other,
        })?;
        // A journal beside a file that is not bbx's is another program's to
        // roll back: opening the file to write would roll it back first.
        if journal_path(path).exists()
            && std::fs::metadata(path).is_ok_and(|m| m.len() > 0)
            && header_app_id(path) != Some(APPLICATION_ID)
        {
            return Err(not_bbx(
                &p,
                &format!(
                    "an SQLite database another program is writing, or was when it stopped: its journal {} is beside it",
                    shown(journal_path(path))
                ),
            ));
        }
        // Nothing at all there, not even a link: the file is this call's.
        let created = std::fs::symlink_metadata(path).is_err();
        // A journal beside no file is not bbx's (SQLite opens the file
        // before it makes a journal), and SQLite deletes the journal of an
        // empty file: it is left alone, and so is the file.
        let journal = journal_path(path);
        if created && std::fs::symlink_metadata(&journal).is_ok() {
            return Err(Error::invalid(text![
                format!(
                    "{}: there is no catalogue here, but {} is beside it, another program's file that making a catalogue would delete: move it away, or give another file with ",
                    shown(path),
                    shown(&journal)
                ),
                Setting::Db
            ]));
        }
        let opened = Connection::open(path)
            .map_err(|source| Error::Database {
                path: p.clone(),
                source,
            })
            .and_then(|conn| Catalogue::init(conn, p, busy_ms));
        match opened {
            Ok(mut cat) => {
                cat.created = created;
                cat.lock = Some(lock);
                Ok(cat)
            }
            Err(e) => {
                if created {
                    // Made by this call and refused: leave nothing behind.
                    let _ = std::fs::remove_file(path);
                    let _ = std::fs::remove_file(journal_path(path));
                }
                Err(e)
            }
        }
    }

    /// A catalogue held in memory (for computing without a file).
    pub fn open_in_memory() -> Result<Catalogue, Error> {
        let conn = Connection::open_in_memory().map_err(sql_err("memory"))?;
        Catalogue::init(conn, "memory".into(), schema::BUSY_TIMEOUT_MS)
    }

    /// Opens an existing catalogue read-only; `None` when the file does not
    /// exist. Nothing is ever written: a file that is not a catalogue (empty,
    /// another database, text) is refused as it is.
    ///
    /// A file another program is writing is waited for (a minute): SQLite's
    /// locks and the lock of a bbx writer (an empty file it is making into a
    /// catalogue) alike, and then called busy ([`Error::Busy`]), never
    /// foreign. The one change a reader may make is SQLite's own recovery:
    /// the journal a writer killed in the middle of a transaction left beside
    /// a bbx catalogue is rolled back, under the writer's lock, which puts the
    /// file back as it was at its last commit (SQLite does the same for any
    /// program that may write the file; a read-only connection cannot).
    pub fn open_existing(path: impl AsRef<Path>) -> Result<Option<Catalogue>, Error> {
        Catalogue::open_existing_waiting(path, schema::BUSY_TIMEOUT_MS)
    }

    /// [`open_existing`](Self::open_existing), waiting at most `busy_ms`
    /// milliseconds for writers.
    pub fn open_existing_waiting(
        path: impl AsRef<Path>,
        busy_ms: u32,
    ) -> Result<Option<Catalogue>, Error> {
        Catalogue::read_only(path.as_ref(), busy_ms, false)
    }

    /// Whether file `path` may take a census of `config`
    /// ([`check_census_target`](Self::check_census_target)), read without
    /// writing or creating anything: an absent or empty file may.
    pub fn check_census_file(
        path: impl AsRef<Path>,
        config: Config,
        busy_ms: u32,
    ) -> Result<(), Error> {
        match Catalogue::read_only(path.as_ref(), busy_ms, true)? {
            Some(cat) => cat.check_census_target(config),
            None => Ok(()),
        }
    }

    /// Opens `path` read-only: `None` when it does not exist (or, with
    /// `empty_ok`, holds nothing yet).
    fn read_only(path: &Path, busy_ms: u32, empty_ok: bool) -> Result<Option<Catalogue>, Error> {
        // The file's name as given: the catalogue keeps it to reach the file.
        let p = path.display().to_string();
        check_path(path)?;
        if !path.exists() {
            return Ok(None);
        }
        let deadline = Instant::now() + Duration::from_millis(u64::from(busy_ms));
        loop {
            let flags = rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY
                | rusqlite::OpenFlags::SQLITE_OPEN_NO_MUTEX;
            let e = sql_err(&p);
            let conn = Connection::open_with_flags(path, flags).map_err(&e)?;
            // Before anything is read: a writer's lock is waited for, not
            // taken for what the file is.
            conn.busy_timeout(Duration::from_millis(u64::from(busy_ms)))
                .map_err(&e)?;
            match Catalogue::kind(&conn, &p, busy_ms) {
                Ok(Holds::Catalogue) => return Ok(Some(Catalogue::new(conn, p, busy_ms, true))),
                Ok(Holds::Nothing) => {
                    if WriterLock::is_held(path) {
                        // A bbx writer is making it a catalogue.
                        if Instant::now() >= deadline {
                            return Err(busy(&p, busy_ms));
                        }
                        std::thread::sleep(Duration::from_millis(20));
                        continue;
                    }
                    if empty_ok {
                        return Ok(None);
                    }
                    return Err(not_bbx(&p, "an empty database"));
                }
                Err(err) if journal_in_the_way(&err) => {
                    drop(conn);
                    wait_out_journal(path, deadline, busy_ms, err)?;
                }
                Err(err) => return Err(err),
            }
        }
    }

    /// Runs a read, again after a journal in the way of a read-only
    /// connection is gone (see [`wait_out_journal`]).
    fn reading<T>(&self, mut read: impl FnMut() -> Result<T, Error>) -> Result<T, Error> {
        if !self.read_only {
            return read();
        }
        let deadline = Instant::now() + Duration::from_millis(u64::from(self.busy_ms));
        loop {
            match read() {
                Err(e) if journal_in_the_way(&e) => {
                    wait_out_journal(Path::new(&self.path), deadline, self.busy_ms, e)?
                }
                other => return other,
            }
        }
    }

    /// Whether opening this catalogue created its file.
    pub fn created(&self) -> bool {
        self.created
    }

    /// Closes a catalogue opened for writing and removes its file if
    /// opening it created it (and so nothing but this program wrote it):
    /// for a write that was refused or interrupted, which must leave no file
    /// behind. The writer's lock goes last.
    pub fn discard(self) {
        let Catalogue {
            conn,
            path,
            created,
            lock,
            ..
        } = self;
        drop(conn);
        if created && lock.is_some() {
            let _ = std::fs::remove_file(&path);
            let _ = std::fs::remove_file(journal_path(Path::new(&path)));
        }
        drop(lock);
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
        let key = config.to_string();
        let row = self.query(
            "SELECT nb_mol, complete, (SELECT max(number) FROM molecules WHERE config = ?1)
             FROM configurations WHERE config = ?1",
            &[&key],
            |r| {
                Ok(Status {
                    nb_mol: r.get::<_, i64>(0)? as u64,
                    complete: r.get(1)?,
                    stored: r.get::<_, Option<i64>>(2)?.unwrap_or(0) as u64,
                })
            },
        )?;
        Ok(row.into_iter().next())
    }
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
                    budget: crate::control::Budget::default()
                        .with_faults(crate::control::Faults::parse("unit-size=7").unwrap()),
                    ..Default::default()
                },
                |_| {},
            )
            .unwrap();
        assert_eq!(
            (done.stored, done.ended),
            (120, crate::control::Ended::Complete)
        );
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
    fn a_journal_beside_no_file_is_left_alone() {
        let scratch = tempfile::tempdir().unwrap();
        let db = scratch.path().join("bbx.sqlite");
        std::fs::write(scratch.path().join("bbx.sqlite-journal"), "someone's\n").unwrap();
        let e = Catalogue::open(&db).unwrap_err();
        assert!(!e.is_failure(), "bad input: {e}");
        let e = e.to_string();
        assert!(e.contains("there is no catalogue here, but"), "{e}");
        assert!(e.contains("another file"), "{e}");
        let mut left: Vec<_> = std::fs::read_dir(scratch.path())
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        left.sort();
        assert_eq!(left, ["bbx.sqlite-journal"]);
        assert_eq!(
            std::fs::read_to_string(scratch.path().join("bbx.sqlite-journal")).unwrap(),
            "someone's\n"
        );
    }

    #[test]
    fn refuses_foreign_databases() {
        let scratch = tempfile::tempdir().unwrap();
        let dir = scratch.path();
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
    }
}
