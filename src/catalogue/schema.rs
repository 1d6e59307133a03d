//! Creating the catalogue's tables, and refusing files that are not bbx
//! catalogues of this schema version.

use std::io::Read;
use std::path::Path;

use rusqlite::{Connection, ErrorCode};

use crate::catalogue::rows::row_tables_sql;
use crate::catalogue::{APPLICATION_ID, Catalogue, SCHEMA_VERSION};
use crate::control::Faults;
use crate::error::Error;
use crate::setting::{Job, Setting};
use crate::text;

/// How long a writer waits for readers to let go of the file: a reader
/// inside a long transaction holds up a commit until it is done. Readers
/// wait as long for a writer's commit.
pub const BUSY_TIMEOUT_MS: u32 = 60_000;

/// How long to wait for other programs to let go of a file, in ms:
/// [`BUSY_TIMEOUT_MS`], or the `busy-timeout-ms` of `faults`.
pub fn busy_ms(faults: &Faults) -> u32 {
    faults
        .busy_timeout_ms
        .map_or(BUSY_TIMEOUT_MS, |ms| u32::try_from(ms).unwrap_or(u32::MAX))
}

/// What a file that may be a catalogue holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Holds {
    /// Nothing yet: an empty file, or an SQLite database without a table.
    Nothing,
    /// A bbx catalogue of this schema version.
    Catalogue,
}

/// "not a bbx catalogue": said only of a file that is not one, and never
/// with advice to remove it (bbx did not make it).
pub(super) fn not_bbx(path: &str, detail: &str) -> Error {
    Error::invalid(text![
        format!("{path}: not a bbx catalogue ({detail}); give another file with "),
        Setting::Db
    ])
}

/// Another program held the file for longer than bbx waits.
pub(super) fn busy(path: &str, busy_ms: u32) -> Error {
    Error::busy(format!(
        "another program is writing {path}; bbx waited {} s for it to let go: run the same command again when it is done",
        f64::from(busy_ms) / 1000.0
    ))
}

/// The application id in the header of the SQLite file at `path`, read as
/// bytes without SQLite (which would roll back a journal first): `None` when
/// the file is shorter than a header or is not an SQLite database.
pub(super) fn header_app_id(path: &Path) -> Option<i32> {
    let mut header = [0u8; 100];
    std::fs::File::open(path)
        .and_then(|mut f| f.read_exact(&mut header))
        .ok()?;
    if &header[..16] != b"SQLite format 3\0" {
        return None;
    }
    Some(i32::from_be_bytes([
        header[68], header[69], header[70], header[71],
    ]))
}

impl Catalogue {
    /// Reads what the file is without writing anything (its application id),
    /// and refuses files that are not bbx catalogues of this schema version.
    /// The connection's busy timeout must be set: a file another program
    /// holds is waited for, and then called busy, never foreign.
    pub(super) fn kind(conn: &Connection, path: &str, busy_ms: u32) -> Result<Holds, Error> {
        let read = |err: rusqlite::Error| match err.sqlite_error_code() {
            Some(ErrorCode::NotADatabase) => not_bbx(path, &err.to_string()),
            Some(ErrorCode::DatabaseBusy | ErrorCode::DatabaseLocked) => busy(path, busy_ms),
            Some(ErrorCode::DatabaseCorrupt) => {
                if header_app_id(Path::new(path)) == Some(APPLICATION_ID) {
                    Error::Damaged {
                        path: path.to_string(),
                        detail: err.to_string(),
                    }
                } else {
                    // Perhaps the header itself is what is damaged: say what
                    // is known, not what the file is.
                    Error::invalid(text![
                        format!(
                            "{path}: SQLite cannot read this database ({err}) and its header does not say it is a bbx catalogue; give another file with "
                        ),
                        Setting::Db
                    ])
                }
            }
            // A journal in the way of a read-only connection, a disk that
            // fails: the file may well be a catalogue.
            _ => Error::Database {
                path: path.to_string(),
                source: err,
            },
        };
        let app: i32 = conn
            .query_row("PRAGMA application_id", [], |r| r.get(0))
            .map_err(read)?;
        let version: i32 = conn
            .query_row("PRAGMA user_version", [], |r| r.get(0))
            .map_err(read)?;
        let tables: i64 = conn
            .query_row(
                "SELECT count(*) FROM sqlite_master WHERE type = 'table'",
                [],
                |r| r.get(0),
            )
            .map_err(read)?;
        if app == 0 && tables > 0 {
            return Err(not_bbx(path, "it holds other tables"));
        }
        if app != 0 && app != APPLICATION_ID {
            return Err(not_bbx(path, "another application's database"));
        }
        if app == APPLICATION_ID && version != SCHEMA_VERSION {
            return Err(Error::invalid(text![
                format!(
                    "{path}: a bbx catalogue of schema version {version}, but this bbx reads version {SCHEMA_VERSION}: rebuild it in a new file: "
                ),
                Job::Explore(None, "NEW".into())
            ]));
        }
        Ok(if app == 0 {
            Holds::Nothing
        } else {
            Holds::Catalogue
        })
    }

    /// Opens a catalogue for writing, creating its tables in a new file.
    pub(super) fn init(conn: Connection, path: String, busy_ms: u32) -> Result<Catalogue, Error> {
        let e = crate::catalogue::sql_err(&path);
        conn.busy_timeout(std::time::Duration::from_millis(u64::from(busy_ms)))
            .map_err(&e)?;
        let holds = Catalogue::kind(&conn, &path, busy_ms)?;
        if holds == Holds::Nothing {
            // Larger pages suit long tables of short rows; only possible while empty.
            conn.execute_batch("PRAGMA page_size = 16384;")
                .map_err(&e)?;
        }
        // A rollback journal writes appended rows once (a write-ahead log writes
        // them twice: measured 3.5 s against 3.2 s for A4_B8); readers still read
        // between commits, waiting out a commit with the busy timeout. The
        // sorter may use threads to build the indexes.
        conn.execute_batch(
            "PRAGMA journal_mode = DELETE; PRAGMA synchronous = NORMAL;
             PRAGMA cache_size = -262144; PRAGMA temp_store = MEMORY; PRAGMA threads = 4; PRAGMA mmap_size = 1073741824;",
        )
        .map_err(&e)?;
        if holds == Holds::Nothing {
            let tables = row_tables_sql();
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
                 {tables}
                 COMMIT;"
            ))
            .map_err(&e)?;
        }
        Ok(Catalogue::new(conn, path, busy_ms, false))
    }
}
