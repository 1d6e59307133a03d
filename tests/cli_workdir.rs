//! The census's work directory is bbx's own, run as a real binary: planted
//! directories, links and foreign files are refused and left as they were,
//! bbx removes only the files its manifest names, a verify resumes with the
//! seed it drew, a difference of settings names the setting and both
//! values, Ctrl-C ends the wait for the other processes at once, and the
//! default work directory is the user's cache, where a later census tells
//! of unfinished work.

use std::path::{Path, PathBuf};
use std::process::{Child, Command as StdCommand, Output, Stdio};
use std::time::{Duration, Instant};

use serde_json::Value;

use crate::cli_census::{loopback_hosts, one_line};
use crate::cli_store::catches_sigint;
use crate::common::{bbx, run, run_faulty, temp_dir, wait};

fn bin() -> PathBuf {
    assert_cmd::cargo::cargo_bin("bbx")
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// The names in `dir`, sorted.
fn names(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

/// Waits (a minute at most) until `ready()`, failing if `child` ends first.
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

#[cfg(unix)]
#[test]
fn a_planted_work_directory_is_refused_and_nothing_in_it_is_touched() {
    use std::os::unix::fs::PermissionsExt;
    let dir = temp_dir("planted");
    let work = dir.join("W");
    let w = work.to_str().unwrap();
    let precious = dir.join("V");
    std::fs::write(&precious, "precious\n").unwrap();
    let planted = work.join("bbx-verify-A5_B6");
    let refused = |args: &[&str], needle: &str| {
        let out = run(args);
        let err = one_line(&out, 2);
        assert!(err.contains(needle), "{args:?}: {err}");
        assert!(err.contains(planted.to_str().unwrap()), "{err}");
        assert!(err.contains("--work-dir"), "{err}");
        assert_eq!(
            std::fs::read_to_string(&precious).unwrap(),
            "precious\n",
            "{args:?}"
        );
    };
    let verify = ["verify", "A5_B6", "--seed", "1", "-q", "--work-dir", w];
    // The attack: a link among files that look like the census's.
    std::fs::create_dir_all(&planted).unwrap();
    std::fs::set_permissions(&planted, std::fs::Permissions::from_mode(0o700)).unwrap();
    std::os::unix::fs::symlink(&precious, planted.join("worker1-part7.records")).unwrap();
    refused(
        &verify,
        "it holds 'worker1-part7.records', which bbx did not make",
    );
    assert_eq!(names(&planted), ["worker1-part7.records"]);
    assert!(
        std::fs::symlink_metadata(planted.join("worker1-part7.records"))
            .unwrap()
            .file_type()
            .is_symlink()
    );
    std::fs::remove_file(planted.join("worker1-part7.records")).unwrap();
    // A directory others may write in.
    std::fs::set_permissions(&planted, std::fs::Permissions::from_mode(0o777)).unwrap();
    refused(&verify, "its mode 0777 lets other users write in it");
    std::fs::remove_dir(&planted).unwrap();
    // A link in the directory's place.
    std::os::unix::fs::symlink(&*dir, &planted).unwrap();
    refused(&verify, "it is a symbolic link");
    std::fs::remove_file(&planted).unwrap();
    // bbx's own work, stopped, then a link put in place of one of its
    // partition files: the resume refuses it rather than cut it back.
    let stats = ["stats", "A5_B6", "-q", "-w", "1", "--work-dir", w];
    let out = run_faulty(&stats, "unit-size=20000,stop-after=2");
    assert_eq!(out.status.code(), Some(130), "{}", stderr(&out));
    let census = work.join("bbx-census-A5_B6");
    let part = census.join("worker0-part0.records");
    std::fs::remove_file(&part).unwrap();
    std::os::unix::fs::symlink(&precious, &part).unwrap();
    let out = run_faulty(&stats, "unit-size=20000");
    let err = one_line(&out, 2);
    assert!(
        err.contains("'worker0-part0.records', which is not a regular file bbx made"),
        "{err}"
    );
    assert_eq!(std::fs::read_to_string(&precious).unwrap(), "precious\n");
    assert!(census.join("manifest.json").exists(), "nothing is touched");
}

#[test]
fn files_that_only_look_like_the_census_own_survive_a_finished_census() {
    // Two workers and 64 partition files a worker (a verify's least):
    // worker7.log, worker3.sink and worker0-part99.records are none of its
    // files. Put there while it works (a directory holding them before is
    // refused), they stay, and so does the directory holding them.
    let dir = temp_dir("lookalikes");
    let work = dir.join("work");
    let census = work.join("bbx-verify-A5_B7");
    let mut child = StdCommand::new(bin())
        .args(["verify", "A5_B7", "-q", "-w", "2", "--sample", "3000"])
        .args(["--seed", "5", "--db"])
        .arg(dir.join("none.sqlite"))
        .arg("--work-dir")
        .arg(&work)
        .env("BBX_TEST_FAULTS", "unit-size=20000")
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    wait_for(&mut child, "the census made its manifest", || {
        census.join("manifest.json").exists()
    });
    let planted = ["worker7.log", "worker3.sink", "worker0-part99.records"];
    for name in planted {
        std::fs::write(census.join(name), name).unwrap();
    }
    let out = wait(child, Duration::from_secs(300));
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let mut left = names(&census);
    left.sort();
    let mut expected = planted.to_vec();
    expected.sort();
    assert_eq!(left, expected);
    for name in planted {
        assert_eq!(std::fs::read_to_string(census.join(name)).unwrap(), name);
    }
}

/// Starts `bbx stats ARGS` as process `i` of 2 on `hosts`, in `work`.
fn process(args: &[&str], i: usize, hosts: &Path, work: &Path) -> Child {
    StdCommand::new(bin())
        .arg("stats")
        .args(args)
        .args(["--processes", "2", "--process", &i.to_string()])
        .arg("--hostfile")
        .arg(hosts)
        .arg("--work-dir")
        .arg(work)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn")
}

#[test]
fn a_refused_start_of_several_processes_removes_only_what_it_made() {
    let dir = temp_dir("notes");
    let hosts = loopback_hosts(&dir, 2);
    let work = dir.join("work");
    let census = work.join("bbx-census-A5_B7-process0");
    let mut zero = process(&["A5_B7", "-w", "1"], 0, &hosts, &work);
    // Process 0 waits for process 1; meanwhile someone leaves a file in its
    // work directory and in the directory holding it.
    wait_for(&mut zero, "process 0 made its manifest", || {
        census.join("manifest.json").exists()
    });
    std::fs::write(census.join("notes.txt"), "mine\n").unwrap();
    std::fs::write(work.join("notes.txt"), "mine too\n").unwrap();
    let one = process(&["A5_B7", "-w", "2"], 1, &hosts, &dir.join("work1"));
    let outs = [zero, one].map(|c| wait(c, Duration::from_secs(120)));
    for out in &outs {
        let err = one_line(out, 2);
        assert!(err.contains("--workers is"), "{err}");
    }
    assert_eq!(names(&census), ["notes.txt"]);
    assert_eq!(
        std::fs::read_to_string(census.join("notes.txt")).unwrap(),
        "mine\n"
    );
    assert_eq!(names(&work), ["bbx-census-A5_B7-process0", "notes.txt"]);
    assert!(!dir.join("work1").exists(), "process 1 leaves nothing");
}

/// `bbx verify A5_B7 --json` in `work`, with `more` arguments (a few
/// thousand unique spectra unless `--sample` is among them) and the faults
/// of `BBX_TEST_FAULTS`.
fn verify(work: &Path, more: &[&str], faults: &str) -> Output {
    let sample: &[&str] = if more.contains(&"--sample") {
        &[]
    } else {
        &["--sample", "3000"]
    };
    bbx()
        .args(["verify", "A5_B7", "--json"])
        .args(sample)
        .arg("--db")
        .arg(work.join("none.sqlite"))
        .arg("--work-dir")
        .arg(work)
        .args(more)
        .env("BBX_TEST_FAULTS", faults)
        .output()
        .expect("runs")
}

#[test]
fn a_verify_resumes_with_the_seed_it_drew_and_names_what_differs() {
    let dir = temp_dir("drawn-seed");
    let work = dir.join("work");
    std::fs::create_dir_all(&work).unwrap();
    let w1 = ["-w", "1"];
    let slow = "unit-size=20000";
    // Stopped while checking: no seed was given, one was drawn.
    let out = verify(&work, &w1, &format!("{slow},stop-grouping-after=3"));
    assert_eq!(out.status.code(), Some(130), "{}", stderr(&out));
    assert!(stderr(&out).contains("run the same command to resume"));
    let manifest: Value = serde_json::from_slice(
        &std::fs::read(work.join("bbx-verify-A5_B7/manifest.json")).unwrap(),
    )
    .unwrap();
    let drawn = manifest["sink"]["seed"].as_u64().unwrap();
    // Another seed given, another sample size, other workers: refused, the
    // setting named with both values.
    let other = (drawn + 1).to_string();
    for (more, expected) in [
        (
            vec!["-w", "1", "--seed", other.as_str()],
            format!("--seed is {other} here but {drawn} in the work directory"),
        ),
        (
            vec!["-w", "1", "--sample", "2000"],
            "--sample is 2000 here but 3000 in the work directory".to_string(),
        ),
        (
            vec!["-w", "2"],
            "--workers is 2 here but 1 in the work directory".to_string(),
        ),
    ] {
        let out = verify(&work, &more, slow);
        let err = one_line(&out, 2);
        assert!(err.contains(&expected), "{more:?}: {err}");
        assert!(
            err.contains("run the census with the same options"),
            "{err}"
        );
    }
    // The same command resumes, with the seed drawn the first time.
    let out = verify(&work, &w1, slow);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["census"]["resumed"], true);
    assert_eq!(v["seed"], drawn);
    std::fs::create_dir_all(dir.join("reference")).unwrap();
    let reference = verify(
        &dir.join("reference"),
        &["-w", "1", "--seed", &drawn.to_string()],
        slow,
    );
    assert_eq!(reference.status.code(), Some(0), "{}", stderr(&reference));
    let reference: Value = serde_json::from_slice(&reference.stdout).unwrap();
    assert_eq!(v["rows"], reference["rows"]);
    assert!(!work.join("bbx-verify-A5_B7").exists());
}

#[cfg(unix)]
#[test]
fn ctrl_c_ends_the_wait_for_the_other_processes_at_once() {
    use std::io::Write;
    // Alone, and with a stranger on its port that began to introduce
    // itself as a census process and then said nothing more (a process
    // waits ten seconds for an introduction).
    for stranger in [false, true] {
        let dir = temp_dir("peers-wait");
        let hosts = loopback_hosts(&dir, 2);
        let work = dir.join("work");
        let census = work.join("bbx-census-A5_B7-process0");
        // Process 0 of 2, started alone: it waits for process 1.
        let mut zero = process(&["A5_B7", "-w", "1"], 0, &hosts, &work);
        let pid = zero.id();
        wait_for(&mut zero, "process 0 catches Ctrl-C and waits", || {
            catches_sigint(pid) && census.join("manifest.json").exists()
        });
        let _silent = stranger.then(|| {
            let text = std::fs::read_to_string(&hosts).unwrap();
            let address = text.lines().next().unwrap().to_string();
            let start = Instant::now();
            let mut stream = loop {
                match std::net::TcpStream::connect(&address) {
                    Ok(s) => break s,
                    Err(e) if start.elapsed() > Duration::from_secs(60) => panic!("{e}"),
                    Err(_) => std::thread::sleep(Duration::from_millis(20)),
                }
            };
            stream.write_all(b"bbx").unwrap();
            stream
        });
        std::thread::sleep(Duration::from_millis(300));
        let sent = Instant::now();
        let status = StdCommand::new("kill")
            .args(["-INT", &pid.to_string()])
            .status()
            .unwrap();
        assert!(status.success());
        let out = wait(zero, Duration::from_secs(60));
        let took = sent.elapsed();
        let err = one_line(&out, 130);
        assert!(
            err.starts_with("interrupted while waiting for the other processes of the census"),
            "{err}"
        );
        assert!(err.contains("run the same command to resume"), "{err}");
        // Measured, with a generous bound (well under the ten seconds an
        // introduction may take): the wait looks at Ctrl-C five times a
        // second.
        assert!(took < Duration::from_secs(5), "took {took:?}");
        eprintln!(
            "Ctrl-C ended the wait for the other processes in {took:?} (stranger: {stranger})"
        );
        assert!(
            census.join("manifest.json").exists(),
            "what it made is kept"
        );
    }
}

#[test]
fn the_default_work_directory_is_the_users_cache_and_unfinished_work_is_told() {
    let dir = temp_dir("cache");
    let cache = dir.join("cache");
    let tmp = dir.join("tmp");
    std::fs::create_dir_all(&tmp).unwrap();
    let db = dir.join("none.sqlite");
    let run = |args: &[&str], faults: &str| {
        bbx()
            .args(args)
            .env("XDG_CACHE_HOME", &cache)
            .env("TMPDIR", &tmp)
            .env("BBX_TEST_FAULTS", faults)
            .output()
            .unwrap()
    };
    let out = run(
        &[
            "verify",
            "A5_B6",
            "-q",
            "--db",
            db.to_str().unwrap(),
            "-w",
            "1",
        ],
        "unit-size=20000,stop-after=2",
    );
    assert_eq!(out.status.code(), Some(130), "{}", stderr(&out));
    let kept = cache.join("bbx/bbx-verify-A5_B6");
    assert!(kept.join("manifest.json").exists());
    assert!(stderr(&out).contains(kept.to_str().unwrap()));
    assert!(names(&tmp).is_empty(), "nothing in the temporary directory");
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(&kept).unwrap().permissions().mode();
        assert_eq!(mode & 0o777, 0o700);
    }
    // A census of something else tells of it: where, how big, what to do.
    let out = run(&["stats", "A3_B5", "-q"], "");
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let err = stderr(&out);
    assert!(
        err.starts_with(&format!(
            "note: {} holds the unfinished work of `bbx verify A5_B6` (",
            kept.display()
        )),
        "{err}"
    );
    assert!(err.contains(" MB): the same command"), "{err}");
    assert!(err.contains("deleting that directory discards it"), "{err}");
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(kept.join("manifest.json").exists(), "told of, not touched");
    assert!(names(&tmp).is_empty());
}

#[cfg(unix)]
#[test]
fn ctrl_c_stops_a_verify_in_memory_at_once() {
    // With hidden rays the spectra are enumerated and checked in memory.
    for wait_ms in [200, 2500, 6000] {
        let mut child = StdCommand::new(bin())
            .args(["verify", "A5_B8", "--partial", "0.5", "--seed", "1", "-q"])
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let pid = child.id();
        wait_for(&mut child, "verify catches Ctrl-C", || catches_sigint(pid));
        std::thread::sleep(Duration::from_millis(wait_ms));
        let sent = Instant::now();
        let status = StdCommand::new("kill")
            .args(["-INT", &pid.to_string()])
            .status()
            .unwrap();
        assert!(status.success());
        let out = wait(child, Duration::from_secs(60));
        let took = sent.elapsed();
        let err = one_line(&out, 130);
        assert!(err.starts_with("interrupted"), "{err}");
        assert!(took < Duration::from_secs(10), "took {took:?}");
        eprintln!("Ctrl-C stopped a verify in memory in {took:?}: {err}");
    }
}

#[cfg(unix)]
#[test]
fn a_work_directory_another_user_planted_is_refused() {
    use std::os::unix::fs::PermissionsExt;
    // The attack on a shared directory: another user makes the work
    // directory, private, with a link in it to a file of the user who will
    // run the census (root's 0600 file, when root runs it).
    let dir = temp_dir("others");
    let work = dir.join("W");
    let planted = work.join("bbx-census-A5_B6");
    std::fs::create_dir_all(&planted).unwrap();
    let precious = dir.join("V");
    std::fs::write(&precious, "precious\n").unwrap();
    std::fs::set_permissions(&precious, std::fs::Permissions::from_mode(0o600)).unwrap();
    std::os::unix::fs::symlink(&precious, planted.join("worker0-part0.records")).unwrap();
    std::fs::set_permissions(&planted, std::fs::Permissions::from_mode(0o700)).unwrap();
    // Only root can give a directory to another user.
    if std::os::unix::fs::lchown(&planted, Some(65534), Some(65534)).is_err() {
        eprintln!("note: not run as root: a directory of another user cannot be made here");
        return;
    }
    let out = run(&["stats", "A5_B6", "-q", "--work-dir", work.to_str().unwrap()]);
    let err = one_line(&out, 2);
    assert!(
        err.contains("it belongs to another user (uid 65534)"),
        "{err}"
    );
    assert!(err.contains("--work-dir"), "{err}");
    assert_eq!(std::fs::read_to_string(&precious).unwrap(), "precious\n");
    assert_eq!(names(&planted), ["worker0-part0.records"]);
    assert_eq!(names(&work), ["bbx-census-A5_B6"]);
}

#[test]
fn a_verify_of_several_processes_needs_one_seed() {
    let dir = temp_dir("processes-seed");
    let hosts = loopback_hosts(&dir, 2);
    let work = dir.join("work");
    // Without the check, process 0 would wait for process 1.
    let child = StdCommand::new(bin())
        .args([
            "verify",
            "A5_B7",
            "-q",
            "--processes",
            "2",
            "--process",
            "0",
        ])
        .arg("--hostfile")
        .arg(&hosts)
        .arg("--db")
        .arg(dir.join("none.sqlite"))
        .arg("--work-dir")
        .arg(&work)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let out = wait(child, Duration::from_secs(60));
    let err = one_line(&out, 2);
    assert!(err.contains("give every process the same --seed"), "{err}");
    assert!(!work.exists(), "nothing is made");
}
