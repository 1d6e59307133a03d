//! `bbx verify`.

use std::time::Instant;

use bbx::verify::{Spectra, SpectraSource, Streaming, Verified};
use bbx::{Config, Rules};

use crate::cli::{Quiet, Seed};
use crate::exit::{Status, ctrl_c, faults, interrupt};
use crate::output::{interrupted, json};
use crate::progress::{progress_bar, spinner};
use crate::work::{CensusArgs, interrupted_census, note_unfinished};

#[derive(clap::Args)]
#[command(
    after_help = "Examples:\n  bbx verify A4_B6\n  bbx verify A4_B8 --ambiguous",
    after_long_help = "Reads the spectra from --db when it holds the configuration complete (or, with --ambiguous, a census's stored groups). Otherwise, under the standard rules and with full spectra, a census (as `bbx stats` runs it, on the same --workers, --processes, --memory and --work-dir, resumed the same way after Ctrl-C or a kill) hands every class of ambiguous spectra it forms straight to SAT, then a uniform random sample of --sample unique spectra (default 100000); with --partial or --rules edge-miss the spectra are enumerated in memory.\n\nExit status: 0 everything agrees, 1 a mismatch (listed), 2 bad input, 3 failure, 130 interrupted.\n\nExamples:\n  bbx verify A4_B6\n  bbx verify A6_B8 --workers 2\n  bbx verify A4_B8 --ambiguous\n  bbx verify A4_B8 --sample 10000 --partial 0.5 --seed 1"
)]
pub struct Args {
    /// The configuration, e.g. A4_B6.
    config: Config,
    /// The catalogue file [default: bbx.sqlite in your data directory]
    #[arg(long, value_name = "FILE", env = "BBX_DB", default_value_t = crate::catalogues::default_path(),
        hide_default_value = true, long_help = crate::catalogues::help("The catalogue file, read when it holds the configuration complete (or, with --ambiguous, a census's stored groups)."))]
    db: String,
    /// Check the ambiguous spectra and N unique ones [default: all]
    ///
    /// Every ambiguous spectrum and N unique ones drawn at random [default:
    /// every spectrum, or 100000 unique ones when a census streams the
    /// groups; see the guide].
    #[arg(long, value_name = "N", value_parser = crate::values::parse_sample, allow_negative_numbers = true)]
    sample: Option<usize>,
    #[command(flatten)]
    seed: Seed,
    /// Check only the spectra shared by two molecules or more
    #[arg(long)]
    ambiguous: bool,
    /// Hide this fraction of each spectrum's rays (0 to 1)
    ///
    /// Chosen at random; an exit pair counts as one ray.
    #[arg(long, value_name = "F", value_parser = crate::values::fraction, allow_negative_numbers = true)]
    partial: Option<f64>,
    /// Ray rules.
    #[arg(long, value_name = "RULES", value_parser = crate::values::rules(), ignore_case = true, default_value = "standard")]
    rules: Rules,
    #[command(flatten)]
    quiet: Quiet,
    /// Print one JSON object instead of text.
    #[arg(long)]
    json: bool,
    #[command(flatten)]
    census_args: CensusArgs,
}

pub fn run(args: Args) -> bbx::Result<(String, Status)> {
    let config = args.config;
    let seed = match args.seed.given() {
        Some(seed) => bbx::verify::Seed::Given(seed),
        None => bbx::verify::Seed::Drawn(args.seed.value()?),
    };
    let options = bbx::verify::VerifyOptions {
        rules: args.rules,
        sample: args.sample,
        seed,
        ambiguous_only: args.ambiguous,
        partial: args.partial,
        // Ctrl-C is caught once the spectra are enumerated or checked.
        budget: bbx::control::Budget::default()
            .with_cancel(interrupt())
            .with_faults(faults()?),
    };
    crate::catalogues::prepare(&args.db)?;
    let start = Instant::now();
    let mut reading = None;
    let found = bbx::verify::spectra_or_stream(config, &args.db, &options, |source| {
        if *source == SpectraSource::Enumeration {
            ctrl_c();
        }
        reading = Some(spinner(
            args.quiet.quiet,
            format!("verify {config}: {}", source.reading()),
        ));
    });
    if let Some(spinner) = reading {
        spinner.finish_and_clear();
    }
    let (groups, source) = match found? {
        Spectra::Groups(groups, source) => (groups, source),
        Spectra::Stream => return stream(&args, options, start),
        Spectra::Stopped(_) => {
            let message = format!(
                "interrupted while enumerating the spectra of {config}: nothing was checked"
            );
            return Ok(interrupted(args.json, &message));
        }
    };
    ctrl_c();
    let bar = progress_bar(args.quiet.quiet, "spectra", format!("verify {config}"));
    let v = bbx::verify::verify_spectra(config, groups, &options, |done, total| {
        bar.set_length(total as u64);
        bar.set_position(done as u64);
    });
    bar.finish_and_clear();
    let Ok(v) = v?.whole() else {
        let message = "interrupted: not every spectrum was checked, so there is no verdict";
        return Ok(interrupted(args.json, message));
    };
    let code = if v.agrees() { Status::Done } else { Status::No };
    let secs = start.elapsed().as_secs_f64();
    if args.json {
        return Ok((json(&Verified::new(&v, Some(&source), secs))?, code));
    }
    let text = bbx::render::verify_text(&v, &source.to_string(), &options, secs);
    Ok((crate::fit::fit(&text), code))
}

/// `bbx verify` with a census streaming the groups to SAT.
fn stream(
    args: &Args,
    options: bbx::verify::VerifyOptions,
    start: Instant,
) -> bbx::Result<(String, Status)> {
    let config = args.config;
    let cluster = args.census_args.cluster()?;
    let census_options = args.census_args.options(cluster.clone())?;
    // A second Ctrl-C stops at once: the last checkpoint is safe.
    ctrl_c();
    let unfinished = bbx::verify::unfinished(config, &options, census_options.clone());
    note_unfinished(unfinished);
    let quiet = args.quiet.quiet;
    let bar = progress_bar(quiet, "molecules", format!("verify {config}: census"));
    let mut checking = false;
    let done = bbx::verify::verify_streaming(config, &options, census_options, |p| {
        let Some((handed, estimate)) = p.handing() else {
            // With several processes the share is an estimate, which may be passed.
            bar.set_length(p.share.max(p.counted));
            return bar.set_position(p.counted);
        };
        if !checking {
            // The census's records are grouped and checked: spectra now.
            checking = true;
            bar.reset();
            bar.set_message(format!("verify {config}: SAT"));
        }
        bar.set_length(estimate);
        bar.set_position(handed);
    });
    bar.finish_and_clear();
    let streamed = match done? {
        Streaming::Done(s) => s,
        Streaming::ShareDone => {
            eprintln!("{}", cluster.share_done(config, "verify", "verdict"));
            return Ok((String::new(), Status::Done));
        }
        Streaming::Interrupted(done) => {
            let message =
                interrupted_census(&done, &cluster, "checking", "the work and the checks done");
            return Ok(interrupted(args.json, &message));
        }
    };
    let v = &streamed.verification;
    let code = if v.agrees() { Status::Done } else { Status::No };
    let secs = start.elapsed().as_secs_f64();
    if args.json {
        return Ok((json(&Verified::new(&streamed, None, secs))?, code));
    }
    let text = bbx::render::verify_streamed_text(&streamed, &options, secs);
    Ok((crate::fit::fit(&text), code))
}
