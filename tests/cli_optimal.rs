//! `bbx strategy --optimal` searched in units, run as a real binary: two
//! processes over loopback give the optimum of one, a run killed or
//! stopped part of the way resumes to the same optimum, and the
//! certificate (`--tree`, replayed by `--check-tree`) is refused when one
//! outcome or the total is wrong.

use std::path::Path;
use std::process::{Child, Command as StdCommand, Output, Stdio};
use std::time::Duration;

use serde_json::Value;

use crate::cli_census::loopback_hosts;
use crate::common::{bbx, isolated, kill_at_random, temp_dir, wait};

/// `bbx strategy CONFIG --optimal --json -q` cut into units of fewer than
/// `deeper` molecules, with `extra` arguments and `faults`, working in
/// `work`.
fn optimal(config: &str, deeper: u32, work: &Path, extra: &[&str], faults: &str) -> Output {
    bbx()
        .args(["strategy", config, "--optimal", "--json", "-q"])
        .args(["--deeper", &deeper.to_string(), "--work-dir"])
        .arg(work)
        .args(extra)
        .env("BBX_TEST_FAULTS", faults)
        .output()
        .expect("runs")
}

/// The report's `optimal`, from a run that must have succeeded.
fn optimum_of(out: &Output) -> Value {
    assert!(
        out.status.success(),
        "exit {:?}: {}",
        out.status.code(),
        String::from_utf8_lossy(&out.stderr)
    );
    let v: Value = serde_json::from_slice(&out.stdout).expect("JSON");
    v["optimal"].clone()
}

/// Whether `dir` holds nothing.
fn empty(dir: &Path) -> bool {
    std::fs::read_dir(dir).map_or(true, |mut d| d.next().is_none())
}

/// The values an optimum found, whatever the way it was searched.
const VALUES: [&str; 6] = [
    "rays_total",
    "score_total",
    "minimax",
    "rays_first",
    "rays_games",
    "score_games",
];

/// Process `i` of 2 of an optimum on `hosts`, working in `work`.
fn process(config: &str, deeper: u32, i: usize, hosts: &Path, work: &Path) -> Child {
    let mut c = StdCommand::new(assert_cmd::cargo::cargo_bin("bbx"));
    for (key, value) in isolated() {
        match value {
            Some(value) => c.env(key, value),
            None => c.env_remove(key),
        };
    }
    c.args(["strategy", config, "--optimal", "--json", "-q"])
        .args(["--deeper", &deeper.to_string()])
        .args(["--workers", "1", "--processes", "2"])
        .args(["--process", &i.to_string(), "--hostfile"])
        .arg(hosts)
        .arg("--work-dir")
        .arg(work)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn")
}

#[test]
fn two_processes_over_loopback_give_the_optimum_of_one() {
    let dir = temp_dir("optimum-cluster");
    for (config, deeper) in [("A3_B5", 600), ("A4_B4", 400)] {
        let one = optimum_of(&optimal(
            config,
            deeper,
            &dir.join("one"),
            &["--workers", "1"],
            "",
        ));
        assert!(one["units"].as_u64().unwrap() >= 2, "{config}: {one}");
        let hosts = loopback_hosts(&dir, 2);
        let children: Vec<Child> = (0..2)
            .map(|i| process(config, deeper, i, &hosts, &dir.join(format!("process{i}"))))
            .collect();
        let outs: Vec<Output> = children
            .into_iter()
            .map(|c| wait(c, Duration::from_secs(300)))
            .collect();
        let two = optimum_of(&outs[0]);
        assert!(outs[1].status.success(), "{:?}", outs[1]);
        assert!(outs[1].stdout.is_empty(), "process 1 prints no report");
        assert!(String::from_utf8_lossy(&outs[1].stderr).contains("process 0 prints the report"));
        for key in VALUES.iter().chain(&["units", "rays_seed", "score_seed"]) {
            assert_eq!(two[key], one[key], "{config}: {key}");
        }
        for place in ["one", "process0", "process1"] {
            assert!(empty(&dir.join(place)), "{config}: {place} left work");
        }
    }
}

#[test]
fn a_stopped_optimum_resumes_to_the_same_optimum() {
    let dir = temp_dir("optimum-resume");
    let work = dir.join("work");
    let whole = optimum_of(&optimal("A3_B5", 600, &dir.join("whole"), &[], ""));
    // Stopped after some sets searched, as a time limit would: the units
    // finished before are kept (the largest takes about 110,000 sets).
    let first = optimal(
        "A3_B5",
        600,
        &work,
        &["--workers", "1"],
        "stop-after=150000",
    );
    let err = String::from_utf8_lossy(&first.stderr).into_owned();
    assert_eq!(first.status.code(), Some(0), "{err}");
    assert!(err.contains("units of its phase done, kept in"), "{err}");
    assert!(optimum_of(&first)["rays_total"].is_null());
    assert!(!empty(&work));
    // Cut otherwise: refused, naming the setting; the work is kept.
    let other = optimal("A3_B5", 700, &work, &[], "");
    let message = String::from_utf8_lossy(&other.stderr);
    assert_eq!(other.status.code(), Some(2), "{message}");
    assert!(
        message.contains("--deeper is 700 here but 600 in the work directory"),
        "{message}"
    );
    let again = optimum_of(&optimal("A3_B5", 600, &work, &["--workers", "2"], ""));
    assert!(again["units_resumed"].as_u64().unwrap() > 0, "{again}");
    for key in VALUES {
        assert_eq!(again[key], whole[key], "{key}");
    }
    assert!(empty(&work), "the finished optimum left its work behind");
}

#[test]
fn an_optimum_killed_at_any_moment_resumes_to_the_same_optimum() {
    let dir = temp_dir("optimum-killed");
    let work = dir.join("work");
    let whole = optimum_of(&optimal("A4_B4", 400, &dir.join("whole"), &[], ""));
    let delays = kill_at_random(3, 1500, || {
        let mut c = StdCommand::new(assert_cmd::cargo::cargo_bin("bbx"));
        for (key, value) in isolated() {
            match value {
                Some(value) => c.env(key, value),
                None => c.env_remove(key),
            };
        }
        c.args(["strategy", "A4_B4", "--optimal", "-q", "--deeper", "400"])
            .args(["--workers", "1", "--work-dir"])
            .arg(&work)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("spawn")
    });
    let again = optimum_of(&optimal("A4_B4", 400, &work, &[], ""));
    for key in VALUES {
        assert_eq!(again[key], whole[key], "{key}, killed after {delays:?} ms");
    }
    assert!(empty(&work), "killed after {delays:?} ms");
}

#[test]
fn the_certificate_is_replayed_and_refused_with_a_wrong_outcome_or_total() {
    let dir = temp_dir("optimum-certificate");
    let trees = dir.join("trees.json");
    let found = optimum_of(&optimal(
        "A3_B4",
        64,
        &dir.join("work"),
        &["--tree", trees.to_str().unwrap()],
        "",
    ));
    let check = |file: &Path| {
        bbx()
            .args(["strategy", "A3_B4", "--check-tree"])
            .arg(file)
            .output()
            .expect("runs")
    };
    let ok = check(&trees);
    let text = String::from_utf8_lossy(&ok.stdout);
    assert!(ok.status.success(), "{text}");
    assert!(
        text.contains(&format!("rays   total {}", found["rays_total"])),
        "{text}"
    );
    let v: Value = serde_json::from_str(&std::fs::read_to_string(&trees).unwrap()).unwrap();
    // One outcome wrong: the first branch of the root claims another exit.
    let mut wrong = v.clone();
    let branch = &mut wrong["rays"]["shoot"]["branches"][0][0];
    let taken: Vec<Value> = v["rays"]["shoot"]["branches"]
        .as_array()
        .unwrap()
        .iter()
        .map(|b| b[0].clone())
        .collect();
    *branch = (1..=12)
        .map(|k| serde_json::json!({"result": "exit", "exit": k}))
        .chain([serde_json::json!({"result": "miss", "exit": null})])
        .find(|o| !taken.contains(o))
        .expect("an outcome the root has no branch for");
    let file = dir.join("wrong-outcome.json");
    std::fs::write(&file, wrong.to_string()).unwrap();
    let out = check(&file);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains("for which the tree has no branch"), "{err}");
    // The total wrong by one.
    let mut wrong = v.clone();
    wrong["rays_total"] = (v["rays_total"].as_u64().unwrap() - 1).into();
    let file = dir.join("wrong-total.json");
    std::fs::write(&file, wrong.to_string()).unwrap();
    let out = check(&file);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains("add up to"), "{err}");
    assert!(err.contains("not the"), "{err}");
}
