//! `bbx suggest`.

use std::time::Duration;

use bbx::assistant::suggest::{SuggestOptions, rank};
use bbx::control::{Budget, Ended};
use bbx::error::quantity;
use bbx::render;
use bbx::solver::Limits;

use crate::cli::{
    Flags, MaxMolecules, PuzzleInput, Quiet, Status, budget, json, parse_size, parse_timeout,
    solve_showing,
};

#[derive(clap::Args)]
#[command(
    after_help = "Reads any puzzle `bbx solve` reads, usually a partial game.\n\nExamples:\n  bbx suggest puzzles/generated-a4-b8-partial.txt\n  bbx suggest game.txt --top 3 --json\n  bbx suggest big-game.txt --timeout 5"
)]
pub struct Args {
    #[command(flatten)]
    input: PuzzleInput,
    #[command(flatten)]
    max: MaxMolecules,
    /// Show this many rays.
    #[arg(long, value_name = "K", default_value_t = 10)]
    top: usize,
    /// Also compute the strategy that needs the fewest rays on average, as a
    /// decision tree (for at most --plan-max molecules).
    #[arg(long)]
    plan: bool,
    /// Largest set of molecules --plan works on.
    #[arg(long, value_name = "N", default_value_t = 40)]
    plan_max: usize,
    /// Print one JSON object instead of text.
    #[arg(long)]
    json: bool,
    /// Stop searching after this many seconds and rank the rays on the
    /// molecules found by then; with --plan, the strategy's search stops at
    /// the same moment (no strategy then).
    #[arg(long, value_name = "SECONDS", value_parser = parse_timeout, allow_negative_numbers = true)]
    timeout: Option<Duration>,
    /// The most memory the search may take (2G, 500M…): past it, it stops
    /// and the rays are ranked on the molecules found.
    #[arg(long, value_name = "SIZE", default_value = "2G", value_parser = parse_size)]
    memory: u64,
    #[command(flatten)]
    quiet: Quiet,
}

pub fn run(args: Args) -> bbx::Result<(String, Status)> {
    let (puzzle, atoms, rules) = args.input.load()?;
    let budget = budget(args.timeout).with_memory(Some(args.memory));
    let options = SuggestOptions {
        max: args.max.limit(puzzle.shape().cells()),
        top: args.top,
        plan_max: args.plan.then_some(args.plan_max),
        // The strategy's own memory bound, on the subsets it remembers.
        plan_budget: Budget {
            memory: None,
            ..budget.clone()
        },
        budget: budget.clone(),
    };
    let limits = Limits {
        max: Some(options.max),
        budget,
    };
    let (spinner, solution) = solve_showing(
        "suggest",
        args.quiet.quiet,
        &puzzle,
        (atoms, rules),
        &limits,
    );
    if args.plan {
        spinner.set_message(format!("suggest {}: planning", puzzle.origin));
    }
    let s = solution.and_then(|solution| rank(&puzzle.origin, solution, &options));
    spinner.finish_and_clear();
    let s = s?;
    if s.complete && s.count == 0 {
        // The same object as any other answer: no molecule, and the
        // contradicting rays in `conflict`.
        let text = if args.json {
            json(&s)?
        } else {
            render::solve_text(&s.report, 0, &Flags)
        };
        return Ok((text, Status::No));
    }
    if let Some(cut) = &s.plan_cut
        && !args.json
    {
        eprintln!("note: no strategy (--plan): {}", cut.show(&Flags));
    } else if args.plan && s.plan.is_none() && !args.json {
        eprintln!(
            "note: --plan works on complete sets of at most {} (--plan-max); this game has {}{}",
            quantity(args.plan_max, "molecule", "molecules"),
            if s.complete { "" } else { "at least " },
            s.count
        );
    }
    let text = if args.json {
        json(&s)?
    } else {
        render::suggest_text(&s, args.top, &Flags)
    };
    let status = if s.report.ended == Ended::Cancelled || s.plan_ended == Some(Ended::Cancelled) {
        Status::Interrupted
    } else if matches!(s.report.ended, Ended::TimedOut | Ended::OverMemory) && s.count == 0 {
        Status::Incomplete
    } else {
        Status::Done
    };
    Ok((text, status))
}
