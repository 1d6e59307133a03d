//! `bbx show`.

use bbx::catalogue::{Catalogue, MoleculeRow};
use bbx::rules::enumeration::unrank;
use bbx::{Config, Rules, Tracer};

use crate::cli::{Status, json, nothing_stored, open_census, open_complete};

#[derive(clap::Args)]
#[command(
    after_help = "Examples:\n  bbx show A4_B6 868 15993\n  bbx show A4_B6 --from 5 --to 10\n  bbx show A4_B6 --spectrum '@&@&@&@a@bcda@b@&@dc&@&@'\n  bbx show A4_B6 --group 868"
)]
pub struct Args {
    /// The configuration, e.g. A4_B8.
    config: Config,
    /// Molecule numbers.
    numbers: Vec<u64>,
    /// First number of a range.
    #[arg(long, value_name = "N")]
    from: Option<u64>,
    /// Last number of a range.
    #[arg(long, value_name = "N")]
    to: Option<u64>,
    /// Every molecule with this spectrum.
    #[arg(long, value_name = "SPECTRUM")]
    spectrum: Option<String>,
    /// The spectral group of molecule N, side by side.
    #[arg(long, value_name = "N")]
    group: Option<u64>,
    /// The catalogue file (a complete catalogue, or a census stored by `bbx stats
    /// --store-groups`).
    #[arg(long, default_value = "bbx.sqlite", value_name = "FILE")]
    db: String,
    /// Print one JSON object instead of text.
    #[arg(long)]
    json: bool,
    /// How long to wait for other programs to let go of --db, in
    /// milliseconds (for tests).
    #[arg(long, hide = true, value_name = "MS", default_value_t = bbx::catalogue::BUSY_TIMEOUT_MS)]
    busy_ms: u32,
}

pub fn run(args: Args) -> bbx::Result<(String, Status)> {
    inner(args).map(|text| (text, Status::Done))
}

/// Where the rows come from: a complete catalogue, or a stored census (its
/// ambiguous groups; any other molecule is traced on the spot, and a spectrum
/// not stored is one molecule's own).
enum Rows {
    Catalogue(Catalogue),
    Census(Catalogue),
}

impl Rows {
    fn molecule(&self, config: Config, n: u64) -> bbx::Result<Option<MoleculeRow>> {
        match self {
            Rows::Catalogue(cat) => cat.molecule(config, n),
            Rows::Census(_) => {
                let m = unrank(config, n)?;
                let mut tracer = Tracer::new(config.width, Rules::Standard);
                Ok(Some(MoleculeRow::compute(&mut tracer, &m, n)))
            }
        }
    }

    fn molecules(&self, config: Config, from: u64, to: u64) -> bbx::Result<Vec<MoleculeRow>> {
        match self {
            Rows::Catalogue(cat) => cat.molecules(config, from, to),
            Rows::Census(_) => (from..=to)
                .filter_map(|n| self.molecule(config, n).transpose())
                .collect(),
        }
    }

    fn with_spectrum(&self, config: Config, spectrum: &str) -> bbx::Result<Vec<MoleculeRow>> {
        match self {
            Rows::Catalogue(cat) => cat.with_spectrum(config, spectrum),
            Rows::Census(cat) => cat.census_with_spectrum(config, spectrum),
        }
    }

    fn group(&self, config: Config, row: MoleculeRow) -> bbx::Result<Vec<MoleculeRow>> {
        let found = self.with_spectrum(config, &row.spectrum)?;
        Ok(if found.is_empty() { vec![row] } else { found })
    }
}

fn inner(args: Args) -> bbx::Result<String> {
    let config = args.config;
    let cat = match open_complete(&args.db, config, args.busy_ms)? {
        Some(cat) => Rows::Catalogue(cat),
        None => match open_census(&args.db, config, args.busy_ms)? {
            Some((cat, _)) => Rows::Census(cat),
            None => return Err(nothing_stored(&args.db, config)),
        },
    };
    let total = config.molecule_count().unwrap_or(0);
    let check = |n: u64| {
        if n == 0 || n > total {
            Err(bbx::Error::Invalid(format!(
                "molecule number {n} is out of range: {config} has molecules 1 to {total}"
            )))
        } else {
            Ok(n)
        }
    };
    let mut rows = Vec::new();
    for &n in &args.numbers {
        rows.extend(cat.molecule(config, check(n)?)?);
    }
    if args.from.is_some() || args.to.is_some() {
        let from = check(args.from.unwrap_or(1))?;
        let to = check(args.to.unwrap_or(total))?;
        if from > to {
            return Err(bbx::Error::Invalid(format!(
                "--from {from} --to {to} is an empty range: the first number comes after the last"
            )));
        }
        if to.saturating_sub(from) > 10_000 {
            return Err(bbx::Error::Invalid(format!(
                "--from {from} --to {to} is more than 10000 molecules: ask for fewer"
            )));
        }
        rows.extend(cat.molecules(config, from, to)?);
    }
    if let Some(s) = &args.spectrum {
        let parsed = bbx::Spectrum::parse(s, "--spectrum")?;
        if parsed.width() != config.width {
            return Err(bbx::Error::Invalid(format!(
                "--spectrum has {} positions but {config} has {}",
                4 * parsed.width(),
                4 * config.width
            )));
        }
        let found = cat.with_spectrum(config, &parsed.to_string())?;
        if found.is_empty() {
            return Err(bbx::Error::Invalid(match cat {
                Rows::Catalogue(_) => format!("no molecule of {config} has spectrum {parsed}"),
                Rows::Census(_) => format!(
                    "spectrum {parsed} is not shared by two molecules of {config} (the census in {} stores only those): `bbx solve` finds the molecules of any spectrum",
                    args.db
                ),
            }));
        }
        rows.extend(found);
    }
    let mut group = None;
    if let Some(n) = args.group {
        let row = cat
            .molecule(config, check(n)?)?
            .ok_or_else(|| bbx::Error::Invalid(format!("molecule {n} is not stored")))?;
        group = Some(cat.group(config, row)?);
    }
    if rows.is_empty() && group.is_none() {
        return Err(bbx::Error::Invalid(
            "say which molecules: numbers, --from/--to, --spectrum or --group".into(),
        ));
    }
    if args.json {
        /// The molecules asked for, and the group.
        #[derive(serde::Serialize)]
        struct Shown {
            config: String,
            rules: Rules,
            rows: Vec<MoleculeRow>,
            group: Option<Vec<MoleculeRow>>,
        }
        return json(&Shown {
            config: config.to_string(),
            rules: Rules::Standard,
            rows,
            group,
        });
    }
    let mut out = String::new();
    for (i, r) in rows.iter().enumerate() {
        if i > 0 {
            out.push('\n');
        }
        out.push_str(&bbx::render::molecule_row(config, r));
    }
    if let Some(g) = group {
        if !out.is_empty() {
            out.push('\n');
        }
        out.push_str(&bbx::render::spectral_group(config, &g, 4));
    }
    Ok(out)
}
