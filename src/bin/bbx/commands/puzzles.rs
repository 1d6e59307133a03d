//! `bbx puzzles`.

use bbx::puzzle::{PuzzleEntry, parse_puzzle};

use crate::cli::Quiet;
use crate::exit::Status;
use crate::output::json;
use crate::samples::{SAMPLES, Sample};

#[derive(clap::Args)]
#[command(
    after_help = "Examples:\n  bbx puzzles\n  bbx solve seed-emacs-game-2",
    after_long_help = "Any command that reads a puzzle or a molecule from a file (solve, suggest,\nplay, trace) takes the name of a built-in puzzle where no file of that name\nexists.\n\nExamples:\n  bbx puzzles\n  bbx puzzles seed-emacs-game-2\n  bbx solve seed-emacs-game-2\n  bbx suggest generated-a4-b8-partial\n  bbx play seed-pure-thought-a4-b8"
)]
pub struct Args {
    /// Print this puzzle's text instead of the list
    ///
    /// Its text as the file holds it, to copy and change (`bbx puzzles
    /// NAME > game.txt`).
    #[arg(value_name = "NAME")]
    name: Option<String>,
    /// Print one JSON object instead of text.
    #[arg(long)]
    json: bool,
    /// Taken as by every command: nothing is shown while it works.
    #[command(flatten)]
    _quiet: Quiet,
}

/// What a sample holds, read as `bbx solve` reads it.
fn record(s: &'static Sample) -> bbx::Result<PuzzleEntry<'static>> {
    Ok(parse_puzzle(s.text, s.name, None)?.entry(s.name, s.file, s.about))
}

pub fn run(args: Args) -> bbx::Result<(String, Status)> {
    if let Some(name) = &args.name {
        let sample = SAMPLES
            .iter()
            .find(|s| s.name.eq_ignore_ascii_case(name) || s.file.eq_ignore_ascii_case(name))
            .ok_or_else(|| {
                bbx::Error::invalid(format!(
                    "no built-in puzzle is called '{name}': `bbx puzzles` lists them"
                ))
            })?;
        if args.json {
            let text = Some(sample.text);
            return Ok((
                json(&PuzzleEntry {
                    text,
                    ..record(sample)?
                })?,
                Status::Done,
            ));
        }
        return Ok((sample.text.to_string(), Status::Done));
    }
    let records = SAMPLES
        .iter()
        .map(record)
        .collect::<bbx::Result<Vec<_>>>()?;
    if args.json {
        let listed = std::collections::BTreeMap::from([("puzzles", &records)]);
        return Ok((json(&listed)?, Status::Done));
    }
    let config = |r: &PuzzleEntry| match (&r.config, r.atoms_min, r.atoms_max) {
        (Some(c), _, _) => c.clone(),
        (None, Some(a), Some(b)) => format!("A{a}..{b}_B{}", r.width),
        _ => format!("B{}", r.width),
    };
    let name_width = records.iter().map(|r| r.name.len()).max().unwrap_or(4);
    let mut out = format!(
        "{:<name_width$}  {:<8}  {:<9}  what\n",
        "name", "config", "marks"
    );
    for r in &records {
        let rays = format!("{} of {}", r.marks_known, 2 * (r.width + r.height));
        out.push_str(&format!(
            "{:<name_width$}  {:<8}  {rays:<9}  {}\n",
            r.name,
            config(r),
            r.about
        ));
    }
    out.push_str(
        "\n`bbx puzzles NAME` prints one; solve, suggest, play and trace take a NAME\nwhere they take a file: bbx solve seed-emacs-game-2\n",
    );
    Ok((out, Status::Done))
}
