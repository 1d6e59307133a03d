//! One writer at a time: a lock file beside the catalogue.
//!
//! SQLite keeps each transaction safe, but two explorations of one file would
//! interleave their chunks and fail on each other's rows, and a census stored
//! while an exploration writes would end up beside a catalogue. Every bbx
//! that writes a catalogue file (`explore`, `stats --store-groups`) holds an
//! advisory lock on `FILE.lock` from before it creates or opens the file until
//! it is done, and removes the lock file then if it is bbx's: one it made,
//! which holds the line [`MARK`] (a file of that name that was there before,
//! an empty one included, is used as the lock and kept). The lock file is
//! created exclusively and opened without following a link, and only a
//! regular file is taken for one: a link or anything else of that name is
//! refused, never written through. Readers never create it: they
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

/// What a lock file bbx makes holds: the record that it is bbx's, which
/// the bbx done with it (or the next one, after a kill) removes.
pub const MARK: &[u8] = b"bbx writer lock\n";

/// The lock of the one program writing a catalogue, released when dropped.
#[derive(Debug)]
pub struct WriterLock {
    path: PathBuf,
    file: File,
}

/// The lock file of catalogue `db`: `db.lock`.
pub fn lock_path(db: &Path) -> PathBuf {
    beside(db, ".lock")
}

/// The file whose name is `path`'s followed by `suffix` (byte for byte,
/// whatever the name holds).
pub(super) fn beside(path: &Path, suffix: &str) -> PathBuf {
    let mut name = path.as_os_str().to_owned();
    name.push(suffix);
    PathBuf::from(name)
}

impl WriterLock {
    /// Takes the writer's lock of catalogue `db`, or says who holds it (an
    /// [`Error::Busy`]).
    pub fn take(db: &Path) -> Result<WriterLock, Error> {
        let path = lock_path(db);
        let start = Instant::now();
        loop {
            let file = make_or_open_lock(&path).map_err(|source| Error::Io {
                path: crate::files::shown(&path),
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
                        crate::files::shown(db),
                        crate::files::shown(&path)
                    )));
                }
                Err(TryLockError::Error(source)) => {
                    return Err(Error::Io {
                        path: crate::files::shown(&path),
                        source,
                    });
                }
            }
            // The holder before us may have removed the file after we opened
            // it: the lock counts only on the file still at the path.
            if same_file(&file, &path) {
                return Ok(WriterLock { path, file });
            }
        }
    }

    /// Whether a writer holds the lock of catalogue `db` now. Creates
    /// nothing: without a lock file, nobody holds it.
    pub fn is_held(db: &Path) -> bool {
        let Ok(file) = open_lock(&lock_path(db), false) else {
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
        // Removed while still locked (the lock goes with the file handle),
        // and only when it is the file bbx made, still at its path: a file
        // of that name that was there before is somebody else's, used as a
        // lock but kept.
        if is_marked(&self.file) && same_file(&self.file, &self.path) {
            let _ = std::fs::remove_file(&self.path);
        }
    }
}

/// Whether the lock file `file` holds [`MARK`] and nothing else.
fn is_marked(file: &File) -> bool {
    use std::io::{Read, Seek};
    let mut held = Vec::new();
    let mut reader = file;
    file.metadata().is_ok_and(|m| m.len() == MARK.len() as u64)
        && reader.seek(std::io::SeekFrom::Start(0)).is_ok()
        && reader
            .take(MARK.len() as u64)
            .read_to_end(&mut held)
            .is_ok()
        && held == MARK
}

/// The lock file at `path`: made (exclusively, holding [`MARK`]) when
/// there is none, or the regular file there opened without following a
/// link.
fn make_or_open_lock(path: &Path) -> std::io::Result<File> {
    use std::io::Write;
    let mut options = OpenOptions::new();
    options.read(true).write(true).create_new(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.custom_flags(rustix::fs::OFlags::NOFOLLOW.bits() as i32);
    }
    match options.open(path) {
        Ok(mut file) => {
            // Another bbx that opens it before the mark is written finds an
            // empty file, which it keeps: this one removes it when done.
            file.write_all(MARK)?;
            Ok(file)
        }
        Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => open_lock(path, true),
        Err(e) => Err(e),
    }
}

/// Opens the lock file at `path` (to write when `write`) without following
/// a link: anything but a regular file is refused.
fn open_lock(path: &Path, write: bool) -> std::io::Result<File> {
    let mut options = OpenOptions::new();
    options.read(true).write(write);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.custom_flags(
            (rustix::fs::OFlags::NOFOLLOW | rustix::fs::OFlags::NONBLOCK).bits() as i32,
        );
    }
    #[cfg(not(unix))]
    if std::fs::symlink_metadata(path).is_ok_and(|m| m.file_type().is_symlink()) {
        return Err(not_a_lock());
    }
    let file = options
        .open(path)
        .map_err(|e| if is_link(&e) { not_a_lock() } else { e })?;
    if !file.metadata()?.is_file() {
        return Err(not_a_lock());
    }
    Ok(file)
}

/// Whether opening a file failed because its name is a link (ELOOP, with
/// O_NOFOLLOW).
#[cfg(unix)]
fn is_link(e: &std::io::Error) -> bool {
    e.raw_os_error() == Some(rustix::io::Errno::LOOP.raw_os_error())
}

#[cfg(not(unix))]
fn is_link(_: &std::io::Error) -> bool {
    false
}

/// The error of a lock file that is not a regular file.
fn not_a_lock() -> std::io::Error {
    std::io::Error::other(
        "not a regular file (a link, a directory, a device): bbx's writer lock is an empty file it makes, and it writes through nothing else",
    )
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
    fn a_file_of_the_lock_files_name_that_bbx_did_not_make_is_kept() {
        let scratch = tempfile::tempdir().unwrap();
        let dir = scratch.path();
        // With content, or empty: either way, not a lock bbx made.
        for text in ["my notes\n", ""] {
            let db = dir.join("notes.sqlite");
            std::fs::write(dir.join("notes.sqlite.lock"), text).unwrap();
            drop(WriterLock::take(&db).unwrap());
            assert_eq!(
                std::fs::read_to_string(dir.join("notes.sqlite.lock")).unwrap(),
                text
            );
        }
    }

    #[test]
    fn the_lock_file_bbx_made_is_removed_by_the_next_writer_after_a_kill() {
        let scratch = tempfile::tempdir().unwrap();
        let db = scratch.path().join("bbx.sqlite");
        let lock = scratch.path().join("bbx.sqlite.lock");
        let held = WriterLock::take(&db).unwrap();
        assert_eq!(std::fs::read(&lock).unwrap(), MARK);
        drop(held);
        assert!(!lock.exists());
        // What a writer killed while it held the lock leaves: the next
        // writer removes it.
        std::fs::write(&lock, MARK).unwrap();
        drop(WriterLock::take(&db).unwrap());
        assert!(!lock.exists());
    }

    #[cfg(unix)]
    #[test]
    fn a_link_where_the_lock_should_be_is_refused_and_left_alone() {
        let scratch = tempfile::tempdir().unwrap();
        let dir = scratch.path();
        let precious = dir.join("precious");
        std::fs::write(&precious, "").unwrap();
        std::os::unix::fs::symlink(&precious, dir.join("bbx.sqlite.lock")).unwrap();
        let e = WriterLock::take(&dir.join("bbx.sqlite"))
            .unwrap_err()
            .to_string();
        assert!(e.contains("not a regular file"), "{e}");
        assert!(!WriterLock::is_held(&dir.join("bbx.sqlite")));
        assert!(
            std::fs::symlink_metadata(dir.join("bbx.sqlite.lock"))
                .unwrap()
                .file_type()
                .is_symlink()
        );
        assert!(precious.exists());
    }

    #[test]
    fn one_writer_at_a_time() {
        let scratch = tempfile::tempdir().unwrap();
        let dir = scratch.path();
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
    }
}
