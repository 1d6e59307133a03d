//! `bbx strategy`.

use std::time::Duration;

use bbx::assistant::certificate;
use bbx::assistant::strategy::{OneGame, Policy, ROLLOUT_EXACT, StrategyOptions, play_one};
use bbx::assistant::study::{Step, StudyOptions, study};
use bbx::control::{Ended, nothing_before};
use bbx::render::{game_text, strategy_text, tree_check_text};
use bbx::{Config, Rules};

use crate::cli::{Quiet, Workers};
use crate::exit::{Status, budget, faults};
use crate::fit::fit;
use crate::output::{Flags, json, stopped_by};
use crate::progress::Stages;
use crate::values::{parse_size, parse_timeout};
use crate::work::SharedArgs;

#[derive(clap::Args)]
#[command(
    after_help = "Examples:\n  bbx strategy A3_B5 --optimal\n  bbx strategy A4_B8 --policy entropy",
    after_long_help = "Plays a policy against every molecule of the configuration, one game each (the hidden molecule chosen uniformly): the rays shot until no ray can tell the molecules left apart (one end of an exit pair shows the other), the score of the original game (1 per ray absorbed or reflected, 2 per ray that comes out, 5 per hidden atom missed by atoms placed where they most often are), the same games by Tatham's rule, the distribution, the hardest games and the policy's first rays. Ties between rays go to the lowest position.\n\n--optimal adds the best strategy for each measure, by exhaustive search over the sets of molecules the rays can leave: the fewest rays (shooting until no ray tells the molecules left apart) and the lowest score (stopping and placing the atoms at any moment), as totals over all games. It is branch and bound from rollout's value, cut into units (the sets the first rays leave, and a level deeper those of at least --deeper molecules), shared out and kept as --bound's are (below). Stopped short by --timeout it says so (the policy's report still printed, exit status 0); stopped by Ctrl-C it exits with status 130; the same command resumes it. --tree FILE writes its decision trees, and --check-tree FILE replays such a file against every molecule, apart from the search. --bound adds a proven lower bound of the fewest rays, where the optimum is out of reach: no strategy needs fewer rays on average, nor a shorter longest game. With --depth D its search is cut into units (the sets the first rays leave, up to the box's symmetries), shared out among --workers threads and, with --processes N --process I --hostfile FILE, among processes on several machines (process 0 prints the report; the others print nothing). Each unit done is kept in a work directory made under --work-dir: killed, interrupted (Ctrl-C) or stopped by --timeout, the same command resumes it; the bound is the same however the work was shared out or resumed.\n\nExamples:\n  bbx strategy A3_B5\n  bbx strategy A4_B8 --policy entropy\n  bbx strategy A4_B8 --molecule 868\n  bbx strategy A4_B6 --policy score --json\n  bbx strategy A3_B5 --optimal\n  bbx strategy A3_B4 --optimal --tree trees.json --workers 2\n  bbx strategy A3_B4 --check-tree trees.json\n  bbx strategy A4_B8 --bound\n  bbx strategy A4_B8 --bound --depth 3 --workers 2\n  bbx strategy A4_B8 --bound --depth 4 --processes 2 --process 0   (and --process 1 beside it)"
)]
#[command(group(clap::ArgGroup::new("shared").multiple(true)))]
pub struct Args {
    /// The configuration, e.g. A4_B8.
    config: Config,
    /// How the next ray is chosen
    #[arg(long, value_name = "POLICY", value_parser = crate::values::policy(), ignore_case = true, default_value = "greedy")]
    policy: Policy,
    /// Sets of at most K molecules played exactly
    ///
    /// By the rollout policy, and searched to the end by --bound's search.
    #[arg(long, value_name = "K", default_value_t = ROLLOUT_EXACT, allow_negative_numbers = true, value_parser = crate::values::whole::<usize>("a number of molecules", 0, None))]
    exact_below: usize,
    /// Play one game only, against molecule N, and show its rays
    #[arg(long, value_name = "N", allow_negative_numbers = true, value_parser = crate::values::whole::<u64>("a molecule number", 1, None))]
    molecule: Option<u64>,
    /// Also the best strategy for each measure, by exhaustive search
    #[arg(long, conflicts_with = "molecule", group = "shared")]
    optimal: bool,
    /// Replay the decision trees of FILE (written by --optimal --tree)
    ///
    /// Every molecule's game, with rays traced apart from the search: each
    /// outcome must have its branch, every rays game must end where no ray
    /// tells the molecules apart, and the totals must be the file's.
    #[arg(long, value_name = "FILE", conflicts_with_all = ["molecule", "optimal", "bound"])]
    check_tree: Option<std::path::PathBuf>,
    /// With --optimal: cut the sets of at least N molecules a level deeper
    ///
    /// Smaller units, for more machines [default: an eighth of the
    /// configuration's molecules, at least 2048].
    #[arg(long, value_name = "N", requires = "optimal", allow_negative_numbers = true, value_parser = crate::values::whole::<usize>("a number of molecules", 2, None))]
    deeper: Option<usize>,
    /// Also a proven lower bound of the fewest rays
    ///
    /// Per molecule, the fewest rays telling it from every molecule one atom
    /// move away (averaged), and the Huffman bound over the spectra.
    #[arg(long, conflicts_with = "molecule", group = "shared")]
    bound: bool,
    /// With --bound: also search every strategy's first D rays
    ///
    /// Each set left after them is bounded by its Huffman bound (0: no
    /// search).
    #[arg(long, value_name = "D", default_value_t = 0, requires = "bound", allow_negative_numbers = true, value_parser = crate::values::whole::<u32>("a depth", 0, None))]
    depth: u32,
    /// With --optimal: write the best strategies to FILE
    ///
    /// The fewest rays and the lowest score, as JSON decision trees.
    #[arg(long, value_name = "FILE", requires = "optimal")]
    tree: Option<std::path::PathBuf>,
    /// The most memory the work may take (2G, 500M…)
    ///
    /// The configuration's spectra and the games played on them must fit in
    /// it (a larger configuration is refused at once); the exhaustive search
    /// remembers sets within it: when its memo is full it forgets half of
    /// them, which slows the search but never changes its answer.
    #[arg(long, value_name = "SIZE", default_value = "2G", value_parser = parse_size, allow_negative_numbers = true)]
    memory: u64,
    /// Ray rules.
    #[arg(long, value_name = "RULES", value_parser = crate::values::rules(), ignore_case = true, default_value = "standard")]
    rules: Rules,
    /// Give up after this many seconds
    ///
    /// From 0 to a week, fractions allowed, or a duration such as 90s, 5m or
    /// 1h 30m.
    #[arg(long, value_name = "SECONDS", value_parser = parse_timeout, allow_negative_numbers = true)]
    timeout: Option<Duration>,
    /// Print one JSON object instead of text.
    #[arg(long)]
    json: bool,
    #[command(flatten)]
    shared: SharedArgs,
    #[command(flatten)]
    quiet: Quiet,
    #[command(flatten)]
    workers: Workers,
}

pub fn run(args: Args) -> bbx::Result<(String, Status)> {
    let budget = budget(args.timeout).with_memory(Some(args.memory));
    if let Some(path) = &args.check_tree {
        let checked = certificate::check_file(path, args.config, &budget)?;
        return Ok(match checked.value {
            Some(c) if args.json => (json(&c)?, Status::Done),
            Some(c) => (
                tree_check_text(&c, &path.display().to_string()),
                Status::Done,
            ),
            None => nothing(args.json, checked.ended, "every game was replayed"),
        });
    }
    let (policy, rules, exact_below) = (args.policy, args.rules, args.exact_below);
    let mut strategy = StrategyOptions {
        policy,
        rules,
        budget,
        exact_below,
    };
    args.workers.apply()?;
    if let Some(n) = args.molecule {
        let played = play_one(args.config, &strategy, n)?;
        return Ok(match played.value {
            Some(game) if args.json => (
                json(&OneGame::new(args.config, &strategy, game))?,
                Status::Done,
            ),
            Some(game) => (fit(&game_text(&game)), Status::Done),
            None => nothing(args.json, played.ended, "the game was played"),
        });
    }
    // The faults a test injects stop the searches.
    strategy.budget.faults = faults()?;
    let options = StudyOptions {
        strategy,
        depth: args.depth,
        shared: (args.bound || args.optimal)
            .then(|| args.shared.options(args.workers.given()))
            .transpose()?,
        optimal: args.optimal,
        bound: args.bound,
        deeper: args.deeper,
        tree: args.tree.clone(),
    };
    let (mut bars, config, depth) = (Stages::new(args.quiet.quiet), args.config, args.depth);
    let studied = study(config, &options, |stage| {
        let (bar, unit, what) = match stage.step {
            Step::Games if stage.all == 0 => (0, "games", "spectra".to_string()),
            Step::Games => (0, "games", format!("every game, {policy} policy")),
            Step::Rays => (1, "units", "the fewest rays, in units".to_string()),
            Step::Score => (
                1,
                "units",
                "the lowest score and the minimax, in units".into(),
            ),
            Step::Bound => (2, "units", format!("a lower bound, {depth} rays deep")),
        };
        bars.show(
            bar,
            unit,
            format!("strategy {config}: {what}"),
            (stage.done, stage.all),
        )
    });
    drop(bars);
    let studied = studied?;
    let Some(report) = studied.report else {
        return Ok(match studied.message {
            Some(message) if studied.ended.is_complete() => {
                eprintln!("{}", message.show(&Flags));
                (String::new(), Status::Done)
            }
            message => stopped_by(args.json, studied.ended, &message.unwrap_or_default()),
        });
    };
    if let Some(message) = studied.message {
        eprintln!("{}", message.show(&Flags));
    }
    let cancelled = studied.ended == Ended::Cancelled;
    let status = if cancelled {
        Status::Interrupted
    } else {
        Status::Done
    };
    let text = if args.json {
        json(&report)?
    } else {
        fit(&strategy_text(&report, &Flags))
    };
    Ok((text, status))
}

/// A run with nothing to report: the time limit or Ctrl-C (`ended`) came
/// before `what`.
fn nothing(as_json: bool, ended: Ended, what: &str) -> (String, Status) {
    stopped_by(as_json, ended, &nothing_before(ended, what))
}
