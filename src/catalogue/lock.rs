//! One writer at a time: a lock file beside the catalogue.
//!
//! SQLite keeps each transaction safe, but two explorations of one file would
//! interleave their chunks and fail on each other's rows. The writer holds an
//! advisory lock on `FILE.lock` while it works and removes the file when it is
//! done; readers take no lock and never create it.

use std::fs::{File, OpenOptions, TryLockError};
use std::path::{Path, PathBuf};

use crate::error::Error;

/// The lock of the one program writing a catalogue, released when dropped.
#[derive(Debug)]
pub struct WriterLock {
    path: PathBuf,
    _file: File,
}

impl WriterLock {
    /// Takes the writer's lock of catalogue `db`, or says who holds it.
    pub fn take(db: &Path) -> Result<WriterLock, Error> {
        let path = PathBuf::from(format!("{}.lock", db.display()));
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
                Err(TryLockError::WouldBlock) => {
                    return Err(Error::Invalid(format!(
                        "{}: another bbx is writing this catalogue (it holds {}): wait for it to finish or stop it; the same command then resumes where it stopped",
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
}

impl Drop for WriterLock {
    fn drop(&mut self) {
        // Removed while still locked; the lock goes with the file handle.
        let _ = std::fs::remove_file(&self.path);
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
    fn one_writer_at_a_time() {
        let dir = std::env::temp_dir().join(format!("bbx-lock-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let db = dir.join("bbx.sqlite");
        let first = WriterLock::take(&db).unwrap();
        let second = WriterLock::take(&db).unwrap_err().to_string();
        assert!(second.contains("another bbx is writing"), "{second}");
        drop(first);
        assert!(!dir.join("bbx.sqlite.lock").exists());
        let third = WriterLock::take(&db).unwrap();
        drop(third);
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
