//! `bbx verify` with a census streaming its groups to SAT, run as a real
//! binary: it equals `verify --ambiguous` on stored groups, resumes to the
//! same verdict after a kill or a stop, gives the verdict of one process on
//! two, and still shows a mismatch.

use std::path::Path;
use std::process::{Child, Command as StdCommand, Output, Stdio};
use std::time::Duration;

use serde_json::Value;

use crate::common::{bbx, kill_at_random, temp_dir, wait};

/// `bbx verify ARGS --json` in `work`, with no catalogue; its exit status and
/// JSON.
fn verify(args: &[&str], work: &Path) -> (i32, Value) {
    verify_faulty(args, "", work)
}

/// [`verify`] with the faults of `BBX_TEST_FAULTS`.
fn verify_faulty(args: &[&str], faults: &str, work: &Path) -> (i32, Value) {
    let out = bbx()
        .env("BBX_TEST_FAULTS", faults)
        .arg("verify")
        .args(args)
        .arg("--db")
        .arg(work.join("none.sqlite"))
        .arg("--work-dir")
        .arg(work)
        .arg("--json")
        .output()
        .expect("runs");
    let v = serde_json::from_slice(&out.stdout).unwrap_or_else(|_| {
        panic!(
            "{args:?}: {}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        )
    });
    (out.status.code().unwrap_or(-1), v)
}

/// What a verdict says, without how it was reached (time, workers, resumed).
fn verdict(v: &Value) -> Value {
    let mut v = v.clone();
    let o = v.as_object_mut().expect("object");
    for key in ["seconds", "census", "source"] {
        o.remove(key);
    }
    v
}

#[test]
fn the_stream_equals_the_stored_groups_and_the_census() {
    let dir = temp_dir("stream-stored");
    let db = dir.join("a4-b7.sqlite");
    let db = db.to_str().unwrap();
    let work = dir.join("work");
    let out = bbx()
        .args([
            "stats",
            "A4_B7",
            "--store-groups",
            "--db",
            db,
            "--json",
            "--work-dir",
        ])
        .arg(&work)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let stats: Value = serde_json::from_slice(&out.stdout).unwrap();
    let stored = bbx()
        .args(["verify", "A4_B7", "--ambiguous", "--db", db, "--json"])
        .output()
        .unwrap();
    assert_eq!(stored.status.code(), Some(0));
    let stored: Value = serde_json::from_slice(&stored.stdout).unwrap();
    assert_eq!(stored["source"]["kind"], "census");
    let (code, streamed) = verify(&["A4_B7", "--ambiguous"], &work);
    assert_eq!(code, 0);
    assert_eq!(streamed["source"]["kind"], "stream");
    assert_eq!(streamed["rows"], stored["rows"]);
    assert_eq!(streamed["checked"], stored["checked"]);
    assert_eq!(streamed["spectra"], stored["spectra"]);
    // The census's ambiguity table, row by row, in spectra and molecules.
    let census: Vec<(u64, u64, u64)> = stats["ambiguity"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            (
                r["molecules_per_spectrum"].as_u64().unwrap(),
                r["spectra"].as_u64().unwrap(),
                r["molecules"].as_u64().unwrap(),
            )
        })
        .collect();
    let rows: Vec<(u64, u64, u64)> = streamed["rows"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            (
                r["size"].as_u64().unwrap(),
                r["enumeration_spectra"].as_u64().unwrap(),
                r["enumeration_molecules"].as_u64().unwrap(),
            )
        })
        .collect();
    assert_eq!(rows, census);
    // One SAT check per class of ambiguous spectra.
    let classes: u64 = stats["ambiguity"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["spectra_up_to_symmetry"].as_u64().unwrap())
        .sum();
    assert_eq!(streamed["sat_checks"], classes);
    // With the unique spectra, all of them (fewer than the sample): the
    // table of every spectrum, which the enumeration in memory gives too.
    let (code, all) = verify(&["A4_B7", "--seed", "3", "--sample", "300000"], &work);
    assert_eq!(code, 0);
    assert_eq!(all["unique_checked"], all["unique_spectra"]);
    assert_eq!(all["checked"], all["spectra"]);
    let (code, memory) = verify(&["A4_B7", "--partial", "0"], &work);
    assert_eq!(code, 0);
    assert_eq!(memory["source"]["kind"], "enumeration");
    assert_eq!(all["rows"], memory["rows"]);
    assert!(
        !work.join("bbx-verify-A4_B7").exists(),
        "a finished verify removes its work"
    );
}

#[test]
fn a_mismatch_shows_in_the_stream() {
    let dir = temp_dir("stream-mismatch");
    let (code, v) = verify_faulty(&["A3_B5", "--seed", "1"], "crossed-rules", &dir);
    assert_eq!(code, 1);
    assert!(v["mismatches_found"].as_u64().unwrap() > 0);
    let listed = v["mismatches"].as_array().unwrap();
    assert!(!listed.is_empty());
    assert!(
        v["rows"]
            .as_array()
            .unwrap()
            .iter()
            .any(|r| r["mismatches"].as_u64().unwrap() > 0)
    );
    let out = bbx()
        .args(["verify", "A3_B5", "--seed", "1", "--db"])
        .arg(dir.join("none.sqlite"))
        .env("BBX_TEST_FAULTS", "crossed-rules")
        .arg("--work-dir")
        .arg(&*dir)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("verdict: MISMATCH on"), "{text}");
    assert!(text.contains("mismatch on "), "{text}");
}

/// The faults of a [`slow`] verify: small units.
const SLOW: &str = "unit-size=20000";

/// The arguments of a verify that takes a while: units and partitions
/// small ([`SLOW`]), one worker.
fn slow(work: &Path) -> Vec<String> {
    // The directory given holds the (absent) catalogue too.
    std::fs::create_dir_all(work).unwrap();
    [
        "verify",
        "A5_B7",
        "--json",
        "--workers",
        "1",
        "--sample",
        "3000",
        "--seed",
        "11",
        "--db",
    ]
    .iter()
    .map(|s| s.to_string())
    .chain([
        work.join("none.sqlite").to_str().unwrap().to_string(),
        "--work-dir".into(),
        work.to_str().unwrap().into(),
    ])
    .collect()
}

/// The verdict of a [`slow`] verify run without interruption in `work`.
fn uninterrupted(work: &Path) -> Value {
    let out = bbx()
        .args(slow(work))
        .env("BBX_TEST_FAULTS", SLOW)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    serde_json::from_slice(&out.stdout).unwrap()
}

/// Runs the [`slow`] verify in `work` again, after whatever stopped it
/// (`what`): it must give the `reference` verdict and remove its work
/// directory, and say it resumed when `resumed` (a run killed before it
/// wrote anything starts afresh).
fn resumes_to(work: &Path, reference: &Value, resumed: bool, what: &str) {
    let out = bbx()
        .args(slow(work))
        .env("BBX_TEST_FAULTS", SLOW)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{what}");
    let again: Value = serde_json::from_slice(&out.stdout).unwrap();
    if resumed {
        assert_eq!(again["census"]["resumed"], true, "{what}");
    }
    assert_eq!(verdict(&again), verdict(reference), "{what}");
    assert!(!work.join("bbx-verify-A5_B7").exists(), "{what}");
}

#[test]
fn a_stopped_verify_resumes_to_the_same_verdict() {
    let dir = temp_dir("stream-stop");
    let reference = uninterrupted(&dir.join("reference"));
    assert_eq!(reference["unique_checked"], 3000);
    let work = dir.join("work");
    // Stopped while tracing, then twice while checking, then to the end.
    for stop in [
        "stop-after=5",
        "stop-grouping-after=10",
        "stop-grouping-after=30",
    ] {
        let out = bbx()
            .args(slow(&work))
            .env("BBX_TEST_FAULTS", format!("{SLOW},{stop}"))
            .output()
            .unwrap();
        assert_eq!(
            out.status.code(),
            Some(130),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains("run the same command to resume"), "{err}");
    }
    let sink = work.join("bbx-verify-A5_B7/worker0.sink");
    let logged = std::fs::read_to_string(&sink).unwrap().lines().count();
    assert_eq!(logged, 30, "each partition checked is logged");
    resumes_to(&work, &reference, true, "");
}

#[test]
fn a_verify_that_filled_the_disk_resumes_to_the_same_verdict() {
    // A full disk faked after a number of bytes, through the census's own
    // writes (records, logs, the sink's log): exit 3, the work kept, and the
    // run after it, with room, gives the verdict of an uninterrupted one.
    let dir = temp_dir("stream-full");
    let reference = uninterrupted(&dir.join("reference"));
    let work = dir.join("work");
    // Room for some rounds of the tracing only: those are logged, and kept.
    let out = bbx()
        .args(slow(&work))
        .env(
            "BBX_TEST_FAULTS",
            format!("{SLOW},fail-writes-after=3000000"),
        )
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(3), "{err}");
    assert!(err.contains("No space left on device"), "{err}");
    resumes_to(&work, &reference, true, "");
}

#[test]
fn a_killed_verify_resumes_to_the_same_verdict() {
    let dir = temp_dir("stream-kill");
    let reference = uninterrupted(&dir.join("reference"));
    let work = dir.join("work");
    let delays = kill_at_random(5, 1500, || {
        StdCommand::new(assert_cmd::cargo::cargo_bin("bbx"))
            .args(slow(&work))
            .env("BBX_TEST_FAULTS", SLOW)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap()
    });
    resumes_to(
        &work,
        &reference,
        false,
        &format!("killed after {delays:?} ms"),
    );
}

#[test]
fn two_processes_give_the_verdict_of_one() {
    let dir = temp_dir("stream-cluster");
    let args = [
        "verify", "A5_B6", "--json", "--sample", "2000", "--seed", "5",
    ];
    let (code, one) = {
        let out = bbx()
            .args(args)
            .args(["--workers", "2", "--db"])
            .arg(dir.join("none.sqlite"))
            .arg("--work-dir")
            .arg(dir.join("one"))
            .output()
            .unwrap();
        (
            out.status.code(),
            serde_json::from_slice::<Value>(&out.stdout).unwrap(),
        )
    };
    assert_eq!(code, Some(0));
    let listeners: Vec<std::net::TcpListener> = (0..2)
        .map(|_| std::net::TcpListener::bind("127.0.0.1:0").expect("a free port"))
        .collect();
    let hosts = dir.join("hosts.txt");
    let text: String = listeners
        .iter()
        .map(|l| format!("{}\n", l.local_addr().unwrap()))
        .collect();
    std::fs::write(&hosts, text).unwrap();
    drop(listeners);
    let children: Vec<Child> = (0..2)
        .map(|i| {
            StdCommand::new(assert_cmd::cargo::cargo_bin("bbx"))
                .args(args)
                .args([
                    "--workers",
                    "1",
                    "--processes",
                    "2",
                    "--process",
                    &i.to_string(),
                ])
                .arg("--hostfile")
                .arg(&hosts)
                .arg("--db")
                .arg(dir.join("none.sqlite"))
                .arg("--work-dir")
                .arg(dir.join(format!("process{i}")))
                .stdout(Stdio::piped())
                .stderr(Stdio::piped())
                .spawn()
                .expect("spawn")
        })
        .collect();
    let outs: Vec<Output> = children
        .into_iter()
        .map(|c| wait(c, Duration::from_secs(300)))
        .collect();
    assert_eq!(
        outs[1].status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&outs[1].stderr)
    );
    assert!(outs[1].stdout.is_empty(), "process 1 prints no verdict");
    assert!(String::from_utf8_lossy(&outs[1].stderr).contains("process 0 prints the verdict"));
    assert_eq!(
        outs[0].status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&outs[0].stderr)
    );
    let two: Value = serde_json::from_slice(&outs[0].stdout).unwrap();
    assert_eq!(two["census"]["processes"], 2);
    assert_eq!(verdict(&two), verdict(&one));
}
