//! What the commands share: puzzle input, the options every long or random
//! command takes the same way (`--quiet`, `--timeout`, `--seed`, `--max`),
//! progress bars, JSON, output.

use std::io::{IsTerminal, Write};
use std::ops::RangeInclusive;
use std::process::ExitCode;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, LazyLock, Once};
use std::time::Duration;

use bbx::Rules;
use bbx::assistant::generate::{MAX_SEED, fresh_seed};
use bbx::control::{Budget, Cancel, Ended, Faults};
use bbx::puzzle::{Format, Puzzle, load_puzzle_arg_within};
use bbx::solver::{self, Limits, Solution};

/// The exit statuses of `bbx`, all in one place (README lists them).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Status {
    /// The command did what was asked.
    Done = 0,
    /// The answer is no: no molecule fits (`solve`, `suggest`), enumeration and
    /// SAT disagree (`verify`).
    No = 1,
    /// Bad input: an argument or a file that cannot be used as given.
    BadInput = 2,
    /// bbx or the machine failed: the database (busy, damaged), the solver, a
    /// census's work directory or connections, a file that cannot be
    /// written, a broken invariant.
    Failure = 3,
    /// A search stopped by a limit (time, or `--memory`) before it found
    /// anything.
    Incomplete = 4,
    /// Interrupted by Ctrl-C (or, for `play`, a termination signal); what
    /// was done so far is kept or shown.
    Interrupted = 130,
}

impl From<Status> for ExitCode {
    fn from(s: Status) -> ExitCode {
        ExitCode::from(s as u8)
    }
}

/// How the command line names the library's settings: as its flags.
pub struct Flags;

impl bbx::setting::Naming for Flags {
    fn name(&self, setting: bbx::setting::Setting) -> String {
        use bbx::setting::Setting;
        // The flags whose name is not the setting's key: one name for one
        // thing across the commands (the guide lists the old names, which
        // still work).
        let flag = match setting {
            Setting::Boards => "max-boards",
            Setting::PlanMax => "max-plan",
            other => other.key(),
        };
        format!("--{flag}")
    }
}

/// The flag Ctrl-C sets once [`ctrl_c`] catches it.
static STOP: LazyLock<Arc<AtomicBool>> = LazyLock::new(|| Arc::new(AtomicBool::new(false)));

/// Catches Ctrl-C: the first sets the flag returned ([`interrupt`]: work
/// stops cleanly and says so), a second one exits at once with status 130.
pub fn ctrl_c() -> &'static AtomicBool {
    static CATCH: Once = Once::new();
    CATCH.call_once(|| watch_interrupts(Arc::clone(&STOP)));
    &STOP
}

/// The token the first Ctrl-C cancels once [`ctrl_c`] catches it (until
/// then Ctrl-C ends the process, for work that starts catching it part of
/// the way through).
pub fn interrupt() -> Cancel {
    Cancel::from_flag(Arc::clone(&STOP))
}

/// The budget of a command's work: until its `--timeout` from now, and
/// cancelled by Ctrl-C, caught from now on.
pub fn budget(timeout: Option<Duration>) -> Budget {
    ctrl_c();
    let budget = Budget::default().with_cancel(interrupt());
    match timeout {
        Some(t) => budget.with_timeout(t),
        None => budget,
    }
}

/// Sets `stop` on the first SIGINT; on the second, says so and exits.
#[cfg(unix)]
fn watch_interrupts(stop: Arc<AtomicBool>) {
    // Signals reach this thread through signal-hook's pipe, so that it may
    // print and exit, which a signal handler may not.
    let Ok(mut signals) = signal_hook::iterator::Signals::new([signal_hook::consts::SIGINT]) else {
        return;
    };
    std::thread::spawn(move || {
        for _ in signals.forever() {
            if stop.swap(true, Ordering::SeqCst) {
                eprintln!("\ninterrupted twice: stopping at once");
                std::process::exit(Status::Interrupted as i32);
            }
        }
    });
}

/// Sets `stop` on the first Ctrl-C; the second exits at once.
#[cfg(not(unix))]
fn watch_interrupts(stop: Arc<AtomicBool>) {
    use signal_hook::consts::SIGINT;
    let _ = signal_hook::flag::register_conditional_shutdown(
        SIGINT,
        Status::Interrupted as i32,
        Arc::clone(&stop),
    );
    let _ = signal_hook::flag::register(SIGINT, stop);
}

/// Where a puzzle comes from and how to read it (shared by solve and suggest).
#[derive(clap::Args)]
pub struct PuzzleInput {
    /// The puzzle file, `-` for standard input, a built-in puzzle, or the puzzle itself
    ///
    /// The name of a built-in puzzle (`bbx puzzles` lists them) is read
    /// where no file of that name exists, and so is a game ID of Tatham's
    /// Black Box or a puzzle in the linear form, in quotes ('A2_B4
    /// @&ab@&@?ba?@&@&@').
    #[arg(value_name = "FILE|NAME|ID")]
    pub file: String,
    /// The puzzle format [default: detected]
    ///
    /// For a file whose format the first lines do not tell apart (formats
    /// below).
    #[arg(long, value_name = "FORMAT", value_parser = crate::values::format(), ignore_case = true)]
    pub format: Option<Format>,
    /// Atoms: N, or a range A..B [default: the file's]
    ///
    /// A range such as 3..5 searches every count in it. The default is the
    /// count the file gives ('There are N balls in the box', the
    /// configuration of a linear puzzle, Tatham's parameters).
    #[arg(long, value_name = "N|A..B", value_parser = parse_atoms, allow_negative_numbers = true)]
    pub atoms: Option<RangeInclusive<usize>>,
    /// Ray rules [default: the file's, else standard]
    ///
    /// edge-miss for seed001 files (A. Janns's rules), standard otherwise.
    #[arg(long, value_name = "RULES", value_parser = crate::values::rules(), ignore_case = true)]
    pub rules: Option<Rules>,
}

impl PuzzleInput {
    /// Reads the puzzle (a file, a built-in one by name, or one given
    /// inline) within `budget` and settles its atom counts and rules;
    /// `Err(ended)` when the budget stopped the reading.
    pub fn load(&self, budget: &Budget) -> bbx::Result<Result<Loaded, Ended>> {
        let read = match crate::samples::find(&self.file) {
            Some(sample) => {
                bbx::puzzle::parse_puzzle_within(sample.text, sample.name, self.format, budget)?
            }
            None => load_puzzle_arg_within(&self.file, self.format, budget)
                .map_err(crate::samples::not_found)?,
        };
        let Some(puzzle) = read.value else {
            return Ok(Err(read.ended));
        };
        let (atoms, rules) = puzzle.search_settings(self.atoms.clone(), self.rules)?;
        Ok(Ok((puzzle, atoms, rules)))
    }

    /// What to print when the budget stopped the reading (`ended`): the
    /// command has nothing to report.
    pub fn not_read(&self, as_json: bool, ended: Ended) -> (String, Status) {
        let file = if self.file == "-" {
            "standard input".to_string()
        } else {
            bbx::error::one_line(&self.file).into_owned()
        };
        let message = bbx::control::nothing_before(ended, &format!("{file} was read"));
        stopped_by(as_json, ended, &message)
    }
}

/// A puzzle read, with the atom counts and the rules to search it under.
pub type Loaded = (Puzzle, RangeInclusive<usize>, Rules);

/// Parses `N` or `A..B` (also `A..=B`).
pub fn parse_atoms(s: &str) -> Result<RangeInclusive<usize>, String> {
    bbx::puzzle::parse_atom_counts(s)
}

/// `-q/--quiet`, taken by every command that prints results, so that a
/// script may give it to any: the commands that can run long hide their
/// progress bar or spinner; those that never show one (`trace`, `show`,
/// `play`) take it and have nothing to hide.
#[derive(clap::Args)]
pub struct Quiet {
    /// No progress bar or spinner.
    #[arg(long, short)]
    pub quiet: bool,
}

/// `-w/--workers`, the same on every command that works on several threads
/// (`stats` and `verify` take it with the census's options, [`CensusArgs`]).
#[derive(clap::Args)]
pub struct Workers {
    /// Worker threads [default: all cores]
    ///
    /// 1 to 256. Without it, the environment variable RAYON_NUM_THREADS, when
    /// set, gives the number.
    #[arg(long, short = 'w', value_name = "N", allow_negative_numbers = true,
        value_parser = crate::values::whole::<usize>("a number of threads", 1, Some(bbx::work::cluster::MAX_WORKERS as u64)))]
    workers: Option<usize>,
}

impl Workers {
    /// Sets the number of threads the library's parallel work runs on.
    pub fn apply(&self) -> bbx::Result<()> {
        threads(self.workers)
    }

    /// The number of threads given, if one was.
    pub fn given(&self) -> Option<usize> {
        self.workers
    }
}

/// Runs the library's parallel work (rayon's pool) on `n` threads, when
/// given; otherwise rayon's default holds (`RAYON_NUM_THREADS`, else every
/// core).
pub fn threads(n: Option<usize>) -> bbx::Result<()> {
    let Some(n) = n else { return Ok(()) };
    rayon::ThreadPoolBuilder::new()
        .num_threads(n)
        .build_global()
        .map_err(|e| bbx::Error::system(format!("cannot start {n} worker threads: {e}")))
}

/// `--seed`, the same on every command that draws at random.
#[derive(clap::Args)]
pub struct Seed {
    /// Seed of the random choices, to repeat a run [default: random]
    ///
    /// 0 to 9007199254740991 (2^53 - 1). Without it, one is drawn at random
    /// and printed.
    #[arg(long, value_name = "SEED", value_parser = parse_seed, allow_negative_numbers = true)]
    seed: Option<u64>,
}

impl Seed {
    /// The seed given, if one was.
    pub fn given(&self) -> Option<u64> {
        self.seed
    }

    /// The seed given, or a fresh one drawn from the operating system's
    /// randomness ([`fresh_seed`]).
    pub fn value(&self) -> bbx::Result<u64> {
        match self.seed {
            Some(seed) => Ok(seed),
            None => fresh_seed(),
        }
    }
}

/// Parses `--seed SEED`: a whole number from 0 to [`MAX_SEED`] (2^53 - 1,
/// the largest that JSON readers keep exact).
pub fn parse_seed(s: &str) -> Result<u64, String> {
    crate::values::whole("a seed", 0, Some(MAX_SEED))(s)
        .map_err(|e| format!("{e} (2^53 - 1, the largest number every JSON reader keeps exact)"))
}

/// `--max`, the same on every command that lists molecules.
#[derive(clap::Args)]
pub struct MaxMolecules {
    /// Stop the search after N molecules [default: 100000]
    ///
    /// What follows rests on the molecules found, and says so. Regions no ray
    /// looks at are counted, not listed, so the count can go past N. On
    /// boards of more than 1000 cells the default is lower, so that at most
    /// 100 million cells are listed.
    #[arg(long, value_name = "N", value_parser = parse_max, allow_negative_numbers = true)]
    pub max: Option<usize>,
}

impl MaxMolecules {
    /// The limit for a box of `cells` cells: `--max`, or the default.
    pub fn limit(&self, cells: usize) -> usize {
        self.max
            .unwrap_or_else(|| 100_000.min(100_000_000 / cells.max(1)).max(100))
    }
}

/// Parses `--max N`: a whole number of molecules, at least 1.
pub fn parse_max(s: &str) -> Result<usize, String> {
    crate::values::whole("a number of molecules", 1, None)(s)
}

/// The longest `--timeout` taken: a week.
const MAX_TIMEOUT: f64 = 7.0 * 24.0 * 3600.0;

/// Parses `--timeout SECONDS`: a number of seconds from 0 (give up at the
/// first check) to a week, fractions allowed.
pub fn parse_timeout(s: &str) -> Result<Duration, String> {
    let bad = || {
        format!(
            "expected a time: a number of seconds from 0 to {MAX_TIMEOUT} (a week), such as 10 or 2.5, or a duration such as 90s, 5m or 1h 30m"
        )
    };
    let t = s.trim();
    let secs: f64 = match t.parse() {
        Ok(secs) => secs,
        Err(_) => humantime::parse_duration(t)
            .map_err(|_| bad())?
            .as_secs_f64(),
    };
    if !secs.is_finite() || !(0.0..=MAX_TIMEOUT).contains(&secs) {
        return Err(bad());
    }
    Ok(Duration::from_secs_f64(secs))
}

/// Solves `puzzle` for `command`, with a spinner counting the molecules
/// listed so far; returns the spinner, still shown, with the answer. The
/// deadline holds even inside one long solver call: [`solver::solve`]
/// answers with what it found a moment past it.
pub fn solve_showing(
    command: &str,
    quiet: bool,
    puzzle: &Puzzle,
    (atoms, rules): (RangeInclusive<usize>, Rules),
    limits: &Limits,
) -> (indicatif::ProgressBar, bbx::Result<Solution>) {
    let what = format!("{command} {}", puzzle.origin);
    let spinner = spinner(quiet, what.clone());
    let mut n = 0;
    let solution = solver::solve(&puzzle.observation, rules, atoms, limits, |_| {
        n += 1;
        let found = bbx::error::quantity(n, "molecule", "molecules");
        spinner.set_message(format!("{what}: {found} found"));
    });
    (spinner, solution)
}

/// A rate for people: three significant figures at most, with k or M for
/// thousands and millions (`845/s`, `12.3k/s`, `2.45M/s`).
pub fn human_rate(per_sec: f64) -> String {
    if !per_sec.is_finite() || per_sec <= 0.0 {
        return "0/s".into();
    }
    let (value, suffix) = if per_sec >= 999_500.0 {
        (per_sec / 1e6, "M")
    } else if per_sec >= 999.5 {
        (per_sec / 1e3, "k")
    } else {
        (per_sec, "")
    };
    // Three significant figures with a suffix; whole numbers below a thousand.
    let digits = match (suffix, value) {
        ("", v) if v >= 9.95 => 0,
        ("", _) => 1,
        (_, v) if v >= 99.95 => 0,
        (_, v) if v >= 9.995 => 1,
        _ => 2,
    };
    format!("{value:.digits$}{suffix}/s")
}

/// A progress bar on standard error counting `unit`, hidden with `--quiet` or
/// when standard error is not a terminal. It fills the terminal's width;
/// until the amount of work is known (its length set) it shows the message
/// alone, then the count (without thousands separators, as bbx's messages
/// write numbers), the rate and, once work is done, the time left.
pub fn progress_bar(quiet: bool, unit: &str, message: String) -> indicatif::ProgressBar {
    if quiet || !std::io::stderr().is_terminal() {
        return indicatif::ProgressBar::hidden();
    }
    let bar = indicatif::ProgressBar::new(0);
    let unit = unit.to_string();
    bar.set_style(
        indicatif::ProgressStyle::with_template("{msg} [{wide_bar}] {tail}")
            .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar())
            .with_key(
                "tail",
                move |state: &indicatif::ProgressState, w: &mut dyn std::fmt::Write| {
                    let _ = w.write_str(&progress_tail(state, &unit));
                },
            )
            .progress_chars("=> "),
    );
    bar.set_message(message);
    bar
}

/// What a progress bar says after the bar: `3 of 10 games, 1.2k/s, 5s
/// left`; nothing while the length is unknown, and no time left before the
/// first unit is done.
fn progress_tail(state: &indicatif::ProgressState, unit: &str) -> String {
    let (pos, len) = (state.pos(), state.len().unwrap_or(0));
    tail_text(pos, len, state.per_sec(), state.eta(), unit)
}

/// [`progress_tail`] of `pos` units done of `len`, at `per_sec`, `eta` left.
fn tail_text(pos: u64, len: u64, per_sec: f64, eta: Duration, unit: &str) -> String {
    if len == 0 {
        return String::new();
    }
    let mut tail = format!("{pos}/{len} {unit}, {}", human_rate(per_sec));
    if pos > 0 && pos < len {
        tail.push_str(&format!(", {} left", indicatif::HumanDuration(eta)));
    }
    tail
}

/// A spinner for work whose length is not known, on a terminal only.
pub fn spinner(quiet: bool, message: String) -> indicatif::ProgressBar {
    if quiet || !std::io::stderr().is_terminal() {
        return indicatif::ProgressBar::hidden();
    }
    let s = indicatif::ProgressBar::new_spinner().with_message(message);
    s.enable_steady_tick(std::time::Duration::from_millis(120));
    s
}

/// `value` as pretty JSON, with a final newline; the settings its prose
/// mentions are named as flags.
pub fn json<T: serde::Serialize>(value: &T) -> bbx::Result<String> {
    let mut s = bbx::setting::serialising_with(&Flags, || serde_json::to_string_pretty(value))?;
    s.push('\n');
    Ok(s)
}

/// The faults a test injects, from the environment variable
/// `BBX_TEST_FAULTS` (see [`Faults`]); none when it is not set.
pub fn faults() -> bbx::Result<Faults> {
    match std::env::var("BBX_TEST_FAULTS") {
        Ok(spec) => {
            Faults::parse(&spec).map_err(|e| bbx::Error::invalid(format!("BBX_TEST_FAULTS: {e}")))
        }
        Err(_) => Ok(Faults::default()),
    }
}

/// The commands that take `--json`.
const JSON_COMMANDS: [&str; 9] = [
    "trace", "solve", "explore", "show", "stats", "verify", "suggest", "strategy", "generate",
];

/// Whether the command line asks for JSON: a command that takes `--json`,
/// and `--json` among its arguments (before a `--` that ends the options).
/// Read from the raw arguments, so that it is known even when they do not
/// parse.
pub fn json_mode() -> bool {
    let args: Vec<String> = std::env::args().skip(1).collect();
    args.first()
        .is_some_and(|c| JSON_COMMANDS.contains(&c.as_str()))
        && args
            .iter()
            .take_while(|a| a.as_str() != "--")
            .any(|a| a == "--json")
}

/// The object a command prints instead of its own when it fails or stops
/// with nothing to report in `--json` mode (docs/json.md, Errors):
/// `{"error": {"kind", "message", "status"}}`.
pub fn json_error(kind: &str, message: &str, status: Status) -> String {
    #[derive(serde::Serialize)]
    struct Detail<'a> {
        kind: &'a str,
        message: &'a str,
        status: u8,
    }
    #[derive(serde::Serialize)]
    struct Failed<'a> {
        error: Detail<'a>,
    }
    let failed = Failed {
        error: Detail {
            kind,
            message,
            status: status as u8,
        },
    };
    // A struct of strings and a number always serialises.
    json(&failed).unwrap_or_default()
}

/// The kind of an error, as `--json` names it: the variant of
/// [`bbx::Error`], in snake case.
pub fn error_kind(error: &bbx::Error) -> &'static str {
    match error {
        bbx::Error::Parse(_) => "parse",
        bbx::Error::Config { .. } => "config",
        bbx::Error::Invalid(_) => "invalid",
        bbx::Error::Io { .. } => "io",
        bbx::Error::WorkDir { .. } => "work_dir",
        bbx::Error::Database { .. } => "database",
        bbx::Error::Solver(_) => "solver",
        bbx::Error::Json(_) => "json",
        bbx::Error::Damaged { .. } => "damaged",
        bbx::Error::System(_) => "system",
        bbx::Error::Busy(_) => "busy",
        bbx::Error::Internal(_) => "internal",
    }
}

/// A command that stops with nothing to report (interrupted, or out of
/// time): the sentence saying why goes to standard error and, in `--json`
/// mode, into the error object printed (of kind `kind`).
pub fn stopped(as_json: bool, kind: &str, message: &str, status: Status) -> (String, Status) {
    eprintln!("{message}");
    if as_json {
        (json_error(kind, message, status), status)
    } else {
        (String::new(), status)
    }
}

/// A command interrupted by Ctrl-C with nothing more to report than
/// `message` (exit status 130).
pub fn interrupted(as_json: bool, message: &str) -> (String, Status) {
    stopped(as_json, "interrupted", message, Status::Interrupted)
}

/// A command stopped by Ctrl-C or a time limit (`ended`) with nothing more
/// to report than `message` (exit status 130 or 4).
pub fn stopped_by(as_json: bool, ended: Ended, message: &bbx::setting::Text) -> (String, Status) {
    let message = message.show(&Flags);
    if ended == Ended::Cancelled {
        stopped(as_json, "interrupted", &message, Status::Interrupted)
    } else {
        stopped(as_json, "time_limit", &message, Status::Incomplete)
    }
}

/// A search stopped by a limit before it found anything (exit status 4),
/// as every command reports it: `message` on standard error and, in
/// `--json` mode, the error object, of kind `memory_limit` when the memory
/// bound stopped it and `time_limit` otherwise.
pub fn nothing_found(as_json: bool, ended: bbx::control::Ended, message: &str) -> (String, Status) {
    let kind = match ended {
        bbx::control::Ended::OverMemory => "memory_limit",
        _ => "time_limit",
    };
    stopped(as_json, kind, message, Status::Incomplete)
}

/// The width text output is fitted to: the terminal's when standard output
/// is one, else `COLUMNS` when set; none for a file or a pipe, which get one
/// line per item, for the tools that read them.
pub fn columns() -> Option<usize> {
    if std::io::stdout().is_terminal()
        && let Ok((width, _)) = crossterm::terminal::size()
        && width > 0
    {
        return Some(width.into());
    }
    let width: usize = std::env::var("COLUMNS").ok()?.trim().parse().ok()?;
    (width >= 20).then_some(width)
}

/// `text` with its long lines of words wrapped to [`columns`]: a line is
/// broken at spaces, its continuation indented under the text that follows
/// a label (`luck   16 games…`) or two spaces deeper than the line. Board
/// rows (single characters between spaces) and words longer than the width
/// (a molecule, a spectrum) are left whole.
pub fn fit(text: &str) -> String {
    match columns() {
        Some(width) => fit_to(text, width),
        None => text.to_string(),
    }
}

/// [`fit`] to `width` columns.
pub fn fit_to(text: &str, width: usize) -> String {
    let mut out = String::with_capacity(text.len());
    for line in text.split_inclusive('\n') {
        let (body, end) = match line.strip_suffix('\n') {
            Some(body) => (body, "\n"),
            None => (line, ""),
        };
        let board_row = body.split(' ').all(|word| word.chars().count() <= 1);
        if body.chars().count() <= width || board_row {
            out.push_str(line);
            continue;
        }
        let indent = body.len() - body.trim_start().len();
        // The column after a label's gap (`first  ray 2…`), else two deeper.
        let label = body[indent..]
            .find("  ")
            .map(|at| {
                indent + at + body[indent + at..].len() - body[indent + at..].trim_start().len()
            })
            .filter(|&column| column <= 16 && column < width / 2);
        let hang = label.unwrap_or(indent + 2);
        let mut rest = body;
        let mut first = true;
        while !rest.is_empty() {
            let room = if first {
                width
            } else {
                width.saturating_sub(hang).max(20)
            };
            let piece = if rest.chars().count() <= room {
                rest
            } else {
                // After the last comma that keeps the piece within the room
                // and fills half of it, else at the last space, else at the
                // first space after it (a word longer than the room).
                let limit = rest
                    .char_indices()
                    .nth(room)
                    .map_or(rest.len(), |(at, _)| at);
                let skip = if first { indent } else { 0 };
                let comma = rest[..limit]
                    .rfind(", ")
                    .map(|at| at + 1)
                    .filter(|&at| at > room / 2);
                match comma.or_else(|| rest[..limit].rfind(' ').filter(|&at| at > skip)) {
                    Some(at) => &rest[..at],
                    None => rest[limit..]
                        .find(' ')
                        .map_or(rest, |at| &rest[..limit + at]),
                }
            };
            if !first {
                out.extend(std::iter::repeat_n(' ', hang));
            }
            out.push_str(piece.trim_end());
            rest = rest[piece.len()..].trim_start();
            if !rest.is_empty() {
                out.push('\n');
            }
            first = false;
        }
        out.push_str(end);
    }
    out
}

/// Prints `text`; a closed pipe (`bbx … | head`) is not an error.
pub fn emit(text: &str) -> Result<(), Status> {
    let mut out = std::io::stdout().lock();
    match out.write_all(text.as_bytes()).and_then(|_| out.flush()) {
        Ok(()) => Ok(()),
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Ok(()),
        Err(e) => {
            eprintln!("error: cannot write the output: {e}");
            Err(Status::Failure)
        }
    }
}

/// The exit status of an error: bad input, or a failure of bbx or the machine.
pub fn status_of(error: &bbx::Error) -> Status {
    if error.is_failure() {
        Status::Failure
    } else {
        Status::BadInput
    }
}

/// Parses a size in bytes with the `bytesize` crate: `2G`, `500M`, `64K`,
/// `1.5GB`, `512MiB`, `1TiB` or a plain number of bytes (`G` and `GB` are
/// powers of 1000, `GiB` of 1024).
pub fn parse_size(s: &str) -> Result<u64, String> {
    let bad =
        || "expected a size: at least 1M, such as 2G, 500M, 1TiB or 1048576 (bytes)".to_string();
    let bytes = s
        .trim()
        .parse::<bytesize::ByteSize>()
        .map_err(|_| bad())?
        .as_u64();
    if bytes < 1_000_000 {
        return Err(bad());
    }
    Ok(bytes)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn long_lines_of_words_fit_and_boards_stay_whole() {
        let list = "ray 11 would split them as reflected: 5, absorbed: 3, out at 26: 2, out at 3: 1, out at 5: 1, out at 6: 1\n";
        let fitted = fit_to(list, 40);
        assert!(fitted.lines().all(|l| l.chars().count() <= 40), "{fitted}");
        // Broken after commas, the words kept in order.
        assert!(fitted.lines().all(|l| !l.ends_with(" out at")), "{fitted}");
        let joined: Vec<&str> = fitted.split_whitespace().collect();
        assert_eq!(joined, list.split_whitespace().collect::<Vec<_>>());
        // A label's text goes on under the text, not under the label.
        let labelled = fit_to(
            "luck   16 games end with molecules no ray tells apart at all\n",
            30,
        );
        assert!(
            labelled
                .lines()
                .skip(1)
                .all(|l| l.starts_with("       ") && !l.starts_with("        ")),
            "{labelled}"
        );
        // A board row and a word longer than the width are left whole.
        let board = format!(" a {} a\n", vec!["-"; 40].join(" "));
        assert_eq!(fit_to(&board, 40), board);
        let molecule = format!("molecule 1: {}\n", "-".repeat(64));
        let fitted = fit_to(&molecule, 40);
        assert_eq!(fitted, format!("molecule 1:\n  {}\n", "-".repeat(64)));
        // Short lines, and text without a final newline, as they were.
        assert_eq!(fit_to("short\nlines", 40), "short\nlines");
    }

    #[test]
    fn a_bar_says_nothing_it_does_not_know() {
        let eta = Duration::from_secs(90);
        // The amount of work not yet known: no 0/0, no time left.
        assert_eq!(tail_text(0, 0, 0.0, eta, "games"), "");
        // Nothing done yet: no time left either.
        assert_eq!(tail_text(0, 2300, 0.0, eta, "games"), "0/2300 games, 0/s");
        // Then the count, as messages write numbers, the rate, the time.
        assert_eq!(
            tail_text(1200, 7624512, 154_000.0, eta, "games"),
            "1200/7624512 games, 154k/s, 2 minutes left"
        );
        assert_eq!(tail_text(5, 5, 10.0, eta, "games"), "5/5 games, 10/s");
    }

    #[test]
    fn rates_are_rounded_for_people() {
        for (rate, text) in [
            (0.0, "0/s"),
            (f64::NAN, "0/s"),
            (3.04, "3.0/s"),
            (9.99, "10/s"),
            (845.4, "845/s"),
            (999.4, "999/s"),
            (999.6, "1.00k/s"),
            (12_345.6, "12.3k/s"),
            (242_012.0, "242k/s"),
            (2_450_123.0, "2.45M/s"),
            (12_600_000.0, "12.6M/s"),
        ] {
            assert_eq!(human_rate(rate), text, "{rate}");
        }
    }

    #[test]
    fn timeouts_from_zero_to_a_week() {
        assert_eq!(parse_timeout("0"), Ok(Duration::ZERO));
        assert_eq!(parse_timeout("2.5"), Ok(Duration::from_millis(2500)));
        assert_eq!(parse_timeout(" 10 "), Ok(Duration::from_secs(10)));
        assert_eq!(parse_timeout("604800"), Ok(Duration::from_secs(604_800)));
        assert_eq!(parse_timeout("90s"), Ok(Duration::from_secs(90)));
        assert_eq!(parse_timeout("5m"), Ok(Duration::from_secs(300)));
        assert_eq!(parse_timeout("1h 30m"), Ok(Duration::from_secs(5400)));
        assert_eq!(parse_timeout("250ms"), Ok(Duration::from_millis(250)));
        assert_eq!(parse_timeout("7days"), Ok(Duration::from_secs(604_800)));
        for bad in [
            "-1",
            "-0.5",
            "NaN",
            "inf",
            "-inf",
            "604801",
            "1e300",
            "",
            "ten",
            "8d",
            "-5m",
            "5 parsecs",
        ] {
            let e = parse_timeout(bad).unwrap_err();
            assert!(e.contains("from 0 to 604800"), "{bad}: {e}");
        }
    }

    #[test]
    fn seeds_fit_in_53_bits() {
        assert_eq!(parse_seed("0"), Ok(0));
        assert_eq!(parse_seed("42"), Ok(42));
        assert_eq!(parse_seed("9007199254740991"), Ok(MAX_SEED));
        for bad in [
            "9007199254740992",
            "18446744073709551615",
            "99999999999999999999",
            "-1",
            "",
            "x",
            "1.5",
        ] {
            let e = parse_seed(bad).unwrap_err();
            assert!(
                e.starts_with(
                    "expected a seed: a whole number from 0 to 9007199254740991 (2^53 - 1"
                ),
                "{bad}: {e}"
            );
        }
    }

    #[test]
    fn sizes_in_every_unit() {
        assert_eq!(parse_size("2G"), Ok(2_000_000_000));
        assert_eq!(parse_size("2GB"), Ok(2_000_000_000));
        assert_eq!(parse_size("2GiB"), Ok(2 << 30));
        assert_eq!(parse_size("1TiB"), Ok(1 << 40));
        assert_eq!(parse_size("1T"), Ok(1_000_000_000_000));
        assert_eq!(parse_size("1.5GB"), Ok(1_500_000_000));
        assert_eq!(parse_size("512MiB"), Ok(512 << 20));
        assert_eq!(parse_size(" 64m "), Ok(64_000_000));
        assert_eq!(parse_size("1048576"), Ok(1_048_576));
        for bad in ["1K", "999999", "0", "", "lots", "2 parsecs", "-1G", "G"] {
            assert!(
                parse_size(bad).unwrap_err().contains("expected a size"),
                "{bad}"
            );
        }
    }

    #[test]
    fn max_is_a_positive_count() {
        assert_eq!(parse_max("1"), Ok(1));
        assert_eq!(parse_max("100000"), Ok(100_000));
        assert_eq!(
            parse_max("0"),
            Err("expected a number of molecules: a whole number, at least 1".into())
        );
        assert!(parse_max("-3").is_err());
        assert!(parse_max("many").is_err());
    }
}

/// The options of a census, shared by `stats` (which counts with one) and
/// `verify` (which streams one's groups to SAT).
#[derive(clap::Args)]
#[command(next_help_heading = "Census")]
pub struct CensusArgs {
    /// Worker threads per process [default: all cores]
    ///
    /// 1 to 256 (and at most 4096 in all processes), the same on every
    /// process; the default is at most 256.
    #[arg(long, short = 'w', value_name = "N", allow_negative_numbers = true,
        value_parser = crate::values::whole::<usize>("a number of threads", 1, Some(bbx::work::cluster::MAX_WORKERS as u64)))]
    workers: Option<usize>,
    /// Processes in the census, 1 to 256
    ///
    /// One per machine, say: see --hostfile.
    #[arg(long, short = 'n', default_value_t = 1, value_name = "N", allow_negative_numbers = true,
        value_parser = crate::values::whole::<usize>("a number of processes", 1, Some(bbx::work::cluster::MAX_PROCESSES as u64)))]
    processes: usize,
    /// This process, 0 to N-1
    ///
    /// Process 0 prints the result.
    #[arg(long, short = 'p', default_value_t = 0, value_name = "I", allow_negative_numbers = true,
        value_parser = crate::values::whole::<usize>("a process number", 0, Some(bbx::work::cluster::MAX_PROCESSES as u64 - 1)))]
    process: usize,
    /// The processes' addresses, one HOST:PORT a line
    ///
    /// In process order, at most 1 MB [default: localhost:2101,
    /// localhost:2102, …].
    #[arg(long, value_name = "FILE")]
    hostfile: Option<std::path::PathBuf>,
    /// The most memory the work may take (2G, 500M…)
    ///
    /// The census groups its records one partition at a time within it.
    #[arg(long, default_value = "2G", value_name = "SIZE", value_parser = parse_size, allow_negative_numbers = true)]
    memory: u64,
    /// Where to make the work directory [default: bbx in the user's cache]
    ///
    /// The census makes its work directory (bbx-census-CONFIG,
    /// bbx-verify-CONFIG for verify) for partition files and checkpoints in
    /// this directory, private to the user [default: bbx in the user's cache
    /// directory, such as ~/.cache/bbx]. bbx removes only the files it made.
    #[arg(long, value_name = "DIR")]
    work_dir: Option<std::path::PathBuf>,
}

/// Where a census makes its work directory when `--work-dir` is not given:
/// `bbx` in the user's cache directory (`$XDG_CACHE_HOME` or `~/.cache` on
/// Linux, `~/Library/Caches` on macOS, the local application data on
/// Windows), never a directory other users share.
pub fn default_work_dir() -> bbx::Result<std::path::PathBuf> {
    dirs::cache_dir().map(|d| d.join("bbx")).ok_or_else(|| {
        bbx::Error::invalid(bbx::text![
            "this user has no cache directory to keep a census's work in (is HOME set?): give ",
            bbx::setting::Setting::WorkDir
        ])
    })
}

/// Tells the user, on standard error, of the unfinished work that other
/// censuses and verifies left (as [`bbx::census::unfinished`] finds it):
/// where, how big, and how to resume or discard it.
pub fn note_unfinished(found: Vec<bbx::census::Unfinished>) {
    for u in found {
        let command = match u.what.as_str() {
            "census" => "stats",
            other => other,
        };
        eprintln!(
            "note: {} holds the unfinished work of `bbx {command} {}` ({:.1} MB): the same command with the options it was started with resumes it; deleting that directory discards it",
            bbx::files::shown(&u.path),
            bbx::files::shown(&u.config),
            u.bytes as f64 / 1e6
        );
    }
}

impl CensusArgs {
    /// The threads and processes asked for (the threads of the library's
    /// other parallel work too).
    pub fn cluster(&self) -> bbx::Result<bbx::work::cluster::Cluster> {
        threads(self.workers)?;
        let (n, i, hosts) = (self.processes, self.process, self.hostfile.as_deref());
        let several = "a census on several processes";
        cluster(
            self.workers,
            (n, i, hosts),
            self.work_dir.as_deref(),
            "census",
            several,
        )
    }

    /// The census's options on `cluster`, stopped by Ctrl-C, with the
    /// `faults` a test injects; it works in `--work-dir` or
    /// [`default_work_dir`].
    pub fn options(
        &self,
        cluster: bbx::work::cluster::Cluster,
        faults: bbx::control::Faults,
    ) -> bbx::Result<bbx::census::CensusOptions> {
        Ok(bbx::census::CensusOptions {
            budget: bbx::control::Budget::default()
                .with_memory(Some(self.memory))
                .with_cancel(interrupt()),
            work_dir: work_dir(self.work_dir.as_ref())?,
            peers: peers(&cluster),
            cluster,
            faults,
            ..bbx::census::CensusOptions::default()
        })
    }
}

/// What this process learns of the other processes of a census, with the
/// panic hook that tells it installed once: the hook hands every panic to
/// [`bbx::work::cluster::PeerWatch::on_panic`] first, which keeps quiet the panics
/// of timely's threads that lost a connection (the census then says which
/// process it lost), and leaves any other to the hook there was.
pub fn peer_watch() -> bbx::work::cluster::PeerWatch {
    static WATCH: std::sync::OnceLock<bbx::work::cluster::PeerWatch> = std::sync::OnceLock::new();
    WATCH
        .get_or_init(|| {
            let watch = bbx::work::cluster::PeerWatch::default();
            let hook = watch.clone();
            let previous = std::panic::take_hook();
            std::panic::set_hook(Box::new(move |info| {
                if !hook.on_panic(info) {
                    previous(info);
                }
            }));
            watch
        })
        .clone()
}

/// What a census on `cluster` stopped by Ctrl-C did, and how to resume it:
/// `stage` is what it was doing once every molecule was counted
/// ("grouping"), `kept` what its work directory keeps ("the work").
pub fn interrupted_census(
    done: &bbx::census::Census,
    cluster: &bbx::work::cluster::Cluster,
    stage: &str,
    kept: &str,
) -> String {
    let dir = bbx::files::shown(&done.work_dir);
    let (process, processes) = (cluster.process, cluster.processes);
    if !done.started {
        format!(
            "interrupted while waiting for the other processes of the census: nothing was counted in this run; {kept} is kept in {dir}: run the same command to resume"
        )
    } else if processes > 1 {
        // Each process's share is not known in advance: no "of" for it,
        // and no telling from the counts whether every molecule is counted.
        format!(
            "interrupted: {} counted by process {process} (of the {} that the {processes} processes share); {kept} is kept in {dir}: run the same command to resume",
            bbx::error::quantity(done.counted, "molecule", "molecules"),
            done.total,
        )
    } else if done.counted >= done.total {
        format!(
            "interrupted while {stage}: every molecule is counted; {kept} is kept in {dir}: run the same command to resume"
        )
    } else {
        format!(
            "interrupted: {} of {} molecules counted; {kept} is kept in {dir}: run the same command to resume",
            done.counted, done.total
        )
    }
}

/// The cluster of `workers` threads a process (all cores, at most 256, by
/// default) and `(processes, process, hostfile)`, once `--work-dir` (where
/// the `what` makes its own) and `--hostfile` (for `several`) are seen to
/// make sense.
fn cluster(
    workers: Option<usize>,
    (processes, process, hosts): (usize, usize, Option<&std::path::Path>),
    work_dir: Option<&std::path::Path>,
    what: &str,
    several: &str,
) -> bbx::Result<bbx::work::cluster::Cluster> {
    if let Some(dir) = work_dir
        && dir.exists()
        && !dir.is_dir()
    {
        return Err(bbx::Error::invalid(format!(
            "--work-dir {}: is a file, not a directory: give the directory in which the {what} makes its own",
            dir.display()
        )));
    }
    if let Some(hosts) = hosts
        && processes == 1
    {
        return Err(bbx::Error::invalid(format!(
            "--hostfile {}: a host file is for {several}: give --processes N too, or leave it out",
            hosts.display()
        )));
    }
    let all = || std::thread::available_parallelism().map_or(1, |n| n.get());
    let workers = workers.unwrap_or_else(|| all().min(bbx::work::cluster::MAX_WORKERS));
    bbx::work::cluster::Cluster::new(workers, processes, process, hosts)
}

/// `--work-dir`, or [`default_work_dir`].
fn work_dir(dir: Option<&std::path::PathBuf>) -> bbx::Result<std::path::PathBuf> {
    dir.map_or_else(default_work_dir, |dir| Ok(dir.clone()))
}

/// What a process of `cluster` learns of the others ([`peer_watch`]); a
/// lone process has none to learn of.
fn peers(cluster: &bbx::work::cluster::Cluster) -> bbx::work::cluster::PeerWatch {
    if cluster.processes > 1 {
        peer_watch()
    } else {
        bbx::work::cluster::PeerWatch::default()
    }
}

/// The options of a search shared out among processes and kept in a work
/// directory (`strategy --optimal` and `--bound`, of group `shared`).
#[derive(clap::Args)]
pub struct SharedArgs {
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
}

impl SharedArgs {
    /// The cluster (of `workers` threads a process), work directory and
    /// panic watch of the search (whose own options the library fills in).
    pub fn options(
        &self,
        workers: Option<usize>,
    ) -> bbx::Result<bbx::assistant::bound::BoundOptions> {
        let (n, i, hosts) = (self.processes, self.process, self.hostfile.as_deref());
        let several = "a search shared by several processes";
        let cluster = cluster(
            workers,
            (n, i, hosts),
            self.work_dir.as_deref(),
            "search",
            several,
        )?;
        Ok(bbx::assistant::bound::BoundOptions {
            search: bbx::assistant::optimal::OptimalOptions::default(),
            work_dir: work_dir(self.work_dir.as_ref())?,
            peers: peers(&cluster),
            cluster,
        })
    }
}

/// Progress bars of work in stages: a bar a stage, a new one when the
/// stage changes, the last cleared when dropped.
pub struct Stages {
    quiet: bool,
    stage: usize,
    bar: indicatif::ProgressBar,
}

impl Stages {
    /// No bar yet; none at all with `--quiet`.
    pub fn new(quiet: bool) -> Stages {
        let bar = indicatif::ProgressBar::hidden();
        Stages {
            quiet,
            stage: usize::MAX,
            bar,
        }
    }

    /// Shows `done` of `len` `unit` of stage `stage`, saying `message`.
    pub fn show(&mut self, stage: usize, unit: &str, message: String, (done, len): (u64, u64)) {
        if stage != self.stage {
            self.bar.finish_and_clear();
            self.stage = stage;
            self.bar = progress_bar(self.quiet, unit, message.clone());
        }
        self.bar.set_message(message);
        self.bar.set_length(len);
        self.bar.set_position(done);
    }
}

impl Drop for Stages {
    fn drop(&mut self) {
        self.bar.finish_and_clear();
    }
}
