//! `bbx strategy --bound --depth D` run as a real binary, its search shared
//! out and checkpointed: two processes over loopback give the bound of one,
//! a run stopped part of the way resumes without searching again the units
//! it committed, and a resume with another depth is refused.

use std::path::Path;
use std::process::{Child, Command as StdCommand, Output, Stdio};
use std::time::Duration;

use serde_json::Value;

use crate::cli_census::loopback_hosts;
use crate::common::{bbx, isolated, temp_dir, wait};

/// `bbx strategy CONFIG --bound --depth D --json -q` with `extra`
/// arguments and `faults`, working in `work`.
fn bound(config: &str, depth: u32, work: &Path, extra: &[&str], faults: &str) -> Output {
    bbx()
        .args(["strategy", config, "--bound", "--depth", &depth.to_string()])
        .args(["--json", "-q", "--work-dir"])
        .arg(work)
        .args(extra)
        .env("BBX_TEST_FAULTS", faults)
        .output()
        .expect("runs")
}

/// The report's `bound`, from a run that must have succeeded.
fn bound_of(out: &Output) -> Value {
    assert!(
        out.status.success(),
        "exit {:?}: {}",
        out.status.code(),
        String::from_utf8_lossy(&out.stderr)
    );
    let v: Value = serde_json::from_slice(&out.stdout).expect("JSON");
    v["bound"].clone()
}

/// Whether `dir` holds nothing.
fn empty(dir: &Path) -> bool {
    std::fs::read_dir(dir).map_or(true, |mut d| d.next().is_none())
}

/// Process `i` of 2 of a bound on `hosts`, working in `work`.
fn process(config: &str, depth: u32, i: usize, hosts: &Path, work: &Path) -> Child {
    let mut c = StdCommand::new(assert_cmd::cargo::cargo_bin("bbx"));
    for (key, value) in isolated() {
        match value {
            Some(value) => c.env(key, value),
            None => c.env_remove(key),
        };
    }
    c.args(["strategy", config, "--bound", "--depth", &depth.to_string()])
        .args(["--json", "-q", "--workers", "1", "--processes", "2"])
        .args(["--process", &i.to_string(), "--hostfile"])
        .arg(hosts)
        .arg("--work-dir")
        .arg(work)
        .env("RUST_BACKTRACE", "1")
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn")
}

#[test]
fn two_processes_over_loopback_give_the_bound_of_one() {
    let dir = temp_dir("bound-cluster");
    for (config, depth) in [("A3_B5", 2), ("A4_B4", 3)] {
        let one = bound_of(&bound(
            config,
            depth,
            &dir.join("one"),
            &["--workers", "1"],
            "",
        ));
        let units = one["units"].as_u64().unwrap();
        assert!(units >= 2, "{config}: {one}");
        let hosts = loopback_hosts(&dir, 2);
        let children: Vec<Child> = (0..2)
            .map(|i| process(config, depth, i, &hosts, &dir.join(format!("process{i}"))))
            .collect();
        let outs: Vec<Output> = children
            .into_iter()
            .map(|c| wait(c, Duration::from_secs(120)))
            .collect();
        let two = bound_of(&outs[0]);
        assert!(outs[1].status.success(), "{:?}", outs[1]);
        assert!(outs[1].stdout.is_empty(), "process 1 prints no report");
        assert!(String::from_utf8_lossy(&outs[1].stderr).contains("process 0 prints the report"));
        for key in ["rays_total", "search_total", "units", "hitting_total"] {
            assert_eq!(two[key], one[key], "{config} depth {depth}: {key}");
        }
        assert_eq!(two["units_resumed"], 0);
        for place in ["one", "process0", "process1"] {
            assert!(
                empty(&dir.join(place)),
                "{config}: {place} left work behind"
            );
        }
    }
}

#[test]
fn a_stopped_bound_resumes_without_searching_its_units_again() {
    let dir = temp_dir("bound-resume");
    let work = dir.join("work");
    let whole = bound_of(&bound("A3_B5", 3, &work, &[], ""));
    // Stopped after some sets searched, as a time limit would: the units
    // finished before are kept.
    let first = bound("A3_B5", 3, &work, &["--workers", "1"], "stop-after=20000");
    let err = String::from_utf8_lossy(&first.stderr).into_owned();
    assert!(bound_of(&first).is_null(), "{err}");
    assert!(err.contains("units done, kept in"), "{err}");
    // The JSON says so too: what stopped it and how far it got.
    let report: Value = serde_json::from_slice(&first.stdout).unwrap();
    let stopped = &report["bound_stopped"];
    assert_eq!(stopped["stopped"], "time_limit", "{report}");
    let (done, share) = (
        stopped["units_done"].as_u64().unwrap(),
        stopped["units_share"].as_u64().unwrap(),
    );
    assert!(
        done < share && share == stopped["units"].as_u64().unwrap(),
        "{stopped}"
    );
    assert!(
        stopped["work_dir"]
            .as_str()
            .is_some_and(|d| d.contains("bbx-bound-A3_B5")),
        "{stopped}"
    );
    assert!(!empty(&work));
    // Another depth is refused, naming it, and the work is left as it was.
    let other = bound("A3_B5", 2, &work, &[], "");
    let message = String::from_utf8_lossy(&other.stderr);
    assert_eq!(other.status.code(), Some(2), "{message}");
    assert!(
        message.contains("--depth is 2 here but 3 in the work directory"),
        "{message}"
    );
    // The same command resumes: the same bound, fewer units searched.
    let again = bound_of(&bound("A3_B5", 3, &work, &["--workers", "2"], ""));
    let (units, resumed) = (
        again["units"].as_u64().unwrap(),
        again["units_resumed"].as_u64().unwrap(),
    );
    assert!(resumed > 0 && resumed < units, "{again}");
    for key in ["rays_total", "search_total", "units"] {
        assert_eq!(again[key], whole[key], "{key}");
    }
    assert!(empty(&work), "the finished bound left its work behind");
    let done: serde_json::Value =
        serde_json::from_slice(&bound("A3_B5", 3, &work, &[], "").stdout).unwrap();
    assert!(done["bound_stopped"].is_null(), "{done}");
}

#[test]
fn a_full_disk_stops_the_bound_saying_where_and_the_same_command_resumes() {
    let dir = temp_dir("bound-full-disk");
    let work = dir.join("work");
    let whole = bound_of(&bound("A3_B5", 3, &work, &[], ""));
    // No room for the log's first line: the first unit done cannot be
    // committed, and the bound stops with the work directory's error.
    let full = bound(
        "A3_B5",
        3,
        &work,
        &["--workers", "1"],
        "fail-writes-after=0",
    );
    let err = String::from_utf8_lossy(&full.stderr).into_owned();
    assert_eq!(full.status.code(), Some(3), "{err}");
    assert!(
        err.contains("units.log") && err.contains("No space left on device"),
        "{err}"
    );
    assert!(!err.contains("panicked"), "{err}");
    assert!(!empty(&work), "the work directory was removed: {err}");
    // Room again: the same command finishes with the same bound, and
    // leaves nothing behind.
    let again = bound_of(&bound("A3_B5", 3, &work, &[], ""));
    for key in ["rays_total", "search_total", "units"] {
        assert_eq!(again[key], whole[key], "{key}");
    }
    assert!(empty(&work), "the finished bound left its work behind");
}
