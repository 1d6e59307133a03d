//! `bbx strategy`.

use std::time::Duration;

use bbx::assistant::bound::{BoundOptions, SharedBound};
use bbx::assistant::optimal::OptimalOptions;
use bbx::assistant::optimum_units::{SharedOptimum, UnitsOptions};
use bbx::assistant::strategy::{
    Policy, PolicyGame, ROLLOUT_EXACT, StrategyOptions, play_all_with, play_one,
};
use bbx::control::Ended;
use bbx::{Config, Rules};

use crate::cli::{
    Flags, Quiet, Status, Workers, budget, faults, json, parse_size, parse_timeout, progress_bar,
    stopped,
};

#[derive(clap::Args)]
#[command(
    after_help = "Examples:\n  bbx strategy A3_B5 --optimal\n  bbx strategy A4_B8 --policy entropy",
    after_long_help = "\
Plays a policy against every molecule of the configuration, one game each \
(the hidden molecule chosen uniformly): the rays shot until no ray can tell \
the molecules left apart (one end of an exit pair shows the other), the score \
of the original game (1 per ray absorbed or reflected, 2 per ray that comes \
out, 5 per hidden atom missed by atoms placed where they most often are), \
the same games by Tatham's rule, the distribution, the hardest games and \
the policy's first rays. Ties between rays go to the lowest position.

--optimal adds the best strategy for each measure, by exhaustive search over \
the sets of molecules the rays can leave: the fewest rays (shooting until no \
ray tells the molecules left apart) and the lowest score (stopping and \
placing the atoms at any moment), as totals over all games. It is branch and \
bound from rollout's value, cut into units (the sets the first rays leave, and \
a level deeper those of at least --deeper molecules), shared out and kept as \
--bound's are (below). Stopped short by --timeout it says so (the policy's \
report still printed, exit status 0); stopped by Ctrl-C it exits with status \
130; the same command resumes it. --tree FILE writes its decision trees, and \
--check-tree FILE replays such a file against every molecule, apart from the \
search. \
--bound adds a proven lower bound of the fewest rays, where the optimum is \
out of reach: no strategy needs fewer rays on average, nor a shorter \
longest game. With --depth D its search is cut into units (the sets the \
first rays leave, up to the box's symmetries), shared out among --workers \
threads and, with --processes N --process I --hostfile FILE, among \
processes on several machines (process 0 prints the report; the others \
print nothing). Each unit done is kept in a work directory made under \
--work-dir: killed, interrupted (Ctrl-C) or stopped by --timeout, the same \
command resumes it; the bound is the same however the work was shared out \
or resumed.

Examples:
  bbx strategy A3_B5
  bbx strategy A4_B8 --policy entropy
  bbx strategy A4_B8 --molecule 868
  bbx strategy A4_B6 --policy score --json
  bbx strategy A3_B5 --optimal
  bbx strategy A3_B4 --optimal --tree trees.json --workers 2
  bbx strategy A3_B4 --check-tree trees.json
  bbx strategy A4_B8 --bound
  bbx strategy A4_B8 --bound --depth 3 --workers 2
  bbx strategy A4_B8 --bound --depth 4 --processes 2 --process 0   (and --process 1 beside it)"
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
    /// With --optimal or --bound: processes sharing the search, 1 to 256
    ///
    /// One per machine, say: see --hostfile.
    #[arg(long, short = 'n', default_value_t = 1, value_name = "N", requires = "shared", hide_short_help = true, allow_negative_numbers = true,
        value_parser = crate::values::whole::<usize>("a number of processes", 1, Some(bbx::work::cluster::MAX_PROCESSES as u64)))]
    processes: usize,
    /// With --optimal or --bound: this process, 0 to N-1
    ///
    /// Process 0 prints the report.
    #[arg(long, short = 'p', default_value_t = 0, value_name = "I", requires = "shared", hide_short_help = true, allow_negative_numbers = true,
        value_parser = crate::values::whole::<usize>("a process number", 0, Some(bbx::work::cluster::MAX_PROCESSES as u64 - 1)))]
    process: usize,
    /// With --optimal or --bound: the processes' addresses, one HOST:PORT a line
    ///
    /// In process order, at most 1 MB [default: localhost:2101,
    /// localhost:2102, …].
    #[arg(long, value_name = "FILE", requires = "shared", hide_short_help = true)]
    hostfile: Option<std::path::PathBuf>,
    /// With --optimal or --bound: where to make the work directory [default: bbx in the user's cache]
    ///
    /// The search keeps the units it has done in a directory it makes in
    /// this one (bbx-optimum-CONFIG, bbx-bound-CONFIG), private to the user,
    /// and removes it once the search is done; bbx removes only the files
    /// it made.
    #[arg(long, value_name = "DIR", requires = "shared", hide_short_help = true)]
    work_dir: Option<std::path::PathBuf>,
    #[command(flatten)]
    quiet: Quiet,
    #[command(flatten)]
    workers: Workers,
}

pub fn run(args: Args) -> bbx::Result<(String, Status)> {
    if let Some(path) = &args.check_tree {
        return check_tree(&args, path);
    }
    args.workers.apply()?;
    let shared = if args.bound || args.optimal {
        Some(bound_options(&args)?)
    } else {
        None
    };
    if let Some(shared) = &shared
        && shared.cluster.process > 0
    {
        // Another process of a shared search: its share of the units, and
        // nothing printed (process 0 prints the report).
        return other_process(&args, shared);
    }
    let options = StrategyOptions {
        policy: args.policy,
        rules: args.rules,
        budget: budget(args.timeout).with_memory(Some(args.memory)),
        exact_below: args.exact_below,
    };
    if let Some(n) = args.molecule {
        let played = play_one(args.config, &options, n)?;
        let Some(game) = played.value else {
            return Ok(nothing(args.json, played.ended, "the game was played"));
        };
        let text = if args.json {
            /// One game, with what it was played under.
            #[derive(serde::Serialize)]
            struct OneGame<'a> {
                config: String,
                width: usize,
                height: usize,
                rules: Rules,
                policy: Policy,
                #[serde(flatten)]
                game: &'a PolicyGame,
            }
            json(&OneGame {
                config: args.config.to_string(),
                width: args.config.width,
                height: args.config.height,
                rules: args.rules,
                policy: args.policy,
                game: &game,
            })?
        } else {
            crate::cli::fit(&bbx::render::game_text(&game))
        };
        return Ok((text, Status::Done));
    }
    // The spectra first (their number is not known), then one game per
    // molecule, counted.
    let bar = progress_bar(
        args.quiet.quiet,
        "games",
        format!("strategy {}: spectra", args.config),
    );
    let mut started = false;
    let all = play_all_with(args.config, &options, |played, games| {
        if !started {
            started = true;
            bar.set_message(format!(
                "strategy {}: every game, {} policy",
                args.config, args.policy
            ));
            bar.set_length(games);
        }
        bar.set_position(played);
    });
    bar.finish_and_clear();
    let all = all?;
    let Some(mut report) = all.value else {
        return Ok(nothing(args.json, all.ended, "every game was played"));
    };
    let mut status = Status::Done;
    let exhaustive = OptimalOptions {
        rules: args.rules,
        budget: options.budget.with_memory(Some(args.memory)),
        faults: faults()?,
        depth: args.depth,
        small: args.exact_below,
    };
    // Whether the exhaustive search stopped short (the bound is then not
    // tried: its budget is spent).
    let mut complete = true;
    if args.optimal
        && let Some(shared) = &shared
    {
        let o = shared_optimum(&args, shared.clone(), exhaustive.clone())?;
        status = match o.ended {
            Ended::Complete => Status::Done,
            ended => {
                eprintln!("{}", optimum_cut_short(&o, ended));
                if ended == Ended::Cancelled {
                    Status::Interrupted
                } else {
                    Status::Done
                }
            }
        };
        complete = o.ended.is_complete();
        if let Some(optimum) = o.optimum {
            if let Some(path) = &args.tree
                && complete
            {
                write_trees(path, &report, &optimum)?;
            }
            report.optimal = Some(optimum);
        }
    }
    if let Some(shared) = shared
        && args.bound
        && complete
    {
        let b = shared_bound(&args, shared, exhaustive)?;
        status = match b.ended {
            Ended::Complete => Status::Done,
            ended => {
                eprintln!("{}", bound_cut_short(&b, ended));
                if ended == Ended::Cancelled {
                    Status::Interrupted
                } else {
                    Status::Done
                }
            }
        };
        if !b.ended.is_complete() {
            report.bound_stopped = Some(bbx::assistant::optimal::BoundStopped {
                stopped: b.ended,
                units: b.units,
                units_share: b.progress.share,
                units_done: b.progress.done,
                work_dir: b.work_dir.as_deref().map(bbx::files::shown),
            });
        }
        report.bound = b.bound;
    }
    let text = if args.json {
        json(&report)?
    } else {
        crate::cli::fit(&bbx::render::strategy_text(&report, &Flags))
    };
    Ok((text, status))
}

/// The cluster, work directory and panic watch of `--optimal` and
/// `--bound` (their search's options are filled in later).
fn bound_options(args: &Args) -> bbx::Result<BoundOptions> {
    if let Some(dir) = &args.work_dir
        && dir.exists()
        && !dir.is_dir()
    {
        return Err(bbx::Error::invalid(format!(
            "--work-dir {}: is a file, not a directory: give the directory in which the search makes its own",
            dir.display()
        )));
    }
    if let Some(hosts) = &args.hostfile
        && args.processes == 1
    {
        return Err(bbx::Error::invalid(format!(
            "--hostfile {}: a host file is for a search shared by several processes: give --processes N too, or leave it out",
            hosts.display()
        )));
    }
    let workers = args.workers.given().unwrap_or_else(|| {
        std::thread::available_parallelism()
            .map_or(1, |n| n.get())
            .min(bbx::work::cluster::MAX_WORKERS)
    });
    let cluster = bbx::work::cluster::Cluster::new(
        workers,
        args.processes,
        args.process,
        args.hostfile.as_deref(),
    )?;
    let work_dir = match &args.work_dir {
        Some(dir) => dir.clone(),
        None => crate::cli::default_work_dir()?,
    };
    Ok(BoundOptions {
        search: OptimalOptions::default(),
        peers: if cluster.processes > 1 {
            crate::cli::peer_watch()
        } else {
            bbx::work::cluster::PeerWatch::default()
        },
        cluster,
        work_dir,
    })
}

/// The bound's search, shared out and checkpointed, with a progress bar of
/// this process's units (and the time left at the rate so far).
fn shared_bound(
    args: &Args,
    mut shared: BoundOptions,
    search: OptimalOptions,
) -> bbx::Result<SharedBound> {
    shared.search = search;
    let bar = progress_bar(
        args.quiet.quiet,
        "units",
        format!(
            "strategy {}: a lower bound, {} rays deep",
            args.config, args.depth
        ),
    );
    let found = bbx::assistant::bound::run(args.config, &shared, |p| {
        bar.set_length(p.share);
        bar.set_position(p.done);
    });
    bar.finish_and_clear();
    found
}

/// Process I > 0 of a shared search: its units of the optimum, then of
/// the bound, then a line on standard error; nothing on standard output.
fn other_process(args: &Args, shared: &BoundOptions) -> bbx::Result<(String, Status)> {
    let search = OptimalOptions {
        rules: args.rules,
        budget: budget(args.timeout).with_memory(Some(args.memory)),
        faults: faults()?,
        depth: args.depth,
        small: args.exact_below,
    };
    let (process, processes) = (shared.cluster.process, shared.cluster.processes);
    let mut ended = Ended::Complete;
    let mut message = String::new();
    let mut done = Vec::new();
    if args.optimal {
        let o = shared_optimum(args, shared.clone(), search.clone())?;
        ended = o.ended;
        if ended.is_complete() {
            done.push("optimum");
        } else {
            message = optimum_cut_short(&o, ended);
        }
    }
    if args.bound && ended.is_complete() {
        let b = shared_bound(args, shared.clone(), search)?;
        ended = b.ended;
        if ended.is_complete() {
            done.push("bound");
        } else {
            message = bound_cut_short(&b, ended);
        }
    }
    match ended {
        Ended::Complete => {
            eprintln!(
                "process {process} of {processes}: its share of the {} {} is done; process 0 prints the report",
                args.config,
                done.join(" and ")
            );
            Ok((String::new(), Status::Done))
        }
        Ended::Cancelled => Ok(stopped(
            args.json,
            "interrupted",
            &message,
            Status::Interrupted,
        )),
        _ => Ok(stopped(
            args.json,
            "time_limit",
            &message,
            Status::Incomplete,
        )),
    }
}

/// The optimum's search in units, shared out and checkpointed, with a
/// progress bar of this process's units, phase by phase.
fn shared_optimum(
    args: &Args,
    shared: BoundOptions,
    search: OptimalOptions,
) -> bbx::Result<SharedOptimum> {
    let molecules = args.config.molecule_count().unwrap_or(0) as usize;
    let options = UnitsOptions {
        search,
        cluster: shared.cluster,
        work_dir: shared.work_dir,
        peers: shared.peers,
        score: true,
        deeper: args
            .deeper
            .unwrap_or((molecules / 8).max(bbx::assistant::optimum_units::DEEPER)),
    };
    let bar = progress_bar(
        args.quiet.quiet,
        "units",
        format!("strategy {}: the fewest rays, in units", args.config),
    );
    let mut phase = 0;
    let found = bbx::assistant::optimum_units::run(args.config, &options, |p| {
        if p.phase != phase {
            phase = p.phase;
            bar.set_message(format!(
                "strategy {}: the lowest score and the minimax, in units",
                args.config
            ));
        }
        bar.set_length(p.units.share);
        bar.set_position(p.units.done);
    });
    bar.finish_and_clear();
    found
}

/// What stopped a shared optimum (`ended`) cut short, and how to resume it.
fn optimum_cut_short(o: &SharedOptimum, ended: Ended) -> String {
    let why = if ended == Ended::Cancelled {
        "interrupted"
    } else {
        "the time limit passed (--timeout raises it)"
    };
    match &o.work_dir {
        Some(dir) if o.started => format!(
            "{why} before the best strategy was found: {} of this process's {} units of its phase done, kept in {}: run the same command to resume",
            o.progress.done,
            o.progress.share,
            bbx::files::shown(dir)
        ),
        Some(dir) => format!(
            "{why} while waiting for the other processes: nothing was searched in this run; {} keeps the work: run the same command to resume",
            bbx::files::shown(dir)
        ),
        None => format!("{why} before the best strategy was found"),
    }
}

/// `--check-tree FILE`: the certificate replayed, a line (or the JSON of
/// what the replay found).
fn check_tree(args: &Args, path: &std::path::Path) -> bbx::Result<(String, Status)> {
    const LIMIT: u64 = 1 << 31;
    let shown = path.display().to_string();
    let io = |source| bbx::Error::Io {
        path: shown.clone(),
        source,
    };
    let file = std::fs::File::open(path).map_err(io)?;
    let mut text = String::new();
    std::io::Read::read_to_string(&mut std::io::Read::take(file, LIMIT + 1), &mut text)
        .map_err(io)?;
    if text.len() as u64 > LIMIT {
        return Err(bbx::Error::invalid(format!(
            "{shown}: larger than {LIMIT} bytes, more than any tree file bbx writes"
        )));
    }
    let checked = bbx::assistant::certificate::check(&text, &shown, &budget(args.timeout))?;
    let Some(c) = checked.value else {
        return Ok(nothing(args.json, checked.ended, "every game was replayed"));
    };
    if c.config != args.config.to_string() {
        return Err(bbx::Error::invalid(format!(
            "{shown}: holds the trees of {}, not {}",
            c.config, args.config
        )));
    }
    if args.json {
        return Ok((json(&c)?, Status::Done));
    }
    let mut out = format!(
        "{shown}: the trees of {} replayed against its {} molecules, rays traced apart from the search ({:.1} s)\n",
        c.config, c.molecules, c.seconds
    );
    if let (Some(total), Some(longest), Some(stops)) = (c.rays_total, c.rays_longest, c.rays_stops)
    {
        out.push_str(&format!(
            "rays   total {total} (mean {:.4}), as the file says; longest game {longest}; every one of the {stops} stops holds molecules no ray tells apart\n",
            total as f64 / c.molecules.max(1) as f64
        ));
    }
    if let Some(total) = c.score_total {
        out.push_str(&format!(
            "score  total {total} (mean {:.4}), as the file says\n",
            total as f64 / c.molecules.max(1) as f64
        ));
    }
    Ok((out, Status::Done))
}

/// What stopped a shared bound (`ended`) cut short, and how to resume it.
fn bound_cut_short(b: &SharedBound, ended: Ended) -> String {
    let why = if ended == Ended::Cancelled {
        "interrupted"
    } else {
        "the time limit passed (--timeout raises it)"
    };
    match &b.work_dir {
        Some(dir) if b.started => format!(
            "{why} before the lower bound was found: {} of this process's {} units done, kept in {}: run the same command to resume",
            b.progress.done,
            b.progress.share,
            bbx::files::shown(dir)
        ),
        Some(dir) => format!(
            "{why} while waiting for the other processes: nothing was searched in this run; {} keeps the work: run the same command to resume",
            bbx::files::shown(dir)
        ),
        None => format!("{why} before the lower bound was found"),
    }
}

/// Writes the best strategies' trees to `path`, with what they were found
/// for: `{"config", "rules", "molecules", "rays_total", "rays", "score_total",
/// "score"}`.
fn write_trees(
    path: &std::path::Path,
    report: &bbx::assistant::strategy::StrategyReport,
    o: &bbx::assistant::optimal::Optimum,
) -> bbx::Result<()> {
    #[derive(serde::Serialize)]
    struct Trees<'a> {
        config: &'a str,
        rules: Rules,
        molecules: u64,
        rays_total: Option<u64>,
        rays: Option<&'a bbx::assistant::optimal::Tree>,
        score_total: Option<u64>,
        score: Option<&'a bbx::assistant::optimal::Tree>,
    }
    let text = json(&Trees {
        config: &report.config,
        rules: report.rules,
        molecules: o.molecules,
        rays_total: o.rays_total,
        rays: o.rays_tree.as_ref(),
        score_total: o.score_total,
        score: o.score_tree.as_ref(),
    })?;
    bbx::files::write_whole(path, text.as_bytes()).map_err(|source| bbx::Error::Io {
        path: path.display().to_string(),
        source,
    })
}

/// A run with nothing to report: the time limit or Ctrl-C (`ended`) came
/// before `what`.
fn nothing(as_json: bool, ended: Ended, what: &str) -> (String, Status) {
    if ended == Ended::Cancelled {
        let message = format!("interrupted before {what}: nothing to report");
        stopped(as_json, "interrupted", &message, Status::Interrupted)
    } else {
        let message =
            format!("the time limit passed before {what}: nothing to report (--timeout raises it)");
        stopped(as_json, "time_limit", &message, Status::Incomplete)
    }
}
