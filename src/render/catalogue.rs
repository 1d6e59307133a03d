//! `bbx show` and `bbx stats`: catalogue rows, spectral groups and the tables
//! of a whole configuration.

use std::fmt::Write as _;

use crate::catalogue::MoleculeRow;
use crate::error::quantity;
use crate::render::diagram::{balls_line, board, marks_in, side_by_side};
use crate::render::trace::stats_table;
use crate::rules::board::Molecule;
use crate::rules::config::{Config, Shape};
use crate::rules::notation::Notation;
use crate::tables::{ReportSource, StatsReport};

/// A catalogue row drawn as J. Forget's display programme does: header, board
/// with its spectrum, statistics table.
pub fn molecule_row(config: Config, row: &MoleculeRow) -> String {
    molecule_row_in(config, row, Notation::Letters)
}

/// [`molecule_row`] with the board's border in `notation` (in letters where
/// it cannot write it); the spectrum line stays in letters.
pub fn molecule_row_in(config: Config, row: &MoleculeRow, notation: Notation) -> String {
    let mut out = format!(
        "{config} number {}, canonical number {}, transform {}\nmolecule  {}\nspectrum  {}\n\n",
        row.number, row.canonical_number, row.transform, row.molecule, row.spectrum
    );
    out.push_str(&row_board(row, notation));
    let _ = writeln!(out, "\n{}\n", balls_line(config.atoms));
    out.push_str(&stats_table(&row.stats));
    out
}

fn row_board(row: &MoleculeRow, notation: Notation) -> String {
    let m = Molecule::parse_linear(&row.molecule, "catalogue")
        .unwrap_or_else(|_| Molecule::new(Shape::square(1), []).expect("1×1"));
    let letters: Vec<char> = row.spectrum.chars().collect();
    board(&m, &marks_in(&letters, notation).unwrap_or(letters))
}

/// A spectral group: the molecules sharing one spectrum, side by side (at most
/// `per_line` boards per line).
pub fn spectral_group(config: Config, rows: &[MoleculeRow], per_line: usize) -> String {
    spectral_group_in(config, rows, per_line, Notation::Letters)
}

/// [`spectral_group`] with the boards' borders in `notation` (in letters
/// where it cannot write them).
pub fn spectral_group_in(
    config: Config,
    rows: &[MoleculeRow],
    per_line: usize,
    notation: Notation,
) -> String {
    let mut out = String::new();
    if let Some(first) = rows.first() {
        let numbers: Vec<String> = rows.iter().map(|r| r.number.to_string()).collect();
        let _ = writeln!(
            out,
            "{config} spectrum {} is shared by {}: {}\n",
            first.spectrum,
            quantity(rows.len(), "molecule", "molecules"),
            numbers.join(", ")
        );
    }
    for chunk in rows.chunks(per_line.max(1)) {
        let boards: Vec<String> = chunk.iter().map(|r| row_board(r, notation)).collect();
        let labels: Vec<String> = chunk
            .iter()
            .map(|r| format!("   number {}", r.number))
            .collect();
        let mut labelled: Vec<String> = Vec::new();
        for (b, l) in boards.iter().zip(&labels) {
            labelled.push(format!("{l}\n{b}"));
        }
        out.push_str(&side_by_side(&labelled, 4));
        out.push('\n');
    }
    let _ = writeln!(out, "{}", balls_line(config.atoms));
    out
}

/// The text of `bbx stats`: J. Forget's ambiguity table, unique share,
/// largest groups, records.
pub fn stats_text(report: &StatsReport) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "{}: {}{}\n",
        report.config,
        quantity(report.molecules, "molecule", "molecules"),
        match report.source {
            ReportSource::Catalogue => "",
            ReportSource::Census { .. } => " (census: counted without a catalogue)",
        }
    );
    let _ = writeln!(
        out,
        "number of molecules     spectrums       spectrums       molecules"
    );
    let _ = writeln!(
        out,
        "for each spectrum     w/o  rot / sym  with rot / sym  with rot / sym"
    );
    let (mut a, mut b, mut c) = (0, 0, 0);
    for r in &report.ambiguity {
        let _ = writeln!(
            out,
            "{:>8}{:>22}{:>14}{:>16}",
            r.nb_mol, r.spectra_up_to_symmetry, r.spectra, r.molecules
        );
        a += r.spectra_up_to_symmetry;
        b += r.spectra;
        c += r.molecules;
    }
    let _ = writeln!(out, "total{:>25}{:>14}{:>16}", a, b, c);
    let share = if report.molecules > 0 {
        100.0 * report.unique_molecules as f64 / report.molecules as f64
    } else {
        0.0
    };
    let _ = writeln!(
        out,
        "\n{} of {} ({share:.2}%) {} a spectrum no other molecule has.",
        report.unique_molecules,
        quantity(report.molecules, "molecule", "molecules"),
        if report.unique_molecules == 1 {
            "has"
        } else {
            "have"
        }
    );
    if !report.largest_groups.is_empty() {
        let _ = writeln!(
            out,
            "\nlargest spectral groups (one per class under the symmetries):"
        );
        for g in &report.largest_groups {
            let n: Vec<String> = g.numbers.iter().map(|x| x.to_string()).collect();
            let _ = writeln!(
                out,
                "  {} ({}) differ by up to {}: {}",
                quantity(g.numbers.len(), "molecule", "molecules"),
                n.join(", "),
                quantity(g.atoms_apart, "atom", "atoms"),
                g.spectrum
            );
        }
        let parts: Vec<String> = report
            .groups_by_difference
            .iter()
            .map(|(d, n)| format!("{n} by up to {d}"))
            .collect();
        let _ = writeln!(
            out,
            "  groups whose molecules differ (up to symmetry): {}",
            parts.join(", ")
        );
    }
    if !report.records.is_empty() {
        let _ = writeln!(
            out,
            "\nray records (lowest-numbered molecule reaching each):"
        );
        for r in &report.records {
            let measure = if r.measure == "turns" {
                "turns"
            } else {
                "cells"
            };
            let _ = match (r.number, r.position) {
                (Some(number), Some(ray)) => writeln!(
                    out,
                    "  {:<10}most {measure:<7}{:>4}   molecule {number}, ray {ray}",
                    r.kind, r.value
                ),
                _ => writeln!(out, "  {:<10}most {measure:<7}   —   no such ray", r.kind),
            };
        }
    }
    if let ReportSource::Census {
        symmetry,
        molecules_traced,
        seconds,
        peak_memory_bytes,
        workers,
        processes,
        resumed,
    } = report.source
    {
        let _ = writeln!(
            out,
            "\ncensus: {molecules_traced} molecule{} traced ({}), {workers} worker{} in {processes} process{}, {seconds:.2} s{}{}",
            if molecules_traced == 1 { "" } else { "s" },
            if symmetry {
                "one per orbit under the symmetries"
            } else {
                "every one"
            },
            if workers == 1 { "" } else { "s" },
            if processes == 1 { "" } else { "es" },
            if peak_memory_bytes > 0 {
                format!(", peak memory {} MB", peak_memory_bytes.div_ceil(1 << 20))
            } else {
                String::new()
            },
            if resumed {
                ", resumed from a checkpoint"
            } else {
                ""
            }
        );
    }
    out
}
