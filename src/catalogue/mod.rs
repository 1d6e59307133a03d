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

use rusqlite::{Connection, OptionalExtension};

mod census;
mod explore;
mod lock;
mod query;
mod report;
mod rows;
mod schema;

pub use census::CensusStatus;
pub use explore::{ExploreOptions, Explored, Progress, SANE_BYTES};
pub use lock::WriterLock;
pub use rows::{MoleculeRow, SpectrumRow};
pub use schema::BUSY_TIMEOUT_MS;

use crate::error::Error;
use crate::rules::config::Config;

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
        return Err(Error::Invalid(format!(
            "--db {:?} keeps nothing: give the catalogue a file name, such as bbx.sqlite",
            name.to_string_lossy()
        )));
    }
    if let Some(parent) = path.parent()
        && !parent.as_os_str().is_empty()
        && !parent.is_dir()
    {
        return Err(Error::Invalid(format!(
            "{}: cannot open the catalogue: directory {} does not exist",
            path.display(),
            parent.display()
        )));
    }
    if path.is_dir() {
        return Err(Error::Invalid(format!(
            "{}: is a directory: give --db a file in it, such as {}",
            path.display(),
            path.join("bbx.sqlite").display()
        )));
    }
    Ok(())
}

impl Catalogue {
    /// Opens (or creates) the catalogue in file `path` to write it. Refuses a
    /// name that keeps nothing (empty, `:memory:`), a directory, a file that
    /// is not an SQLite database, an SQLite database that is not bbx's, or a
    /// bbx catalogue of another schema version.
    pub fn open(path: impl AsRef<Path>) -> Result<Catalogue, Error> {
        Catalogue::open_waiting(path, schema::BUSY_TIMEOUT_MS)
    }

    /// [`open`](Self::open), waiting at most `busy_ms` milliseconds for
    /// other programs to let go of the file before a write gives up.
    pub fn open_waiting(path: impl AsRef<Path>, busy_ms: u32) -> Result<Catalogue, Error> {
        let p = path.as_ref().display().to_string();
        check_path(path.as_ref())?;
        let conn = Connection::open(path.as_ref()).map_err(|source| Error::Database {
            path: p.clone(),
            source,
        })?;
        Catalogue::init(conn, p, busy_ms)
    }

    /// A catalogue held in memory (for computing without a file).
    pub fn open_in_memory() -> Result<Catalogue, Error> {
        let conn = Connection::open_in_memory().map_err(sql_err("memory"))?;
        Catalogue::init(conn, "memory".into(), schema::BUSY_TIMEOUT_MS)
    }

    /// Opens an existing catalogue read-only; `None` when the file does not
    /// exist. Nothing is ever written: a file that is not a catalogue (empty,
    /// another database, text) is refused as it is.
    pub fn open_existing(path: impl AsRef<Path>) -> Result<Option<Catalogue>, Error> {
        let p = path.as_ref().display().to_string();
        check_path(path.as_ref())?;
        if !path.as_ref().exists() {
            return Ok(None);
        }
        let flags =
            rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY | rusqlite::OpenFlags::SQLITE_OPEN_NO_MUTEX;
        let conn = Connection::open_with_flags(path.as_ref(), flags).map_err(|source| {
            Error::Database {
                path: p.clone(),
                source,
            }
        })?;
        Catalogue::init_read_only(conn, p).map(Some)
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
