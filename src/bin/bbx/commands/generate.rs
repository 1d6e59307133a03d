//! `bbx generate`.

use std::time::Duration;

use bbx::Rules;
use bbx::assistant::generate::{PuzzleOptions, make_puzzle};
use bbx::control::Budget;
use bbx::play::save::is_tatham_save;
use bbx::puzzle::{TathamParams, puzzle_save};
use bbx::render::{PuzzleReport, generated_text};
use bbx::rules::config::ConfigRange;

use crate::cli::{Quiet, Seed, Workers};
use crate::exit::Status;
use crate::output::{Flags, json, nothing_found};
use crate::progress::spinner;
use crate::values::parse_timeout;

#[derive(clap::Args)]
#[command(
    after_help = "Examples:\n  bbx generate A4_B8 --unique\n  bbx generate A5_B10 --minimal --seed 42 --out puzzle.txt",
    after_long_help = "Examples:\n  bbx generate A4_B8 --unique\n  bbx generate A5_B10 --minimal --seed 42 --out puzzle.txt\n  bbx generate A5_B8x6 --minimal --show-answer\n  bbx generate A3-6_B8 --minimal\n  bbx generate A5_B10 --minimal --json\n  bbx generate A8_B15 --minimal --timeout 30"
)]
pub struct Args {
    /// The configuration, e.g. A5_B10, A5_B8x6 (8 wide, 6 high), or a range
    /// of atoms, A3-6_B8 (the count drawn in it and not told); Tatham's
    /// parameters (w8h8m3M6) or one of his presets ('8x8, 3-6 balls') name
    /// the same.
    #[arg(value_parser = parse_game)]
    config: ConfigRange,
    /// Keep drawing until the full spectrum has exactly one answer.
    #[arg(long)]
    unique: bool,
    /// Then remove rays while the answer stays unique (implies --unique).
    #[arg(long)]
    minimal: bool,
    #[command(flatten)]
    seed: Seed,
    /// Write the puzzle to this file
    ///
    /// A name ending in .sav writes a save file of Simon Tatham's Black Box
    /// (the puzzle's rays fired as his lasers), which his program loads;
    /// any other name, the puzzle in J. Forget's display.
    #[arg(long, value_name = "FILE")]
    out: Option<String>,
    /// Also print the answer (the puzzle's maker's eyes only; --json always
    /// has it).
    #[arg(long)]
    show_answer: bool,
    /// Ray rules.
    #[arg(long, value_name = "RULES", value_parser = crate::values::rules(), ignore_case = true, default_value = "standard")]
    rules: Rules,
    /// Give up after this many draws.
    #[arg(long, default_value_t = 10_000, value_name = "N", allow_negative_numbers = true,
        value_parser = crate::values::whole::<usize>("a number of draws", 1, None))]
    max_draws: usize,
    /// Borders in Emacs notation: H, R and digits
    ///
    /// The puzzle's border, when it has at most 9 exit pairs (past them,
    /// letters, and a note says so).
    #[arg(long)]
    emacs: bool,
    /// Print one JSON object instead of text.
    #[arg(long)]
    json: bool,
    /// Give up after this many seconds
    ///
    /// With no puzzle while drawing, or with a unique but perhaps not minimal
    /// one while removing rays. From 0 to a week, fractions allowed, or a
    /// duration such as 90s, 5m or 1h 30m.
    #[arg(long, value_name = "SECONDS", value_parser = parse_timeout, allow_negative_numbers = true)]
    timeout: Option<Duration>,
    #[command(flatten)]
    quiet: Quiet,
    #[command(flatten)]
    workers: Workers,
}

pub fn run(args: Args) -> bbx::Result<(String, Status)> {
    args.workers.apply()?;
    let (config, rules) = (args.config, args.rules);
    // Checked before the work: a puzzle never replaces what is not one.
    let his = match &args.out {
        Some(path) => {
            bbx::files::check_text_out(path)?;
            let his = is_tatham_save(path).then(|| TathamParams::for_save(path, &config, rules));
            his.transpose()?
        }
        None => None,
    };
    let options = PuzzleOptions {
        config,
        rules,
        seed: args.seed.value()?,
        unique: args.unique,
        minimal: args.minimal,
        max_draws: args.max_draws,
        // Not stopped by Ctrl-C: nothing is written before the end.
        budget: args
            .timeout
            .map_or_else(Budget::default, |t| Budget::default().with_timeout(t)),
    };
    let spinner = spinner(args.quiet.quiet, format!("generate {config}: drawing"));
    let made = make_puzzle(&options, || {
        spinner.set_message(format!("generate {config}: removing rays"))
    });
    spinner.finish_and_clear();
    let made = made?;
    let made = match made.value {
        Ok(made) => made,
        Err(message) => return Ok(nothing_found(args.json, made.ended, &message.show(&Flags))),
    };
    let report = PuzzleReport::new(&made, args.emacs)?;
    if report.in_letters {
        eprintln!(
            "note: more than 9 exit pairs, which Emacs notation cannot write: the puzzle is in letters"
        );
    }
    if let Some(path) = &args.out {
        let text = match &his {
            Some(params) => {
                puzzle_save(params, &made.molecule, &made.observation).map_err(|e| {
                    bbx::Error::invalid(format!(
                        "--out {path}: cannot write Tatham's save file: {e}"
                    ))
                })?
            }
            None => report.puzzle.clone(),
        };
        let io = |source| bbx::Error::Io {
            path: path.clone(),
            source,
        };
        bbx::files::write_whole(path.as_ref(), text.as_bytes()).map_err(io)?;
    }
    if args.json {
        return Ok((json(&report)?, Status::Done));
    }
    let summary = generated_text(&made, args.show_answer);
    let text = match &args.out {
        Some(path) if his.is_some() => {
            format!(
                "wrote {path} (a save file of Tatham's Black Box: his Load opens it)\n{summary}"
            )
        }
        Some(path) => format!("wrote {path}\n{summary}"),
        None => {
            eprint!("{summary}");
            report.puzzle
        }
    };
    Ok((text, Status::Done))
}

/// A configuration or a range (`A3-6_B8`), or the same named as Tatham names
/// his games: his parameters alone (`w8h8m3M6`) or a preset's title.
fn parse_game(s: &str) -> Result<ConfigRange, String> {
    if let Some(p) = TathamParams::preset(s) {
        return Ok(p.range());
    }
    match TathamParams::alone(s) {
        Some(p) => Ok(p?.range()),
        None => s.parse::<ConfigRange>().map_err(|e| e.show(&Flags)),
    }
}
