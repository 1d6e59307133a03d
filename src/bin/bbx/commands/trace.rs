//! `bbx trace`.

use bbx::puzzle::load_molecule;
use bbx::render;
use bbx::rules::notation::Notation;
use bbx::rules::trace_report::TraceReport;
use bbx::{Config, Rules};

use crate::cli::Quiet;
use crate::exit::Status;
use crate::output::json;

#[derive(clap::Args)]
#[command(
    override_usage = "bbx trace [OPTIONS] [CONFIG] <MOLECULE>",
    after_help = "Examples:\n  bbx trace O-O-------------\n  bbx trace A4_B6 868 --ray 3",
    after_long_help = "A linear form may start with '-' (an empty first cell): it is read as the\nmolecule, not as an option; '-' alone is standard input.\n\nExamples:\n  bbx trace O-O-------------\n  bbx trace A4_B6 868\n  bbx trace -O-O------------ --json\n  bbx trace seed-23-cell-path --ray 31"
)]
pub struct Args {
    /// The configuration, e.g. A4_B6 (before a molecule number)
    ///
    /// Needed before a molecule number, and otherwise checked against the
    /// molecule.
    #[arg(value_name = "CONFIG", allow_hyphen_values = true)]
    first: Option<String>,
    /// The molecule: linear form, file, `-`, built-in puzzle or number
    ///
    /// Its linear form (`O` atom, `-` or `.` empty, row by row; a
    /// rectangle's rows separated by `/`, or not when its configuration
    /// comes first), a file holding that or a picture in J. Forget's
    /// display, `-` for standard input, the name of a built-in puzzle
    /// holding a picture, or a molecule number after the configuration.
    #[arg(value_name = "MOLECULE", allow_hyphen_values = true)]
    second: Option<String>,
    /// The configuration, as an option (the same as CONFIG).
    #[arg(long, value_name = "CONFIG")]
    config: Option<Config>,
    /// Ray rules
    #[arg(long, value_name = "RULES", value_parser = crate::values::rules(), ignore_case = true, default_value = "standard")]
    rules: Rules,
    /// Draw the ray shot from position K (repeatable)
    ///
    /// Draws the path of the ray shot from border position K on the board,
    /// and describes it.
    #[arg(long = "ray", value_name = "K", allow_negative_numbers = true,
        value_parser = crate::values::whole::<usize>("a border position", 0, None))]
    rays: Vec<usize>,
    /// Borders in Emacs notation: H, R and digits
    #[arg(long)]
    emacs: bool,
    /// Print one JSON object instead of text.
    #[arg(long)]
    json: bool,
    /// Taken as by every command: nothing is shown while it works.
    #[command(flatten)]
    _quiet: Quiet,
}

impl Args {
    /// The molecule argument and the configuration, from `[CONFIG] MOLECULE`
    /// and `--config`. The positionals take values that start with '-', so
    /// a mistyped option lands here and is refused as one.
    fn molecule_and_config(&self) -> bbx::Result<(&str, Option<Config>)> {
        for word in self.first.iter().chain(&self.second) {
            let molecule_like = word
                .chars()
                .all(|c| matches!(c, 'O' | 'o' | '-' | '.' | '/'));
            if word.len() > 1
                && word.starts_with('-')
                && !molecule_like
                && !std::path::Path::new(word).exists()
            {
                return Err(bbx::Error::invalid(format!(
                    "unexpected argument {}: `bbx trace --help` lists the options",
                    bbx::error::quote(word)
                )));
            }
        }
        let (molecule, config) = match (&self.first, &self.second) {
            (Some(config), Some(molecule)) => {
                let config: Config = config.parse().map_err(|e| match e {
                    bbx::Error::Config { input, reason } => bbx::Error::Config {
                        input,
                        reason: format!(
                            "{reason}; the configuration comes first, before the molecule: bbx trace A4_B6 868"
                        ),
                    },
                    other => other,
                })?;
                (molecule.as_str(), Some(config))
            }
            (Some(molecule), None) | (None, Some(molecule)) => (molecule.as_str(), None),
            (None, None) => {
                return Err(bbx::Error::invalid(
                    "no molecule given: bbx trace MOLECULE (e.g. O-O-------------), or bbx trace CONFIG NUMBER (e.g. A4_B6 868)",
                ));
            }
        };
        match (config, self.config) {
            (Some(a), Some(b)) if a != b => Err(bbx::Error::invalid(format!(
                "two configurations, {a} and --config {b}: give one"
            ))),
            (a, b) => Ok((molecule, a.or(b))),
        }
    }
}

pub fn run(args: Args) -> bbx::Result<(String, Status)> {
    let (molecule, config) = args.molecule_and_config()?;
    let m = match crate::samples::find(molecule) {
        Some(sample) => {
            let m = bbx::puzzle::parse_molecule(sample.text, sample.name)?;
            if let Some(c) = config {
                m.check_config(c)?;
            }
            m
        }
        None => load_molecule(molecule, config).map_err(crate::samples::not_found)?,
    };
    let positions = m.shape().positions();
    if let Some(&k) = args.rays.iter().find(|&&k| k == 0 || k > positions) {
        return Err(bbx::Error::invalid(format!(
            "--ray {k}: border positions of a {} box are 1 to {positions}",
            m.shape()
        )));
    }
    let report = TraceReport::new(&m, args.rules, &args.rays);
    if args.json {
        return Ok((json(&report)?, Status::Done));
    }
    let notation = Notation::emacs_if(args.emacs);
    if args.rays.is_empty() {
        return Ok((render::trace_text(&report, notation), Status::Done));
    }
    let mut out = render::trace_header(&report);
    for &k in &args.rays {
        out.push('\n');
        out.push_str(&render::ray_text(&report, k).unwrap_or_default());
    }
    Ok((out, Status::Done))
}
