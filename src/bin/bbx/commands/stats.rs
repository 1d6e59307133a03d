//! `bbx stats`.

use std::process::ExitCode;

use bbx::Config;
use bbx::catalogue::{Catalogue, ExploreOptions};

use crate::cli::{json, open_complete};

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
}

pub fn run(args: Args) -> bbx::Result<(String, ExitCode)> {
    inner(args).map(|text| (text, ExitCode::SUCCESS))
}

fn inner(args: Args) -> bbx::Result<String> {
    let config = args.config;
    let report = match open_complete(&args.db, config)? {
        Some(cat) => cat.stats_report(config)?,
        None => {
            let mut cat = Catalogue::open_in_memory()?;
            cat.explore(config, &ExploreOptions::default(), |_| {})?;
            cat.stats_report(config)?
        }
    };
    if args.json {
        json(&report)
    } else {
        Ok(bbx::render::stats_text(&report))
    }
}
