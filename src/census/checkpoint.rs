//! Checkpoints: how a killed census picks up where it stopped.
//!
//! Work is cut into *units* (ranges of molecule numbers) dealt to the workers
//! in *rounds*: in round r, worker w does unit r·workers + w. A round is a
//! timely epoch. When every record of round r has reached its partition file,
//! and the worker's own tracing of that round is counted, the worker appends
//! a line to its log: the round, its partition files' lengths and its tally.
//!
//! A census started again with the same settings finds the last round every
//! worker logged, cuts each worker's files back to that round's lengths, and
//! goes on from the next round. Files are only appended to, and a line is
//! written after the records it counts, so a kill at any moment leaves logs
//! that describe records present on disk.
//!
//! The work directory is bbx's own ([`OwnDir`]): bbx makes it inside the
//! directory the user names with `--work-dir` (never as that directory),
//! private, and reaches its files only through it, without following
//! links. Its manifest records the settings that decide the work, and so
//! the files the census makes ([`Manifest::made`]): a census with other
//! settings is refused, naming the setting that differs and both values; a
//! directory holding anything the manifest does not name is refused, and
//! nothing in it is touched; when the census is done it removes exactly the
//! files the manifest names, then the directory if nothing else is in it.
//!
//! A write that fails (a full disk) stops the census and records nothing more:
//! a round is logged only after all its records reached their files, so the
//! same command run again, once there is space, resumes from the rounds that
//! really were written.

use std::fs::File;
use std::io::{BufRead, BufReader, Read, Write};
use std::marker::PhantomData;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use crate::census::cluster::Settings;
use crate::census::own::{OwnDir, refused};
use crate::census::summary::Tally;
use crate::error::Error;
use crate::files::shown;
use crate::setting::{Piece, Setting, Text};
use crate::text;

/// The settings a work directory was made with: those that decide its
/// files and their content, which a resumed run must share.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Manifest {
    /// Format of the directory.
    pub format: u32,
    /// The configuration.
    pub config: String,
    /// Symmetry reduction.
    pub symmetry: bool,
    /// Molecule numbers per unit.
    pub unit_size: u64,
    /// Workers in all processes.
    pub peers: usize,
    /// Processes.
    pub processes: usize,
    /// This process.
    pub process: usize,
    /// Partition files per worker.
    pub partitions: usize,
    /// The sink the groups are handed to, and its settings (see
    /// [`crate::census::sink`]); none for a plain census.
    pub sink: Option<SinkManifest>,
}

/// What a manifest records of a census's sink.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct SinkManifest {
    /// What takes the groups (`verify`).
    pub name: String,
    /// Its own settings.
    pub settings: Settings,
    /// Unique spectra handed over, drawn at random.
    pub sample: u64,
    /// The seed of that draw.
    pub seed: u64,
}

/// The current [`Manifest::format`]. It changes whenever what the files
/// hold does (format 2 keys the records by spectra written in
/// [`Outcome::code`](crate::rules::ray::Outcome::code)s; format 3 records
/// the sink's settings one by one and locks the directory itself), so that
/// a census never resumes the work of another format: it is refused as a
/// census of other settings.
pub const FORMAT: u32 = 3;

/// The manifest's name in the work directory.
pub(crate) const MANIFEST: &str = "manifest.json";

/// The manifest while it is written (renamed when whole): the one file
/// bbx makes in a work directory before its records.
pub(crate) const MANIFEST_TMP: &str = "manifest.json.tmp";

/// The most bytes of a manifest read (a real one is a few hundred).
const MANIFEST_LIMIT: u64 = 1 << 16;

impl Manifest {
    /// The settings that decide the work and that every process of the
    /// census shares, each named, in the order a difference is looked for.
    pub fn shared(&self) -> Settings {
        let given = |on: bool| if on { "given" } else { "not given" };
        let settings = Settings::new()
            .with("the work directory format", self.format)
            .with("the configuration", &self.config)
            .with(Setting::NoSymmetry, given(!self.symmetry))
            .with(Setting::Processes, self.processes)
            .with(Setting::Workers, self.peers / self.processes.max(1))
            .with("the unit size", self.unit_size);
        match &self.sink {
            None => settings.with(HANDED_TO, "nothing"),
            Some(sink) => settings
                .with(HANDED_TO, &sink.name)
                .and(&sink.settings)
                .with(Setting::Sample, sink.sample)
                .with(Setting::Seed, sink.seed),
        }
    }

    /// Every setting that decides this process's work: the
    /// [`shared`](Self::shared) ones, the process and its partition files.
    pub fn settings(&self) -> Settings {
        self.shared()
            .with(Setting::Process, self.process)
            .with(PARTITION_FILES, self.partitions)
    }

    /// This process's workers (their indices among all the processes').
    fn workers(&self) -> std::ops::Range<usize> {
        let each = self.peers / self.processes.max(1);
        self.process * each..(self.process + 1) * each
    }

    /// Whether `name` is a file a census of this manifest makes in its work
    /// directory: the manifest, and for each of this process's workers its
    /// log, its sink's log (with a sink), each with the file that replaces
    /// it, and its partition files. Exactly those names, each written as
    /// the census writes it.
    pub fn made(&self, name: &str) -> bool {
        if name == MANIFEST {
            return true;
        }
        let Some(rest) = name.strip_prefix("worker") else {
            return false;
        };
        let digits = rest.bytes().take_while(u8::is_ascii_digit).count();
        let Ok(worker) = rest[..digits].parse::<usize>() else {
            return false;
        };
        if !self.workers().contains(&worker) {
            return false;
        }
        let expected = match &rest[digits..] {
            tail @ (".log" | ".log.tmp") => format!("worker{worker}{tail}"),
            tail @ (".sink" | ".sink.tmp") if self.sink.is_some() => {
                format!("worker{worker}{tail}")
            }
            tail => {
                let part = tail
                    .strip_prefix("-part")
                    .and_then(|t| t.strip_suffix(".records"))
                    .and_then(|j| j.parse::<usize>().ok());
                match part {
                    Some(j) if j < self.partitions => partition_name(worker, j),
                    _ => return false,
                }
            }
        };
        // Written as the census writes it: no leading zeros, no sign.
        expected == name
    }
}

/// How the partition files a worker writes are named among the settings.
const PARTITION_FILES: &str = "the partition files a worker";

/// How the sink is named among the settings.
const HANDED_TO: &str = "what the groups are handed to";

/// The name of worker `worker`'s partition file `j`.
pub fn partition_name(worker: usize, j: usize) -> String {
    format!("worker{worker}-part{j}.records")
}

/// Where a census's partition files and logs are written: the disk itself,
/// or, for tests of a full disk, one that fills up after a number of bytes.
/// The fake disk behaves as a real one does: space is taken by 4 KiB blocks,
/// so a short write into a file's last block still succeeds when the disk is
/// full, and a write that needs more blocks than are free writes what fits,
/// then fails with [`std::io::ErrorKind::StorageFull`].
#[derive(Debug, Clone, Default)]
pub struct Disk {
    left: Option<Arc<AtomicU64>>,
}

/// The fake disk's block.
const BLOCK: u64 = 4096;

impl Disk {
    /// The disk itself.
    pub fn real() -> Disk {
        Disk::default()
    }

    /// A disk with `bytes` more bytes free, shared by every clone.
    pub fn filling_after(bytes: u64) -> Disk {
        Disk {
            left: Some(Arc::new(AtomicU64::new(bytes / BLOCK * BLOCK))),
        }
    }

    /// Writes all of `bytes` to `file` at its current position, which is
    /// `at`, or as much as fits and then fails as a full disk does.
    pub fn write_all(&self, file: &mut File, at: u64, bytes: &[u8]) -> std::io::Result<()> {
        let Some(left) = &self.left else {
            return file.write_all(bytes);
        };
        let allocated = file.metadata()?.len().div_ceil(BLOCK) * BLOCK;
        let end = at + bytes.len() as u64;
        let need = (end.div_ceil(BLOCK) * BLOCK).saturating_sub(allocated);
        let granted = match left.fetch_update(Ordering::SeqCst, Ordering::SeqCst, |l| {
            Some(l - l.min(need))
        }) {
            Ok(before) | Err(before) => before.min(need),
        };
        if granted == need {
            return file.write_all(bytes);
        }
        let fits = (allocated + granted)
            .saturating_sub(at)
            .min(bytes.len() as u64);
        file.write_all(&bytes[..fits as usize])?;
        Err(std::io::Error::new(
            std::io::ErrorKind::StorageFull,
            "No space left on device (a full disk faked by the fail-writes-after fault)",
        ))
    }
}

/// One log line: round `round` is done.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Line {
    /// The round.
    pub round: u64,
    /// The worker's partition file lengths after it.
    pub lengths: Vec<u64>,
    /// The worker's tally after it.
    pub tally: Tally,
}

/// A census's work directory, locked while a census uses it.
#[derive(Debug, Clone)]
pub struct WorkDir {
    dir: Arc<OwnDir>,
    /// The manifest it holds: this run's settings, with the seed of an
    /// earlier run when this one's was drawn.
    pub manifest: Manifest,
    /// Whether it held an earlier run's work.
    pub resumed: bool,
    /// Where its files are written.
    disk: Disk,
}

impl WorkDir {
    /// Opens (or makes) work directory `name` in `parent` for a census with
    /// these settings, its files written to `disk`, and locks it. Refuses,
    /// touching nothing, a directory that is not bbx's own (see
    /// [`OwnDir::open`]), one made with other settings (naming the first
    /// that differs, with both values; a seed the run drew, `seed_drawn`,
    /// is not one: the seed of the work there is taken instead), and one
    /// holding anything its manifest does not name as a file the census
    /// makes, or such a file that is not a regular file of the user's.
    pub fn open(
        parent: &Path,
        name: &str,
        manifest: Manifest,
        seed_drawn: bool,
        disk: Disk,
    ) -> Result<WorkDir, Error> {
        let dir = OwnDir::open(parent, name)?;
        let opened = WorkDir::take(&dir, manifest, seed_drawn);
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

    /// Locks `dir` and reads its manifest, or writes `manifest` there when
    /// it has none: the manifest it holds, and whether it was there.
    fn take(
        dir: &OwnDir,
        mut manifest: Manifest,
        seed_drawn: bool,
    ) -> Result<(Manifest, bool), Error> {
        let path = dir.path();
        let io = |what: &str| failed(path, what);
        if !lock_patiently(dir).map_err(io("lock the work directory"))? {
            return Err(Error::busy(text![
                format!(
                    "{}: another census is using this work directory; wait for it to finish, or give another ",
                    shown(path)
                ),
                Setting::WorkDir
            ]));
        }
        let names = dir.names().map_err(io("read the work directory"))?;
        let has = |n: &str| names.iter().any(|m| m == n);
        let found = if has(MANIFEST) {
            Some(read_manifest(dir)?)
        } else {
            None
        };
        // What bbx may have made here: the files the manifest names, or,
        // without one, the manifest it was writing.
        for n in &names {
            let name = n.to_str().unwrap_or("");
            let recorded = match &found {
                Some(m) => m.made(name),
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
        if seed_drawn && let (Some(mine), Some(theirs)) = (manifest.sink.as_mut(), &found.sink) {
            mine.seed = theirs.seed;
        }
        if let Some((name, mine, theirs)) = manifest.settings().differs(&found.settings()) {
            let mut message = text![
                format!(
                    "{} holds a census started with other settings: ",
                    shown(path)
                ),
                name.clone(),
                format!(" is {mine} here but {theirs} in the work directory")
            ];
            if name == Piece::Words(PARTITION_FILES.into()) {
                message = message.and(" (").and(Setting::Memory).and(" decides them)");
            }
            return Err(Error::invalid(
                message.and_text(resume_or_discard("census")),
            ));
        }
        if found != manifest {
            return Err(Error::invalid(
                Text::from(format!("{} holds a census of other settings", shown(path)))
                    .and_text(resume_or_discard("census")),
            ));
        }
        Ok((found, true))
    }

    /// The directory.
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

    fn log_name(worker: usize) -> String {
        format!("worker{worker}.log")
    }

    fn sink_name(worker: usize) -> String {
        format!("worker{worker}.sink")
    }

    /// The file `name` to read, if it is there.
    fn reading(&self, name: &str) -> Option<File> {
        self.dir.open_file(name).ok()
    }

    /// Worker `worker`'s log lines, in order (a torn last line is dropped).
    pub fn lines(&self, worker: usize) -> Vec<Line> {
        read_log(self.reading(&Self::log_name(worker)), |l: &Line| l.round)
    }

    /// Opens worker `worker`'s log for appending, keeping only `keep` (the
    /// lines up to the round the census resumes from).
    pub fn log(&self, worker: usize, keep: &[Line]) -> Result<Log<Line>, Error> {
        self.open_log(Self::log_name(worker), keep, "write the log", false)
    }

    /// Rewrites the log `name` to hold `keep` alone (through a file renamed
    /// over it, so that a kill leaves the old log or the new one) and opens
    /// it for appending (`what` it is, to say so when that fails); a
    /// `durable` log is made durable after each line.
    fn open_log<T: serde::Serialize>(
        &self,
        name: String,
        keep: &[T],
        what: &'static str,
        durable: bool,
    ) -> Result<Log<T>, Error> {
        // worker3.log.tmp, worker3.sink.tmp: files the manifest names.
        let tmp = format!("{name}.tmp");
        let mut text = String::new();
        for l in keep {
            text.push_str(&serde_json::to_string(l)?);
            text.push('\n');
        }
        let path = self.path().join(&name);
        let err = failed(&path, what);
        self.dir.remove(&tmp).map_err(&err)?;
        let mut file = self.dir.create(&tmp).map_err(&err)?;
        file.write_all(text.as_bytes()).map_err(&err)?;
        self.dir.rename(&tmp, &name).map_err(&err)?;
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

    /// Removes worker `worker`'s log (its sink's log first), so that the
    /// directory no longer claims its work: done before its partition files
    /// are removed, a census killed in between starts again instead of
    /// missing the files its log names.
    pub fn forget(&self, worker: usize) {
        let _ = self.dir.remove(&Self::sink_name(worker));
        let _ = self.dir.remove(&Self::log_name(worker));
    }

    /// What worker `worker`'s sink took in an earlier run, partition by
    /// partition, in order (a torn last line is dropped).
    pub fn sink_lines(&self, worker: usize) -> Vec<SinkLine> {
        read_log(self.reading(&Self::sink_name(worker)), |l: &SinkLine| {
            l.partition
        })
    }

    /// Opens worker `worker`'s sink log for appending, keeping only `keep`;
    /// each line is made durable as it is written (it stands for a whole
    /// partition's checks, so it is worth a sync).
    pub fn sink_log(&self, worker: usize, keep: &[SinkLine]) -> Result<Log<SinkLine>, Error> {
        self.open_log(Self::sink_name(worker), keep, "write the sink's log", true)
    }

    /// Removes the files the manifest names, the logs first (see
    /// [`WorkDir::forget`]) and the manifest last, then the directory if
    /// nothing else is left in it: a file somebody else put there stays,
    /// and so does the directory holding it. `directory`: false to keep
    /// the directory (one this run did not make).
    pub fn remove(self, directory: bool) {
        let names: Vec<String> = self
            .dir
            .names()
            .unwrap_or_default()
            .into_iter()
            .filter_map(|n| n.into_string().ok())
            .filter(|n| n != MANIFEST && self.manifest.made(n))
            .collect();
        let claims = |n: &String| n.ends_with(".log") || n.ends_with(".sink");
        for name in names.iter().filter(|n| claims(n)) {
            let _ = self.dir.remove(name);
        }
        for name in names.iter().filter(|n| !claims(n)) {
            let _ = self.dir.remove(name);
        }
        let _ = self.dir.remove(MANIFEST);
        if directory {
            self.dir.remove_if_empty();
        }
    }
}

/// How long a census tries to lock its work directory before it says
/// another holds it: a census or verify that starts looks into the other
/// work directories beside its own, each locked for an instant (see
/// [`crate::census::unfinished`]).
const LOCK_PATIENCE: std::time::Duration = std::time::Duration::from_secs(1);

/// Locks `dir`, trying for [`LOCK_PATIENCE`]: false when another holds it
/// all that time.
pub(crate) fn lock_patiently(dir: &OwnDir) -> std::io::Result<bool> {
    let start = std::time::Instant::now();
    loop {
        if dir.lock()? {
            return Ok(true);
        }
        if start.elapsed() >= LOCK_PATIENCE {
            return Ok(false);
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
}

/// How the refusal of a `work` ("census", "bound") of other settings
/// ends: what to do.
pub(crate) fn resume_or_discard(work: &str) -> Text {
    text![
        format!(": run the {work} with the same options to resume it, or give another "),
        Setting::WorkDir,
        format!(" (the directory is bbx's own: deleting it discards that {work}'s work)")
    ]
}

/// The manifest of `dir`, refused when it does not read.
pub(crate) fn read_manifest(dir: &OwnDir) -> Result<Manifest, Error> {
    read_manifest_of(dir, "census")
}

/// The manifest of the `work` ("census", "bound") kept in `dir`, whatever
/// its type, refused when it does not read.
pub(crate) fn read_manifest_of<T: serde::de::DeserializeOwned>(
    dir: &OwnDir,
    work: &str,
) -> Result<T, Error> {
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
pub(crate) fn write_manifest<T: serde::Serialize>(dir: &OwnDir, manifest: &T) -> Result<(), Error> {
    let err = failed(&dir.path().join(MANIFEST), "write the manifest");
    let text = serde_json::to_string_pretty(manifest)?;
    let mut file = dir.create(MANIFEST_TMP).map_err(&err)?;
    file.write_all(text.as_bytes())
        .and_then(|()| file.sync_all())
        .map_err(&err)?;
    dir.rename(MANIFEST_TMP, MANIFEST).map_err(&err)
}

/// The error of a file of the work directory at `path` that could not be
/// used for `what` ("write the log").
pub(crate) fn failed(path: &Path, what: &str) -> impl Fn(std::io::Error) -> Error + use<> {
    let (path, what) = (crate::files::shown(path), what.to_string());
    move |source| Error::WorkDir {
        path: path.clone(),
        what: what.clone(),
        source,
    }
}

/// A worker's log (of [`Line`]s) or its sink's (of [`SinkLine`]s), open
/// for appending.
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
    /// line after a torn one would be lost on reading anyway, and the round
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

/// One line of a sink's log: what the sink took of a partition (or, at
/// `partition` = the number of partitions, of the sample of unique spectra).
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct SinkLine {
    /// The partition.
    pub partition: u64,
    /// What the sink logged of it ([`crate::census::sink::GroupSink::take_log`]).
    pub logged: serde_json::Value,
}

/// The lines of a log (`file`, none when there is no such file), in
/// order: JSON lines whose `order` increases; reading stops at the first
/// that does not read or does not come after the one before (a torn last
/// line, written while killed).
fn read_log<T: serde::de::DeserializeOwned>(
    file: Option<File>,
    order: impl Fn(&T) -> u64,
) -> Vec<T> {
    let Some(f) = file else {
        return Vec::new();
    };
    let mut out: Vec<T> = Vec::new();
    for l in BufReader::new(f).lines() {
        let Ok(l) = l else { break };
        let Ok(line) = serde_json::from_str::<T>(&l) else {
            break;
        };
        if out.last().is_some_and(|p| order(p) >= order(&line)) {
            break;
        }
        out.push(line);
    }
    out
}

/// A work directory `work` in `parent`, of a census of A4_B6 with 2 workers
/// and 3 partition files each, for tests.
#[cfg(test)]
pub(crate) fn test_dir(parent: &Path) -> WorkDir {
    WorkDir::open(parent, "work", tests::manifest(), false, Disk::real()).unwrap()
}

#[cfg(test)]
mod tests {
    use super::*;

    pub(super) fn manifest() -> Manifest {
        Manifest {
            format: FORMAT,
            config: "A4_B6".into(),
            symmetry: true,
            unit_size: 100,
            peers: 2,
            processes: 1,
            process: 0,
            partitions: 3,
            sink: None,
        }
    }

    #[test]
    fn logs_resume_at_the_common_round_and_settings_must_match() {
        let scratch = tempfile::tempdir().unwrap();
        let open = |m: Manifest| WorkDir::open(scratch.path(), "work", m, false, Disk::real());
        let dir = scratch.path().join("work");
        let w = open(manifest()).unwrap();
        assert!(!w.resumed);
        let mut log = w.log(0, &[]).unwrap();
        for round in 0..3 {
            log.append(&Line {
                round,
                lengths: vec![round * 16],
                tally: Tally::default(),
            })
            .unwrap();
        }
        // A torn last line (killed while writing) is dropped.
        drop(log);
        drop(w);
        std::fs::OpenOptions::new()
            .append(true)
            .open(dir.join("worker0.log"))
            .unwrap()
            .write_all(b"{\"round\":3,\"len")
            .unwrap();
        let w = open(manifest()).unwrap();
        assert!(w.resumed);
        // Locked while in use.
        let e = open(manifest()).unwrap_err().to_string();
        assert!(e.contains("another census"), "{e}");
        assert_eq!(w.lines(0).len(), 3);
        drop(w);
        let other = Manifest {
            peers: 4,
            ..manifest()
        };
        let e = open(other).unwrap_err().to_string();
        assert!(
            e.contains("the number of workers is 4 here but 2 in the work directory"),
            "{e}"
        );
        assert!(e.contains("same options"), "{e}");
        open(manifest()).unwrap().remove(true);
        assert!(!dir.exists());
    }

    #[test]
    fn a_drawn_seed_is_the_recorded_one_and_a_given_one_must_match() {
        let scratch = tempfile::tempdir().unwrap();
        let with_seed = |seed| Manifest {
            sink: Some(SinkManifest {
                name: "verify".into(),
                settings: Settings::new().with(Setting::Ambiguous, "not given"),
                sample: 100,
                seed,
            }),
            ..manifest()
        };
        let open =
            |seed, drawn| WorkDir::open(scratch.path(), "w", with_seed(seed), drawn, Disk::real());
        drop(open(7, true).unwrap());
        let again = open(3, true).unwrap();
        assert!(again.resumed);
        assert_eq!(again.manifest.sink.as_ref().unwrap().seed, 7);
        drop(again);
        let e = open(3, false).unwrap_err().to_string();
        assert!(
            e.contains("the seed is 3 here but 7 in the work directory"),
            "{e}"
        );
    }

    #[test]
    fn the_files_a_census_makes_are_exactly_those_its_manifest_names() {
        let m = manifest();
        for ours in [
            "manifest.json",
            "worker0.log",
            "worker1.log.tmp",
            "worker1-part2.records",
            "worker0-part0.records",
        ] {
            assert!(m.made(ours), "{ours}");
        }
        for theirs in [
            "notes.txt",
            "lock",
            "manifest.json.tmp",
            "worker.log",
            "workerA.log",
            "worker2.log",
            "worker7.log",
            "worker01.log",
            "worker+1.log",
            "worker0-part3.records",
            "worker0-part99.records",
            "worker0-part01.records",
            "worker1-part.records",
            "worker1.records",
            // No sink: no sink's log.
            "worker0.sink",
        ] {
            assert!(!m.made(theirs), "{theirs}");
        }
        // Process 1 of 2, one worker each: worker 1 alone.
        let p = Manifest {
            processes: 2,
            process: 1,
            ..manifest()
        };
        assert!(p.made("worker1.log") && !p.made("worker0.log"));
    }

    #[cfg(unix)]
    #[test]
    fn a_planted_directory_is_refused_and_left_as_it_was() {
        let scratch = tempfile::tempdir().unwrap();
        let precious = scratch.path().join("precious");
        std::fs::write(&precious, "precious\n").unwrap();
        let dir = scratch.path().join("work");
        let open = || WorkDir::open(scratch.path(), "work", manifest(), false, Disk::real());
        // Made by this census, then a link put among its files.
        open().unwrap().log(0, &[]).unwrap();
        std::os::unix::fs::symlink(&precious, dir.join("worker1-part0.records")).unwrap();
        let e = open().unwrap_err().to_string();
        assert!(
            e.contains("'worker1-part0.records', which is not a regular file"),
            "{e}"
        );
        std::fs::remove_file(dir.join("worker1-part0.records")).unwrap();
        // A file it did not make.
        std::fs::write(dir.join("worker0.sink"), "x").unwrap();
        let e = open().unwrap_err().to_string();
        assert!(e.contains("'worker0.sink', which bbx did not make"), "{e}");
        assert!(dir.join("worker0.log").exists(), "nothing is touched");
        assert_eq!(std::fs::read_to_string(&precious).unwrap(), "precious\n");
    }

    #[test]
    fn a_finished_census_removes_only_what_its_manifest_names() {
        let scratch = tempfile::tempdir().unwrap();
        let dir = scratch.path().join("work");
        let w = test_dir(scratch.path());
        let parts = crate::census::spill::Partitions::open(&w, 1, 3, &[], Disk::real()).unwrap();
        w.log(1, &[]).unwrap();
        // Put there while the census runs: files that only look like its own.
        for name in [
            "worker7.log",
            "worker0.sink",
            "worker0-part99.records",
            "notes.txt",
        ] {
            std::fs::write(dir.join(name), name).unwrap();
        }
        drop(parts);
        w.remove(true);
        let mut left: Vec<String> = std::fs::read_dir(&dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().into_string().unwrap())
            .collect();
        left.sort();
        assert_eq!(
            left,
            [
                "notes.txt",
                "worker0-part99.records",
                "worker0.sink",
                "worker7.log"
            ]
        );
    }

    #[test]
    fn a_full_fake_disk_fails_as_a_real_one_does() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("f");
        let mut file = File::create(&path).unwrap();
        let disk = Disk::filling_after(2 * BLOCK);
        disk.write_all(&mut file, 0, &[1; 100]).unwrap();
        // Within the block already taken: no new space needed.
        disk.write_all(&mut file, 100, &[2; 3000]).unwrap();
        // Crosses into the second block, then past it: what fits is written.
        let e = disk.write_all(&mut file, 3100, &[3; 6000]).unwrap_err();
        assert_eq!(e.kind(), std::io::ErrorKind::StorageFull);
        assert_eq!(std::fs::metadata(&path).unwrap().len(), 2 * BLOCK);
        // Full: a short write into the last block's slack would still pass,
        // but this one needs a block.
        assert!(disk.write_all(&mut file, 2 * BLOCK, &[4; 1]).is_err());
    }

    #[test]
    fn a_census_killed_while_cleaning_up_starts_again() {
        // A finished worker forgets its log before removing its partition
        // files: killed in between, the directory claims no round, and the
        // files are opened afresh instead of being missed.
        let scratch = tempfile::tempdir().unwrap();
        let w = test_dir(scratch.path());
        let mut parts =
            crate::census::spill::Partitions::open(&w, 0, 1, &[], Disk::real()).unwrap();
        parts.append(&[]).unwrap();
        let mut log = w.log(0, &[]).unwrap();
        log.append(&Line {
            round: 0,
            lengths: vec![64],
            tally: Tally::default(),
        })
        .unwrap();
        drop(log);
        w.forget(0);
        parts.remove();
        drop(parts);
        drop(w);
        let w = test_dir(scratch.path());
        assert!(w.lines(0).is_empty());
        crate::census::spill::Partitions::open(&w, 0, 1, &[], Disk::real()).unwrap();
        w.remove(true);
        assert!(!scratch.path().join("work").exists());
    }
}
