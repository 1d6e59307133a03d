//! `bbx show`.

use bbx::Config;
use bbx::catalogue::ShownRows;

use crate::cli::Quiet;
use crate::exit::Status;
use crate::output::json;

#[derive(clap::Args)]
#[command(
    after_help = "Examples:\n  bbx explore A4_B6         (once: the catalogue show reads)\n  bbx show A4_B6 868 15993\n  bbx show A4_B6 --group 868",
    after_long_help = "Examples:\n  bbx explore A4_B6         (once: the catalogue show reads)\n  bbx show A4_B6 868 15993\n  bbx show A4_B6 --from 5 --to 10\n  bbx show A4_B6 --spectrum '@&@&@&@a@bcda@b@&@dc&@&@'\n  bbx show A4_B6 --group 868"
)]
pub struct Args {
    /// The configuration, e.g. A4_B8.
    config: Config,
    /// Molecule numbers.
    #[arg(allow_negative_numbers = true, value_parser = crate::values::whole::<u64>("a molecule number", 1, None))]
    numbers: Vec<u64>,
    /// First number of a range.
    #[arg(long, value_name = "N", allow_negative_numbers = true, value_parser = crate::values::whole::<u64>("a molecule number", 1, None))]
    from: Option<u64>,
    /// Last number of a range.
    #[arg(long, value_name = "N", allow_negative_numbers = true, value_parser = crate::values::whole::<u64>("a molecule number", 1, None))]
    to: Option<u64>,
    /// Every molecule with this spectrum.
    #[arg(long, value_name = "SPECTRUM")]
    spectrum: Option<String>,
    /// The spectral group of molecule N, side by side.
    #[arg(long, value_name = "N", allow_negative_numbers = true, value_parser = crate::values::whole::<u64>("a molecule number", 1, None))]
    group: Option<u64>,
    /// The catalogue file [default: bbx.sqlite in your data directory]
    #[arg(long, value_name = "FILE", env = "BBX_DB", default_value_t = crate::catalogues::default_path(),
        hide_default_value = true, long_help = crate::catalogues::help("The catalogue file: a complete catalogue, or a census stored by `bbx stats --store-groups`."))]
    db: String,
    /// Borders in Emacs notation: H, R and digits
    ///
    /// On the boards' borders, up to 9 exit pairs (past them, letters); the
    /// spectra, as strings, stay in letters.
    #[arg(long)]
    emacs: bool,
    /// Print one JSON object instead of text.
    #[arg(long)]
    json: bool,
    /// Taken as by every command: nothing is shown while it works.
    #[command(flatten)]
    _quiet: Quiet,
}

pub fn run(args: Args) -> bbx::Result<(String, Status)> {
    let config = args.config;
    // A complete catalogue, or a census's groups (any other molecule is
    // traced on the spot, and a spectrum not stored is one molecule's own).
    let busy_ms = bbx::catalogue::busy_ms(&crate::exit::faults()?);
    crate::catalogues::prepare(&args.db)?;
    let store = bbx::census::source::rows(&args.db, config, busy_ms)?;
    let total = config.molecule_count().unwrap_or(0);
    let check = |n: u64| {
        if n == 0 || n > total {
            Err(bbx::Error::invalid(format!(
                "molecule number {n} is out of range: {config} has molecules 1 to {total}"
            )))
        } else {
            Ok(n)
        }
    };
    let mut rows = Vec::new();
    for &n in &args.numbers {
        rows.extend(store.molecule(check(n)?)?);
    }
    if args.from.is_some() || args.to.is_some() {
        let from = check(args.from.unwrap_or(1))?;
        let to = check(args.to.unwrap_or(total))?;
        if from > to {
            return Err(bbx::Error::invalid(format!(
                "--from {from} --to {to} is an empty range: the first number comes after the last"
            )));
        }
        if to.saturating_sub(from) > 10_000 {
            return Err(bbx::Error::invalid(format!(
                "--from {from} --to {to} is more than 10000 molecules: ask for fewer"
            )));
        }
        rows.extend(store.molecules(from, to)?);
    }
    if let Some(s) = &args.spectrum {
        let n = s.trim().chars().count();
        if n != config.positions() {
            let parsed = bbx::Spectrum::parse(s, "--spectrum")?;
            return Err(bbx::Error::invalid(format!(
                "--spectrum has {} positions but {config} has {}",
                parsed.outcomes().len(),
                config.positions()
            )));
        }
        let parsed = bbx::Spectrum::parse_in(s, config.shape(), "--spectrum")?;
        rows.extend(store.spectrum_group(&parsed)?);
    }
    let mut group = None;
    if let Some(n) = args.group {
        let row = store
            .molecule(check(n)?)?
            .ok_or_else(|| bbx::Error::invalid(format!("molecule {n} is not stored")))?;
        group = Some(store.group_of(row)?);
    }
    if rows.is_empty() && group.is_none() {
        return Err(bbx::Error::invalid(
            "say which molecules: numbers, --from/--to, --spectrum or --group",
        ));
    }
    if args.json {
        return Ok((json(&ShownRows::new(config, rows, group))?, Status::Done));
    }
    let notation = bbx::rules::notation::Notation::emacs_if(args.emacs);
    let mut out = String::new();
    for (i, r) in rows.iter().enumerate() {
        if i > 0 {
            out.push('\n');
        }
        out.push_str(&bbx::render::molecule_row_in(config, r, notation));
    }
    if let Some(g) = group {
        if !out.is_empty() {
            out.push('\n');
        }
        // As many boards a row as the terminal holds (4 where its width is
        // not known): a board is 2p + 5 columns, its label 10 and the
        // number's digits, with 4 between boards.
        let digits = g
            .iter()
            .map(|r| r.number.to_string().len())
            .max()
            .unwrap_or(1);
        let board = (2 * config.width + 5).max(10 + digits);
        let per_line = crate::fit::columns().map_or(4, |w| ((w + 4) / (board + 4)).max(1));
        out.push_str(&bbx::render::spectral_group_in(
            config, &g, per_line, notation,
        ));
    }
    Ok((crate::fit::fit(&out), Status::Done))
}
