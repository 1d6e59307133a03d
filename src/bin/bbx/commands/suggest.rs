//! `bbx suggest`.

use std::process::ExitCode;

use bbx::assistant::suggest::{SuggestOptions, suggest};
use bbx::render;

use crate::cli::{PuzzleInput, json};

#[derive(clap::Args)]
#[command(
    after_help = "Reads any puzzle `bbx solve` reads, usually a partial game.\n\nExamples:\n  bbx suggest puzzles/generated-a4-b8-partial.txt\n  bbx suggest game.txt --top 3 --json"
)]
pub struct Args {
    #[command(flatten)]
    input: PuzzleInput,
    /// Base the ranking on at most this many molecules.
    #[arg(long, value_name = "N", default_value_t = 10_000)]
    max: usize,
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
}

pub fn run(args: Args) -> bbx::Result<(String, ExitCode)> {
    let (puzzle, atoms, rules) = args.input.load()?;
    let options = SuggestOptions {
        max: args.max,
        top: args.top,
        plan_max: args.plan.then_some(args.plan_max),
    };
    let s = suggest(&puzzle.origin, &puzzle.observation, rules, atoms, &options)?;
    if s.complete && s.count == 0 {
        let text = if args.json {
            json(&s.report)?
        } else {
            render::solve_text(&s.report, 0)
        };
        return Ok((text, ExitCode::from(1)));
    }
    if args.plan && s.plan.is_none() && !args.json {
        eprintln!(
            "note: --plan works on complete sets of at most {} molecules (--plan-max); this game has {}{}",
            args.plan_max,
            if s.complete { "" } else { "more than " },
            s.count
        );
    }
    let text = if args.json {
        json(&s)?
    } else {
        render::suggest_text(&s, args.top)
    };
    Ok((text, ExitCode::SUCCESS))
}
