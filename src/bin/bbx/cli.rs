//! What the commands share: puzzle input, progress bars, JSON, output.

use std::io::{IsTerminal, Write};
use std::ops::RangeInclusive;
use std::process::ExitCode;

use bbx::catalogue::Catalogue;
use bbx::puzzle::{Format, load_puzzle};
use bbx::{Config, Rules};

/// Where a puzzle comes from and how to read it (shared by solve and suggest).
#[derive(clap::Args)]
pub struct PuzzleInput {
    /// The puzzle file, or `-` for standard input.
    pub file: String,
    /// Force the puzzle format instead of detecting it.
    #[arg(long, value_name = "display|linear|seed001")]
    pub format: Option<Format>,
    /// Number of atoms, or a range such as 3..5 (default: the count the file gives).
    #[arg(long, value_name = "N|A..B", value_parser = parse_atoms)]
    pub atoms: Option<RangeInclusive<usize>>,
    /// Ray rules (default: edge-miss for seed001 files, standard otherwise).
    #[arg(long, value_name = "standard|edge-miss")]
    pub rules: Option<Rules>,
}

impl PuzzleInput {
    /// Reads the puzzle and settles its atom counts and rules.
    pub fn load(&self) -> bbx::Result<(bbx::puzzle::Puzzle, RangeInclusive<usize>, Rules)> {
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

/// A progress bar on standard error counting `unit`, hidden with `--quiet` or
/// when standard error is not a terminal.
pub fn progress_bar(quiet: bool, unit: &str, message: String) -> indicatif::ProgressBar {
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
pub fn spinner(quiet: bool, message: String) -> indicatif::ProgressBar {
    if quiet || !std::io::stderr().is_terminal() {
        return indicatif::ProgressBar::hidden();
    }
    let s = indicatif::ProgressBar::new_spinner().with_message(message);
    s.enable_steady_tick(std::time::Duration::from_millis(120));
    s
}

pub fn json<T: serde::Serialize>(value: &T) -> bbx::Result<String> {
    let mut s =
        serde_json::to_string_pretty(value).map_err(|e| bbx::Error::Invalid(e.to_string()))?;
    s.push('\n');
    Ok(s)
}

/// Prints `text`; a closed pipe (`bbx … | head`) is not an error.
pub fn emit(text: &str) -> ExitCode {
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

/// The census of `config` stored in `db` (`bbx stats --store-groups`), if
/// there is one.
pub fn open_census(
    db: &str,
    config: Config,
) -> bbx::Result<Option<(Catalogue, bbx::catalogue::CensusStatus)>> {
    let Some(cat) = Catalogue::open_existing(db)? else {
        return Ok(None);
    };
    Ok(cat.census_status(config)?.map(|s| (cat, s)))
}

pub fn open_complete(db: &str, config: Config) -> bbx::Result<Option<Catalogue>> {
    let Some(cat) = Catalogue::open_existing(db)? else {
        return Ok(None);
    };
    match cat.status(config)? {
        Some(s) if s.complete => Ok(Some(cat)),
        _ => Ok(None),
    }
}

/// Parses a size in bytes: `2G`, `500M`, `64K`, `1.5GB`, `512MiB` or a plain
/// number of bytes.
pub fn parse_size(s: &str) -> Result<u64, String> {
    let t = s.trim();
    let bad = || format!("expected a size such as 2G, 500M or 1048576, not '{s}'");
    let digits = t
        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
        .unwrap_or(t.len());
    let (num, unit) = t.split_at(digits);
    let value: f64 = num.parse().map_err(|_| bad())?;
    let scale: f64 = match unit.trim().to_ascii_lowercase().as_str() {
        "" | "b" => 1.0,
        "k" | "kb" => 1e3,
        "kib" => 1024.0,
        "m" | "mb" => 1e6,
        "mib" => 1048576.0,
        "g" | "gb" => 1e9,
        "gib" => 1073741824.0,
        "t" | "tb" => 1e12,
        _ => return Err(bad()),
    };
    let bytes = value * scale;
    if bytes.is_nan() || bytes < 1e6 {
        return Err(format!("'{s}' is too little memory: give at least 1M"));
    }
    Ok(bytes as u64)
}
