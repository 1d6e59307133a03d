//! `bbx solve`.

use std::process::ExitCode;
use std::sync::mpsc;
use std::time::{Duration, Instant};

use bbx::render;
use bbx::solver::report::SolveReport;
use bbx::solver::{self, Limits};

use crate::cli::PuzzleInput;

#[derive(clap::Args)]
#[command(
    after_help = "Puzzle formats (detected, or --format):\n  display  the seed's board with border marks: letters for exit pairs, @ hit, & reflection,\n           or Emacs notation (digits, H, R); blank or ? for rays not shot; O in the box\n           is your guess; an optional line 'There are N balls in the box'\n  linear   one line: A4_B8 @&ab@&@c... with ? for rays not shot\n  seed001  'P K', then one ray per line in that seed's clockwise numbering (edge-miss rules)\n\nExit status: 0 molecules found, 1 no molecule fits, 2 bad input.\n\nExamples:\n  bbx solve puzzles/seed-pure-thought-a4-b8.txt\n  bbx solve puzzles/seed001-sample.txt --json\n  bbx solve game.txt --atoms 4..5 --max 100"
)]
pub struct Args {
    #[command(flatten)]
    input: PuzzleInput,
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

pub fn run(args: Args) -> bbx::Result<(String, ExitCode)> {
    let (puzzle, atoms, rules) = args.input.load()?;
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
        let r = solver::solve(&observation, rules, range, &limits, |m| {
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
                break solver::Solution::interrupted(
                    puzzle.observation.clone(),
                    rules,
                    atoms.clone(),
                    std::mem::take(&mut found),
                );
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
        render::solve_text(&report, args.show)
    };
    Ok((text, code))
}
