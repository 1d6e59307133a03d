//! Helpers shared by the test modules, each of which uses the ones it needs
//! (`use crate::common::…`): running the real binary, the puzzles of `puzzles/`,
//! temporary directories, proptest settings and strategies, and brute force.

pub mod play;
pub mod webdriver;

use std::path::{Path, PathBuf};
use std::process::Output;

use assert_cmd::Command;
use bbx::rules::enumeration::Molecules;
use bbx::{Config, Molecule, Observation, Rules, Spectrum};
use proptest::prelude::*;
use serde_json::Value;

// ---------------------------------------------------------------------------
// The binary
// ---------------------------------------------------------------------------

/// Waits for a child process, killing it (and failing the test) after
/// `limit`: a test that starts processes stops by itself.
pub fn wait(mut child: std::process::Child, limit: std::time::Duration) -> std::process::Output {
    let start = std::time::Instant::now();
    while child.try_wait().expect("wait").is_none() {
        if start.elapsed() > limit {
            let _ = child.kill();
            panic!("no answer within {limit:?}");
        }
        std::thread::sleep(std::time::Duration::from_millis(10));
    }
    child.wait_with_output().expect("output")
}

/// Starts a process `times` times with `start` and kills each one
/// (SIGKILL: no chance to clean up) at a random moment between 50 ms and
/// 50 + `spread_ms` ms after its start; returns the moments, for the
/// failure message. The moments change from run to run.
pub fn kill_at_random(
    times: usize,
    spread_ms: u64,
    mut start: impl FnMut() -> std::process::Child,
) -> Vec<u64> {
    let mut seed = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .expect("a clock after 1970")
        .subsec_nanos() as u64
        | 1;
    let mut delays = Vec::new();
    for _ in 0..times {
        // xorshift64
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        let delay = 50 + seed % spread_ms;
        delays.push(delay);
        let mut child = start();
        std::thread::sleep(std::time::Duration::from_millis(delay));
        let _ = child.kill();
        let _ = child.wait();
    }
    delays
}

/// The `bbx` binary built for these tests, kept away from the user's own
/// catalogues and cache ([`isolated`]): a census works, unless given
/// `--work-dir`, in [`cache_dir`], never in the cache of whoever runs the
/// tests nor in the system's temporary directory.
/// A test that cannot run here (a tool missing) says why and passes; but
/// where `BBX_TEST_NO_SKIP` is set (CI, which installs the tools and builds
/// the page), a skip is a failure.
pub fn skip(why: &str) {
    if std::env::var_os("BBX_TEST_NO_SKIP").is_some() {
        panic!("{why}: BBX_TEST_NO_SKIP is set, so this test may not be skipped");
    }
    eprintln!("skipped: {why}");
}

pub fn bbx() -> Command {
    let mut command = Command::cargo_bin("bbx").expect("binary built");
    for (key, value) in isolated() {
        match value {
            Some(value) => command.env(key, value),
            None => command.env_remove(key),
        };
    }
    command
}

/// The cache directory of the `bbx` that [`bbx`] runs: in the target
/// directory, kept between runs (a finished census leaves nothing in it).
pub fn cache_dir() -> PathBuf {
    Path::new(env!("CARGO_TARGET_TMPDIR")).join("cache")
}

/// The environment that keeps a test's bbx away from the user's catalogues
/// and cache: no `BBX_DB`, the cache directory [`cache_dir`], and a data
/// directory (`XDG_DATA_HOME`, and `HOME` for the systems that derive it
/// from there) of the test process's own in the target directory, empty
/// unless a test writes there. `(key, None)` removes the variable.
pub fn isolated() -> Vec<(&'static str, Option<std::ffi::OsString>)> {
    static HOME: std::sync::OnceLock<tempfile::TempDir> = std::sync::OnceLock::new();
    let home = HOME.get_or_init(|| {
        tempfile::Builder::new()
            .prefix("bbx-test-home-")
            .tempdir_in(env!("CARGO_TARGET_TMPDIR"))
            .expect("temp dir")
    });
    let home = home.path().as_os_str().to_owned();
    vec![
        ("BBX_DB", None),
        ("XDG_CACHE_HOME", Some(cache_dir().into_os_string())),
        ("XDG_DATA_HOME", Some(home.clone())),
        ("HOME", Some(home)),
    ]
}

/// Standard output of a command that must succeed.
pub fn stdout(args: &[&str]) -> String {
    let out = bbx().args(args).assert().success();
    String::from_utf8(out.get_output().stdout.clone()).expect("UTF-8")
}

/// Bad input: the command, reading `stdin`, must exit with status 2 and
/// print `error: …`, never a panic. Returns the message.
pub fn refused(args: &[&str], stdin: &str) -> String {
    let out = bbx().args(args).write_stdin(stdin).output().expect("runs");
    let err = String::from_utf8_lossy(&out.stderr).into_owned();
    assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
    assert!(err.starts_with("error: "), "{args:?}: {err}");
    assert!(
        !err.contains("panicked") && !err.contains("backtrace"),
        "{args:?}: {err}"
    );
    err
}

/// Like [`refused`], and the message must contain `needle`; `stdin` is what
/// the command reads on standard input (nothing when `None`).
pub fn rejects(args: &[&str], stdin: Option<&str>, needle: &str) -> String {
    let err = refused(args, stdin.unwrap_or(""));
    assert!(
        err.contains(needle),
        "{args:?}: expected {needle:?} in {err}"
    );
    err
}

/// Runs `bbx ARGS --json` and parses its standard output, whatever the exit
/// status; returns the value and the status.
pub fn run_json(args: &[&str]) -> (Value, i32) {
    let out = bbx().args(args).arg("--json").output().expect("runs");
    let code = out.status.code().expect("an exit status, not a signal");
    let v = serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
        panic!(
            "{args:?}: {e}: {}",
            String::from_utf8_lossy(&out.stderr).trim_end()
        )
    });
    (v, code)
}

/// `bbx ARGS`: its output, whatever the exit status.
pub fn run(args: &[&str]) -> Output {
    run_faulty(args, "")
}

/// [`run`] with the faults of `BBX_TEST_FAULTS` (`stop-after=1`, …; none
/// when empty): a fault goes through the real code path.
pub fn run_faulty(args: &[&str], faults: &str) -> Output {
    bbx()
        .args(args)
        .env("BBX_TEST_FAULTS", faults)
        .output()
        .expect("runs")
}

/// `bbx ARGS --json`, which must succeed, parsed.
pub fn json_ok(args: &[&str]) -> Value {
    let (v, code) = run_json(args);
    assert_eq!(code, 0, "{args:?}: {v}");
    v
}

// ---------------------------------------------------------------------------
// Files
// ---------------------------------------------------------------------------

/// The path of `name` in the project's `puzzles/` directory.
pub fn puzzle(name: &str) -> String {
    format!("{}/puzzles/{name}", env!("CARGO_MANIFEST_DIR"))
}

/// Every file under `puzzles/`, sorted.
pub fn puzzle_files() -> Vec<PathBuf> {
    fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
        for entry in std::fs::read_dir(dir).expect("puzzles/ is readable") {
            let path = entry.expect("entry").path();
            if path.is_dir() {
                walk(&path, out);
            } else {
                out.push(path);
            }
        }
    }
    let mut out = Vec::new();
    walk(Path::new(&puzzle("")), &mut out);
    out.sort();
    out
}

/// A fresh, empty temporary directory for one test, removed when dropped (a
/// `tempfile` directory with a random name, so that tests running at once in
/// this one process, and concurrent runs, never meet). It dereferences to its
/// [`Path`].
pub fn temp_dir(name: &str) -> Scratch {
    Scratch(
        tempfile::Builder::new()
            .prefix(&format!("bbx-test-{name}-"))
            .tempdir()
            .expect("temp dir"),
    )
}

/// A temporary directory made by [`temp_dir`].
pub struct Scratch(tempfile::TempDir);

impl std::ops::Deref for Scratch {
    type Target = Path;
    fn deref(&self) -> &Path {
        self.0.path()
    }
}

impl AsRef<Path> for Scratch {
    fn as_ref(&self) -> &Path {
        self.0.path()
    }
}

// ---------------------------------------------------------------------------
// Property tests
// ---------------------------------------------------------------------------

/// `cases` in release builds (the way the tests are meant to run), a tenth in
/// debug builds; failures are reported (shrunk) rather than written to
/// regression files.
pub fn proptest_config(cases: u32) -> ProptestConfig {
    ProptestConfig {
        cases: if cfg!(debug_assertions) {
            (cases / 10).max(1)
        } else {
            cases
        },
        failure_persistence: None,
        ..ProptestConfig::default()
    }
}

/// Molecules on boards 1×1..=`max_width` with 0..=`max_atoms` atoms.
pub fn sparse(max_width: usize, max_atoms: usize) -> impl Strategy<Value = Molecule> {
    (1..=max_width).prop_flat_map(move |p| {
        proptest::sample::subsequence((0..p * p).collect::<Vec<_>>(), 0..=max_atoms.min(p * p))
            .prop_map(move |atoms| Molecule::new(p, atoms).expect("valid atoms"))
    })
}

/// Boards up to `max_width` wide where each cell holds an atom with
/// probability 0.2..0.8.
pub fn dense(max_width: usize) -> impl Strategy<Value = Molecule> {
    (1..=max_width, 0.2f64..0.8).prop_flat_map(|(p, density)| {
        proptest::collection::vec(proptest::bool::weighted(density), p * p).prop_map(move |v| {
            Molecule::new(p, v.iter().enumerate().filter(|(_, a)| **a).map(|(i, _)| i))
                .expect("valid atoms")
        })
    })
}

/// Sparse molecules three times out of four, dense ones otherwise.
pub fn molecules(max_width: usize, max_atoms: usize) -> impl Strategy<Value = Molecule> {
    prop_oneof![3 => sparse(max_width, max_atoms), 1 => dense(max_width)]
}

/// Either rule set.
pub fn rules() -> impl Strategy<Value = Rules> {
    prop_oneof![Just(Rules::Standard), Just(Rules::EdgeMiss)]
}

// ---------------------------------------------------------------------------
// Brute force
// ---------------------------------------------------------------------------

/// Every molecule of `atoms` atoms whose spectrum agrees with every ray of
/// `o`, in number order, by tracing each molecule of the configuration.
pub fn brute_force(o: &Observation, rules: Rules, atoms: usize) -> Vec<Molecule> {
    let config = Config::new(atoms, o.width()).expect("the atoms fit");
    Molecules::new(config)
        .filter(|m| o.matches(&Spectrum::of(m, rules)))
        .collect()
}

/// The error object a command given `--json` prints on standard output when
/// it fails or stops with nothing to report (docs/json.md, Errors): checks
/// that `stdout` is that one object, of `kind`, with exit status `status`,
/// and returns its message.
pub fn json_error(stdout: &[u8], kind: &str, status: i32) -> String {
    let text = String::from_utf8_lossy(stdout);
    let v: Value =
        serde_json::from_str(&text).unwrap_or_else(|e| panic!("not one JSON object ({e}): {text}"));
    assert_eq!(v["error"]["kind"], kind, "{text}");
    assert_eq!(v["error"]["status"], status, "{text}");
    assert_eq!(v.as_object().map(|o| o.len()), Some(1), "{text}");
    v["error"]["message"]
        .as_str()
        .unwrap_or_else(|| panic!("no message: {text}"))
        .to_string()
}
