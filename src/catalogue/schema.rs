//! Creating the catalogue's tables, and refusing files that are not bbx
//! catalogues of this schema version.

use rusqlite::Connection;

use crate::catalogue::rows::row_tables_sql;
use crate::catalogue::{APPLICATION_ID, Catalogue, SCHEMA_VERSION, sql_err};
use crate::error::Error;

/// How long a writer waits for readers to let go of the file: a reader
/// inside a long transaction holds up a commit until it is done.
pub const BUSY_TIMEOUT_MS: u32 = 60_000;

impl Catalogue {
    /// Reads what the file is without writing anything (its application id),
    /// and refuses files that are not bbx catalogues of this schema version.
    /// `empty_ok`: a database with nothing in it yet (a new file) is accepted.
    fn kind(conn: &Connection, path: &str, empty_ok: bool) -> Result<i32, Error> {
        let e = sql_err(path);
        let not_bbx = |detail: &str| {
            Error::Invalid(format!(
                "{path}: not a bbx catalogue ({detail}); give another file with --db, or remove this one"
            ))
        };
        let app: i32 = conn
            .query_row("PRAGMA application_id", [], |r| r.get(0))
            .map_err(|err| match err.sqlite_error_code() {
                Some(rusqlite::ErrorCode::DatabaseCorrupt) => Error::Database {
                    path: path.to_string(),
                    source: err,
                },
                _ => not_bbx(&err.to_string()),
            })?;
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
        if app == 0 && !empty_ok {
            return Err(not_bbx("an empty database"));
        }
        Ok(app)
    }

    /// Opens a catalogue for reading only: nothing in the file is created,
    /// migrated or changed, whatever it holds.
    pub(super) fn init_read_only(conn: Connection, path: String) -> Result<Catalogue, Error> {
        Catalogue::kind(&conn, &path, false)?;
        conn.busy_timeout(std::time::Duration::from_millis(u64::from(BUSY_TIMEOUT_MS)))
            .map_err(sql_err(&path))?;
        Ok(Catalogue { conn, path })
    }

    /// Opens a catalogue for writing, creating its tables in a new file.
    pub(super) fn init(conn: Connection, path: String, busy_ms: u32) -> Result<Catalogue, Error> {
        let e = sql_err(&path);
        let app = Catalogue::kind(&conn, &path, true)?;
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
            "PRAGMA journal_mode = DELETE; PRAGMA synchronous = NORMAL;
             PRAGMA cache_size = -262144; PRAGMA temp_store = MEMORY; PRAGMA threads = 4; PRAGMA mmap_size = 1073741824;",
        )
        .map_err(&e)?;
        conn.busy_timeout(std::time::Duration::from_millis(u64::from(busy_ms)))
            .map_err(&e)?;
        if app == 0 {
            let tables = row_tables_sql("CREATE TABLE", "molecules", "spectrums");
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
        Ok(Catalogue { conn, path })
    }
}
