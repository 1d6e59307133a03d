//! `bbx stats` as a census, run as a real binary: the catalogue's text and
//! JSON, two processes over loopback, killed and interrupted runs, stored
//! groups read by `show` and `verify`, and bad input.

use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::{Child, Command as StdCommand, Output, Stdio};
use std::time::{Duration, Instant};

use serde_json::Value;

use crate::common::{bbx, json_error, kill_at_random, run, run_faulty, temp_dir, wait};

fn bin() -> PathBuf {
    assert_cmd::cargo::cargo_bin("bbx")
}

fn stdout(out: &Output) -> String {
    assert!(
        out.status.success(),
        "exit {:?}: {}",
        out.status.code(),
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout.clone()).expect("utf-8")
}

/// A report's JSON without its source (how it was counted).
fn counts(json: &str) -> Value {
    let mut v: Value = serde_json::from_str(json).expect("json");
    v.as_object_mut().expect("object").remove("source");
    v
}

#[test]
fn text_and_json_are_the_catalogues() {
    let dir = temp_dir("same");
    for config in ["A3_B5", "A4_B6", "A5_B5"] {
        let db = dir.join(format!("{config}.sqlite"));
        let db = db.to_str().unwrap();
        stdout(&run(&["explore", config, "--db", db, "-q"]));
        let work = dir.join(format!("work-{config}"));
        let work = work.to_str().unwrap();
        let census = |json: bool| {
            let mut args = vec!["stats", config, "--census", "--db", db, "--work-dir", work];
            if json {
                args.push("--json");
            }
            let out = run(&args);
            assert!(out.stderr.is_empty(), "nothing on stderr when piped");
            stdout(&out)
        };
        let catalogue_text = stdout(&run(&["stats", config, "--db", db]));
        let census_text = census(false);
        // The same text but for the header's note and the census's own line.
        let (head, rest) = catalogue_text.split_once('\n').unwrap();
        let expected_start = format!("{head} (census: counted without a catalogue)\n{rest}");
        assert!(
            census_text.starts_with(&expected_start),
            "{config}:\n{census_text}\nwas expected to start with\n{expected_start}"
        );
        let tail = &census_text[expected_start.len()..];
        assert!(
            tail.starts_with("\ncensus: ") && tail.lines().count() == 2,
            "{tail}"
        );
        let catalogue_json = stdout(&run(&["stats", config, "--db", db, "--json"]));
        let census_json = census(true);
        assert_eq!(counts(&census_json), counts(&catalogue_json), "{config}");
        let source: Value = serde_json::from_str(&census_json).unwrap();
        assert_eq!(source["source"]["kind"], "census");
    }
    std::fs::remove_dir_all(&dir).ok();
}

/// A box nearly full (A79_B9: 3240 molecules) is numbered although some
/// binomials of its numbering table pass 64 bits: the census, the catalogue
/// and strategy count it (they refused it as "not numbered", or panicked).
#[test]
fn a_nearly_full_box_is_counted() {
    let dir = temp_dir("full");
    let db = dir.join("a79-b9.sqlite");
    let db = db.to_str().unwrap();
    let work = dir.to_str().unwrap();
    stdout(&run(&["explore", "A79_B9", "--db", db, "-q"]));
    let catalogue = stdout(&run(&["stats", "A79_B9", "--db", db, "--json"]));
    let census = stdout(&run(&[
        "stats",
        "A79_B9",
        "--census",
        "--db",
        db,
        "--work-dir",
        work,
        "--json",
        "-q",
    ]));
    assert_eq!(counts(&census), counts(&catalogue));
    let v: Value = serde_json::from_str(&census).unwrap();
    assert_eq!(v["molecules"], 3240, "{v}");
    stdout(&run(&["strategy", "A79_B9", "-q"]));
}

fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .map(|a| a.port())
        .expect("a free port")
}

#[test]
fn two_processes_over_loopback_give_the_report_of_one() {
    let dir = temp_dir("cluster");
    let config = "A5_B7";
    let one = stdout(&run(&[
        "stats",
        config,
        "--json",
        "--workers",
        "2",
        "--work-dir",
        dir.join("one").to_str().unwrap(),
    ]));
    let hosts = dir.join("hosts.txt");
    std::fs::write(
        &hosts,
        format!(
            "# two processes on this machine\n127.0.0.1:{}\n127.0.0.1:{}\n",
            free_port(),
            free_port()
        ),
    )
    .unwrap();
    let children: Vec<Child> = (0..2)
        .map(|i| {
            StdCommand::new(bin())
                .args([
                    "stats",
                    config,
                    "--json",
                    "--workers",
                    "1",
                    "--processes",
                    "2",
                ])
                .args(["--process", &i.to_string(), "--hostfile"])
                .arg(&hosts)
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
        .map(|c| wait(c, Duration::from_secs(120)))
        .collect();
    let zero = stdout(&outs[0]);
    assert!(stdout(&outs[1]).is_empty(), "process 1 prints no report");
    assert!(String::from_utf8_lossy(&outs[1].stderr).contains("process 0 prints the report"));
    assert_eq!(counts(&zero), counts(&one));
    let v: Value = serde_json::from_str(&zero).unwrap();
    assert_eq!(v["source"]["processes"], 2);
    assert_eq!(v["source"]["workers"], 2);
    std::fs::remove_dir_all(&dir).ok();
}

/// A host file for `n` processes on loopback, at ports free when it is
/// written.
pub(crate) fn loopback_hosts(dir: &Path, n: usize) -> PathBuf {
    // Held together, so that the ports differ.
    let listeners: Vec<TcpListener> = (0..n)
        .map(|_| TcpListener::bind("127.0.0.1:0").expect("a free port"))
        .collect();
    let mut text = String::new();
    for l in &listeners {
        text.push_str(&format!("{}\n", l.local_addr().expect("address")));
    }
    let hosts = dir.join("hosts.txt");
    std::fs::write(&hosts, text).unwrap();
    hosts
}

/// Starts `bbx stats ARGS` as process `i` of 2 of the census on `hosts`,
/// working in `work`.
fn process(args: &[&str], i: usize, hosts: &Path, work: &Path) -> Child {
    faulty_process(args, "", i, hosts, work)
}

/// [`process`] with the faults of `BBX_TEST_FAULTS`.
fn faulty_process(args: &[&str], faults: &str, i: usize, hosts: &Path, work: &Path) -> Child {
    StdCommand::new(bin())
        .arg("stats")
        .args(args)
        .args([
            "--processes",
            "2",
            "--process",
            &i.to_string(),
            "--hostfile",
        ])
        .arg(hosts)
        .arg("--work-dir")
        .arg(work)
        // A panic would show its backtrace.
        .env("RUST_BACKTRACE", "1")
        .env("BBX_TEST_FAULTS", faults)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn")
}

/// Standard error of a process, which must have exited with `code` and said
/// one line (`error: …` for errors), no panic.
pub(crate) fn one_line(out: &Output, code: i32) -> String {
    let err = String::from_utf8_lossy(&out.stderr).into_owned();
    assert_eq!(out.status.code(), Some(code), "{err}");
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(
        !err.contains("panicked") && !err.contains("backtrace"),
        "{err}"
    );
    err
}

#[test]
fn a_lost_process_stops_the_other_with_exit_3_and_the_work_resumes() {
    let dir = temp_dir("lost");
    let hosts = loopback_hosts(&dir, 2);
    let work = |i: usize| dir.join(format!("process{i}"));
    // Where each process keeps its census, inside its --work-dir.
    let census = |i: usize| work(i).join(format!("bbx-census-A6_B8-process{i}"));
    // Two workers each: a worker unwinding after the loss could panic again
    // in timely's destructors, which would abort the process.
    let args = ["A6_B8", "--json", "--workers", "2"];
    let zero = process(&args, 0, &hosts, &work(0));
    let mut one = process(&args, 1, &hosts, &work(1));
    // Process 1 is killed (SIGKILL) once every worker has logged a round:
    // mid-run, with work to resume.
    let logs =
        [(0, 0), (0, 1), (1, 2), (1, 3)].map(|(i, w)| census(i).join(format!("worker{w}.log")));
    let start = Instant::now();
    while logs
        .iter()
        .any(|log| std::fs::metadata(log).map_or(true, |m| m.len() == 0))
    {
        assert!(
            one.try_wait().expect("wait").is_none(),
            "process 1 ended before logging a round"
        );
        assert!(
            start.elapsed() < Duration::from_secs(120),
            "process 1 logged no round"
        );
        std::thread::sleep(Duration::from_millis(5));
    }
    one.kill().expect("kill");
    let _ = one.wait();
    let out = wait(zero, Duration::from_secs(120));
    let err = one_line(&out, 3);
    assert!(
        err.starts_with("error: process 0 lost process 1 at 127.0.0.1:"),
        "{err}"
    );
    assert!(err.contains("the same commands resume it"), "{err}");
    let message = json_error(&out.stdout, "system", 3);
    assert_eq!(format!("error: {message}\n"), err);
    assert!(census(0).join("manifest.json").exists(), "the work is kept");
    // Both started again, the census resumes to its end.
    let zero = process(&args, 0, &hosts, &work(0));
    let one = process(&args, 1, &hosts, &work(1));
    let outs = [zero, one].map(|c| wait(c, Duration::from_secs(300)));
    let v: Value = serde_json::from_str(&stdout(&outs[0])).unwrap();
    assert_eq!(v["molecules"], 74_974_368u64);
    assert_eq!(v["source"]["resumed"], true);
    stdout(&outs[1]);
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn processes_with_different_settings_both_refuse_and_leave_nothing() {
    let dir = temp_dir("settings");
    for (zero, one, setting) in [
        (
            ["A5_B7", "-w", "1"].as_slice(),
            ["A4_B7", "-w", "1"].as_slice(),
            ("the configuration", "A5_B7", "A4_B7"),
        ),
        (
            &["A5_B7", "-w", "1", "--no-symmetry"],
            &["A5_B7", "-w", "1"],
            ("--no-symmetry", "given", "not given"),
        ),
        (
            &["A5_B7", "-w", "1"],
            &["A5_B7", "-w", "2"],
            ("--workers", "1", "2"),
        ),
    ] {
        let hosts = loopback_hosts(&dir, 2);
        let work = |i: usize| dir.join(format!("new{i}/work"));
        let children = [
            process(zero, 0, &hosts, &work(0)),
            process(one, 1, &hosts, &work(1)),
        ];
        let outs = children.map(|c| wait(c, Duration::from_secs(120)));
        let (name, value0, value1) = setting;
        for (i, (here, there)) in [(value0, value1), (value1, value0)].into_iter().enumerate() {
            let err = one_line(&outs[i], 2);
            let expected = format!(
                "error: process {i} and process {j} were started with different settings: {name} is {here} here but {there} in process {j}",
                j = 1 - i
            );
            assert!(err.starts_with(&expected), "{zero:?} {one:?}: {err}");
            assert!(outs[i].stdout.is_empty());
        }
        for i in 0..2 {
            assert!(
                !dir.join(format!("new{i}")).exists(),
                "{zero:?} {one:?}: a refused run leaves no work directory"
            );
        }
    }
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn a_port_in_use_is_a_failure_and_leaves_no_work_directory() {
    let dir = temp_dir("port");
    let hosts = loopback_hosts(&dir, 2);
    let line = std::fs::read_to_string(&hosts).unwrap();
    let taken = TcpListener::bind(line.lines().next().unwrap()).expect("the port is free");
    let work = dir.join("nested").join("work");
    let out = wait(
        process(&["A4_B6"], 0, &hosts, &work),
        Duration::from_secs(60),
    );
    let err = one_line(&out, 3);
    assert!(
        err.contains("process 0 cannot listen on 127.0.0.1:"),
        "{err}"
    );
    assert!(!dir.join("nested").exists(), "{err}");
    // A directory that was there is kept, without the files the run added.
    std::fs::create_dir_all(&work).unwrap();
    let out = wait(
        process(&["A4_B6"], 0, &hosts, &work),
        Duration::from_secs(60),
    );
    one_line(&out, 3);
    assert_eq!(std::fs::read_dir(&work).unwrap().count(), 0);
    drop(taken);
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn an_interrupted_process_counts_no_more_than_there_is() {
    // Process 1 stops after one round; process 0 counts its whole share,
    // which is more than half of the molecules: the first units' orbits
    // stand for more molecules than the last ones'.
    let dir = temp_dir("share");
    let hosts = loopback_hosts(&dir, 2);
    let args = ["A5_B7", "--workers", "1"];
    let zero = faulty_process(&args, "unit-size=20000", 0, &hosts, &dir.join("process0"));
    let one = faulty_process(
        &args,
        "unit-size=20000,stop-after=1",
        1,
        &hosts,
        &dir.join("process1"),
    );
    let outs = [zero, one].map(|c| wait(c, Duration::from_secs(120)));
    for (i, out) in outs.iter().enumerate() {
        let err = one_line(out, 130);
        let (n, rest) = err
            .strip_prefix("interrupted: ")
            .and_then(|e| e.split_once(' '))
            .unwrap_or_else(|| panic!("{err}"));
        let n: u64 = n.parse().unwrap_or_else(|_| panic!("{err}"));
        assert!(n <= 1_906_884, "{err}");
        assert!(
            rest.starts_with(&format!(
                "molecules counted by process {i} (of the 1906884 that the 2 processes share)"
            )),
            "{err}"
        );
        assert!(err.contains("run the same command to resume"), "{err}");
    }
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn a_stopped_census_resumes_to_the_same_report() {
    let dir = temp_dir("stop");
    let work = dir.join("work");
    let work = work.to_str().unwrap();
    let reference = stdout(&run(&["stats", "A5_B7", "--json", "--work-dir", work]));
    let args = ["stats", "A5_B7", "--json", "--work-dir", work];
    // Stopped twice after a few rounds (as Ctrl-C would), then to the end.
    for _ in 0..2 {
        let out = run_faulty(&args, "unit-size=20000,stop-after=20");
        assert_eq!(out.status.code(), Some(130));
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains("run the same command to resume"), "{err}");
        let message = json_error(&out.stdout, "interrupted", 130);
        assert_eq!(format!("{message}\n"), err);
        assert!(
            Path::new(work)
                .join("bbx-census-A5_B7/manifest.json")
                .exists()
        );
    }
    let resumed = stdout(&run_faulty(&args, "unit-size=20000"));
    assert_eq!(counts(&resumed), counts(&reference));
    let v: Value = serde_json::from_str(&resumed).unwrap();
    assert_eq!(v["source"]["resumed"], true);
    assert!(
        !Path::new(work).join("bbx-census-A5_B7").exists(),
        "a finished census removes its work"
    );
    assert!(
        Path::new(work).is_dir(),
        "but not the directory it was given"
    );
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn a_killed_census_resumes_to_the_same_report() {
    let dir = temp_dir("kill");
    let work = dir.join("work");
    let args = |w: &Path| {
        vec![
            "stats".to_string(),
            "A5_B8".into(),
            "--json".into(),
            "--workers".into(),
            "1".into(),
            "--work-dir".into(),
            w.to_str().unwrap().into(),
        ]
    };
    let faults = ("BBX_TEST_FAULTS", "unit-size=20000");
    let reference = stdout(
        &bbx()
            .args(args(&dir.join("reference")))
            .env(faults.0, faults.1)
            .output()
            .unwrap(),
    );
    let delays = kill_at_random(4, 900, || {
        StdCommand::new(bin())
            .args(args(&work))
            .env(faults.0, faults.1)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap()
    });
    let out = bbx()
        .args(args(&work))
        .env(faults.0, faults.1)
        .output()
        .unwrap();
    assert_eq!(
        counts(&stdout(&out)),
        counts(&reference),
        "killed after {delays:?} ms"
    );
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn ctrl_c_stops_cleanly_and_says_how_to_resume() {
    let dir = temp_dir("sigint");
    let work = dir.join("work");
    let child = StdCommand::new(bin())
        .args(["stats", "A6_B8", "--workers", "1"])
        .env("BBX_TEST_FAULTS", "unit-size=100000")
        .arg("--work-dir")
        .arg(&work)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    std::thread::sleep(Duration::from_millis(500));
    let status = StdCommand::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(status.success());
    let out = wait(child, Duration::from_secs(60));
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(130), "{err}");
    assert!(err.contains("run the same command to resume"), "{err}");
    assert!(err.contains(work.to_str().unwrap()), "{err}");
    assert!(work.join("bbx-census-A6_B8/manifest.json").exists());
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn a_census_that_filled_the_disk_resumes_to_the_right_report() {
    // A full disk is faked after a number of bytes (a write that crosses it
    // writes what fits and fails as ENOSPC does), through the census's own
    // writes. The rounds whose records were not all written must not be
    // logged as done, or the run after it misses their records.
    let dir = temp_dir("full");
    let work = dir.join("work");
    let work = work.to_str().unwrap();
    let reference = stdout(&run(&["stats", "A5_B8", "--json", "-q"]));
    let args = ["stats", "A5_B8", "--json", "-q", "--work-dir", work];
    for budget in ["3000000", "9000000"] {
        let out = run_faulty(
            &args,
            &format!("unit-size=20000,fail-writes-after={budget}"),
        );
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(3), "{err}");
        assert!(err.contains("No space left on device"), "{err}");
        let message = json_error(&out.stdout, "work_dir", 3);
        assert_eq!(format!("error: {message}\n"), err);
    }
    // Space freed: the same command resumes and gives the report.
    let resumed = stdout(&run_faulty(&args, "unit-size=20000"));
    let v: Value = serde_json::from_str(&resumed).unwrap();
    assert_eq!(v["source"]["resumed"], true);
    let (got, want) = (counts(&resumed), counts(&reference));
    assert!(
        got == want,
        "the resumed census lost records: unique molecules {} instead of {}",
        got["unique_molecules"],
        want["unique_molecules"]
    );
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn the_work_dir_given_keeps_everything_bbx_did_not_make() {
    let dir = temp_dir("keep");
    std::fs::write(dir.join("notes.txt"), "a\n").unwrap();
    std::fs::write(dir.join("lock"), "mine\n").unwrap();
    let here = dir.to_str().unwrap();
    let reference = stdout(&run(&["stats", "A4_B6", "-q", "--json"]));
    // Finished, stopped then resumed: the census works in a directory of its
    // own inside the one given, and removes only that.
    let report = stdout(&run(&[
        "stats",
        "A4_B6",
        "-q",
        "--json",
        "--work-dir",
        here,
    ]));
    assert_eq!(counts(&report), counts(&reference));
    let out = run_faulty(
        &["stats", "A4_B7", "--work-dir", here],
        "stop-after=1,unit-size=1000",
    );
    assert_eq!(out.status.code(), Some(130));
    stdout(&run_faulty(
        &["stats", "A4_B7", "-q", "--work-dir", here],
        "unit-size=1000",
    ));
    let mut left: Vec<String> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    left.sort();
    assert_eq!(left, ["lock", "notes.txt"]);
    assert_eq!(
        std::fs::read_to_string(dir.join("notes.txt")).unwrap(),
        "a\n"
    );
    assert_eq!(std::fs::read_to_string(dir.join("lock")).unwrap(), "mine\n");
    // A directory of the census's name holding somebody else's file is not
    // written in, and not removed.
    let census = dir.join("bbx-census-A4_B6");
    std::fs::create_dir(&census).unwrap();
    std::fs::write(census.join("data.csv"), "1,2\n").unwrap();
    let out = run(&["stats", "A4_B6", "-q", "--work-dir", here]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(
        err.contains("data.csv") && err.contains("--work-dir"),
        "{err}"
    );
    assert_eq!(std::fs::read_dir(&census).unwrap().count(), 1);
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn stored_groups_serve_show_and_verify() {
    let dir = temp_dir("store");
    let catalogue = dir.join("catalogue.sqlite");
    let catalogue = catalogue.to_str().unwrap();
    let groups = dir.join("groups.sqlite");
    let groups = groups.to_str().unwrap();
    let work = dir.join("work");
    let work = work.to_str().unwrap();
    stdout(&run(&["explore", "A4_B6", "--db", catalogue, "-q"]));
    let out = run(&[
        "stats",
        "A4_B6",
        "--store-groups",
        "--db",
        groups,
        "--work-dir",
        work,
    ]);
    stdout(&out);
    assert!(String::from_utf8_lossy(&out.stderr).contains("stored 764 ambiguous spectra"));
    for args in [
        vec!["show", "A4_B6", "--group", "868"],
        vec!["show", "A4_B6", "--group", "1"],
        vec!["show", "A4_B6", "3", "15993"],
        vec!["show", "A4_B6", "--spectrum", "@&@&@&@a@bcda@b@&@dc&@&@"],
    ] {
        let mut a = args.clone();
        a.extend(["--db", groups]);
        let mut b = args.clone();
        b.extend(["--db", catalogue]);
        assert_eq!(stdout(&run(&a)), stdout(&run(&b)), "{args:?}");
    }
    let v = stdout(&run(&[
        "verify",
        "A4_B6",
        "--ambiguous",
        "--db",
        groups,
        "-q",
    ]));
    assert!(v.contains("58033 distinct spectra (census"), "{v}");
    assert!(v.contains("agree on all 764 checked spectra"), "{v}");
    // Every shared spectrum with every molecule, as the catalogue has them.
    let config = "A4_B6".parse().unwrap();
    let stored = bbx::catalogue::Store::open(groups, config, 1000)
        .unwrap()
        .groups()
        .unwrap()
        .unwrap();
    let every = bbx::catalogue::Store::open(catalogue, config, 1000)
        .unwrap()
        .groups()
        .unwrap()
        .unwrap();
    let shared: Vec<_> = every
        .groups
        .into_iter()
        .filter(|(_, v)| v.len() > 1)
        .collect();
    assert_eq!(stored.groups, shared);
    assert_eq!(stored.spectra, every.spectra);
    // Storing again replaces the census; a catalogue or another
    // configuration's census is never written to.
    stdout(&run(&[
        "stats",
        "A4_B6",
        "--store-groups",
        "--db",
        groups,
        "--work-dir",
        work,
    ]));
    let before = std::fs::read(catalogue).unwrap();
    for (args, message) in [
        (
            vec!["stats", "A4_B6", "--store-groups", "--db", catalogue],
            "holds the complete catalogue of A4_B6",
        ),
        (
            vec!["stats", "A4_B5", "--store-groups", "--db", catalogue],
            "holds the catalogue of A4_B6",
        ),
        (
            vec!["stats", "A4_B5", "--store-groups", "--db", groups],
            "holds the census of A4_B6",
        ),
    ] {
        let out = run(&args);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains(message) && err.lines().count() == 1, "{err}");
    }
    assert_eq!(std::fs::read(catalogue).unwrap(), before);
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn a_damaged_census_row_is_called_damaged() {
    // Groups of a census are checked as a catalogue's rows are: a list
    // that is no list of molecules is an error (exit 3), never an empty group.
    let dir = temp_dir("damaged-census");
    let groups = dir.join("groups.sqlite");
    let groups = groups.to_str().unwrap();
    let work = dir.join("work");
    stdout(&run(&[
        "stats",
        "A4_B5",
        "--store-groups",
        "--db",
        groups,
        "--work-dir",
        work.to_str().unwrap(),
        "-q",
    ]));
    let conn = rusqlite::Connection::open(groups).unwrap();
    let number = first_grouped_molecule(&conn).to_string();
    let show = ["show", "A4_B5", "--group", &number, "--db", groups];
    assert!(stdout(&run(&show)).contains("is shared by"));
    // A group's molecules are 8-byte numbers: three bytes are none.
    let changed = conn
        .execute(
            "UPDATE census_groups SET molecules = x'010203' WHERE config = 'A4_B5'",
            [],
        )
        .unwrap();
    assert!(changed > 0);
    drop(conn);
    let out = run(&show);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(3), "{err}");
    assert!(
        err.contains("damaged") && err.contains("is not a list of its molecules"),
        "{err}"
    );
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn bad_input_is_one_line_and_exit_code_2() {
    let dir = temp_dir("bad");
    let hosts = dir.join("hosts.txt");
    std::fs::write(&hosts, "127.0.0.1:2101\nnot an address\n").unwrap();
    let hosts = hosts.to_str().unwrap();
    // A line of half a megabyte, quoted short; a file of more than a
    // megabyte, refused unread (a device that never ends too).
    let long = dir.join("long.txt");
    std::fs::write(&long, format!("127.0.0.1:2101\n{}\n", "x".repeat(500_000))).unwrap();
    let long = long.to_str().unwrap();
    let large = dir.join("large.txt");
    std::fs::write(&large, "# a comment\n".repeat(100_000)).unwrap();
    let large = large.to_str().unwrap();
    let work = dir.join("work");
    let work = work.to_str().unwrap();
    // A census stopped with one set of options, then asked to resume with another.
    let out = run_faulty(&["stats", "A4_B7", "--work-dir", work], "stop-after=1");
    assert_eq!(out.status.code(), Some(130));
    for (args, message) in [
        (vec!["stats", "A4B8"], "expected An_Bp"),
        (
            vec!["stats", "A4_B6", "--processes", "2", "--process", "2"],
            "out of range",
        ),
        (
            vec![
                "stats",
                "A4_B6",
                "--processes",
                "2",
                "--process",
                "0",
                "--hostfile",
                hosts,
            ],
            "expected HOST:PORT",
        ),
        (
            vec!["stats", "A4_B6", "--memory", "lots"],
            "expected a size",
        ),
        // Grouping A6_B10 within 1 MB would take thousands of partition
        // files a worker, past the system's limit on open files.
        (
            vec!["stats", "A6_B10", "--memory", "1M", "-w", "1"],
            "is too little for a census of A6_B10",
        ),
        (
            vec!["stats", "A4_B6", "--processes", "99999999999"],
            "expected a number of processes: a whole number from 1 to 256",
        ),
        (
            vec!["stats", "A4_B6", "--processes", "257", "--process", "0"],
            "expected a number of processes: a whole number from 1 to 256",
        ),
        (
            vec!["stats", "A4_B6", "-w", "0"],
            "expected a number of threads: a whole number from 1 to 256",
        ),
        (
            vec!["stats", "A4_B6", "-w", "257"],
            "expected a number of threads: a whole number from 1 to 256",
        ),
        (
            vec!["stats", "A4_B6", "-w", "256", "-n", "17"],
            "makes 4352 workers in all: give at most 4096",
        ),
        (
            vec!["stats", "A4_B6", "-n", "2", "--hostfile", long],
            "not 'xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx…'",
        ),
        (
            vec!["stats", "A4_B6", "-n", "2", "--hostfile", large],
            "at most 1000000 bytes",
        ),
        #[cfg(unix)]
        (
            vec!["stats", "A4_B6", "-n", "2", "--hostfile", "/dev/zero"],
            "/dev/zero: a host file holds one HOST:PORT line per process, at most 1000000 bytes",
        ),
    ] {
        let out = run(&args);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains(message), "{args:?}: {err}");
        assert!(err.starts_with("error: "), "{err}");
        // One line (clap adds a hint to its own) and never a whole file.
        let lines = err
            .lines()
            .filter(|l| !l.is_empty() && !l.starts_with("For more information"));
        assert!(lines.count() == 1 && err.len() < 400, "{err}");
        assert!(out.stdout.is_empty());
    }
    let out = run_faulty(&["stats", "A4_B7", "--work-dir", work], "unit-size=999");
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(
        err.contains("run the census with the same options"),
        "{err}"
    );
    assert_eq!(err.lines().count(), 1, "{err}");
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn a_full_box_names_no_ray_it_does_not_have() {
    // 9 atoms fill A9_B3: every ray is absorbed, so no molecule has a
    // reflected or exiting ray, and rays are numbered from 1.
    let text = stdout(&run(&["stats", "A9_B3"]));
    assert!(!text.contains("ray 0"), "{text}");
    assert_eq!(text.matches("no such ray").count(), 4, "{text}");
    assert!(text.contains("census: 1 molecule traced"), "{text}");
}

/// The lowest number of the first molecule group a stored census holds.
pub fn first_grouped_molecule(conn: &rusqlite::Connection) -> u64 {
    let blob: Vec<u8> = conn
        .query_row(
            "SELECT molecules FROM census_groups ORDER BY rowid LIMIT 1",
            [],
            |r| r.get(0),
        )
        .unwrap();
    u64::from_le_bytes(blob[..8].try_into().unwrap())
}
