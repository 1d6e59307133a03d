//! `bbx trace`.

use std::process::ExitCode;

use bbx::puzzle::load_molecule;
use bbx::render::{self, Notation};
use bbx::rules::report::TraceReport;
use bbx::{Config, Rules};

#[derive(clap::Args)]
#[command(
    after_help = "Examples:\n  bbx trace O-O-------------\n  bbx trace --config A4_B6 868\n  bbx trace puzzles/seed-23-cell-path.txt --ray 31\n  bbx trace O-O------------- --json"
)]
pub struct Args {
    /// The molecule: its linear form (`O` atom, `-` or `.` empty, row by row), a
    /// file holding that or a picture in the seed's display, `-` for standard
    /// input, or a molecule number together with --config.
    molecule: String,
    /// Check that the molecule belongs to this configuration (e.g. A4_B8).
    #[arg(long, value_name = "An_Bp")]
    config: Option<Config>,
    /// Ray rules.
    #[arg(long, default_value = "standard", value_name = "standard|edge-miss")]
    rules: Rules,
    /// Draw the path of the ray shot from border position K and describe it
    /// (repeatable).
    #[arg(long = "ray", value_name = "K")]
    rays: Vec<usize>,
    /// Write the border in Emacs notation (H, R, digits) instead of @, & and letters.
    #[arg(long)]
    emacs: bool,
    /// Print one JSON object instead of text.
    #[arg(long)]
    json: bool,
}

pub fn run(args: Args) -> bbx::Result<(String, ExitCode)> {
    inner(args).map(|text| (text, ExitCode::SUCCESS))
}

fn inner(args: Args) -> bbx::Result<String> {
    let m = load_molecule(&args.molecule, args.config)?;
    let positions = 4 * m.width();
    if let Some(&k) = args.rays.iter().find(|&&k| k == 0 || k > positions) {
        return Err(bbx::Error::Invalid(format!(
            "--ray {k}: border positions of a {w}×{w} box are 1 to {positions}",
            w = m.width()
        )));
    }
    let report = TraceReport::new(&m, args.rules, &args.rays);
    if args.json {
        let mut s = serde_json::to_string_pretty(&report)
            .map_err(|e| bbx::Error::Invalid(e.to_string()))?;
        s.push('\n');
        return Ok(s);
    }
    let notation = if args.emacs {
        Notation::Emacs
    } else {
        Notation::Seed
    };
    if args.rays.is_empty() {
        return Ok(render::trace_text(&report, notation));
    }
    let mut out = render::trace_header(&report);
    for &k in &args.rays {
        out.push('\n');
        out.push_str(&render::ray_text(&report, k).unwrap_or_default());
    }
    Ok(out)
}
