//! `bbx stats`.

use std::process::ExitCode;

use bbx::Config;
use bbx::catalogue::{Catalogue, ExploreOptions, Progress};

use crate::cli::{Quiet, json, open_complete, progress_bar, spinner};

#[derive(clap::Args)]
#[command(
    after_help = "Reads a complete catalogue from --db; without one, computes in memory and says so.\n\nExamples:\n  bbx stats A4_B6\n  bbx stats A4_B8 --json"
)]
pub struct Args {
    /// The configuration, e.g. A4_B8.
    config: Config,
    /// The catalogue file.
    #[arg(long, default_value = "bbx.sqlite", value_name = "FILE")]
    db: String,
    /// Print one JSON object instead of text.
    #[arg(long)]
    json: bool,
    #[command(flatten)]
    quiet: Quiet,
}

pub fn run(args: Args) -> bbx::Result<(String, ExitCode)> {
    inner(args).map(|text| (text, ExitCode::SUCCESS))
}

fn inner(args: Args) -> bbx::Result<String> {
    let config = args.config;
    let quiet = args.quiet.quiet;
    let (cat, in_memory) = match open_complete(&args.db, config)? {
        Some(cat) => (cat, false),
        None => {
            let mut cat = Catalogue::open_in_memory()?;
            let bar = progress_bar(quiet, "molecules", format!("{config} in memory"));
            let done = cat.explore(config, &ExploreOptions::default(), |p| match p {
                Progress::Molecules(stored, total) => {
                    bar.set_length(total);
                    bar.set_position(stored);
                }
                Progress::Spectra => bar.set_message(format!("{config} in memory: spectra")),
            });
            bar.finish_and_clear();
            done?;
            (cat, true)
        }
    };
    let spinner = spinner(quiet, format!("stats {config}: groups and ray records"));
    let report = cat.stats_report(config, in_memory);
    spinner.finish_and_clear();
    let report = report?;
    if args.json {
        json(&report)
    } else {
        Ok(bbx::render::stats_text(&report))
    }
}
