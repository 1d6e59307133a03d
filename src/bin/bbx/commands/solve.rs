//! `bbx solve`.

use std::time::Duration;

use bbx::control::Ended;
use bbx::render;
use bbx::solver::Limits;
use bbx::solver::report::SolveReport;

use crate::cli::{
    Flags, MaxMolecules, PuzzleInput, Quiet, Status, budget, json, parse_size, parse_timeout,
    solve_showing,
};

#[derive(clap::Args)]
#[command(
    after_help = "Puzzle formats (detected, or --format):\n  display  J. Forget's board with border marks: letters for exit pairs, @ hit, & reflection,\n           or Emacs notation (digits, H, R); blank or ? for rays not shot; O in the box\n           is your guess; an optional line 'There are N balls in the box'\n  linear   one line: A4_B8 @&ab@&@c... with ? for rays not shot\n  seed001  A. Janns's solver's format: 'P K', then one ray per line in its clockwise\n           numbering (edge-miss rules)\n  tatham   a save file of Simon Tatham's Black Box, or a game ID such as w8h8m5M5:<hex>\n           or w8h8m5M5#<seed> (in a file): the lasers fired, the balls guessed\n\nExit status: 0 molecules found, 1 no molecule fits, 2 bad input, 3 failure,\n4 nothing found before --timeout or --memory stopped the search, 130 interrupted\n(what was found is shown).\n\nExamples:\n  bbx solve puzzles/seed-pure-thought-a4-b8.txt\n  bbx solve puzzles/seed001-sample.txt --json\n  bbx solve game.txt --atoms 4..5 --max 100\n  bbx solve big-game.txt --timeout 10 --boards 3"
)]
pub struct Args {
    #[command(flatten)]
    input: PuzzleInput,
    #[command(flatten)]
    max: MaxMolecules,
    /// Print at most this many boards (the count and --json cover all).
    #[arg(long, value_name = "N", default_value_t = 20, alias = "show")]
    boards: usize,
    /// Also each cell's probability of holding an atom (the share of the
    /// molecules that fit with an atom there), counted on all of them.
    #[arg(long, conflicts_with = "count")]
    probabilities: bool,
    /// Print only the number of molecules.
    #[arg(long, conflicts_with = "json")]
    count: bool,
    /// Print one JSON object instead of text.
    #[arg(long)]
    json: bool,
    /// Give up after this many seconds, reporting what was found.
    #[arg(long, value_name = "SECONDS", value_parser = parse_timeout, allow_negative_numbers = true)]
    timeout: Option<Duration>,
    /// The most memory the search may take (2G, 500M…): past it, it stops
    /// and reports what it found; a search that could find nothing within
    /// it is refused at once.
    #[arg(long, value_name = "SIZE", default_value = "2G", value_parser = parse_size)]
    memory: u64,
    #[command(flatten)]
    quiet: Quiet,
}

pub fn run(args: Args) -> bbx::Result<(String, Status)> {
    let (puzzle, atoms, rules) = args.input.load()?;
    let budget = budget(args.timeout).with_memory(Some(args.memory));
    let limits = Limits {
        max: Some(args.max.limit(puzzle.shape().cells())),
        budget: budget.clone(),
    };
    let (spinner, solution) =
        solve_showing("solve", args.quiet.quiet, &puzzle, (atoms, rules), &limits);
    spinner.finish_and_clear();
    let solution = solution?;
    let code = if solution.ended == Ended::Cancelled {
        Status::Interrupted
    } else if solution.ended.is_complete() && solution.count == 0 {
        Status::No
    } else if solution.count == 0 {
        // Stopped by the time limit (or the memory bound) before anything
        // was found or ruled out.
        Status::Incomplete
    } else {
        Status::Done
    };
    let mut report = SolveReport::new(&puzzle.origin, solution, puzzle.guess.as_ref());
    if !args.count {
        report.rank_exactly(&budget)?;
        if args.probabilities && !report.count_atoms(&budget)?.is_complete() {
            eprintln!(
                "note: no probabilities: the molecules that fit could not all be counted (too many to walk, or the time limit)"
            );
        }
    }
    let text = if args.count {
        if report.ended.is_complete() {
            format!("{}\n", report.count)
        } else if report.count == 0 {
            // Not "at least 0": say what stopped the search.
            format!("{}\n", render::verdict(&report, &Flags))
        } else {
            format!("at least {}\n", report.count)
        }
    } else if args.json {
        json(&report)?
    } else {
        let mut text = render::solve_text(&report, args.boards, &Flags);
        if let (true, Some(p)) = (args.probabilities, &report.probabilities)
            && p.len() == report.solution().observation.shape().cells()
        {
            text.push_str(&format!(
                "\nprobability of an atom, in percent, over every molecule that fits (- never, O always):\n{}",
                render::probability_board(&report.solution().observation, p)
            ));
        }
        text
    };
    Ok((text, code))
}
