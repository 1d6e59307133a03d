//! Fuzzing on stable Rust: every parser gets arbitrary text, arbitrary bytes,
//! puzzles written by bbx's own drawing code (which must read back exactly)
//! and mutated copies of those and of the files in `puzzles/`, and must
//! answer with a value or a clean error, never a panic. A sample of the mutated files also goes
//! through the real binary, which must exit with a status (0 to 4), never
//! 101 (a panic), and print one `error:` line when it refuses the input.
//!
//! Inputs that once made a parser panic are kept in [`REGRESSIONS`].

use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::PathBuf;

use crate::common::{bbx, proptest_config, puzzle_files, sparse};
use bbx::puzzle::{
    Format, Picture, detect_format, parse_molecule, parse_puzzle, position_to_janns,
};
use bbx::render::{balls_line, board};
use bbx::rules::notation::Notation;
use bbx::{Config, Molecule, Observation, Outcome, Rules, Spectrum, Transform};
use proptest::prelude::*;

/// Runs every parser on `text`; returns a description of the first panic.
fn parse_everything(text: &str) -> Result<(), String> {
    let attempt = |what: &str, f: &dyn Fn()| {
        catch_unwind(AssertUnwindSafe(f)).map_err(|e| {
            let msg = e
                .downcast_ref::<String>()
                .cloned()
                .or_else(|| e.downcast_ref::<&str>().map(|s| s.to_string()))
                .unwrap_or_default();
            format!("{what} panicked on {text:?}: {msg}")
        })
    };
    attempt("detect_format", &|| {
        detect_format(text);
    })?;
    for format in [
        None,
        Some(Format::Display),
        Some(Format::Linear),
        Some(Format::Janns),
        Some(Format::Tatham),
    ] {
        attempt(&format!("parse_puzzle({format:?})"), &|| {
            if let Ok(p) = parse_puzzle(text, "fuzz", format) {
                // What a caller does next with a puzzle must not panic either.
                let _ = (p.width(), p.config(), p.observation.to_string());
            }
        })?;
    }
    attempt("parse_molecule", &|| {
        let _ = parse_molecule(text, "fuzz");
    })?;
    attempt("Picture::parse", &|| {
        if let Ok(p) = Picture::parse(text, "fuzz") {
            let _ = p.molecule();
        }
    })?;
    attempt("Molecule::from_str", &|| {
        if let Ok(m) = text.parse::<Molecule>() {
            let _ = m.to_string();
        }
    })?;
    attempt("Molecule::parse_linear", &|| {
        let _ = Molecule::parse_linear(text, "fuzz");
    })?;
    attempt("Config::from_str", &|| {
        if let Ok(c) = text.parse::<Config>() {
            let _ = (c.to_string(), c.molecule_count());
        }
    })?;
    attempt("Spectrum::parse", &|| {
        if let Ok(s) = Spectrum::parse(text, "fuzz") {
            let _ = s.to_string();
            for t in Transform::ALL {
                let _ = t.spectrum(&s);
            }
        }
    })?;
    attempt("Observation::parse", &|| {
        if let Ok(o) = Observation::parse(text, "fuzz") {
            let _ = (o.to_string(), o.shot_count());
        }
    })?;
    attempt("Transform::from_str", &|| {
        let _ = text.parse::<Transform>();
    })?;
    attempt("Transform::spectrum_string", &|| {
        for t in Transform::ALL {
            let _ = t.spectrum_string(text);
        }
    })?;
    attempt("Rules and Format names", &|| {
        let _ = (text.parse::<Rules>(), text.parse::<Format>());
    })?;
    Ok(())
}

/// Inputs that made a parser panic once, kept so that they never do again.
const REGRESSIONS: &[&str] = &[];

#[test]
fn regressions_parse_without_panicking() {
    for text in REGRESSIONS {
        if let Err(e) = parse_everything(text) {
            panic!("{e}");
        }
    }
}

/// Characters the formats give a meaning to, and a few they do not.
const ALPHABET: &str =
    " @&~?O-.+#HRabcxyzABXZ0123456789_\n\n\n\t\r\u{feff}\u{0}é→There are balls in the box";

/// Text drawn from [`ALPHABET`] (mostly), or any characters at all.
fn text() -> impl Strategy<Value = String> {
    let chars: Vec<char> = ALPHABET.chars().collect();
    prop_oneof![
        3 => proptest::collection::vec(proptest::sample::select(chars), 0..160)
            .prop_map(|v| v.into_iter().collect::<String>()),
        1 => any::<String>(),
    ]
}

/// A mutation of a file's bytes.
#[derive(Debug, Clone)]
enum Mutation {
    /// Set the byte at this fraction of the length.
    Flip(f64, u8),
    /// Delete `len` bytes from here.
    Delete(f64, usize),
    /// Insert these bytes here.
    Insert(f64, Vec<u8>),
    /// Swap two lines.
    SwapLines(f64, f64),
    /// Copy a line after itself.
    RepeatLine(f64),
    /// Keep only this fraction of the file.
    Truncate(f64),
}

fn mutation() -> impl Strategy<Value = Mutation> {
    // Bytes that matter to the formats, and any byte.
    let byte = prop_oneof![
        3 => proptest::sample::select(ALPHABET.as_bytes().to_vec()),
        1 => any::<u8>(),
    ];
    prop_oneof![
        4 => (0.0..1.0, byte.clone()).prop_map(|(at, b)| Mutation::Flip(at, b)),
        2 => (0.0..1.0, 1usize..12).prop_map(|(at, n)| Mutation::Delete(at, n)),
        2 => (0.0..1.0, proptest::collection::vec(byte, 1..12))
            .prop_map(|(at, b)| Mutation::Insert(at, b)),
        1 => (0.0..1.0, 0.0..1.0).prop_map(|(a, b)| Mutation::SwapLines(a, b)),
        1 => (0.0..1.0).prop_map(Mutation::RepeatLine),
        1 => (0.0..1.0).prop_map(Mutation::Truncate),
    ]
}

/// The lines of `bytes` (at least one, perhaps empty).
fn split_lines(bytes: &[u8]) -> Vec<Vec<u8>> {
    bytes.split(|&c| c == b'\n').map(<[u8]>::to_vec).collect()
}

fn apply(bytes: &mut Vec<u8>, m: &Mutation) {
    let at = |f: f64, len: usize| ((f * len as f64) as usize).min(len);
    match m {
        Mutation::Flip(f, b) => {
            if !bytes.is_empty() {
                let i = at(*f, bytes.len() - 1);
                bytes[i] = *b;
            }
        }
        Mutation::Delete(f, n) => {
            let i = at(*f, bytes.len());
            let end = (i + n).min(bytes.len());
            bytes.drain(i..end);
        }
        Mutation::Insert(f, b) => {
            let i = at(*f, bytes.len());
            bytes.splice(i..i, b.iter().copied());
        }
        Mutation::SwapLines(a, b) => {
            let mut lines = split_lines(bytes);
            let n = lines.len();
            lines.swap(at(*a, n - 1), at(*b, n - 1));
            *bytes = lines.join(&b'\n');
        }
        Mutation::RepeatLine(a) => {
            let mut lines = split_lines(bytes);
            let i = at(*a, lines.len() - 1);
            lines.insert(i, lines[i].clone());
            *bytes = lines.join(&b'\n');
        }
        Mutation::Truncate(f) => {
            let keep = at(*f, bytes.len());
            bytes.truncate(keep);
        }
    }
}

/// The files of `puzzles/`, read once.
fn originals() -> &'static [(PathBuf, Vec<u8>)] {
    static FILES: std::sync::OnceLock<Vec<(PathBuf, Vec<u8>)>> = std::sync::OnceLock::new();
    FILES.get_or_init(|| {
        puzzle_files()
            .into_iter()
            .map(|p| {
                let bytes = std::fs::read(&p).expect("readable");
                (p, bytes)
            })
            .collect()
    })
}

/// A file of `puzzles/` with up to six mutations applied.
fn mutated() -> impl Strategy<Value = (usize, Vec<Mutation>)> {
    (
        0..originals().len(),
        proptest::collection::vec(mutation(), 1..=3),
    )
}

fn mutate(file: usize, mutations: &[Mutation]) -> Vec<u8> {
    let mut bytes = originals()[file].1.clone();
    for m in mutations {
        apply(&mut bytes, m);
    }
    bytes
}

/// `normal` cases per property (a few seconds for the whole file in a
/// release build), or `BBX_FUZZ_CASES` each for a longer run.
fn cases(normal: u32) -> u32 {
    std::env::var("BBX_FUZZ_CASES")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(normal)
}

proptest! {
    #![proptest_config(proptest_config(cases(5000)))]

    #[test]
    fn arbitrary_text_never_panics(s in text()) {
        if let Err(e) = parse_everything(&s) {
            prop_assert!(false, "{}", e);
        }
    }

    #[test]
    fn arbitrary_bytes_never_panic(bytes in proptest::collection::vec(any::<u8>(), 0..200)) {
        let s = String::from_utf8_lossy(&bytes);
        if let Err(e) = parse_everything(&s) {
            prop_assert!(false, "{}", e);
        }
    }

}

proptest! {
    #![proptest_config(proptest_config(cases(30_000)))]

    /// What bbx writes, it reads back (the format detected, the rays and the
    /// atom count as written); mutated, it is refused cleanly or read.
    #[test]
    fn written_puzzles_read_back_and_survive_mutation(
        w in written(),
        mutations in proptest::collection::vec(mutation(), 0..4),
    ) {
        let p = parse_puzzle(&w.text, "written", None);
        prop_assert!(p.is_ok(), "{:?}\n{}", p, w.text);
        let p = p.unwrap();
        prop_assert_eq!(p.format, w.format, "{}", w.text);
        prop_assert_eq!(&p.observation, &w.observation, "{}", w.text);
        prop_assert_eq!(p.atoms, Some(w.atoms));
        let mut bytes = w.text.clone().into_bytes();
        for m in &mutations {
            apply(&mut bytes, m);
        }
        if let Err(e) = parse_everything(&String::from_utf8_lossy(&bytes)) {
            prop_assert!(false, "{} ({:?} with {:?})", e, w.text, mutations);
        }
    }

    #[test]
    fn mutated_puzzle_files_never_panic((file, mutations) in mutated()) {
        let bytes = mutate(file, &mutations);
        let s = String::from_utf8_lossy(&bytes);
        if let Err(e) = parse_everything(&s) {
            prop_assert!(false, "{} ({:?} with {:?})", e, originals()[file].0, mutations);
        }
    }
}

/// A puzzle written by bbx's own drawing code in one of the formats, with the
/// observation it holds: a random molecule, some of its rays hidden.
#[derive(Debug, Clone)]
struct Written {
    text: String,
    observation: Observation,
    atoms: usize,
    format: Format,
}

fn written() -> impl Strategy<Value = Written> {
    (
        sparse(12, 10),
        0usize..4,
        proptest::collection::vec(proptest::bool::weighted(0.7), 48),
    )
        .prop_map(|(m, style, keep)| write_puzzle(&m, style, &keep))
}

/// `m`'s game with the rays whose bit in `keep` is clear hidden, written as a
/// display in J. Forget's notation (`style` 0), in Emacs notation (1, when
/// its digits suffice), as a linear line (2) or in A. Janns's format (3,
/// every ray, under its edge-miss rules).
fn write_puzzle(m: &Molecule, style: usize, keep: &[bool]) -> Written {
    let p = m.width();
    let n = m.atoms().len();
    let rules = if style == 3 {
        Rules::EdgeMiss
    } else {
        Rules::Standard
    };
    let s = Spectrum::of(m, rules);
    let mut observation = Observation::full(&s);
    if style != 3 {
        for (pos, _) in observation.clone().rays() {
            if !keep[(pos - 1) % keep.len()] {
                observation.forget(pos);
            }
        }
    }
    let config = Config::new(n, p).expect("fits");
    let (text, format) = match style {
        0 | 1 => {
            let seed: Vec<char> = observation
                .marks()
                .expect("at most 24 pairs")
                .into_iter()
                .map(|c| if c == '?' { ' ' } else { c })
                .collect();
            let emacs = s.marks_in(Notation::Emacs).filter(|_| style == 1);
            let marks: Vec<char> = match emacs {
                // The full spectrum's Emacs marks, blank where not shot.
                Some(e) => e
                    .into_iter()
                    .zip(&seed)
                    .map(|(e, &c)| if c == ' ' { ' ' } else { e })
                    .collect(),
                None => seed,
            };
            (
                format!("{}\n{}\n", board(m, &marks), balls_line(n)),
                Format::Display,
            )
        }
        2 => (format!("{config} {observation}\n"), Format::Linear),
        _ => {
            let mut text = format!("{p} {n}\n");
            for (pos, o) in observation.rays() {
                let k = position_to_janns(p, pos);
                match o {
                    Outcome::Absorbed => text += &format!("{k}\n"),
                    Outcome::Reflected => text += &format!("{k} {k}\n"),
                    Outcome::Exit(j) => text += &format!("{k} {}\n", position_to_janns(p, j)),
                    Outcome::Miss => {}
                }
            }
            (text, Format::Janns)
        }
    };
    Written {
        text,
        observation,
        atoms: n,
        format,
    }
}

/// Every file of `puzzles/` reads as it is, and every one of its lines can go.
#[test]
fn puzzle_files_with_each_line_removed() {
    for (path, bytes) in originals() {
        let text = std::str::from_utf8(bytes).expect("UTF-8");
        assert!(parse_puzzle(text, "original", None).is_ok(), "{path:?}");
        let lines: Vec<&str> = text.lines().collect();
        for skip in 0..lines.len() {
            let fewer: Vec<&str> = lines
                .iter()
                .enumerate()
                .filter(|&(i, _)| i != skip)
                .map(|(_, l)| *l)
                .collect();
            if let Err(e) = parse_everything(&fewer.join("\n")) {
                panic!("{path:?} without line {}: {e}", skip + 1);
            }
        }
    }
}

/// Mutated files through the real binary, from a file and from standard
/// input: `solve`, `trace` and `suggest` end with a status, not a panic.
#[test]
fn mutated_files_through_the_binary() {
    use proptest::strategy::ValueTree;
    use proptest::test_runner::{Config as RunnerConfig, RngAlgorithm, TestRng, TestRunner};

    let dir = crate::common::temp_dir("fuzz");
    // A fixed seed: the same sample on every run.
    let mut runner = TestRunner::new_with_rng(
        RunnerConfig::default(),
        TestRng::from_seed(RngAlgorithm::ChaCha, &[7; 32]),
    );
    let strategy = mutated();
    let samples = if cfg!(debug_assertions) { 6 } else { 24 };
    for n in 0..samples {
        let (file, mutations) = strategy.new_tree(&mut runner).expect("a value").current();
        let bytes = mutate(file, &mutations);
        let path = dir.join(format!("mutant-{n}.txt"));
        std::fs::write(&path, &bytes).expect("written");
        let p = path.to_str().expect("UTF-8 path");
        for args in [
            vec![
                "solve",
                p,
                "--max",
                "5",
                "--timeout",
                "0.5",
                "--max-boards",
                "1",
            ],
            vec!["trace", p],
            vec![
                "suggest",
                p,
                "--max",
                "5",
                "--timeout",
                "0.5",
                "--max-rays",
                "2",
            ],
            vec!["solve", "-", "--max", "5", "--timeout", "0.5", "--count"],
        ] {
            let out = bbx()
                .args(&args)
                .write_stdin(bytes.clone())
                .timeout(std::time::Duration::from_secs(60))
                .output()
                .expect("runs");
            let err = String::from_utf8_lossy(&out.stderr);
            let code = out.status.code();
            let origin = &originals()[file].0;
            assert!(
                matches!(code, Some(0..=4)),
                "{args:?} on {origin:?} with {mutations:?}: status {code:?}\n{err}"
            );
            assert!(
                !err.contains("panicked"),
                "{args:?} on {origin:?} with {mutations:?}: {err}"
            );
            if code == Some(2) {
                assert!(
                    err.starts_with("error: ") && err.trim_end().lines().count() == 1,
                    "{args:?} on {origin:?} with {mutations:?}: {err}"
                );
            }
        }
    }
    std::fs::remove_dir_all(&dir).ok();
}
