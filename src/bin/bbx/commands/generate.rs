//! `bbx generate`.

use std::time::{Duration, Instant};

use bbx::assistant::generate::{minimize_in, random_in, seeded, unique_in};
use bbx::control::Budget;
use bbx::error::quantity;
use bbx::play::save::is_tatham_save;
use bbx::puzzle::{TathamParams, game_id, puzzle_save};
use bbx::rules::config::ConfigRange;
use bbx::{Molecule, Rules};

use crate::cli::{Quiet, Seed, Status, Workers, json, parse_timeout, spinner};

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
    let as_json = args.json;
    let deadline = args.timeout.map(|t| Instant::now() + t);
    match inner(args) {
        Ok(text) => Ok((text, Status::Done)),
        // No puzzle drawn before --timeout: a limit stopped the search
        // before it found anything, exit status 4 as on every command.
        Err(e) if deadline.is_some_and(|d| Instant::now() >= d) => {
            let message = e.show(&crate::cli::Flags);
            Ok(crate::cli::nothing_found(
                as_json,
                bbx::control::Ended::TimedOut,
                &message,
            ))
        }
        Err(e) => Err(e),
    }
}

fn inner(args: Args) -> bbx::Result<String> {
    let config = args.config;
    let seed = args.seed.value()?;
    let mut rng = seeded(seed);
    let start = Instant::now();
    // Not stopped by Ctrl-C: nothing is written before the end.
    let budget = match args.timeout {
        Some(t) => Budget::default().with_timeout(t),
        None => Budget::default(),
    };
    // Tatham's parameters, when the puzzle is written as his save file.
    let mut his = None;
    if let Some(path) = &args.out {
        // Checked before the work: a puzzle never replaces what is not one.
        check_out(path)?;
        if is_tatham_save(path) {
            his = Some(tatham_params(path, &config, args.rules)?);
        }
    }
    let spinner = spinner(args.quiet.quiet, format!("generate {config}: drawing"));
    let (molecule, full, draws) = if args.unique || args.minimal {
        let g = unique_in(config, args.rules, &mut rng, args.max_draws, &budget);
        let g = g.inspect_err(|_| spinner.finish_and_clear())?;
        (g.molecule, g.observation, g.draws)
    } else {
        let m = random_in(config, &mut rng);
        let o = bbx::Observation::full(&bbx::Spectrum::of(&m, args.rules));
        (m, o, 1)
    };
    let (observation, minimal) = if args.minimal {
        spinner.set_message(format!("generate {config}: removing rays"));
        let small = minimize_in(&full, args.rules, config.atoms(), &mut rng, &budget);
        let small = small.inspect_err(|_| spinner.finish_and_clear())?;
        (small.value, Some(small.ended.is_complete()))
    } else {
        (full, None)
    };
    spinner.finish_and_clear();
    let secs = start.elapsed().as_secs_f64();
    let letters = bbx::render::observed_marks(&observation).ok_or_else(|| {
        bbx::Error::invalid("more than 52 exit pairs: this puzzle has no display")
    })?;
    let marks = if args.emacs {
        bbx::render::marks_in(&letters, bbx::rules::notation::Notation::Emacs).unwrap_or_else(|| {
            eprintln!("note: more than 9 exit pairs, which Emacs notation cannot write: the puzzle is in letters");
            letters.clone()
        })
    } else {
        letters
    };
    let picture = format!(
        "{}\n{}\n",
        bbx::render::grid(config.shape, |_| '-', &marks),
        bbx::render::balls_range_line(config.min_atoms, config.max_atoms)
    );
    let tatham = tatham_id(&config, &molecule, args.rules);
    if let Some(path) = &args.out {
        let text = match &his {
            Some(params) => puzzle_save(params, &molecule, &observation).map_err(|e| {
                bbx::Error::invalid(format!(
                    "--out {path}: cannot write Tatham's save file: {e}"
                ))
            })?,
            None => picture.clone(),
        };
        bbx::files::write_whole(path.as_ref(), text.as_bytes()).map_err(|source| {
            bbx::Error::Io {
                path: path.clone(),
                source,
            }
        })?;
    }
    if args.json {
        #[derive(serde::Serialize)]
        struct Generated {
            config: String,
            width: usize,
            height: usize,
            rules: Rules,
            seed: u64,
            molecule: String,
            draws: usize,
            unique: bool,
            minimal: Option<bool>,
            rays_shot: usize,
            observation: String,
            puzzle: String,
            tatham_id: Option<String>,
            seconds: f64,
        }
        return json(&Generated {
            config: config.to_string(),
            width: config.shape.width,
            height: config.shape.height,
            rules: args.rules,
            seed,
            molecule: molecule.to_string(),
            draws,
            unique: args.unique || args.minimal,
            minimal,
            rays_shot: observation.shot_count(),
            observation: observation.to_string(),
            puzzle: picture,
            tatham_id: tatham,
            seconds: (secs * 1000.0).round() / 1000.0,
        });
    }
    let mut summary = format!(
        "{config}, seed {seed}: {} of {} rays shown{}; {} in {secs:.2} s\n",
        observation.shot_count(),
        config.shape.positions(),
        match minimal {
            Some(true) => ", each one needed for the unique answer",
            Some(false) =>
                ", one answer (the time limit stopped the removal of rays: some may not be needed)",
            None if args.unique => ", one answer",
            None => "",
        },
        quantity(draws, "draw", "draws")
    );
    if let Some(id) = &tatham {
        summary.push_str(&format!("Tatham's game ID: {id}\n"));
    }
    if args.show_answer {
        summary.push_str(&format!("answer: {molecule}\n"));
    }
    match &args.out {
        Some(path) if his.is_some() => Ok(format!(
            "wrote {path} (a save file of Tatham's Black Box: his Load opens it)\n{summary}"
        )),
        Some(path) => Ok(format!("wrote {path}\n{summary}")),
        None => {
            eprint!("{summary}");
            Ok(picture)
        }
    }
}

/// A configuration or a range (`A3-6_B8`), or the same named as Tatham names
/// his games: his parameters alone (`w8h8m3M6`) or a preset's title.
fn parse_game(s: &str) -> Result<ConfigRange, String> {
    if let Some(p) = TathamParams::preset(s) {
        return Ok(p.range());
    }
    match TathamParams::alone(s) {
        Some(p) => Ok(p?.range()),
        None => s
            .parse::<ConfigRange>()
            .map_err(|e| e.show(&crate::cli::Flags)),
    }
}

/// The game ID of the hidden molecule in Simon Tatham's Black Box, when his
/// program can play it: standard rules, 2 to 255 cells a side, at least one
/// ball and fewer balls than cells.
fn tatham_id(config: &ConfigRange, hidden: &Molecule, rules: Rules) -> Option<String> {
    if rules != Rules::Standard {
        return None;
    }
    let params = TathamParams::of(config).ok()?;
    game_id(&params, hidden).ok()
}

/// The parameters of Tatham's Black Box for a puzzle written as his save
/// file (`--out NAME.sav`): refused for a game his program cannot play.
fn tatham_params(path: &str, config: &ConfigRange, rules: Rules) -> bbx::Result<TathamParams> {
    if rules != Rules::Standard {
        return Err(bbx::Error::invalid(format!(
            "--out {path}: a name ending in .sav writes a save file of Tatham's Black Box, which plays the standard rules only: leave out --rules {rules}, or give a name ending in .txt"
        )));
    }
    TathamParams::of(config).map_err(|e| {
        bbx::Error::invalid(format!(
            "--out {path}: a name ending in .sav writes a save file of Tatham's Black Box, but {e}: give a name ending in .txt"
        ))
    })
}

/// Refuses to write the puzzle over a directory or over a file that is not
/// text (a catalogue, say); an earlier puzzle may be replaced.
fn check_out(path: &str) -> bbx::Result<()> {
    let p = std::path::Path::new(path);
    if let Some(dir) = p.parent().filter(|d| !d.as_os_str().is_empty())
        && !dir.is_dir()
    {
        return Err(bbx::Error::invalid(format!(
            "--out {path}: there is no directory {}: make it first, or write elsewhere",
            dir.display()
        )));
    }
    if p.is_dir() {
        return Err(bbx::Error::invalid(format!(
            "--out {path}: is a directory: give a file name, such as {}",
            p.join("puzzle.txt").display()
        )));
    }
    if let Ok(mut f) = std::fs::File::open(p) {
        use std::io::Read as _;
        let mut head = [0u8; 512];
        let n = f.read(&mut head).unwrap_or(0);
        let head = &head[..n];
        if head.starts_with(b"SQLite format 3\0")
            || std::str::from_utf8(head).is_err_and(|e| e.error_len().is_some())
            || head.contains(&0)
        {
            return Err(bbx::Error::invalid(format!(
                "--out {path}: the file exists and is not a puzzle ({}): give another file name",
                if head.starts_with(b"SQLite format 3\0") {
                    "it is an SQLite database, perhaps a catalogue"
                } else {
                    "it is not text"
                }
            )));
        }
    }
    Ok(())
}
