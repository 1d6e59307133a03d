//! `bbx stats --store-groups` and the census's last phases, run as a real
//! binary: the store takes the catalogue's writer lock, a refused store
//! leaves no file, and Ctrl-C while grouping or storing stops at once,
//! leaves the file as it was and keeps the census's work, so that the same
//! command resumes.

use std::path::{Path, PathBuf};
use std::process::{Child, Command as StdCommand, Output, Stdio};
use std::time::{Duration, Instant};

use serde_json::Value;

use crate::common::{json_error, run, run_faulty, temp_dir, wait};

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

fn success(out: &Output) -> String {
    assert!(
        out.status.success(),
        "exit {:?}: {}",
        out.status.code(),
        stderr(out)
    );
    String::from_utf8(out.stdout.clone()).expect("utf-8")
}

/// A report's JSON without its source (how it was counted).
fn counts(json: &str) -> Value {
    let mut v: Value = serde_json::from_str(json).expect("json");
    v.as_object_mut().expect("object").remove("source");
    v
}

fn resumed(json: &str) -> bool {
    let v: Value = serde_json::from_str(json).expect("json");
    v["source"]["resumed"] == true
}

/// What SQLite or bbx leaves beside `db` while writing it.
fn leftovers(db: &Path) -> Vec<PathBuf> {
    ["-journal", ".lock"]
        .iter()
        .map(|s| PathBuf::from(format!("{}{s}", db.display())))
        .filter(|p| p.exists())
        .collect()
}

/// Whether a census's work is kept under `--work-dir` `work`: its manifest,
/// in `work` itself or in a directory the census made inside it.
fn census_kept(work: &Path) -> bool {
    work.join("manifest.json").exists()
        || std::fs::read_dir(work)
            .is_ok_and(|d| d.flatten().any(|e| e.path().join("manifest.json").exists()))
}

/// Ctrl-C, as a terminal sends it.
fn interrupt(child: &Child) {
    let status = StdCommand::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(status.success());
}

/// Waits until `ready()` or the child ends (then panics with its output);
/// bounded by a minute.
fn wait_for(child: &mut Child, what: &str, ready: impl Fn() -> bool) {
    let start = Instant::now();
    while !ready() {
        if let Some(status) = child.try_wait().unwrap() {
            panic!("the child ended ({status}) before {what}");
        }
        assert!(
            start.elapsed() < Duration::from_secs(60),
            "not {what} within a minute"
        );
        std::thread::sleep(Duration::from_millis(5));
    }
}

/// Whether process `pid` catches SIGINT (its Ctrl-C handler is in place);
/// where there is no /proc, true after a moment.
pub(crate) fn catches_sigint(pid: u32) -> bool {
    let Ok(status) = std::fs::read_to_string(format!("/proc/{pid}/status")) else {
        std::thread::sleep(Duration::from_millis(300));
        return true;
    };
    status
        .lines()
        .find_map(|l| l.strip_prefix("SigCgt:"))
        .and_then(|hex| u64::from_str_radix(hex.trim(), 16).ok())
        .is_some_and(|mask| mask & (1 << (2 - 1)) != 0)
}

#[test]
fn the_store_takes_the_writers_lock_and_checks_again_under_it() {
    let dir = temp_dir("store-lock");
    let db = dir.join("groups.sqlite");
    let d = db.to_str().unwrap();
    let work = dir.join("work");
    let w = work.to_str().unwrap();
    let args = [
        "stats",
        "A4_B5",
        "--store-groups",
        "--json",
        "--db",
        d,
        "--work-dir",
        w,
    ];
    // Another bbx writes the file (an exploration, another store): the
    // census is counted, but not stored beside it; busy is exit 3, and the
    // census is kept for the same command.
    let lock = bbx::catalogue::WriterLock::take(&db).unwrap();
    let out = run(&args);
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(3), "{err}");
    assert!(err.contains("another bbx is writing"), "{err}");
    assert!(err.contains("the census is kept in"), "{err}");
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(!db.exists(), "a refused store made {d}");
    assert!(census_kept(&work));
    drop(lock);
    let json = success(&run(&args));
    assert!(resumed(&json), "the kept census is not counted again");
    assert!(!census_kept(&work), "a stored census removes its work");
    assert!(leftovers(&db).is_empty(), "{:?}", leftovers(&db));
    let conn = rusqlite::Connection::open(&db).unwrap();
    let number = crate::cli_census::first_grouped_molecule(&conn).to_string();
    drop(conn);
    let show = success(&run(&["show", "A4_B5", "--group", &number, "--db", d]));
    assert!(show.contains("is shared by"), "{show}");
    // A second store of another configuration finds the first, under the
    // lock: one census per file.
    let out = run(&["stats", "A3_B5", "--store-groups", "--db", d]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(stderr(&out).contains("holds the census of A4_B5"));
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn a_refused_store_leaves_no_file() {
    let dir = temp_dir("store-refused");
    let db = dir.join("groups.sqlite");
    let d = db.to_str().unwrap();
    for (config, message) in [
        ("A12_B20", "too many molecules to number"),
        ("A1_B17", "boxes up to 16×16"),
    ] {
        let out = run(&["stats", config, "--store-groups", "--db", d]);
        let err = stderr(&out);
        assert_eq!(out.status.code(), Some(2), "{config}: {err}");
        assert!(err.contains(message), "{config}: {err}");
        assert!(!db.exists(), "{config}: a refused store made {d}");
        assert!(leftovers(&db).is_empty(), "{config}");
    }
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn a_stopped_store_leaves_the_file_as_it_was_and_resumes() {
    let dir = temp_dir("store-stop");
    let db = dir.join("groups.sqlite");
    let d = db.to_str().unwrap();
    let work = dir.join("work");
    let w = work.to_str().unwrap();
    let args = [
        "stats",
        "A4_B6",
        "--store-groups",
        "--json",
        "--db",
        d,
        "--work-dir",
        w,
    ];
    let stopped = |after: &str| {
        let out = run_faulty(&args, &format!("stop-storing-after={after}"));
        let err = stderr(&out);
        assert_eq!(out.status.code(), Some(130), "{err}");
        assert!(err.contains("the groups were not stored"), "{err}");
        assert_eq!(
            format!("{}\n", json_error(&out.stdout, "interrupted", 130)),
            err
        );
        assert!(err.contains("the same command stores it"), "{err}");
        assert!(census_kept(&work), "the census is kept");
        assert!(leftovers(&db).is_empty(), "{:?}", leftovers(&db));
    };
    // Stopped while storing into a new file: no file.
    stopped("10");
    assert!(!db.exists(), "a stopped store left {d}");
    let json = success(&run(&args));
    assert!(resumed(&json), "the kept census is not counted again");
    assert!(!census_kept(&work));
    // Stopped while replacing an earlier census: the file as it was,
    // byte for byte, the earlier census whole.
    let before = std::fs::read(&db).unwrap();
    stopped("100");
    assert!(
        std::fs::read(&db).unwrap() == before,
        "a stopped store changed {d}"
    );
    let show = success(&run(&["show", "A4_B6", "--group", "868", "--db", d]));
    assert!(
        show.contains("is shared by 2 molecules: 868, 15993"),
        "{show}"
    );
    assert_eq!(counts(&success(&run(&args))), counts(&json));
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn ctrl_c_while_storing_stops_at_once() {
    // A5_B8's groups take seconds to store; the signal comes as soon as the
    // store holds the file.
    let dir = temp_dir("store-sigint");
    let db = dir.join("groups.sqlite");
    let work = dir.join("work");
    let lock = dir.join("groups.sqlite.lock");
    let mut child = StdCommand::new(assert_cmd::cargo::cargo_bin("bbx"))
        .args(["stats", "A5_B8", "--store-groups", "-q", "--db"])
        .arg(&db)
        .arg("--work-dir")
        .arg(&work)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    wait_for(&mut child, "storing", || lock.exists());
    interrupt(&child);
    let out = wait(child, Duration::from_secs(60));
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(130), "{err}");
    assert!(err.contains("the groups were not stored"), "{err}");
    assert!(!db.exists(), "an interrupted store left its file");
    assert!(leftovers(&db).is_empty(), "{:?}", leftovers(&db));
    assert!(census_kept(&work), "the census is kept");
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn a_census_stopped_while_grouping_resumes_to_the_same_report() {
    let dir = temp_dir("group-stop");
    let work = dir.join("work");
    let w = work.to_str().unwrap();
    let reference = success(&run(&["stats", "A5_B7", "--json", "--work-dir", w]));
    // A small memory limit makes several partitions a worker: stopped after
    // the first, as Ctrl-C would, the work is kept.
    let args = [
        "stats",
        "A5_B7",
        "--json",
        "--memory",
        "1M",
        "--work-dir",
        w,
    ];
    let out = run_faulty(&args, "stop-grouping-after=1");
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(130), "{err}");
    assert!(err.contains("interrupted while grouping"), "{err}");
    json_error(&out.stdout, "interrupted", 130);
    assert!(err.contains("run the same command to resume"), "{err}");
    assert!(census_kept(&work));
    let json = success(&run(&args));
    assert_eq!(counts(&json), counts(&reference));
    assert!(resumed(&json));
    assert!(!census_kept(&work), "a finished census removes its work");
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn ctrl_c_while_grouping_stops_at_once() {
    // Counted, not grouped yet (the hidden flag stops where Ctrl-C would):
    // the same command goes straight to grouping, and Ctrl-C stops it there.
    let dir = temp_dir("group-sigint");
    let work = dir.join("work");
    let w = work.to_str().unwrap();
    let args = [
        "stats",
        "A6_B7",
        "--workers",
        "1",
        "--json",
        "--work-dir",
        w,
    ];
    let out = run_faulty(&args, "stop-grouping-after=0");
    assert_eq!(out.status.code(), Some(130), "{}", stderr(&out));
    let mut child = StdCommand::new(assert_cmd::cargo::cargo_bin("bbx"))
        .args(args)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let pid = child.id();
    wait_for(&mut child, "catching Ctrl-C", || catches_sigint(pid));
    interrupt(&child);
    let out = wait(child, Duration::from_secs(60));
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(130), "{err}");
    assert!(err.contains("interrupted while grouping"), "{err}");
    json_error(&out.stdout, "interrupted", 130);
    assert!(err.contains("run the same command to resume"), "{err}");
    assert!(census_kept(&work), "the work is kept");
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn stats_reads_a_stored_census_instead_of_counting_again() {
    // The report a census stored with its groups is the configuration's
    // tables: `stats` reads it (the very JSON the census printed, seconds
    // and all, which no second count repeats) and counts again only when
    // asked to (`--census`).
    let dir = temp_dir("stats-stored");
    let db = dir.join("groups.sqlite");
    let d = db.to_str().unwrap();
    let work = dir.join("work");
    let w = work.to_str().unwrap();
    let stored = success(&run(&[
        "stats",
        "A4_B5",
        "--store-groups",
        "--json",
        "-q",
        "--db",
        d,
        "--work-dir",
        w,
    ]));
    // Read, not counted: a census would make its work directory.
    let nowhere = dir.join("no such directory");
    let n = nowhere.to_str().unwrap();
    let read = success(&run(&[
        "stats",
        "A4_B5",
        "--json",
        "-q",
        "--db",
        d,
        "--work-dir",
        n,
    ]));
    assert_eq!(read, stored);
    assert!(!nowhere.exists(), "stats counted again");
    let text = success(&run(&["stats", "A4_B5", "-q", "--db", d]));
    let counted = success(&run(&[
        "stats",
        "A4_B5",
        "-q",
        "--census",
        "--db",
        d,
        "--work-dir",
        w,
    ]));
    let without_source = |t: &str| -> String {
        t.lines()
            .filter(|l| !l.starts_with("census:"))
            .collect::<Vec<_>>()
            .join("\n")
    };
    assert_eq!(without_source(&text), without_source(&counted));
    assert_ne!(
        success(&run(&[
            "stats",
            "A4_B5",
            "--json",
            "-q",
            "--census",
            "--db",
            d,
            "--work-dir",
            w
        ])),
        stored,
        "--census counts again"
    );
    std::fs::remove_dir_all(&dir).ok();
}
