//! `bbx suggest`.

use std::time::Duration;

use bbx::assistant::strategy::{Policy, ROLLOUT_EXACT};
use bbx::assistant::suggest::{SuggestOptions, listing, rank_counted};
use bbx::control::{Budget, Ended};
use bbx::error::quantity;
use bbx::render;
use bbx::solver::Limits;

use crate::cli::{MaxMolecules, Quiet, Workers};
use crate::exit::{Status, budget};
use crate::output::{Flags, json};
use crate::puzzle_input::{PuzzleInput, solve_showing};
use crate::values::{parse_size, parse_timeout};

#[derive(clap::Args)]
#[command(
    after_help = "Examples:\n  bbx suggest generated-a4-b8-partial\n  bbx suggest generated-a4-b8-partial --max-rays 3 --plan",
    after_long_help = "Reads any puzzle `bbx solve` reads, usually a partial game.\n\nExamples:\n  bbx suggest generated-a4-b8-partial\n  bbx suggest seed-emacs-game-1 --max-rays 3 --json\n  bbx suggest generated-a4-b8-partial --policy rollout\n  bbx suggest generated-a8-b15-partial --timeout 5"
)]
pub struct Args {
    #[command(flatten)]
    input: PuzzleInput,
    #[command(flatten)]
    max: MaxMolecules,
    /// Show at most N rays
    ///
    /// The best first; --json has as many.
    #[arg(long = "max-rays", value_name = "N", default_value_t = 10, alias = "top", allow_negative_numbers = true,
        value_parser = crate::values::whole::<usize>("a number of rays", 0, None))]
    max_rays: usize,
    /// Also the strategy needing the fewest rays on average
    ///
    /// A decision tree, for at most --max-plan molecules.
    #[arg(long)]
    plan: bool,
    /// Largest set of molecules --plan works on
    #[arg(long = "max-plan", value_name = "N", default_value_t = 40, alias = "plan-max", allow_negative_numbers = true,
        value_parser = crate::values::whole::<usize>("a number of molecules", 1, None))]
    max_plan: usize,
    /// Also the ray this policy shoots next
    ///
    /// As `bbx strategy --policy` plays it, on every molecule that fits
    /// (the search must list them all, at most 1,000,000); under rollout,
    /// with the rays it weighed (--max-rays of them) and the rays each
    /// would take from here.
    #[arg(long, value_name = "POLICY", value_parser = crate::values::policy(), ignore_case = true)]
    policy: Option<Policy>,
    /// With --policy rollout: sets of at most K molecules played exactly
    #[arg(long, value_name = "K", default_value_t = ROLLOUT_EXACT, requires = "policy", allow_negative_numbers = true, value_parser = crate::values::whole::<usize>("a number of molecules", 0, None))]
    exact_below: usize,
    /// Print one JSON object instead of text.
    #[arg(long)]
    json: bool,
    /// Give up after this many seconds
    ///
    /// The rays are ranked on the molecules found by then; with --plan, the
    /// strategy's search stops at the same moment (no strategy then). From 0
    /// to a week, fractions allowed, or a duration such as 90s, 5m or 1h 30m.
    #[arg(long, value_name = "SECONDS", value_parser = parse_timeout, allow_negative_numbers = true)]
    timeout: Option<Duration>,
    /// The most memory the work may take (2G, 500M…)
    ///
    /// Past it, the search stops and the rays are ranked on the molecules
    /// found.
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
    let options = SuggestOptions {
        max: args.max.limit(puzzle.shape().cells()),
        top: args.max_rays,
        plan_max: args.plan.then_some(args.max_plan),
        // The strategy's own memory bound, on the subsets it remembers.
        plan_budget: Budget {
            memory: None,
            ..budget.clone()
        },
        budget: budget.clone(),
        policy: args.policy,
        exact_below: args.exact_below,
    };
    // Counted first: the count ranks the rays, and the search then lists
    // only what the suggestion shows or plans on.
    let counted =
        bbx::assistant::suggest::count_first(&puzzle.observation, rules, atoms.clone(), &options)?;
    let limits = Limits {
        max: Some(listing(&counted, &options)),
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
    } else if let Some(p) = args.policy {
        spinner.set_message(format!("suggest {}: the {p} policy", puzzle.origin));
    }
    let s = solution.and_then(|solution| rank_counted(&puzzle.origin, solution, counted, &options));
    spinner.finish_and_clear();
    let s = s?;
    if s.flags.complete && s.count == 0 {
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
            "note: --plan works on complete sets of at most {} (--max-plan); this game has {}{}",
            quantity(args.max_plan, "molecule", "molecules"),
            if s.flags.complete { "" } else { "at least " },
            s.count
        );
    }
    let cancelled = Some(Ended::Cancelled);
    let policy_ended = s.policy.as_ref().map(|p| p.ended());
    let status = if [
        Some(s.report.ended),
        Some(s.report.after),
        s.plan_ended,
        policy_ended,
    ]
    .contains(&cancelled)
    {
        Status::Interrupted
    } else if matches!(s.report.ended, Ended::TimedOut | Ended::OverMemory) && s.count == 0 {
        Status::Incomplete
    } else {
        Status::Done
    };
    if status == Status::Incomplete && args.json {
        // Nothing found: the error object, as every command gives on exit 4.
        let message = render::verdict(&s.report, &Flags);
        return Ok(crate::output::nothing_found(true, s.report.ended, &message));
    }
    let text = if args.json {
        json(&s)?
    } else {
        crate::fit::fit(&render::suggest_text(&s, args.max_rays, &Flags))
    };
    Ok((text, status))
}
