//! A work directory: a directory of bbx's own ([`OwnDir`]) that keeps a
//! long work's checkpoints, with a manifest of the settings that decide the
//! work.
//!
//! bbx makes it inside the directory the user names with `--work-dir`
//! (never as that directory), private, and reaches its files only through
//! it, without following links. Its manifest records the settings that
//! decide the work ([`Manifest::settings`]), and so the files the work
//! makes ([`Manifest::made`]): a run with other settings is refused, naming
//! the setting that differs and both values; a directory holding anything
//! the manifest does not name is refused, and nothing in it is touched;
//! when the work is done it removes exactly the files the manifest names,
//! then the directory if nothing else is in it ([`WorkDir::remove`]).
//!
//! Checkpoints are logs of JSON lines ([`Log`]), each line written after
//! the work it stands for: a kill at any moment leaves a log whose lines
//! (but a torn last one, which [`read_lines`] drops) describe work done.

use std::fs::File;
use std::io::{BufRead, BufReader, Read, Write};
use std::marker::PhantomData;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use crate::error::Error;
use crate::files::shown;
use crate::setting::{Piece, Setting, Text};
use crate::text;
use crate::work::cluster::Settings;
use crate::work::disk::Disk;
use crate::work::own::{OwnDir, refused};

/// The manifest's name in a work directory.
pub const MANIFEST: &str = "manifest.json";

/// The manifest while it is written (renamed when whole): the one file
/// bbx makes in a work directory before the work's own.
pub const MANIFEST_TMP: &str = "manifest.json.tmp";

/// The most bytes of a manifest read (a real one is a few hundred).
const MANIFEST_LIMIT: u64 = 1 << 16;

/// The most bytes of a log line read: a line holds one round or one unit
/// of work (a unit's decision tree at most, a few megabytes).
pub const LINE_LIMIT: u64 = 1 << 28;

/// How long a work tries to lock its work directory before it says
/// another holds it: a census or verify that starts looks into the other
/// work directories beside its own, each locked for an instant.
const LOCK_PATIENCE: Duration = Duration::from_secs(1);

/// What a work records in its directory's manifest: the settings that
/// decide its files and their content, which a resumed run must share.
pub trait Manifest: serde::Serialize + serde::de::DeserializeOwned + PartialEq {
    /// The work, as messages name it: `census`, `bound`.
    fn work(&self) -> &'static str;

    /// Every setting that decides the work, each named, in the order a
    /// difference is looked for.
    fn settings(&self) -> Settings;

    /// Whether `name` is a file the work makes in its directory, the
    /// manifest apart: exactly those names, each written as the work
    /// writes it.
    fn made(&self, name: &str) -> bool;

    /// Whether `name`, a file the work makes, claims work done (a log):
    /// such files are removed before the others, so that a work killed
    /// while removing its files starts again instead of missing the files
    /// its logs name.
    fn claims(&self, _name: &str) -> bool {
        false
    }

    /// Takes from `found`, the manifest of the work there, what this run
    /// takes from an earlier one (a seed it drew); nothing by default.
    fn adopt(&mut self, _found: &Self) {}

    /// Words added to the refusal of a `setting` that differs, saying what
    /// decides it; none by default.
    fn decided_by(&self, _setting: &Piece) -> Option<Text> {
        None
    }
}

/// A work directory, locked while a work uses it, with its manifest.
#[derive(Debug, Clone)]
pub struct WorkDir<M> {
    dir: Arc<OwnDir>,
    /// The manifest it holds: this run's settings, with what it adopted
    /// from an earlier run's ([`Manifest::adopt`]).
    pub manifest: M,
    /// Whether it held an earlier run's work.
    pub resumed: bool,
    /// Where its files are written.
    disk: Disk,
}

impl<M: Manifest> WorkDir<M> {
    /// Opens (or makes) work directory `name` in `parent` for a work with
    /// `manifest`, its files written to `disk`, and locks it. Refuses,
    /// touching nothing, a directory that is not bbx's own (see
    /// [`OwnDir::open`]), one made with other settings (naming the first
    /// that differs, with both values), and one holding anything its
    /// manifest does not name as a file the work makes, or such a file
    /// that is not a regular file of the user's. A directory this call
    /// made and then refused is removed again.
    pub fn open(parent: &Path, name: &str, manifest: M, disk: Disk) -> Result<WorkDir<M>, Error> {
        let dir = OwnDir::open(parent, name)?;
        let opened = take(&dir, manifest);
        if opened.is_err() && dir.made {
            // Made by this call and refused: nothing is left.
            let _ = dir.remove(MANIFEST_TMP);
            let _ = dir.remove(MANIFEST);
            dir.remove_if_empty();
        }
        let (manifest, resumed) = opened?;
        Ok(WorkDir {
            dir: Arc::new(dir),
            manifest,
            resumed,
            disk,
        })
    }

    /// Removes the files the manifest names, those that claim work first
    /// ([`Manifest::claims`]) and the manifest last, then the directory if
    /// nothing else is left in it: a file somebody else put there stays,
    /// and so does the directory holding it. `directory`: false to keep
    /// the directory (one this run did not make).
    pub fn remove(&self, directory: bool) {
        let names: Vec<String> = self
            .dir
            .names()
            .unwrap_or_default()
            .into_iter()
            .filter_map(|n| n.into_string().ok())
            .filter(|n| n != MANIFEST && self.manifest.made(n))
            .collect();
        for name in names.iter().filter(|n| self.manifest.claims(n)) {
            let _ = self.dir.remove(name);
        }
        for name in names.iter().filter(|n| !self.manifest.claims(n)) {
            let _ = self.dir.remove(name);
        }
        let _ = self.dir.remove(MANIFEST_TMP);
        let _ = self.dir.remove(MANIFEST);
        if directory {
            self.dir.remove_if_empty();
        }
    }
}

impl<M> WorkDir<M> {
    /// The directory's path (for messages; its files are reached through
    /// [`own`](Self::own)).
    pub fn path(&self) -> &Path {
        self.dir.path()
    }

    /// The directory, to reach its files.
    pub fn own(&self) -> &OwnDir {
        &self.dir
    }

    /// Whether this run made the directory.
    pub fn made(&self) -> bool {
        self.dir.made
    }

    /// Where its files are written.
    pub fn disk(&self) -> &Disk {
        &self.disk
    }

    /// The file `name` to read, if it is there (and a regular file of the
    /// user's).
    pub fn reading(&self, name: &str) -> Option<File> {
        self.dir.open_file(name).ok()
    }

    /// Rewrites the log `name` to hold `keep` alone (through a file renamed
    /// over it, so that a kill leaves the old log or the new one, both
    /// files the manifest must name) and opens it for appending (`what` it
    /// is, to say so when that fails); a `durable` log is made durable
    /// after each line.
    pub fn open_log<T: serde::Serialize>(
        &self,
        name: &str,
        keep: &[T],
        what: &'static str,
        durable: bool,
    ) -> Result<Log<T>, Error> {
        let tmp = format!("{name}.tmp");
        let mut text = String::new();
        for l in keep {
            text.push_str(&serde_json::to_string(l)?);
            text.push('\n');
        }
        let path = self.path().join(name);
        let err = failed(&path, what);
        self.dir.remove(&tmp).map_err(&err)?;
        let mut file = self.dir.create(&tmp).map_err(&err)?;
        self.disk
            .write_all(&mut file, 0, text.as_bytes())
            .and_then(|()| file.sync_all())
            .map_err(&err)?;
        self.dir.rename(&tmp, name).map_err(&err)?;
        Ok(Log {
            file,
            path,
            what,
            durable,
            disk: self.disk.clone(),
            broken: false,
            lines: PhantomData,
        })
    }
}

/// Locks `dir` and reads its manifest, or writes `manifest` there when it
/// has none: the manifest it holds, and whether it was there.
fn take<M: Manifest>(dir: &OwnDir, mut manifest: M) -> Result<(M, bool), Error> {
    let path = dir.path();
    let work = manifest.work();
    let io = |what: &str| failed(path, what);
    if !lock_patiently(dir).map_err(io("lock the work directory"))? {
        return Err(Error::busy(text![
            format!(
                "{}: another {work} is using this work directory; wait for it to finish, or give another ",
                shown(path)
            ),
            Setting::WorkDir
        ]));
    }
    let names = dir.names().map_err(io("read the work directory"))?;
    let has = |n: &str| names.iter().any(|m| m == n);
    let found: Option<M> = if has(MANIFEST) {
        Some(read_manifest(dir, work)?)
    } else {
        None
    };
    // What bbx may have made here: the files the manifest names, or,
    // without one, the manifest it was writing.
    for n in &names {
        let name = n.to_str().unwrap_or("");
        let recorded = match &found {
            Some(m) => name == MANIFEST || m.made(name),
            None => name == MANIFEST_TMP,
        };
        let entry = match recorded {
            true => dir.entry(name).map_err(io("read the work directory"))?,
            false => None,
        };
        if !entry.is_some_and(|e| e.own_file) {
            let what = if recorded {
                "which is not a regular file bbx made (a link, a directory, a file with other names)"
            } else {
                "which bbx did not make"
            };
            return Err(refused(path, &format!("it holds '{}', {what}", shown(n))));
        }
    }
    let Some(found) = found else {
        dir.remove(MANIFEST_TMP).map_err(io("write the manifest"))?;
        write_manifest(dir, &manifest)?;
        return Ok((manifest, false));
    };
    manifest.adopt(&found);
    if let Some((name, mine, theirs)) = manifest.settings().differs(&found.settings()) {
        let mut message = text![
            format!(
                "{} holds a {work} started with other settings: ",
                shown(path)
            ),
            name.clone(),
            format!(" is {mine} here but {theirs} in the work directory")
        ];
        if let Some(note) = manifest.decided_by(&name) {
            message = message.and_text(note);
        }
        return Err(Error::invalid(message.and_text(resume_or_discard(work))));
    }
    if found != manifest {
        return Err(Error::invalid(
            Text::from(format!("{} holds a {work} of other settings", shown(path)))
                .and_text(resume_or_discard(work)),
        ));
    }
    Ok((found, true))
}

/// Locks `dir`, trying for a second: false when another holds it
/// all that time.
pub fn lock_patiently(dir: &OwnDir) -> std::io::Result<bool> {
    let start = std::time::Instant::now();
    loop {
        if dir.lock()? {
            return Ok(true);
        }
        if start.elapsed() >= LOCK_PATIENCE {
            return Ok(false);
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// How the refusal of a `work` ("census", "bound") of other settings
/// ends: what to do.
pub fn resume_or_discard(work: &str) -> Text {
    text![
        format!(": run the {work} with the same options to resume it, or give another "),
        Setting::WorkDir,
        format!(" (the directory is bbx's own: deleting it discards that {work}'s work)")
    ]
}

/// The manifest of the `work` ("census", "bound") kept in `dir`, refused
/// when it does not read.
pub fn read_manifest<T: serde::de::DeserializeOwned>(dir: &OwnDir, work: &str) -> Result<T, Error> {
    let path = dir.path();
    let file = dir
        .open_file(MANIFEST)
        .map_err(failed(&path.join(MANIFEST), "read the manifest"))?;
    let mut text = String::new();
    let read = file.take(MANIFEST_LIMIT).read_to_string(&mut text);
    match read.ok().and_then(|_| serde_json::from_str(&text).ok()) {
        Some(m) => Ok(m),
        None => Err(Error::invalid(
            Text::from(format!("{} holds unreadable settings", shown(path)))
                .and_text(resume_or_discard(work)),
        )),
    }
}

/// Writes `manifest` in `dir`, whole (into a file renamed once written).
fn write_manifest<T: serde::Serialize>(dir: &OwnDir, manifest: &T) -> Result<(), Error> {
    let err = failed(&dir.path().join(MANIFEST), "write the manifest");
    let text = serde_json::to_string_pretty(manifest)?;
    let mut file = dir.create(MANIFEST_TMP).map_err(&err)?;
    file.write_all(text.as_bytes())
        .and_then(|()| file.sync_all())
        .map_err(&err)?;
    dir.rename(MANIFEST_TMP, MANIFEST).map_err(&err)
}

/// The error of a file of a work directory at `path` that could not be
/// used for `what` ("write the log").
pub fn failed(path: &Path, what: &str) -> impl Fn(std::io::Error) -> Error + use<> {
    let (path, what) = (shown(path), what.to_string());
    move |source| Error::WorkDir {
        path: path.clone(),
        what: what.clone(),
        source,
    }
}

/// A log of JSON lines (`T`s) in a work directory, open for appending.
#[derive(Debug)]
pub struct Log<T> {
    file: File,
    path: PathBuf,
    /// What writing it is, for errors.
    what: &'static str,
    /// Made durable after each line.
    durable: bool,
    disk: Disk,
    /// A write failed: the log may end in a torn line, and nothing more is
    /// appended to it.
    broken: bool,
    lines: PhantomData<T>,
}

impl<T: serde::Serialize> Log<T> {
    /// Appends a line. After a failed write the log takes no more lines: a
    /// line after a torn one would be lost on reading anyway, and the work
    /// it claims must then be done again.
    pub fn append(&mut self, line: &T) -> Result<(), Error> {
        let err = failed(&self.path, self.what);
        if self.broken {
            return Err(err(std::io::Error::other(
                "an earlier write to this log failed",
            )));
        }
        let mut text = serde_json::to_string(line)?;
        text.push('\n');
        let at = self.file.metadata().map_or(0, |m| m.len());
        let written = self.disk.write_all(&mut self.file, at, text.as_bytes());
        self.broken = written.is_err();
        written.map_err(err)?;
        if self.durable { self.sync() } else { Ok(()) }
    }

    /// Makes the log durable.
    pub fn sync(&self) -> Result<(), Error> {
        self.file
            .sync_data()
            .map_err(failed(&self.path, "write the log to the disk"))
    }
}

/// The lines of a log (`file`, none when there is no such file), in order,
/// up to the first that is torn (no end of line, or longer than
/// [`LINE_LIMIT`]), does not read, or that `accept` refuses given the
/// lines before it: a log killed while written, or one of other work.
pub fn read_lines<T: serde::de::DeserializeOwned>(
    file: Option<File>,
    mut accept: impl FnMut(&[T], &T) -> bool,
) -> Vec<T> {
    let Some(file) = file else {
        return Vec::new();
    };
    let mut reader = BufReader::new(file);
    let mut out: Vec<T> = Vec::new();
    let mut text = String::new();
    loop {
        text.clear();
        match (&mut reader).take(LINE_LIMIT).read_line(&mut text) {
            Ok(0) | Err(_) => break,
            Ok(_) => {}
        }
        if !text.ends_with('\n') {
            break;
        }
        let Ok(line) = serde_json::from_str::<T>(text.trim_end()) else {
            break;
        };
        if !accept(&out, &line) {
            break;
        }
        out.push(line);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A work whose files are `a.log` and `b.data`.
    #[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
    struct Test {
        size: u64,
    }

    impl Manifest for Test {
        fn work(&self) -> &'static str {
            "test"
        }
        fn settings(&self) -> Settings {
            Settings::new().with("the size", self.size)
        }
        fn made(&self, name: &str) -> bool {
            ["a.log", "a.log.tmp", "b.data"].contains(&name)
        }
        fn claims(&self, name: &str) -> bool {
            name == "a.log"
        }
    }

    #[test]
    fn a_log_resumes_to_its_whole_lines_and_settings_must_match() {
        let scratch = tempfile::tempdir().unwrap();
        let open = |size| WorkDir::open(scratch.path(), "w", Test { size }, Disk::real());
        let w = open(3).unwrap();
        assert!(!w.resumed && w.made());
        let mut log = w
            .open_log::<u64>("a.log", &[], "write the log", true)
            .unwrap();
        for i in 0..4 {
            log.append(&i).unwrap();
        }
        drop(log);
        // A torn last line, written while killed.
        std::fs::OpenOptions::new()
            .append(true)
            .open(scratch.path().join("w/a.log"))
            .unwrap()
            .write_all(b"12")
            .unwrap();
        // Locked while in use.
        let e = open(3).unwrap_err().to_string();
        assert!(e.contains("another test is using"), "{e}");
        drop(w);
        let e = open(4).unwrap_err().to_string();
        assert!(
            e.contains("holds a test started with other settings: the size is 4 here but 3"),
            "{e}"
        );
        let w = open(3).unwrap();
        assert!(w.resumed);
        let lines: Vec<u64> = read_lines(w.reading("a.log"), |before: &[u64], l| {
            before.last().is_none_or(|p| p < l)
        });
        assert_eq!(lines, [0, 1, 2, 3]);
        // Only the lines accepted.
        let odd: Vec<u64> = read_lines(w.reading("a.log"), |_, l| *l < 2);
        assert_eq!(odd, [0, 1]);
        std::fs::write(scratch.path().join("w/notes.txt"), "mine").unwrap();
        drop(w);
        let e = open(3).unwrap_err().to_string();
        assert!(e.contains("'notes.txt', which bbx did not make"), "{e}");
        std::fs::remove_file(scratch.path().join("w/notes.txt")).unwrap();
        let w = open(3).unwrap();
        w.remove(true);
        assert!(!scratch.path().join("w").exists());
    }

    #[test]
    fn a_refused_directory_this_run_made_is_removed_again() {
        let scratch = tempfile::tempdir().unwrap();
        std::fs::create_dir(scratch.path().join("w")).unwrap();
        std::fs::write(scratch.path().join("w/manifest.json"), "{").unwrap();
        let e = WorkDir::open(scratch.path(), "w", Test { size: 1 }, Disk::real())
            .unwrap_err()
            .to_string();
        assert!(e.contains("unreadable settings"), "{e}");
        assert!(scratch.path().join("w/manifest.json").exists());
    }
}
