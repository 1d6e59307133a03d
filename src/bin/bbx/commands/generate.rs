//! `bbx generate`.

use std::time::{Duration, Instant};

use bbx::assistant::generate::{minimize, random_molecule, seeded, unique};
use bbx::control::Budget;
use bbx::error::quantity;
use bbx::{Config, Rules};

use crate::cli::{Quiet, Seed, Status, Workers, json, parse_timeout, spinner};

#[derive(clap::Args)]
#[command(
    after_help = "Examples:\n  bbx generate A4_B8 --unique\n  bbx generate A5_B10 --minimal --seed 42 --out puzzle.txt",
    after_long_help = "Examples:\n  bbx generate A4_B8 --unique\n  bbx generate A5_B10 --minimal --seed 42 --out puzzle.txt\n  bbx generate A5_B10 --minimal --json\n  bbx generate A8_B15 --minimal --timeout 30"
)]
pub struct Args {
    /// The configuration, e.g. A5_B10.
    config: Config,
    /// Keep drawing until the full spectrum has exactly one answer.
    #[arg(long)]
    unique: bool,
    /// Then remove rays while the answer stays unique (implies --unique).
    #[arg(long)]
    minimal: bool,
    #[command(flatten)]
    seed: Seed,
    /// Write the puzzle to this file.
    #[arg(long, value_name = "FILE")]
    out: Option<String>,
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
    if let Some(path) = &args.out {
        // Checked before the work: a puzzle never replaces what is not one.
        check_out(path)?;
    }
    let spinner = spinner(args.quiet.quiet, format!("generate {config}: drawing"));
    let (molecule, full, draws) = if args.unique || args.minimal {
        let g = unique(config, args.rules, &mut rng, args.max_draws, &budget);
        let g = g.inspect_err(|_| spinner.finish_and_clear())?;
        (g.molecule, g.observation, g.draws)
    } else {
        let m = random_molecule(config, &mut rng);
        let o = bbx::Observation::full(&bbx::Spectrum::of(&m, args.rules));
        (m, o, 1)
    };
    let (observation, minimal) = if args.minimal {
        spinner.set_message(format!("generate {config}: removing rays"));
        let small = minimize(&full, args.rules, config.atoms, &mut rng, &budget);
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
        bbx::render::grid(config.width, |_| '-', &marks),
        bbx::render::balls_line(config.atoms)
    );
    if let Some(path) = &args.out {
        bbx::files::write_whole(path.as_ref(), picture.as_bytes()).map_err(|source| {
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
            seconds: f64,
        }
        return json(&Generated {
            config: config.to_string(),
            width: config.width,
            height: config.width,
            rules: args.rules,
            seed,
            molecule: molecule.to_string(),
            draws,
            unique: args.unique || args.minimal,
            minimal,
            rays_shot: observation.shot_count(),
            observation: observation.to_string(),
            puzzle: picture,
            seconds: (secs * 1000.0).round() / 1000.0,
        });
    }
    let summary = format!(
        "{config}, seed {seed}: {} of {} rays shown{}; {} in {secs:.2} s\nanswer: {molecule}\n",
        observation.shot_count(),
        4 * config.width,
        match minimal {
            Some(true) => ", each one needed for the unique answer",
            Some(false) =>
                ", one answer (the time limit stopped the removal of rays: some may not be needed)",
            None if args.unique => ", one answer",
            None => "",
        },
        quantity(draws, "draw", "draws")
    );
    match &args.out {
        Some(path) => Ok(format!("wrote {path}\n{summary}")),
        None => {
            eprint!("{summary}");
            Ok(picture)
        }
    }
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
