//! The `bbx` command: parses arguments, calls the library, prints.

use std::io::{IsTerminal, Write};
use std::ops::RangeInclusive;
use std::process::ExitCode;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use bbx::catalogue::{Catalogue, ExploreOptions, Progress};
use bbx::puzzle::{Format, load_molecule, load_puzzle};
use bbx::render::{Notation, SolveReport, StatsReport, TraceReport};
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
    /// Enumerate every molecule of a configuration into the SQLite catalogue.
    #[command(
        after_help = "Interrupted (Ctrl-C) or killed, it loses nothing committed: run the same command to resume.\n\nExamples:\n  bbx explore A4_B6\n  bbx explore A4_B8 --db catalogue.sqlite\n  bbx explore A4_B8 --fresh"
    )]
    Explore(ExploreArgs),
    /// Display catalogued molecules as the seed's display programme does.
    #[command(
        after_help = "Examples:\n  bbx show A4_B6 868 15993\n  bbx show A4_B6 --from 5 --to 10\n  bbx show A4_B6 --spectrum '@&@&@&@a@bcda@b@&@dc&@&@'\n  bbx show A4_B6 --group 868"
    )]
    Show(ShowArgs),
    /// The ambiguity table, unique spectra, largest groups and ray records of a configuration.
    #[command(
        after_help = "Reads a complete catalogue from --db; without one, computes in memory and says so.\n\nExamples:\n  bbx stats A4_B6\n  bbx stats A4_B8 --json"
    )]
    Stats(StatsArgs),
    /// Check enumeration and SAT against each other, spectrum by spectrum.
    #[command(
        after_help = "Exit status: 0 everything agrees, 1 a mismatch (listed), 2 bad input.\n\nExamples:\n  bbx verify A4_B6\n  bbx verify A4_B8 --ambiguous\n  bbx verify A4_B8 --sample 10000 --partial 0.5"
    )]
    Verify(VerifyArgs),
    /// Rank the rays not yet shot by how well they tell the remaining molecules apart.
    #[command(
        after_help = "Reads any puzzle `bbx solve` reads, usually a partial game.\n\nExamples:\n  bbx suggest puzzles/generated-a4-b8-partial.txt\n  bbx suggest game.txt --top 3 --json"
    )]
    Suggest(SuggestArgs),
    /// Make a random puzzle: with one answer (--unique), and as few rays as possible (--minimal).
    #[command(
        after_help = "Examples:\n  bbx generate A4_B8 --unique\n  bbx generate A5_B10 --minimal --seed 42 --out puzzle.txt\n  bbx generate A5_B10 --minimal --json"
    )]
    Generate(GenerateArgs),
}

#[derive(clap::Args)]
struct SuggestArgs {
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

#[derive(clap::Args)]
struct GenerateArgs {
    /// The configuration, e.g. A5_B10.
    config: Config,
    /// Keep drawing until the full spectrum has exactly one answer.
    #[arg(long)]
    unique: bool,
    /// Then remove rays while the answer stays unique (implies --unique).
    #[arg(long)]
    minimal: bool,
    /// Random seed (default: from the clock).
    #[arg(long)]
    seed: Option<u64>,
    /// Write the puzzle to this file.
    #[arg(long, value_name = "FILE")]
    out: Option<String>,
    /// Ray rules.
    #[arg(long, default_value = "standard", value_name = "standard|edge-miss")]
    rules: Rules,
    /// Give up after this many draws.
    #[arg(long, default_value_t = 10_000, value_name = "N")]
    max_draws: usize,
    /// Print one JSON object instead of text.
    #[arg(long)]
    json: bool,
}

#[derive(clap::Args)]
struct VerifyArgs {
    /// The configuration, e.g. A4_B6.
    config: Config,
    /// Read the spectra from this catalogue when it holds the configuration complete.
    #[arg(long, default_value = "bbx.sqlite", value_name = "FILE")]
    db: String,
    /// Check N random spectra (every ambiguous one included when there are fewer than N).
    #[arg(long, value_name = "N")]
    sample: Option<usize>,
    /// Seed for --sample and --partial.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Check only the spectra shared by two molecules or more.
    #[arg(long)]
    ambiguous: bool,
    /// Hide this fraction of the rays of each checked spectrum (0 to 1), chosen at
    /// random; an exit pair counts as one ray.
    #[arg(long, value_name = "F")]
    partial: Option<f64>,
    /// Ray rules.
    #[arg(long, default_value = "standard", value_name = "standard|edge-miss")]
    rules: Rules,
    /// No progress bar.
    #[arg(long, short)]
    quiet: bool,
    /// Print one JSON object instead of text.
    #[arg(long)]
    json: bool,
}

#[derive(clap::Args)]
struct ExploreArgs {
    /// The configuration, e.g. A4_B8.
    config: Config,
    /// The catalogue file (created if absent).
    #[arg(long, default_value = "bbx.sqlite", value_name = "FILE")]
    db: String,
    /// Delete what is stored for this configuration and explore it again.
    #[arg(long)]
    fresh: bool,
    /// Explore a configuration above the size limit.
    #[arg(long)]
    force: bool,
    /// No progress bar.
    #[arg(long, short)]
    quiet: bool,
    /// Molecules per transaction.
    #[arg(long, hide = true, default_value_t = 0)]
    chunk: u64,
}

#[derive(clap::Args)]
struct ShowArgs {
    /// The configuration, e.g. A4_B8.
    config: Config,
    /// Molecule numbers.
    numbers: Vec<u64>,
    /// First number of a range.
    #[arg(long, value_name = "N")]
    from: Option<u64>,
    /// Last number of a range.
    #[arg(long, value_name = "N")]
    to: Option<u64>,
    /// Every molecule with this spectrum.
    #[arg(long, value_name = "SPECTRUM")]
    spectrum: Option<String>,
    /// The spectral group of molecule N, side by side.
    #[arg(long, value_name = "N")]
    group: Option<u64>,
    /// The catalogue file.
    #[arg(long, default_value = "bbx.sqlite", value_name = "FILE")]
    db: String,
    /// Print JSON rows instead of text.
    #[arg(long)]
    json: bool,
}

#[derive(clap::Args)]
struct StatsArgs {
    /// The configuration, e.g. A4_B8.
    config: Config,
    /// The catalogue file.
    #[arg(long, default_value = "bbx.sqlite", value_name = "FILE")]
    db: String,
    /// Print one JSON object instead of text.
    #[arg(long)]
    json: bool,
}

/// Where a puzzle comes from and how to read it (shared by solve and suggest).
#[derive(clap::Args)]
struct PuzzleInput {
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
}

impl PuzzleInput {
    /// Reads the puzzle and settles its atom counts and rules.
    fn load(&self) -> bbx::Result<(bbx::puzzle::Puzzle, RangeInclusive<usize>, Rules)> {
        let puzzle = load_puzzle(&self.file, self.format)?;
        let atoms = match (self.atoms.clone(), puzzle.atoms) {
            (Some(r), _) => r,
            (None, Some(n)) => n..=n,
            (None, None) => {
                return Err(bbx::Error::Invalid(format!(
                    "{}: the number of atoms is needed: add a line 'There are N balls in the box' or give --atoms N (or a range, --atoms 3..5)",
                    puzzle.origin
                )));
            }
        };
        let cells = puzzle.width() * puzzle.width();
        if *atoms.start() > cells {
            return Err(bbx::Error::Invalid(format!(
                "{} atoms do not fit in the {w}×{w} box of {}",
                atoms.start(),
                puzzle.origin,
                w = puzzle.width()
            )));
        }
        let rules = self.rules.or(puzzle.rules).unwrap_or_default();
        Ok((puzzle, atoms, rules))
    }
}

#[derive(clap::Args)]
struct SolveArgs {
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
        Command::Explore(args) => explore(args),
        Command::Show(args) => show(args).map(|t| (t, ExitCode::SUCCESS)),
        Command::Stats(args) => stats(args).map(|t| (t, ExitCode::SUCCESS)),
        Command::Verify(args) => verify(args),
        Command::Suggest(args) => suggest(args),
        Command::Generate(args) => generate(args).map(|t| (t, ExitCode::SUCCESS)),
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

static STOP: AtomicBool = AtomicBool::new(false);

/// A progress bar on standard error counting `unit`, hidden with `--quiet` or
/// when standard error is not a terminal.
fn progress_bar(quiet: bool, unit: &str, message: String) -> indicatif::ProgressBar {
    if quiet || !std::io::stderr().is_terminal() {
        return indicatif::ProgressBar::hidden();
    }
    let bar = indicatif::ProgressBar::new(0);
    let template = format!(
        "{{msg}} [{{bar:40}}] {{human_pos}}/{{human_len}} {unit}, {{per_sec}}, {{eta}} left"
    );
    bar.set_style(
        indicatif::ProgressStyle::with_template(&template)
            .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar())
            .progress_chars("=> "),
    );
    bar.set_message(message);
    bar
}

/// A spinner for work whose length is not known, on a terminal only.
fn spinner(quiet: bool, message: String) -> indicatif::ProgressBar {
    if quiet || !std::io::stderr().is_terminal() {
        return indicatif::ProgressBar::hidden();
    }
    let s = indicatif::ProgressBar::new_spinner().with_message(message);
    s.enable_steady_tick(std::time::Duration::from_millis(120));
    s
}

fn json<T: serde::Serialize>(value: &T) -> bbx::Result<String> {
    let mut s =
        serde_json::to_string_pretty(value).map_err(|e| bbx::Error::Invalid(e.to_string()))?;
    s.push('\n');
    Ok(s)
}

fn explore(args: ExploreArgs) -> bbx::Result<(String, ExitCode)> {
    let mut cat = Catalogue::open(&args.db)?;
    let _ = ctrlc::set_handler(|| {
        if STOP.swap(true, Ordering::SeqCst) {
            // A second Ctrl-C: stop at once (the last commit is safe).
            std::process::exit(130);
        }
    });
    let options = ExploreOptions {
        fresh: args.fresh,
        force: args.force,
        chunk: args.chunk,
        stop: Some(&STOP),
    };
    let bar = progress_bar(args.quiet, "molecules", args.config.to_string());
    let start = Instant::now();
    let done = cat.explore(args.config, &options, |p| match p {
        Progress::Molecules(stored, total) => {
            bar.set_length(total);
            bar.set_position(stored);
        }
        Progress::Spectra => bar.set_message(format!("{}: spectra", args.config)),
    });
    bar.finish_and_clear();
    let done = done?;
    let secs = start.elapsed().as_secs_f64();
    if done.already_complete {
        return Ok((
            format!(
                "{} is already complete in {}: {} molecules, {} ambiguous spectra (--fresh rebuilds it)\n",
                args.config, args.db, done.nb_mol, done.ambiguous_spectra
            ),
            ExitCode::SUCCESS,
        ));
    }
    if !done.complete {
        eprintln!(
            "interrupted: molecules 1 to {} of {} are stored in {}; run the same command to resume",
            done.stored, done.nb_mol, args.db
        );
        return Ok((String::new(), ExitCode::from(130)));
    }
    let resumed = if done.resumed_from > 0 {
        format!(" (resumed after molecule {})", done.resumed_from)
    } else {
        String::new()
    };
    Ok((
        format!(
            "{}: {} molecules stored in {}{resumed}, {} ambiguous spectra, in {secs:.2} s\n",
            args.config, done.nb_mol, args.db, done.ambiguous_spectra
        ),
        ExitCode::SUCCESS,
    ))
}

fn open_complete(db: &str, config: Config) -> bbx::Result<Option<Catalogue>> {
    let Some(cat) = Catalogue::open_existing(db)? else {
        return Ok(None);
    };
    match cat.status(config)? {
        Some(s) if s.complete => Ok(Some(cat)),
        _ => Ok(None),
    }
}

fn show(args: ShowArgs) -> bbx::Result<String> {
    let config = args.config;
    let cat = open_complete(&args.db, config)?.ok_or_else(|| {
        bbx::Error::Invalid(format!(
            "{}: no complete catalogue of {config}: run `bbx explore {config} --db {}` first",
            args.db, args.db
        ))
    })?;
    let total = config.molecule_count().unwrap_or(0);
    let check = |n: u64| {
        if n == 0 || n > total {
            Err(bbx::Error::Invalid(format!(
                "molecule number {n} is out of range: {config} has molecules 1 to {total}"
            )))
        } else {
            Ok(n)
        }
    };
    let mut rows = Vec::new();
    for &n in &args.numbers {
        rows.extend(cat.molecule(config, check(n)?)?);
    }
    if args.from.is_some() || args.to.is_some() {
        let from = check(args.from.unwrap_or(1))?;
        let to = check(args.to.unwrap_or(total))?;
        if to.saturating_sub(from) > 10_000 {
            return Err(bbx::Error::Invalid(format!(
                "--from {from} --to {to} is more than 10000 molecules: ask for fewer"
            )));
        }
        rows.extend(cat.molecules(config, from, to)?);
    }
    if let Some(s) = &args.spectrum {
        let parsed = bbx::Spectrum::parse(s, "--spectrum")?;
        if parsed.width() != config.width {
            return Err(bbx::Error::Invalid(format!(
                "--spectrum has {} positions but {config} has {}",
                4 * parsed.width(),
                4 * config.width
            )));
        }
        let found = cat.with_spectrum(config, &parsed.to_string())?;
        if found.is_empty() {
            return Err(bbx::Error::Invalid(format!(
                "no molecule of {config} has spectrum {parsed}"
            )));
        }
        rows.extend(found);
    }
    let mut group = None;
    if let Some(n) = args.group {
        let row = cat
            .molecule(config, check(n)?)?
            .ok_or_else(|| bbx::Error::Invalid(format!("molecule {n} is not stored")))?;
        group = Some(cat.with_spectrum(config, &row.spectrum)?);
    }
    if rows.is_empty() && group.is_none() {
        return Err(bbx::Error::Invalid(
            "say which molecules: numbers, --from/--to, --spectrum or --group".into(),
        ));
    }
    if args.json {
        let mut all = rows;
        all.extend(group.unwrap_or_default());
        return json(&all);
    }
    let mut out = String::new();
    for (i, r) in rows.iter().enumerate() {
        if i > 0 {
            out.push('\n');
        }
        out.push_str(&bbx::render::molecule_row(config, r));
    }
    if let Some(g) = group {
        if !out.is_empty() {
            out.push('\n');
        }
        out.push_str(&bbx::render::spectral_group(config, &g, 4));
    }
    Ok(out)
}

fn stats(args: StatsArgs) -> bbx::Result<String> {
    let config = args.config;
    let report = match open_complete(&args.db, config)? {
        Some(cat) => StatsReport::from_catalogue(&cat, config, false)?,
        None => {
            let mut cat = Catalogue::open_in_memory()?;
            cat.explore(config, &ExploreOptions::default(), |_| {})?;
            StatsReport::from_catalogue(&cat, config, true)?
        }
    };
    if args.json {
        json(&report)
    } else {
        Ok(report.text())
    }
}

fn verify(args: VerifyArgs) -> bbx::Result<(String, ExitCode)> {
    let config = args.config;
    if let Some(f) = args.partial
        && !(0.0..=1.0).contains(&f)
    {
        return Err(bbx::Error::Invalid(format!(
            "--partial {f}: give a fraction between 0 and 1"
        )));
    }
    let options = bbx::verify::VerifyOptions {
        rules: args.rules,
        sat_rules: args.rules,
        sample: args.sample,
        seed: args.seed,
        ambiguous_only: args.ambiguous,
        partial: args.partial,
    };
    let start = Instant::now();
    let catalogue = if args.rules == Rules::Standard {
        open_complete(&args.db, config)?
    } else {
        None
    };
    let spinner = spinner(
        args.quiet,
        match &catalogue {
            Some(_) => format!("verify {config}: reading the spectra from {}", args.db),
            None => format!("verify {config}: enumerating the spectra"),
        },
    );
    let groups = match &catalogue {
        Some(cat) => bbx::verify::spectra_from_catalogue(cat, config),
        None => bbx::verify::spectra(config, args.rules),
    };
    spinner.finish_and_clear();
    let groups = groups?;
    let source = match &catalogue {
        Some(_) => format!("catalogue {}", args.db),
        None => "enumeration in memory".to_string(),
    };
    let bar = progress_bar(args.quiet, "spectra", format!("verify {config}"));
    let v = bbx::verify::verify_spectra(config, groups, &options, |done, total| {
        bar.set_length(total as u64);
        bar.set_position(done as u64);
    });
    bar.finish_and_clear();
    let v = v?;
    let code = if v.agrees() {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    };
    if args.json {
        return Ok((json(&v)?, code));
    }
    let mut out = format!(
        "{config}: {} distinct spectra ({source}); {} checked{}{}, {} rules\n\n",
        v.spectra,
        v.checked,
        if args.ambiguous {
            ", ambiguous only"
        } else {
            ""
        },
        args.partial
            .map(|f| format!(", {:.0}% of rays hidden", f * 100.0))
            .unwrap_or_default(),
        args.rules
    );
    out.push_str(&format!(
        "{:>13}{:^20}{:^21}{:>12}\n{:>13}{:>9}{:>11}{:>10}{:>11}\n",
        "molecules per",
        "enumeration",
        "SAT",
        "mismatches",
        "spectrum",
        "spectra",
        "molecules",
        "spectra",
        "molecules"
    ));
    let (mut a, mut b, mut c, mut d, mut e) = (0, 0, 0, 0, 0);
    // Many sizes (hidden rays): sizes past 9 are gathered by order of magnitude.
    let bucket = |size: usize| -> (usize, String) {
        if v.rows.len() <= 12 || size < 10 {
            (size, size.to_string())
        } else {
            let lo = 10usize.pow(size.ilog10());
            (lo, format!("{lo}-{}", lo * 10 - 1))
        }
    };
    let mut shown: Vec<(usize, String, [usize; 5])> = Vec::new();
    for r in &v.rows {
        let (key, label) = bucket(r.size);
        let counts = [
            r.enumeration_spectra,
            r.enumeration_molecules,
            r.sat_spectra,
            r.sat_molecules,
            r.mismatches,
        ];
        match shown.last_mut() {
            Some((k, _, acc)) if *k == key => acc.iter_mut().zip(counts).for_each(|(x, y)| *x += y),
            _ => shown.push((key, label, counts)),
        }
    }
    for (_, label, r) in &shown {
        out.push_str(&format!(
            "{label:>13}{:>9}{:>11}{:>10}{:>11}{:>12}\n",
            r[0], r[1], r[2], r[3], r[4]
        ));
        a += r[0];
        b += r[1];
        c += r[2];
        d += r[3];
        e += r[4];
    }
    out.push_str(&format!(
        "{:>13}{:>9}{:>11}{:>10}{:>11}{:>12}\n\n",
        "total", a, b, c, d, e
    ));
    for m in &v.mismatches {
        out.push_str(&format!(
            "mismatch on {}:\n  only by enumeration: {}\n  only by SAT: {}\n",
            m.observation,
            if m.only_enumeration.is_empty() {
                "-".to_string()
            } else {
                m.only_enumeration.join(" ")
            },
            if m.only_sat.is_empty() {
                "-".to_string()
            } else {
                m.only_sat.join(" ")
            }
        ));
    }
    let secs = start.elapsed().as_secs_f64();
    if v.agrees() {
        out.push_str(&format!(
            "verdict: enumeration and SAT agree on all {} checked spectra ({secs:.1} s)\n",
            v.checked
        ));
    } else {
        out.push_str(&format!(
            "verdict: MISMATCH on {} of {} checked spectra ({secs:.1} s)\n",
            v.mismatches.len(),
            v.checked
        ));
    }
    Ok((out, code))
}

fn suggest(args: SuggestArgs) -> bbx::Result<(String, ExitCode)> {
    let (puzzle, atoms, rules) = args.input.load()?;
    let limits = Limits {
        max: Some(args.max),
        deadline: None,
    };
    let solution = sat::solve(&puzzle.observation, rules, atoms, &limits, |_| {})?;
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
        Some(bbx::plan::plan(
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
            plan: Option<&'a bbx::plan::Plan>,
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
        bbx::plan::tree_text(&p.tree, 2, &mut out);
    }
    Ok((out, ExitCode::SUCCESS))
}

fn generate(args: GenerateArgs) -> bbx::Result<String> {
    use bbx::generate::{Rng, minimize, random_molecule, unique};
    let config = args.config;
    let seed = args.seed.unwrap_or_else(|| {
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_nanos() as u64)
            .unwrap_or(1)
    });
    let mut rng = Rng::new(seed);
    let start = Instant::now();
    let (molecule, full, draws) = if args.unique || args.minimal {
        let g = unique(config, args.rules, &mut rng, args.max_draws)?;
        (g.molecule, g.observation, g.draws)
    } else {
        let m = random_molecule(config, &mut rng);
        let o = bbx::Observation::full(&bbx::Spectrum::of(&m, args.rules));
        (m, o, 1)
    };
    let observation = if args.minimal {
        minimize(&full, args.rules, config.atoms, &mut rng)?
    } else {
        full
    };
    let secs = start.elapsed().as_secs_f64();
    let marks: Vec<char> = observation
        .marks()
        .ok_or_else(|| {
            bbx::Error::Invalid("more than 52 exit pairs: this puzzle has no display".into())
        })?
        .into_iter()
        .map(|c| if c == '?' { ' ' } else { c })
        .collect();
    let picture = format!(
        "{}\n{}\n",
        bbx::render::grid(config.width, |_| '-', &marks),
        bbx::render::balls_line(config.atoms)
    );
    if let Some(path) = &args.out {
        std::fs::write(path, &picture).map_err(|source| bbx::Error::Io {
            path: path.clone(),
            source,
        })?;
    }
    if args.json {
        #[derive(serde::Serialize)]
        struct Generated {
            config: String,
            seed: u64,
            molecule: String,
            draws: usize,
            unique: bool,
            rays_shot: usize,
            observation: String,
            puzzle: String,
        }
        return json(&Generated {
            config: config.to_string(),
            seed,
            molecule: molecule.to_string(),
            draws,
            unique: args.unique || args.minimal,
            rays_shot: observation.shot_count(),
            observation: observation.to_string(),
            puzzle: picture,
        });
    }
    let summary = format!(
        "{config}, seed {seed}: {} of {} rays shown{}; {} draw{} in {secs:.2} s\nanswer: {molecule}\n",
        observation.shot_count(),
        4 * config.width,
        if args.minimal {
            ", each one needed for the unique answer"
        } else if args.unique {
            ", one answer"
        } else {
            ""
        },
        draws,
        if draws == 1 { "" } else { "s" }
    );
    match &args.out {
        Some(path) => Ok(format!("wrote {path}\n{summary}")),
        None => {
            eprint!("{summary}");
            Ok(picture)
        }
    }
}
