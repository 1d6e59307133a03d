//! `bbx solve`.

use std::time::Duration;

use bbx::control::Ended;
use bbx::render;
use bbx::rules::notation::Notation;
use bbx::solver::Limits;
use bbx::solver::count::Prior;
use bbx::solver::solve_report::{Known, SolveReport};

use crate::cli::{MaxMolecules, Quiet, Workers};
use crate::exit::{Status, budget};
use crate::output::{Flags, json};
use crate::puzzle_input::{PuzzleInput, solve_showing};
use crate::values::{parse_size, parse_timeout};

#[derive(clap::Args)]
#[command(
    after_help = "Examples:\n  bbx solve seed-pure-thought-a4-b8\n  bbx solve generated-a4-b8-partial --atoms 4..5 --max 100",
    after_long_help = "\
Puzzle formats (detected, or --format):
  display  J. Forget's board with border marks: letters for exit pairs, @ hit,
           & reflection, or Emacs notation (digits, H, R); blank or ? for rays
           not shot; O in the box is your guess; an optional line 'There are
           N balls in the box'
  linear   one line: A4_B8 @&ab@&@c... with ? for rays not shot
  seed001  A. Janns's solver's format: 'P K', then one ray per line in its
           clockwise numbering (edge-miss rules)
  tatham   a save file of Simon Tatham's Black Box, or a game ID such as
           w8h8m5M5:<hex> or w8h8m5M5#<seed> (in a file): the lasers fired,
           the balls guessed

Exit status: 0 molecules found, 1 no molecule fits, 2 bad input (a --memory too
small for the search to start too), 3 failure, 4 nothing found before --timeout
or --memory stopped the search (or the reading of the puzzle), 130 interrupted
(what was found is shown).

Examples:
  bbx solve seed-pure-thought-a4-b8
  bbx solve seed001-sample --json
  bbx solve generated-a4-b8-partial --atoms 4..5 --max 100
  bbx solve generated-a8-b15-partial --timeout 10 --max-boards 3"
)]
pub struct Args {
    #[command(flatten)]
    input: PuzzleInput,
    #[command(flatten)]
    max: MaxMolecules,
    /// Show at most N boards
    ///
    /// The count, the certain cells and --json cover all the molecules.
    #[arg(long = "max-boards", value_name = "N", default_value_t = 20, aliases = ["boards", "show"], allow_negative_numbers = true,
        value_parser = crate::values::whole::<usize>("a number of boards", 0, None))]
    max_boards: usize,
    /// Also each cell's chance of holding an atom
    ///
    /// The share of the molecules that fit with an atom there, counted on all
    /// of them.
    #[arg(long, conflicts_with = "count")]
    probabilities: bool,
    /// Borders in Emacs notation: H, R and digits
    ///
    /// On the boards' borders, up to 9 exit pairs (past them, letters); the
    /// spectra, as strings, stay in letters.
    #[arg(long)]
    emacs: bool,
    /// Print only the number of molecules.
    #[arg(long, conflicts_with = "json")]
    count: bool,
    /// Print one JSON object instead of text.
    #[arg(long)]
    json: bool,
    /// Give up after this many seconds
    ///
    /// What was found by then is reported. From 0 to a week, fractions allowed, or a duration such as 90s, 5m or
    /// 1h 30m.
    #[arg(long, value_name = "SECONDS", value_parser = parse_timeout, allow_negative_numbers = true)]
    timeout: Option<Duration>,
    /// The most memory the work may take (2G, 500M…)
    ///
    /// Past it, the search stops and reports what it found; a search that
    /// could find nothing within it is refused at once.
    #[arg(long, value_name = "SIZE", default_value = "2G", value_parser = parse_size, allow_negative_numbers = true)]
    memory: u64,
    #[command(flatten)]
    quiet: Quiet,
    #[command(flatten)]
    workers: Workers,
}

pub fn run(args: Args) -> bbx::Result<(String, Status)> {
    args.workers.apply()?;
    let budget = budget(args.timeout).with_memory(Some(args.memory));
    let (puzzle, atoms, rules) = match args.input.load(&budget)? {
        Ok(loaded) => loaded,
        Err(ended) => return Ok(args.input.not_read(args.json, ended)),
    };
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
    let guess = puzzle.guess.as_ref();
    let mut report = if args.count {
        SolveReport::untraced(&puzzle.origin, solution, guess)
    } else {
        SolveReport::new(&puzzle.origin, solution, guess, &budget)
    };
    if args.count {
        report.count_exactly(Prior::Molecules, &budget)?;
    } else {
        report.work_out(Prior::Molecules, &budget)?;
        if !args.probabilities {
            // Asked for only: the same output with or without the count.
            report.probabilities = None;
        } else if report.probabilities.is_none() {
            eprintln!(
                "note: no probabilities: the molecules that fit could not all be counted (too many to walk, or the time limit)"
            );
        }
    }
    // Counted exactly: none fits, or some do though the search found none
    // in its time.
    let code = match (report.known, report.count, code) {
        (Known::Exact, 0, Status::Done | Status::Incomplete) => Status::No,
        (Known::Exact | Known::Estimate, 1.., Status::Incomplete | Status::No) => Status::Done,
        _ => code,
    };
    if code == Status::Incomplete && args.json {
        // Nothing found nor counted: the error object, as every command
        // gives on exit 4.
        let message = render::verdict(&report, &Flags);
        return Ok(crate::output::nothing_found(true, report.ended, &message));
    }
    // Ctrl-C while the rays were ranked: what was done is shown, and the
    // status says the work was interrupted.
    let cancelled = report.after == Ended::Cancelled;
    let code = if cancelled { Status::Interrupted } else { code };
    let text = if args.count {
        if let (Known::Estimate, Some(e)) = (report.known, report.estimate) {
            format!(
                "about {:.0} ({:.0} to {:.0} at 95%)\n",
                e.value, e.low, e.high
            )
        } else if report.known == Known::Exact {
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
        let notation = Notation::emacs_if(args.emacs);
        let mut text = render::solve_text_in(&report, args.max_boards, &Flags, notation);
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
    Ok((crate::fit::fit(&text), code))
}
