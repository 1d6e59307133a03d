//! `bbx stats`.

use bbx::Config;
use bbx::census::CensusOptions;
use bbx::census::source::{Step, Tables, TablesOptions, kept, tables};

use crate::cli::Quiet;
use crate::exit::{Status, ctrl_c};
use crate::output::{interrupted, json};
use crate::progress::{progress_bar, spinner};
use crate::work::{CensusArgs, interrupted_census, note_unfinished};

#[derive(clap::Args)]
#[command(
    after_help = "Examples:\n  bbx stats A4_B6\n  bbx stats A6_B10 --store-groups --db a6-b10.sqlite",
    after_long_help = "\
Reads a complete catalogue from --db, or the report of a census stored there \
with --store-groups; without either, counts with a census: one \
molecule traced per orbit under the symmetries, 16 bytes kept per orbit in \
partition files in a directory it makes under --work-dir, grouped one partition at a time within \
--memory. Interrupted (Ctrl-C) or killed, the same command resumes it.

Several machines: run the same command on each, with --processes N, \
--process I (0 to N-1) and --hostfile FILE (one HOST:PORT line per process); \
process 0 prints the report. The processes compare their settings when they \
connect and refuse to start when any differs. A process that loses another \
stops with exit status 3, keeping its work: the same commands resume it.

Examples:
  bbx stats A4_B6
  bbx stats A6_B8 --json
  bbx stats A6_B10 --store-groups --db a6-b10.sqlite
  bbx stats A6_B8 --processes 2 --process 0   (and --process 1 beside it)"
)]
pub struct Args {
    /// The configuration, e.g. A4_B8.
    config: Config,
    /// The catalogue file [default: bbx.sqlite in your data directory]
    #[arg(long, value_name = "FILE", env = "BBX_DB", default_value_t = crate::catalogues::default_path(),
        hide_default_value = true, long_help = crate::catalogues::help("The catalogue file: read when it holds the configuration complete or a census of it stored with --store-groups; written only with --store-groups."))]
    db: String,
    /// Print one JSON object instead of text.
    #[arg(long)]
    json: bool,
    /// Count with a census even when --db holds the tables
    #[arg(long)]
    census: bool,
    /// Store the census's groups in --db, for show and verify
    ///
    /// The ambiguous spectra and their molecules, marked as a census, not a
    /// catalogue, for `bbx show --group` and `bbx verify --ambiguous`.
    #[arg(long)]
    store_groups: bool,
    /// Trace every molecule, not one per orbit (to cross-check)
    #[arg(long)]
    no_symmetry: bool,
    #[command(flatten)]
    quiet: Quiet,
    #[command(flatten)]
    census_args: CensusArgs,
}

pub fn run(args: Args) -> bbx::Result<(String, Status)> {
    let config = args.config;
    let cluster = args.census_args.cluster()?;
    crate::catalogues::prepare(&args.db)?;
    let options = TablesOptions {
        db: args.db.clone(),
        count: args.census,
        store: args.store_groups,
        census: CensusOptions {
            symmetry: !args.no_symmetry,
            ..args.census_args.options(cluster.clone())?
        },
    };
    let quiet = args.quiet.quiet;
    let mut shown: Option<indicatif::ProgressBar> = None;
    let found = tables(config, &options, |step| match step {
        Step::Reading => {
            shown = Some(spinner(
                quiet,
                format!("stats {config}: groups and ray records"),
            ))
        }
        Step::Counting => {
            // A second Ctrl-C stops at once: the last checkpoint is safe.
            ctrl_c();
            note_unfinished(bbx::census::unfinished(config, &options.census));
            shown = Some(progress_bar(quiet, "molecules", format!("census {config}")));
        }
        Step::Counted { counted, share } => {
            // With several processes the share is an estimate, which may be passed.
            if let Some(bar) = &shown {
                bar.set_length(share.max(counted));
                bar.set_position(counted);
            }
        }
        Step::Storing => {
            if let Some(bar) = shown.take() {
                bar.finish_and_clear();
            }
        }
    });
    if let Some(shown) = shown {
        shown.finish_and_clear();
    }
    let (report, stored) = match found? {
        Tables::Report { report, stored } => (report, stored),
        Tables::Interrupted(done) => {
            let message = interrupted_census(&done, &cluster, "grouping", "the work");
            return Ok(interrupted(args.json, &message));
        }
        Tables::ShareDone => {
            eprintln!("{}", cluster.share_done(config, "census", "report"));
            return Ok((String::new(), Status::Done));
        }
        Tables::StoreInterrupted(work_dir, _) => {
            let db = &args.db;
            let what = format!("interrupted: the groups were not stored, and {db} is as it was");
            let message = kept(&work_dir, what.into(), false).show(&crate::output::Flags);
            return Ok(interrupted(args.json, &message));
        }
    };
    if let Some(stored) = stored {
        eprintln!(
            "stored {} ambiguous spectra and their {} molecules in {} (marked as a census of {config})",
            stored.spectra, stored.molecules, args.db
        );
    }
    Ok((output(&report, args.json)?, Status::Done))
}

fn output(report: &bbx::tables::StatsReport, as_json: bool) -> bbx::Result<String> {
    if as_json {
        json(report)
    } else {
        Ok(crate::fit::fit(&bbx::render::stats_text(report)))
    }
}
