//! `bbx explore`.

use std::time::Instant;

use bbx::Config;
use bbx::catalogue::{Catalogue, ExploreOptions, ExploreReport, Progress, busy_ms};
use bbx::control::Budget;
use bbx::error::quantity;

use crate::cli::{Quiet, Workers};
use crate::exit::{Status, ctrl_c, faults, interrupt};
use crate::output::json;
use crate::progress::progress_bar;

#[derive(clap::Args)]
#[command(
    after_help = "Examples:\n  bbx explore A4_B6\n  bbx explore A4_B8 --db catalogue.sqlite",
    after_long_help = "Interrupted (Ctrl-C) or killed, it loses nothing committed: run the same\ncommand to resume.\n\nExamples:\n  bbx explore A4_B6\n  bbx explore A4_B8 --db catalogue.sqlite\n  bbx explore A4_B8 --fresh\n  bbx explore A4_B6 --json"
)]
pub struct Args {
    /// The configuration, e.g. A4_B8.
    config: Config,
    /// The catalogue file [default: bbx.sqlite in your data directory]
    #[arg(long, value_name = "FILE", env = "BBX_DB", default_value_t = crate::catalogues::default_path(),
        hide_default_value = true, long_help = crate::catalogues::help("The catalogue file, created if absent."))]
    db: String,
    /// Delete what is stored for this configuration and explore it again.
    #[arg(long)]
    fresh: bool,
    /// Explore a configuration above the size limit.
    #[arg(long)]
    force: bool,
    #[command(flatten)]
    quiet: Quiet,
    /// Print one JSON object instead of text.
    #[arg(long)]
    json: bool,
    #[command(flatten)]
    workers: Workers,
}

pub fn run(args: Args) -> bbx::Result<(String, Status)> {
    args.workers.apply()?;
    // Refuse before the file is created, so that a refusal leaves none behind.
    Catalogue::explorable(args.config, args.force)?;
    let faults = faults()?;
    crate::catalogues::prepare(&args.db)?;
    let mut cat = Catalogue::open_waiting(&args.db, busy_ms(&faults))?;
    // A second Ctrl-C stops at once: the last commit is safe.
    ctrl_c();
    let options = ExploreOptions {
        fresh: args.fresh,
        force: args.force,
        budget: Budget::default()
            .with_cancel(interrupt())
            .with_faults(faults),
    };
    let bar = progress_bar(args.quiet.quiet, "molecules", args.config.to_string());
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
    let code = if done.ended.is_complete() {
        Status::Done
    } else {
        if done.stored == done.nb_mol {
            eprintln!(
                "interrupted: every molecule is stored in {}, but not yet the table of shared spectra; run the same command to finish",
                args.db
            );
        } else {
            eprintln!(
                "interrupted: molecules 1 to {} of {} are stored in {}; run the same command to resume",
                done.stored, done.nb_mol, args.db
            );
        }
        Status::Interrupted
    };
    if args.json {
        let report = ExploreReport::new(args.config, &args.db, done, secs);
        return Ok((json(&report)?, code));
    }
    let molecules = quantity(done.nb_mol, "molecule", "molecules");
    let ambiguous = quantity(
        done.ambiguous_spectra,
        "ambiguous spectrum",
        "ambiguous spectra",
    );
    if done.already_complete {
        return Ok((
            format!(
                "{} is already complete in {}: {molecules}, {ambiguous} (--fresh rebuilds it)\n",
                args.config, args.db
            ),
            code,
        ));
    }
    if !done.ended.is_complete() {
        return Ok((String::new(), code));
    }
    let resumed = if done.resumed_from > 0 {
        format!(" (resumed after molecule {})", done.resumed_from)
    } else {
        String::new()
    };
    Ok((
        format!(
            "{}: {molecules} stored in {}{resumed}, {ambiguous}, in {secs:.2} s\n",
            args.config, args.db
        ),
        code,
    ))
}
