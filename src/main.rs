//! The `bbx` command: parses arguments, calls the library, prints.

use std::io::Write;
use std::process::ExitCode;

use std::ops::RangeInclusive;
use std::sync::mpsc;
use std::time::{Duration, Instant};

use bbx::puzzle::{Format, load_molecule, load_puzzle};
use bbx::render::{Notation, SolveReport, TraceReport};
use bbx::sat::{self, Limits};
use bbx::{Config, Rules};
use clap::{Parser, Subcommand};

/// Explore and solve the deduction game Black Box.
#[derive(Parser)]
#[command(name = "bbx", version, about, long_about = None, propagate_version = true)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Trace every ray of one molecule: spectrum, numbers, board and statistics.
    #[command(
        after_help = "Examples:\n  bbx trace O-O-------------\n  bbx trace --config A4_B6 868\n  bbx trace puzzles/seed-23-cell-path.txt --ray 31\n  bbx trace O-O------------- --json"
    )]
    Trace(TraceArgs),
    /// Find every molecule that fits an observed game (SAT with blocking clauses).
    #[command(
        after_help = "Puzzle formats (detected, or --format):\n  display  the seed's board with border marks: letters for exit pairs, @ hit, & reflection,\n           or Emacs notation (digits, H, R); blank or ? for rays not shot; O in the box\n           is your guess; an optional line 'There are N balls in the box'\n  linear   one line: A4_B8 @&ab@&@c... with ? for rays not shot\n  seed001  'P K', then one ray per line in that seed's clockwise numbering (edge-miss rules)\n\nExit status: 0 molecules found, 1 no molecule fits, 2 bad input.\n\nExamples:\n  bbx solve puzzles/seed-pure-thought-a4-b8.txt\n  bbx solve puzzles/seed001-sample.txt --json\n  bbx solve game.txt --atoms 4..5 --max 100"
    )]
    Solve(SolveArgs),
}

#[derive(clap::Args)]
struct SolveArgs {
    /// The puzzle file, or `-` for standard input.
    file: String,
    /// Force the puzzle format instead of detecting it.
    #[arg(long, value_name = "display|linear|seed001")]
    format: Option<Format>,
    /// Number of atoms, or a range such as 3..5 (default: the count the file gives).
    #[arg(long, value_name = "N|A..B", value_parser = parse_atoms)]
    atoms: Option<RangeInclusive<usize>>,
    /// Ray rules (default: edge-miss for seed001 files, standard otherwise).
    #[arg(long, value_name = "standard|edge-miss")]
    rules: Option<Rules>,
    /// Stop after this many molecules.
    #[arg(long, value_name = "N", default_value_t = 100_000)]
    max: usize,
    /// Print at most this many boards (the count and --json cover all).
    #[arg(long, value_name = "N", default_value_t = 20)]
    show: usize,
    /// Print only the number of molecules.
    #[arg(long, conflicts_with = "json")]
    count: bool,
    /// Print one JSON object instead of text.
    #[arg(long)]
    json: bool,
    /// Give up after this many seconds, reporting what was found.
    #[arg(long, value_name = "SECONDS")]
    timeout: Option<f64>,
}

/// Parses `N` or `A..B` (also `A..=B`).
fn parse_atoms(s: &str) -> Result<RangeInclusive<usize>, String> {
    let bad = || format!("expected a number of atoms N or a range A..B, not '{s}'");
    let num = |x: &str| x.trim().parse::<usize>().map_err(|_| bad());
    match s.split_once("..") {
        None => num(s).map(|n| n..=n),
        Some((a, b)) => {
            let (a, b) = (num(a)?, num(b.trim_start_matches('='))?);
            if a > b {
                return Err(format!("empty range of atom counts '{s}'"));
            }
            Ok(a..=b)
        }
    }
}

#[derive(clap::Args)]
struct TraceArgs {
    /// The molecule: its linear form (`O` atom, `-` or `.` empty, row by row), a
    /// file holding that or a picture in the seed's display, `-` for standard
    /// input, or a molecule number together with --config.
    molecule: String,
    /// Check that the molecule belongs to this configuration (e.g. A4_B8).
    #[arg(long, value_name = "An_Bp")]
    config: Option<Config>,
    /// Ray rules.
    #[arg(long, default_value = "standard", value_name = "standard|edge-miss")]
    rules: Rules,
    /// Draw the path of the ray shot from border position K and describe it
    /// (repeatable).
    #[arg(long = "ray", value_name = "K")]
    rays: Vec<usize>,
    /// Write the border in Emacs notation (H, R, digits) instead of @, & and letters.
    #[arg(long)]
    emacs: bool,
    /// Print one JSON object instead of text.
    #[arg(long)]
    json: bool,
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Trace(args) => trace(args).map(|t| (t, ExitCode::SUCCESS)),
        Command::Solve(args) => solve(args),
    };
    match result {
        Ok((text, code)) => {
            let written = emit(&text);
            if written == ExitCode::SUCCESS {
                code
            } else {
                written
            }
        }
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::from(2)
        }
    }
}

/// Prints `text`; a closed pipe (`bbx … | head`) is not an error.
fn emit(text: &str) -> ExitCode {
    let mut out = std::io::stdout().lock();
    match out.write_all(text.as_bytes()).and_then(|_| out.flush()) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: cannot write the output: {e}");
            ExitCode::from(2)
        }
    }
}

fn trace(args: TraceArgs) -> bbx::Result<String> {
    let m = load_molecule(&args.molecule, args.config)?;
    let positions = 4 * m.width();
    if let Some(&k) = args.rays.iter().find(|&&k| k == 0 || k > positions) {
        return Err(bbx::Error::Invalid(format!(
            "--ray {k}: border positions of a {w}×{w} box are 1 to {positions}",
            w = m.width()
        )));
    }
    let report = TraceReport::new(&m, args.rules, &args.rays);
    if args.json {
        let mut s = serde_json::to_string_pretty(&report)
            .map_err(|e| bbx::Error::Invalid(e.to_string()))?;
        s.push('\n');
        return Ok(s);
    }
    let notation = if args.emacs {
        Notation::Emacs
    } else {
        Notation::Seed
    };
    if args.rays.is_empty() {
        return Ok(report.text(notation));
    }
    let mut out = report.header();
    for &k in &args.rays {
        out.push('\n');
        out.push_str(&report.ray_text(k));
    }
    Ok(out)
}

fn solve(args: SolveArgs) -> bbx::Result<(String, ExitCode)> {
    let puzzle = load_puzzle(&args.file, args.format)?;
    let cells = puzzle.width() * puzzle.width();
    let atoms = match (args.atoms, puzzle.atoms) {
        (Some(r), _) => r,
        (None, Some(n)) => n..=n,
        (None, None) => {
            return Err(bbx::Error::Invalid(format!(
                "{}: the number of atoms is needed: add a line 'There are N balls in the box' or give --atoms N (or a range, --atoms 3..5)",
                puzzle.origin
            )));
        }
    };
    if *atoms.start() > cells {
        return Err(bbx::Error::Invalid(format!(
            "{} atoms do not fit in the {w}×{w} box of {}",
            atoms.start(),
            puzzle.origin,
            w = puzzle.width()
        )));
    }
    let rules = args.rules.or(puzzle.rules).unwrap_or_default();
    let deadline = args
        .timeout
        .map(|s| Instant::now() + Duration::from_secs_f64(s.max(0.0)));
    let limits = Limits {
        max: Some(args.max),
        deadline,
    };
    // Solve on a worker thread so that a time limit holds even inside one long
    // solver call: the molecules found so far come back through a channel.
    let (tx, rx) = mpsc::channel();
    let observation = puzzle.observation.clone();
    let range = atoms.clone();
    let worker = std::thread::spawn(move || {
        let found_tx = tx.clone();
        let r = sat::solve(&observation, rules, range, &limits, |m| {
            let _ = found_tx.send(Ok(m.clone()));
        });
        let _ = tx.send(Err(r));
    });
    let mut found = Vec::new();
    let solution = loop {
        let wait = match deadline {
            Some(d) => d.saturating_duration_since(Instant::now()) + Duration::from_millis(200),
            None => Duration::from_secs(u64::MAX / 4),
        };
        match rx.recv_timeout(wait) {
            Ok(Ok(m)) => found.push(m),
            Ok(Err(result)) => break result?,
            Err(_) => {
                // The worker is stuck in one solver call past the deadline.
                break sat::Solution {
                    observation: puzzle.observation.clone(),
                    rules,
                    atoms: atoms.clone(),
                    molecules: std::mem::take(&mut found),
                    complete: false,
                    timed_out: true,
                    certainty: None,
                    conflict: None,
                };
            }
        }
    };
    drop(worker);
    let code = if solution.complete && solution.molecules.is_empty() {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    };
    let report = SolveReport::new(&puzzle.origin, solution, puzzle.guess.as_ref());
    let text = if args.count {
        if report.complete {
            format!("{}\n", report.count)
        } else {
            format!("at least {}\n", report.count)
        }
    } else if args.json {
        let mut s = serde_json::to_string_pretty(&report)
            .map_err(|e| bbx::Error::Invalid(e.to_string()))?;
        s.push('\n');
        s
    } else {
        report.text(args.show)
    };
    Ok((text, code))
}
