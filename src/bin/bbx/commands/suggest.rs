//! `bbx suggest`.

use std::process::ExitCode;

use bbx::render::SolveReport;
use bbx::solver::{self, Limits};

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
    let limits = Limits {
        max: Some(args.max),
        deadline: None,
    };
    let solution = solver::solve(&puzzle.observation, rules, atoms, &limits, |_| {})?;
    if solution.complete && solution.molecules.is_empty() {
        let report = SolveReport::new(&puzzle.origin, solution, None);
        return Ok((
            if args.json {
                json(&report)?
            } else {
                report.text(0)
            },
            ExitCode::from(1),
        ));
    }
    let plan = if args.plan && solution.complete && solution.molecules.len() <= args.plan_max {
        Some(bbx::assistant::plan::plan(
            &solution.molecules,
            &puzzle.observation,
            rules,
        ))
    } else {
        None
    };
    if args.plan && plan.is_none() && !args.json {
        eprintln!(
            "note: --plan works on complete sets of at most {} molecules (--plan-max); this game has {}{}",
            args.plan_max,
            if solution.complete { "" } else { "more than " },
            solution.molecules.len()
        );
    }
    let report = SolveReport::new(&puzzle.origin, solution, None);
    if args.json {
        #[derive(serde::Serialize)]
        struct Suggestion<'a> {
            count: usize,
            complete: bool,
            decided: bool,
            rays: &'a [bbx::render::SplitReport],
            plan: Option<&'a bbx::assistant::plan::Plan>,
        }
        let s = Suggestion {
            count: report.count,
            complete: report.complete,
            decided: report.count == 1,
            rays: &report.splits[..report.splits.len().min(args.top)],
            plan: plan.as_ref(),
        };
        return Ok((json(&s)?, ExitCode::SUCCESS));
    }
    let p = puzzle.width();
    let mut out = format!(
        "puzzle    {} ({p}×{p}, {} of {} rays shot)\nobserved  {}\n\n",
        puzzle.origin,
        report.shot,
        4 * p,
        report.observation
    );
    if report.complete {
        out.push_str(&format!("{}\n", report.verdict()));
    } else {
        out.push_str(&format!(
            "More than {} molecules fit: the ranking is based on the first {} found (--max raises it).\n",
            report.count, report.count
        ));
    }
    if report.count == 1 {
        out.push_str(&format!("The molecule is known: {}\n", report.solutions[0]));
    } else if report.splits.is_empty() {
        out.push_str(
            "No ray left to shoot can tell them apart: they share every result, and the game is decided by luck.\n",
        );
    } else {
        out.push_str("\nrays to shoot next, best first:\n");
        out.push_str("   ray  position          outcomes  expected left  bits\n");
        for s in report.splits.iter().take(args.top) {
            out.push_str(&format!(
                "{:>6}  {:<18}{:>8}{:>15.2}{:>6.2}\n",
                s.position,
                bbx::render::position_name(p, s.position),
                s.classes.len(),
                s.expected_remaining,
                s.entropy
            ));
        }
        if let Some(best) = report.splits.first() {
            let classes: Vec<String> = best
                .classes
                .iter()
                .map(|c| match c.exit {
                    Some(k) => format!("out at {k}: {}", c.count),
                    None => format!("{}: {}", c.result, c.count),
                })
                .collect();
            out.push_str(&format!(
                "\nray {} would split them as {}.\n",
                best.position,
                classes.join(", ")
            ));
        }
    }
    if let Some(p) = &plan {
        out.push_str(&format!(
            "\nbest strategy: {:.2} more rays on average until the molecule is known\n",
            p.expected_rays
        ));
        bbx::assistant::plan::tree_text(&p.tree, 2, &mut out);
    }
    Ok((out, ExitCode::SUCCESS))
}
