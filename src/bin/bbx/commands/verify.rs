//! `bbx verify`.

use std::process::ExitCode;
use std::time::Instant;

use bbx::{Config, Rules};

use crate::cli::{json, open_complete, progress_bar, spinner};

#[derive(clap::Args)]
#[command(
    after_help = "Exit status: 0 everything agrees, 1 a mismatch (listed), 2 bad input.\n\nExamples:\n  bbx verify A4_B6\n  bbx verify A4_B8 --ambiguous\n  bbx verify A4_B8 --sample 10000 --partial 0.5"
)]
pub struct Args {
    /// The configuration, e.g. A4_B6.
    config: Config,
    /// Read the spectra from this catalogue when it holds the configuration complete.
    #[arg(long, default_value = "bbx.sqlite", value_name = "FILE")]
    db: String,
    /// Check N random spectra (every ambiguous one included when there are fewer than N).
    #[arg(long, value_name = "N")]
    sample: Option<usize>,
    /// Seed for --sample and --partial.
    #[arg(long, default_value_t = 1)]
    seed: u64,
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
    /// No progress bar.
    #[arg(long, short)]
    quiet: bool,
    /// Print one JSON object instead of text.
    #[arg(long)]
    json: bool,
}

pub fn run(args: Args) -> bbx::Result<(String, ExitCode)> {
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
        sat_rules: args.rules,
        sample: args.sample,
        seed: args.seed,
        ambiguous_only: args.ambiguous,
        partial: args.partial,
    };
    let start = Instant::now();
    let catalogue = if args.rules == Rules::Standard {
        open_complete(&args.db, config)?
    } else {
        None
    };
    let spinner = spinner(
        args.quiet,
        match &catalogue {
            Some(_) => format!("verify {config}: reading the spectra from {}", args.db),
            None => format!("verify {config}: enumerating the spectra"),
        },
    );
    let groups = match &catalogue {
        Some(cat) => bbx::verify::spectra_from_catalogue(cat, config),
        None => bbx::verify::spectra(config, args.rules),
    };
    spinner.finish_and_clear();
    let groups = groups?;
    let source = match &catalogue {
        Some(_) => format!("catalogue {}", args.db),
        None => "enumeration in memory".to_string(),
    };
    let bar = progress_bar(args.quiet, "spectra", format!("verify {config}"));
    let v = bbx::verify::verify_spectra(config, groups, &options, |done, total| {
        bar.set_length(total as u64);
        bar.set_position(done as u64);
    });
    bar.finish_and_clear();
    let v = v?;
    let code = if v.agrees() {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    };
    if args.json {
        return Ok((json(&v)?, code));
    }
    let mut out = format!(
        "{config}: {} distinct spectra ({source}); {} checked{}{}, {} rules\n\n",
        v.spectra,
        v.checked,
        if args.ambiguous {
            ", ambiguous only"
        } else {
            ""
        },
        args.partial
            .map(|f| format!(", {:.0}% of rays hidden", f * 100.0))
            .unwrap_or_default(),
        args.rules
    );
    out.push_str(&format!(
        "{:>13}{:^20}{:^21}{:>12}\n{:>13}{:>9}{:>11}{:>10}{:>11}\n",
        "molecules per",
        "enumeration",
        "SAT",
        "mismatches",
        "spectrum",
        "spectra",
        "molecules",
        "spectra",
        "molecules"
    ));
    let (mut a, mut b, mut c, mut d, mut e) = (0, 0, 0, 0, 0);
    // Many sizes (hidden rays): sizes past 9 are gathered by order of magnitude.
    let bucket = |size: usize| -> (usize, String) {
        if v.rows.len() <= 12 || size < 10 {
            (size, size.to_string())
        } else {
            let lo = 10usize.pow(size.ilog10());
            (lo, format!("{lo}-{}", lo * 10 - 1))
        }
    };
    let mut shown: Vec<(usize, String, [usize; 5])> = Vec::new();
    for r in &v.rows {
        let (key, label) = bucket(r.size);
        let counts = [
            r.enumeration_spectra,
            r.enumeration_molecules,
            r.sat_spectra,
            r.sat_molecules,
            r.mismatches,
        ];
        match shown.last_mut() {
            Some((k, _, acc)) if *k == key => acc.iter_mut().zip(counts).for_each(|(x, y)| *x += y),
            _ => shown.push((key, label, counts)),
        }
    }
    for (_, label, r) in &shown {
        out.push_str(&format!(
            "{label:>13}{:>9}{:>11}{:>10}{:>11}{:>12}\n",
            r[0], r[1], r[2], r[3], r[4]
        ));
        a += r[0];
        b += r[1];
        c += r[2];
        d += r[3];
        e += r[4];
    }
    out.push_str(&format!(
        "{:>13}{:>9}{:>11}{:>10}{:>11}{:>12}\n\n",
        "total", a, b, c, d, e
    ));
    for m in &v.mismatches {
        out.push_str(&format!(
            "mismatch on {}:\n  only by enumeration: {}\n  only by SAT: {}\n",
            m.observation,
            if m.only_enumeration.is_empty() {
                "-".to_string()
            } else {
                m.only_enumeration.join(" ")
            },
            if m.only_sat.is_empty() {
                "-".to_string()
            } else {
                m.only_sat.join(" ")
            }
        ));
    }
    let secs = start.elapsed().as_secs_f64();
    if v.agrees() {
        out.push_str(&format!(
            "verdict: enumeration and SAT agree on all {} checked spectra ({secs:.1} s)\n",
            v.checked
        ));
    } else {
        out.push_str(&format!(
            "verdict: MISMATCH on {} of {} checked spectra ({secs:.1} s)\n",
            v.mismatches.len(),
            v.checked
        ));
    }
    Ok((out, code))
}
