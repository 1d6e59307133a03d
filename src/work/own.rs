//! A directory of bbx's own: the census's work directory, which no one else
//! can steer.
//!
//! bbx makes it private (mode 0700), or accepts one that is there already
//! only when it is a real directory (not a link) of the user running bbx
//! that no one else may write in ([`OwnDir::open`]); the caller then checks
//! that it holds nothing its records do not name. Every file in it is
//! reached through the directory's own handle, never through its path again,
//! and without following links: a file is created exclusively
//! ([`OwnDir::create`], never truncating something that was there) or
//! reopened only when it is a regular file of the user's with no other name
//! ([`OwnDir::open`]); a file is removed by its name ([`OwnDir::remove`]),
//! and the directory only when empty ([`OwnDir::remove_if_empty`]).

use std::ffi::OsString;
use std::fs::File;
use std::io;
use std::path::{Path, PathBuf};

use crate::error::Error;
use crate::files::shown;
use crate::setting::Setting;
use crate::text;

/// What a name in an [`OwnDir`] is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Entry {
    /// A regular file of this user's with no other name (not a link, a
    /// directory, a device, a file with hard links).
    pub own_file: bool,
    /// Its size in bytes.
    pub bytes: u64,
}

/// An open directory of bbx's own, locked or not (see [`OwnDir::lock`]).
#[derive(Debug)]
pub struct OwnDir {
    path: PathBuf,
    /// Whether this call made it (else it was there and passed the checks).
    pub made: bool,
    handle: sys::Handle,
}

impl OwnDir {
    /// Makes directory `name` in `parent` (which must exist), private, or
    /// opens the one there after checking that it is a real directory of
    /// this user's that no one else may write in. Anything else is refused
    /// with a one-line message naming the directory and what is wrong, and
    /// is not touched.
    pub fn open(parent: &Path, name: &str) -> Result<OwnDir, Error> {
        let path = parent.join(name);
        let (handle, made) = sys::open(parent, name, true).map_err(|e| match e {
            Opening::Io(source) => Error::WorkDir {
                path: shown(&path),
                what: "make the work directory".into(),
                source,
            },
            Opening::Wrong(wrong) => refused(&path, &wrong),
        })?;
        Ok(OwnDir { path, made, handle })
    }

    /// The directory `name` in `parent` if it is there and passes the checks
    /// of [`open`](Self::open); nothing is made.
    pub fn existing(parent: &Path, name: &str) -> Option<OwnDir> {
        let (handle, _) = sys::open(parent, name, false).ok()?;
        Some(OwnDir {
            path: parent.join(name),
            made: false,
            handle,
        })
    }

    /// Its path (for messages and for the caller's records; files are never
    /// reached through it).
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Takes the directory's lock for as long as this value lives: false
    /// when another program holds it.
    pub fn lock(&self) -> io::Result<bool> {
        self.handle.lock()
    }

    /// The names it holds.
    pub fn names(&self) -> io::Result<Vec<OsString>> {
        self.handle.names()
    }

    /// What `name` is, if it is there (links are not followed).
    pub fn entry(&self, name: &str) -> io::Result<Option<Entry>> {
        self.handle.entry(name)
    }

    /// Creates file `name`, readable and writable: an error when anything
    /// of that name is there (nothing is truncated or followed).
    pub fn create(&self, name: &str) -> io::Result<File> {
        self.handle.create(name)
    }

    /// Opens file `name` to read and write: an error unless it is a
    /// regular file of this user's with no other name (a link is not
    /// followed).
    pub fn open_file(&self, name: &str) -> io::Result<File> {
        self.handle.open(name)
    }

    /// [`open_file`](Self::open_file), or [`create`](Self::create) when
    /// there is no such file.
    pub fn open_or_create(&self, name: &str) -> io::Result<File> {
        match self.handle.open(name) {
            Err(e) if e.kind() == io::ErrorKind::NotFound => match self.handle.create(name) {
                // Made meanwhile by another of this census's threads.
                Err(e) if e.kind() == io::ErrorKind::AlreadyExists => self.handle.open(name),
                other => other,
            },
            other => other,
        }
    }

    /// Renames `from` to `to` inside the directory, replacing `to`.
    pub fn rename(&self, from: &str, to: &str) -> io::Result<()> {
        self.handle.rename(from, to)
    }

    /// Removes `name` (a link itself, never what it points at); nothing
    /// when it is not there.
    pub fn remove(&self, name: &str) -> io::Result<()> {
        match self.handle.remove(name) {
            Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(()),
            other => other,
        }
    }

    /// Removes the directory if nothing is left in it; true when it did.
    pub fn remove_if_empty(&self) -> bool {
        self.handle.remove_self(&self.path).is_ok()
    }

    /// The bytes of the regular files it holds.
    pub fn bytes(&self) -> u64 {
        let names = self.names().unwrap_or_default();
        names
            .iter()
            .filter_map(|n| n.to_str())
            .filter_map(|n| self.entry(n).ok().flatten())
            .map(|e| e.bytes)
            .sum()
    }
}

/// Makes the missing directories of `path` (private, as [`OwnDir`] is),
/// and says which it made, the outermost first, so that a run that fails
/// before working removes them again ([`remove_made`]).
pub fn make_parents(path: &Path) -> io::Result<Vec<PathBuf>> {
    let mut missing = Vec::new();
    let mut at = Some(path);
    while let Some(p) = at {
        if p.as_os_str().is_empty() || std::fs::symlink_metadata(p).is_ok() {
            break;
        }
        missing.push(p.to_path_buf());
        at = p.parent();
    }
    missing.reverse();
    let mut made = Vec::new();
    for dir in missing {
        match sys::make_dir(&dir) {
            Ok(()) => made.push(dir),
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists && dir.is_dir() => {}
            Err(e) => return Err(e),
        }
    }
    Ok(made)
}

/// Removes the directories [`make_parents`] made, the innermost first,
/// each only while empty.
pub fn remove_made(made: &[PathBuf]) {
    for dir in made.iter().rev() {
        if std::fs::remove_dir(dir).is_err() {
            break;
        }
    }
}

/// Why a directory of bbx's own could not be opened.
enum Opening {
    /// The system refused.
    Io(io::Error),
    /// It is there, but it is not one bbx may work in: what is wrong.
    Wrong(String),
}

/// The error of a work directory `path` that bbx will not work in, `wrong`
/// saying why: bad input, and nothing in it is touched.
pub fn refused(path: &Path, wrong: &str) -> Error {
    Error::invalid(text![
        format!(
            "{}: {wrong}; bbx works only in a directory of its own: remove it if it is yours, or give another ",
            shown(path)
        ),
        Setting::WorkDir
    ])
}

#[cfg(unix)]
mod sys {
    use std::ffi::OsString;
    use std::fs::File;
    use std::io;
    use std::os::fd::{AsFd, OwnedFd};
    use std::os::unix::ffi::OsStrExt;
    use std::path::Path;

    use rustix::fs::{AtFlags, CWD, FileType, FlockOperation, Mode, OFlags};

    use super::{Entry, Opening};

    /// The directory, and its parent's handle (to remove it by name).
    #[derive(Debug)]
    pub struct Handle {
        dir: OwnedFd,
        parent: OwnedFd,
        name: OsString,
    }

    fn me() -> u32 {
        rustix::process::geteuid().as_raw()
    }

    pub fn make_dir(path: &Path) -> io::Result<()> {
        rustix::fs::mkdirat(CWD, path, Mode::from_raw_mode(0o700))?;
        Ok(())
    }

    pub fn open(parent: &Path, name: &str, make: bool) -> Result<(Handle, bool), Opening> {
        let io = |e: rustix::io::Errno| Opening::Io(e.into());
        let parent = rustix::fs::open(
            parent,
            OFlags::RDONLY | OFlags::DIRECTORY | OFlags::CLOEXEC,
            Mode::empty(),
        )
        .map_err(io)?;
        let made = make
            && match rustix::fs::mkdirat(&parent, name, Mode::from_raw_mode(0o700)) {
                Ok(()) => true,
                Err(rustix::io::Errno::EXIST) => false,
                Err(e) => return Err(io(e)),
            };
        // Looked at without following a link before it is opened (opening
        // a link with O_NOFOLLOW|O_DIRECTORY fails), and checked again
        // through the handle, which no rename can change.
        let seen = rustix::fs::statat(&parent, name, AtFlags::SYMLINK_NOFOLLOW).map_err(io)?;
        match FileType::from_raw_mode(seen.st_mode) {
            FileType::Directory => {}
            FileType::Symlink => {
                return Err(Opening::Wrong(
                    "it is a symbolic link, not a directory bbx made".into(),
                ));
            }
            _ => return Err(Opening::Wrong("it is not a directory".into())),
        }
        let dir = rustix::fs::openat(
            &parent,
            name,
            OFlags::RDONLY | OFlags::DIRECTORY | OFlags::NOFOLLOW | OFlags::CLOEXEC,
            Mode::empty(),
        )
        .map_err(|e| match e {
            rustix::io::Errno::LOOP | rustix::io::Errno::NOTDIR => {
                Opening::Wrong("it was replaced by something that is not a directory".into())
            }
            e => io(e),
        })?;
        let st = rustix::fs::fstat(&dir).map_err(io)?;
        if st.st_uid != me() {
            return Err(Opening::Wrong(format!(
                "it belongs to another user (uid {})",
                st.st_uid
            )));
        }
        let mode = st.st_mode & 0o7777;
        if mode & 0o022 != 0 {
            return Err(Opening::Wrong(format!(
                "its mode {mode:04o} lets other users write in it"
            )));
        }
        let handle = Handle {
            dir,
            parent,
            name: OsString::from(name),
        };
        Ok((handle, made))
    }

    impl Handle {
        pub fn lock(&self) -> io::Result<bool> {
            match rustix::fs::flock(&self.dir, FlockOperation::NonBlockingLockExclusive) {
                Ok(()) => Ok(true),
                Err(rustix::io::Errno::WOULDBLOCK) => Ok(false),
                Err(e) => Err(e.into()),
            }
        }

        pub fn names(&self) -> io::Result<Vec<OsString>> {
            let mut out = Vec::new();
            for entry in rustix::fs::Dir::read_from(&self.dir)? {
                let entry = entry?;
                let name = entry.file_name().to_bytes();
                if name != b"." && name != b".." {
                    out.push(std::ffi::OsStr::from_bytes(name).to_os_string());
                }
            }
            Ok(out)
        }

        pub fn entry(&self, name: &str) -> io::Result<Option<Entry>> {
            match rustix::fs::statat(&self.dir, name, AtFlags::SYMLINK_NOFOLLOW) {
                Ok(st) => Ok(Some(Entry {
                    own_file: FileType::from_raw_mode(st.st_mode) == FileType::RegularFile
                        && st.st_uid == me()
                        && st.st_nlink == 1,
                    bytes: u64::try_from(st.st_size).unwrap_or(0),
                })),
                Err(rustix::io::Errno::NOENT) => Ok(None),
                Err(e) => Err(e.into()),
            }
        }

        pub fn create(&self, name: &str) -> io::Result<File> {
            let fd = rustix::fs::openat(
                &self.dir,
                name,
                OFlags::RDWR | OFlags::CREATE | OFlags::EXCL | OFlags::NOFOLLOW | OFlags::CLOEXEC,
                Mode::from_raw_mode(0o600),
            )?;
            Ok(File::from(fd))
        }

        pub fn open(&self, name: &str) -> io::Result<File> {
            let fd = rustix::fs::openat(
                &self.dir,
                name,
                OFlags::RDWR | OFlags::NOFOLLOW | OFlags::NONBLOCK | OFlags::CLOEXEC,
                Mode::empty(),
            )
            .map_err(|e| match e {
                rustix::io::Errno::LOOP => not_own(name),
                e => e.into(),
            })?;
            let st = rustix::fs::fstat(&fd)?;
            if FileType::from_raw_mode(st.st_mode) != FileType::RegularFile
                || st.st_uid != me()
                || st.st_nlink != 1
            {
                return Err(not_own(name));
            }
            // Back to blocking, as files are (it kept a FIFO from blocking
            // the open).
            rustix::fs::fcntl_setfl(&fd, OFlags::empty())?;
            Ok(File::from(fd))
        }

        pub fn rename(&self, from: &str, to: &str) -> io::Result<()> {
            rustix::fs::renameat(&self.dir, from, &self.dir, to)?;
            Ok(())
        }

        pub fn remove(&self, name: &str) -> io::Result<()> {
            rustix::fs::unlinkat(&self.dir, name, AtFlags::empty())?;
            Ok(())
        }

        pub fn remove_self(&self, _path: &Path) -> io::Result<()> {
            rustix::fs::unlinkat(self.parent.as_fd(), &self.name, AtFlags::REMOVEDIR)?;
            Ok(())
        }
    }

    fn not_own(name: &str) -> io::Error {
        io::Error::other(format!(
            "{name} is not a regular file bbx made (a link, a device or a file with other names)"
        ))
    }
}

#[cfg(not(unix))]
mod sys {
    //! Without handles on directories: the same checks through paths,
    //! links looked at without being followed.

    use std::ffi::OsString;
    use std::fs::{File, OpenOptions};
    use std::io;
    use std::path::{Path, PathBuf};

    use super::{Entry, Opening};

    /// The directory's path, and its lock file once taken.
    #[derive(Debug)]
    pub struct Handle {
        path: PathBuf,
        lock: std::sync::Mutex<Option<File>>,
    }

    pub fn make_dir(path: &Path) -> io::Result<()> {
        std::fs::create_dir(path)
    }

    pub fn open(parent: &Path, name: &str, make: bool) -> Result<(Handle, bool), Opening> {
        let path = parent.join(name);
        let made = make
            && match std::fs::create_dir(&path) {
                Ok(()) => true,
                Err(e) if e.kind() == io::ErrorKind::AlreadyExists => false,
                Err(e) => return Err(Opening::Io(e)),
            };
        let seen = std::fs::symlink_metadata(&path).map_err(Opening::Io)?;
        if seen.file_type().is_symlink() {
            return Err(Opening::Wrong(
                "it is a symbolic link, not a directory bbx made".into(),
            ));
        }
        if !seen.is_dir() {
            return Err(Opening::Wrong("it is not a directory".into()));
        }
        let handle = Handle {
            path,
            lock: std::sync::Mutex::new(None),
        };
        Ok((handle, made))
    }

    impl Handle {
        pub fn lock(&self) -> io::Result<bool> {
            let file = OpenOptions::new()
                .create(true)
                .truncate(false)
                .write(true)
                .open(self.path.join(super::LOCK))?;
            match file.try_lock() {
                Ok(()) => {}
                Err(std::fs::TryLockError::WouldBlock) => return Ok(false),
                Err(std::fs::TryLockError::Error(e)) => return Err(e),
            }
            if let Ok(mut held) = self.lock.lock() {
                *held = Some(file);
            }
            Ok(true)
        }

        /// The names it holds, but the lock file, which is the
        /// directory's own (the census's records never name it).
        pub fn names(&self) -> io::Result<Vec<OsString>> {
            let names: Vec<OsString> = std::fs::read_dir(&self.path)?
                .map(|e| e.map(|e| e.file_name()))
                .collect::<io::Result<_>>()?;
            Ok(names.into_iter().filter(|n| n != super::LOCK).collect())
        }

        pub fn entry(&self, name: &str) -> io::Result<Option<Entry>> {
            match std::fs::symlink_metadata(self.path.join(name)) {
                Ok(m) => Ok(Some(Entry {
                    own_file: m.is_file(),
                    bytes: m.len(),
                })),
                Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(None),
                Err(e) => Err(e),
            }
        }

        pub fn create(&self, name: &str) -> io::Result<File> {
            OpenOptions::new()
                .read(true)
                .write(true)
                .create_new(true)
                .open(self.path.join(name))
        }

        pub fn open(&self, name: &str) -> io::Result<File> {
            let path = self.path.join(name);
            if !std::fs::symlink_metadata(&path)?.is_file() {
                return Err(io::Error::other(format!(
                    "{name} is not a regular file bbx made"
                )));
            }
            OpenOptions::new().read(true).write(true).open(path)
        }

        pub fn rename(&self, from: &str, to: &str) -> io::Result<()> {
            std::fs::rename(self.path.join(from), self.path.join(to))
        }

        pub fn remove(&self, name: &str) -> io::Result<()> {
            std::fs::remove_file(self.path.join(name))
        }

        pub fn remove_self(&self, path: &Path) -> io::Result<()> {
            if let Ok(mut held) = self.lock.lock()
                && held.take().is_some()
            {
                let _ = std::fs::remove_file(path.join(super::LOCK));
            }
            std::fs::remove_dir(path)
        }
    }
}

/// Without handles on directories, the lock is this file in the directory
/// (elsewhere the directory itself is locked).
#[cfg(not(unix))]
pub const LOCK: &str = "lock";

#[cfg(test)]
mod tests {
    use super::*;

    #[cfg(unix)]
    #[test]
    fn links_others_and_open_doors_are_refused_and_left_alone() {
        use std::os::unix::fs::PermissionsExt;
        let scratch = tempfile::tempdir().unwrap();
        let base = scratch.path();
        let precious = base.join("precious");
        std::fs::write(&precious, "precious\n").unwrap();
        // A link where the directory should be.
        std::os::unix::fs::symlink(base, base.join("link")).unwrap();
        let e = OwnDir::open(base, "link").unwrap_err().to_string();
        assert!(e.contains("a symbolic link"), "{e}");
        // A file.
        std::fs::write(base.join("file"), "x").unwrap();
        let e = OwnDir::open(base, "file").unwrap_err().to_string();
        assert!(e.contains("not a directory"), "{e}");
        // A directory anyone may write in.
        std::fs::create_dir(base.join("open")).unwrap();
        std::fs::set_permissions(base.join("open"), std::fs::Permissions::from_mode(0o777))
            .unwrap();
        let e = OwnDir::open(base, "open").unwrap_err().to_string();
        assert!(e.contains("mode 0777 lets other users write"), "{e}");
        assert!(e.contains("the work directory"), "{e}");
        // A new one is private; files in it are made exclusively and
        // reopened only as regular files.
        let dir = OwnDir::open(base, "mine").unwrap();
        assert!(dir.made);
        let mode = std::fs::metadata(base.join("mine"))
            .unwrap()
            .permissions()
            .mode();
        assert_eq!(mode & 0o777, 0o700);
        dir.create("a").unwrap();
        assert_eq!(
            dir.create("a").unwrap_err().kind(),
            io::ErrorKind::AlreadyExists
        );
        std::os::unix::fs::symlink(&precious, base.join("mine/b")).unwrap();
        assert!(dir.open_file("b").is_err());
        assert!(dir.open_or_create("b").is_err());
        assert!(!dir.entry("b").unwrap().unwrap().own_file);
        std::fs::hard_link(&precious, base.join("mine/c")).unwrap();
        assert!(dir.open_file("c").is_err());
        dir.remove("b").unwrap();
        dir.remove("c").unwrap();
        assert_eq!(std::fs::read_to_string(&precious).unwrap(), "precious\n");
        // Locked once.
        assert!(dir.lock().unwrap());
        let again = OwnDir::open(base, "mine").unwrap();
        assert!(!again.made);
        assert!(!again.lock().unwrap());
        drop(again);
        assert!(!dir.remove_if_empty());
        dir.remove("a").unwrap();
        assert!(dir.remove_if_empty());
        assert!(!base.join("mine").exists());
    }

    #[test]
    fn missing_parents_are_made_and_removed_while_empty() {
        let scratch = tempfile::tempdir().unwrap();
        let deep = scratch.path().join("a/b/c");
        let made = make_parents(&deep).unwrap();
        assert_eq!(made.len(), 3);
        std::fs::write(scratch.path().join("a/keep"), "x").unwrap();
        remove_made(&made);
        assert!(!scratch.path().join("a/b").exists());
        assert!(scratch.path().join("a/keep").exists());
        assert!(make_parents(scratch.path()).unwrap().is_empty());
    }
}
