//! `bbx verify`: enumeration and SAT side by side, group size by group size.

use crate::error::quantity;
use crate::tables::ReportSource;
use crate::verify::{Streamed, Verification, VerifyOptions};

/// The text of a verification of `v.config`: the spectra and where they came
/// from (`source`), the table by group size (sizes past 9 gathered by order of
/// magnitude when there are many), every mismatch and the verdict, with the
/// time taken in `secs`.
pub fn verify_text(v: &Verification, source: &str, options: &VerifyOptions, secs: f64) -> String {
    table_and_verdict(v, source, options, secs, v.mismatches.len(), "")
}

/// The text of a verification streamed from a census
/// ([`crate::verify::verify_streaming`]): as [`verify_text`], with how many
/// unique spectra were checked of how many, how many SAT checks that took
/// (one per class of ambiguous spectra), and how the census ran.
pub fn verify_streamed_text(s: &Streamed, options: &VerifyOptions, secs: f64) -> String {
    let v = &s.verification;
    let classes = s.sat_checks - s.unique_checked;
    let mut notes = format!(
        "{} ambiguous spectra checked, all of them, through the canonical spectra of their {} (one SAT check each, counted for each spectrum of the class)\n",
        s.ambiguous_spectra,
        quantity(classes, "class", "classes"),
    );
    if !options.ambiguous_only {
        notes.push_str(&format!(
            "{} of {} unique spectra checked ({})\n",
            s.unique_checked,
            s.unique_spectra,
            match v.seed {
                Some(seed) if s.unique_checked < s.unique_spectra => {
                    format!("a uniform random sample, seed {seed}")
                }
                _ => "all of them".to_string(),
            }
        ));
    }
    if let ReportSource::Census {
        workers,
        processes,
        peak_memory_bytes,
        resumed,
        ..
    } = &s.census
    {
        notes.push_str(&format!(
            "census: {} in {}, peak memory {} MB{}\n",
            quantity(*workers, "worker", "workers"),
            quantity(*processes, "process", "processes"),
            peak_memory_bytes.div_ceil(1_000_000),
            if *resumed { ", resumed" } else { "" }
        ));
    }
    if s.mismatches_found as usize > v.mismatches.len() {
        notes.push_str(&format!(
            "{} mismatched spectra; the first {} mismatches listed\n",
            s.mismatches_found,
            v.mismatches.len()
        ));
    }
    notes.push('\n');
    table_and_verdict(
        v,
        "census streamed to SAT",
        options,
        secs,
        s.mismatches_found as usize,
        &notes,
    )
}

/// The header, the table, the mismatches, `notes` and the verdict:
/// `mismatched` checked spectra disagree.
fn table_and_verdict(
    v: &Verification,
    source: &str,
    options: &VerifyOptions,
    secs: f64,
    mismatched: usize,
    notes: &str,
) -> String {
    let config = &v.config;
    let mut out = format!(
        "{config}: {} ({source}); {} checked{}{}, {} rules{}\n\n",
        quantity(v.spectra, "distinct spectrum", "distinct spectra"),
        v.checked,
        if options.ambiguous_only {
            ", ambiguous only"
        } else {
            ""
        },
        options
            .partial
            .map(|f| format!(", {:.0}% of rays hidden", f * 100.0))
            .unwrap_or_default(),
        options.rules,
        v.seed.map(|s| format!(", seed {s}")).unwrap_or_default()
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
    let mut total = [0usize; 5];
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
    let line = |label: &str, r: &[usize; 5]| {
        format!(
            "{label:>13}{:>9}{:>11}{:>10}{:>11}{:>12}\n",
            r[0], r[1], r[2], r[3], r[4]
        )
    };
    for (_, label, r) in &shown {
        out.push_str(&line(label, r));
        total.iter_mut().zip(r).for_each(|(t, x)| *t += x);
    }
    out.push_str(&line("total", &total));
    out.push('\n');
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
    out.push_str(notes);
    if v.agrees() {
        out.push_str(&format!(
            "verdict: enumeration and SAT agree on {} ({secs:.1} s)\n",
            match v.checked {
                1 => "the 1 checked spectrum".to_string(),
                n => format!("all {n} checked spectra"),
            }
        ));
    } else {
        out.push_str(&format!(
            "verdict: MISMATCH on {} of {} ({secs:.1} s)\n",
            mismatched,
            quantity(v.checked, "checked spectrum", "checked spectra")
        ));
    }
    out
}
