//! One writer at a time: a lock file beside the catalogue.
//!
//! SQLite keeps each transaction safe, but two explorations of one file would
//! interleave their chunks and fail on each other's rows, and a census stored
//! while an exploration writes would end up beside a catalogue. Every bbx
//! that writes a catalogue file (`explore`, `stats --store-groups`) holds an
//! advisory lock on `FILE.lock` from before it creates or opens the file until
//! it is done, and removes the lock file then. Readers never create it: they
//! only look whether a writer holds it (a shared lock taken for an instant),
//! to tell a file being written from one that is not a catalogue; a reader
//! takes the writer's lock only to roll back the journal a killed writer left
//! (see [`Catalogue::open_existing`](crate::catalogue::Catalogue::open_existing)).

use std::fs::{File, OpenOptions, TryLockError};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use crate::error::Error;

/// How long [`WriterLock::take`] tries before it says another bbx holds the
/// lock: a reader looking whether a writer is there holds it for an instant.
const PATIENCE: Duration = Duration::from_secs(1);

/// The lock of the one program writing a catalogue, released when dropped.
#[derive(Debug)]
pub struct WriterLock {
    path: PathBuf,
    _file: File,
}

/// The lock file of catalogue `db`: `db.lock`.
pub fn lock_path(db: &Path) -> PathBuf {
    PathBuf::from(format!("{}.lock", db.display()))
}

impl WriterLock {
    /// Takes the writer's lock of catalogue `db`, or says who holds it (an
    /// [`Error::Busy`]).
    pub fn take(db: &Path) -> Result<WriterLock, Error> {
        let path = lock_path(db);
        let start = Instant::now();
        loop {
            let file = OpenOptions::new()
                .create(true)
                .truncate(false)
                .write(true)
                .open(&path)
                .map_err(|source| Error::Io {
                    path: path.display().to_string(),
                    source,
                })?;
            match file.try_lock() {
                Ok(()) => {}
                Err(TryLockError::WouldBlock) if start.elapsed() < PATIENCE => {
                    std::thread::sleep(Duration::from_millis(20));
                    continue;
                }
                Err(TryLockError::WouldBlock) => {
                    return Err(Error::busy(format!(
                        "{}: another bbx is writing this catalogue (it holds {}): wait for it to finish or stop it, then run the same command again",
                        db.display(),
                        path.display()
                    )));
                }
                Err(TryLockError::Error(source)) => {
                    return Err(Error::Io {
                        path: path.display().to_string(),
                        source,
                    });
                }
            }
            // The holder before us may have removed the file after we opened
            // it: the lock counts only on the file still at the path.
            if same_file(&file, &path) {
                return Ok(WriterLock { path, _file: file });
            }
        }
    }

    /// Whether a writer holds the lock of catalogue `db` now. Creates
    /// nothing: without a lock file, nobody holds it.
    pub fn is_held(db: &Path) -> bool {
        let Ok(file) = File::open(lock_path(db)) else {
            return false;
        };
        match file.try_lock_shared() {
            Ok(()) => {
                let _ = file.unlock();
                false
            }
            Err(TryLockError::WouldBlock) => true,
            Err(TryLockError::Error(_)) => false,
        }
    }
}

impl Drop for WriterLock {
    fn drop(&mut self) {
        // Removed while still locked; the lock goes with the file handle.
        // bbx's lock files are empty: one with content is somebody else's
        // file of that name, used as a lock but kept.
        if self._file.metadata().is_ok_and(|m| m.len() == 0) {
            let _ = std::fs::remove_file(&self.path);
        }
    }
}

#[cfg(unix)]
fn same_file(file: &File, path: &Path) -> bool {
    use std::os::unix::fs::MetadataExt;
    match (file.metadata(), std::fs::metadata(path)) {
        (Ok(a), Ok(b)) => a.dev() == b.dev() && a.ino() == b.ino(),
        _ => false,
    }
}

#[cfg(not(unix))]
fn same_file(_file: &File, path: &Path) -> bool {
    path.exists()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_file_of_the_lock_files_name_with_content_is_kept() {
        let dir = std::env::temp_dir().join(format!("bbx-lock-kept-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let db = dir.join("notes.sqlite");
        std::fs::write(dir.join("notes.sqlite.lock"), "my notes\n").unwrap();
        drop(WriterLock::take(&db).unwrap());
        assert_eq!(
            std::fs::read_to_string(dir.join("notes.sqlite.lock")).unwrap(),
            "my notes\n"
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn one_writer_at_a_time() {
        let dir = std::env::temp_dir().join(format!("bbx-lock-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let db = dir.join("bbx.sqlite");
        assert!(!WriterLock::is_held(&db));
        assert!(
            !dir.join("bbx.sqlite.lock").exists(),
            "looking creates nothing"
        );
        let first = WriterLock::take(&db).unwrap();
        assert!(WriterLock::is_held(&db));
        let second = WriterLock::take(&db).unwrap_err();
        assert!(second.is_failure(), "a busy file is a failure (exit 3)");
        let second = second.to_string();
        assert!(second.contains("another bbx is writing"), "{second}");
        drop(first);
        assert!(!dir.join("bbx.sqlite.lock").exists());
        assert!(!WriterLock::is_held(&db));
        let third = WriterLock::take(&db).unwrap();
        drop(third);
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
