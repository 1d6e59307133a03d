//! `bbx verify`.

use std::time::Instant;

use bbx::verify::SpectraSource;
use bbx::{Config, Rules};

use crate::cli::{Quiet, Seed, Status, json, progress_bar, spinner};

#[derive(clap::Args)]
#[command(
    after_help = "Exit status: 0 everything agrees, 1 a mismatch (listed), 2 bad input, 3 failure.\n\nExamples:\n  bbx verify A4_B6\n  bbx verify A4_B8 --ambiguous\n  bbx verify A4_B8 --sample 10000 --partial 0.5 --seed 1"
)]
pub struct Args {
    /// The configuration, e.g. A4_B6.
    config: Config,
    /// Read the spectra from this catalogue when it holds the configuration complete.
    #[arg(long, default_value = "bbx.sqlite", value_name = "FILE")]
    db: String,
    /// Check N random spectra (every ambiguous one included when there are fewer than N).
    #[arg(long, value_name = "N", value_parser = parse_sample)]
    sample: Option<usize>,
    #[command(flatten)]
    seed: Seed,
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
    /// Rules of the SAT side, to see the check fail (for tests).
    #[arg(long, hide = true, value_name = "standard|edge-miss")]
    sat_rules: Option<Rules>,
    #[command(flatten)]
    quiet: Quiet,
    /// Print one JSON object instead of text.
    #[arg(long)]
    json: bool,
    /// How long to wait for other programs to let go of --db, in
    /// milliseconds (for tests).
    #[arg(long, hide = true, value_name = "MS", default_value_t = bbx::catalogue::BUSY_TIMEOUT_MS)]
    busy_ms: u32,
}

pub fn run(args: Args) -> bbx::Result<(String, Status)> {
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
        sat_rules: args.sat_rules.unwrap_or(args.rules),
        sample: args.sample,
        seed: args.seed.value()?,
        ambiguous_only: args.ambiguous,
        partial: args.partial,
    };
    let start = Instant::now();
    let mut reading = None;
    let found = bbx::verify::spectra_for(config, &args.db, args.busy_ms, &options, |source| {
        reading = Some(spinner(
            args.quiet.quiet,
            format!("verify {config}: {}", source.reading()),
        ));
    });
    if let Some(spinner) = reading {
        spinner.finish_and_clear();
    }
    let (groups, source) = found?;
    let bar = progress_bar(args.quiet.quiet, "spectra", format!("verify {config}"));
    let v = bbx::verify::verify_spectra(config, groups, &options, |done, total| {
        bar.set_length(total as u64);
        bar.set_position(done as u64);
    });
    bar.finish_and_clear();
    let v = v?;
    let code = if v.agrees() { Status::Done } else { Status::No };
    let secs = start.elapsed().as_secs_f64();
    if args.json {
        /// The verification, with where its spectra came from and the time.
        #[derive(serde::Serialize)]
        struct Verified<'a> {
            #[serde(flatten)]
            verification: &'a bbx::verify::Verification,
            source: Source<'a>,
            seconds: f64,
        }
        /// Where the spectra came from.
        #[derive(serde::Serialize)]
        struct Source<'a> {
            kind: &'a str,
            db: Option<&'a str>,
        }
        let from = match &source {
            SpectraSource::Catalogue(db) => Source {
                kind: "catalogue",
                db: Some(db),
            },
            SpectraSource::Census(db) => Source {
                kind: "census",
                db: Some(db),
            },
            SpectraSource::Enumeration => Source {
                kind: "enumeration",
                db: None,
            },
        };
        let verified = Verified {
            verification: &v,
            source: from,
            seconds: (secs * 1000.0).round() / 1000.0,
        };
        return Ok((json(&verified)?, code));
    }
    let text = bbx::render::verify_text(&v, &source.to_string(), &options, secs);
    Ok((text, code))
}

/// Parses `--sample N`: a whole number of spectra, at least 1 (a sample of
/// none would check nothing and still report agreement).
fn parse_sample(s: &str) -> Result<usize, String> {
    match s.trim().parse::<usize>() {
        Ok(0) => Err("--sample 0 would check nothing: give at least 1 spectrum".into()),
        Ok(n) => Ok(n),
        Err(_) => Err(format!(
            "expected a number of spectra (a whole number, at least 1), not '{s}'"
        )),
    }
}
