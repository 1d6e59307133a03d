//! `bbx trace`: one molecule's board, rays, paths and statistics.

use std::fmt::Write as _;

use crate::error::quantity;
use crate::render::diagram::{balls_line, board, grid, position_name};
use crate::rules::board::{Molecule, port};
use crate::rules::config::Shape;
use crate::rules::notation::{MISS, Notation};
use crate::rules::ray::{Outcome, PathStep, RayTrace, Rules};
use crate::rules::spectrum::Stats;
use crate::rules::trace_report::TraceReport;

/// Draws one ray's path over the board with `+`, as in J. Forget's 23-cell
/// example; the border shows the ray in Emacs notation (`1` at both ends of an
/// exit, `H` for a hit, `R` for a reflection, `~` for a miss).
pub fn path_board(m: &Molecule, pos: usize, trace: &RayTrace, path: &[PathStep]) -> String {
    let p = m.shape();
    let cells = m.cells();
    let mut on_path = vec![false; p.cells()];
    for s in path {
        on_path[p.index(s.row, s.col)] = true;
    }
    let emacs = Notation::Emacs;
    let mut marks = vec![' '; p.positions()];
    marks[pos - 1] = match trace.outcome {
        Outcome::Absorbed => emacs.hit(),
        Outcome::Reflected => emacs.reflection(),
        Outcome::Miss => MISS,
        Outcome::Exit(k) => {
            marks[k - 1] = emacs.pair(0).unwrap_or('1');
            marks[k - 1]
        }
    };
    grid(
        p,
        |i| {
            if cells[i] {
                'O'
            } else if on_path[i] {
                '+'
            } else {
                '-'
            }
        },
        &marks,
    )
}

/// Describes one ray in words: where it enters, every turn, how it ends.
pub fn describe_ray(shape: Shape, pos: usize, trace: &RayTrace, path: &[PathStep]) -> String {
    let q = port(shape, pos);
    let mut out = format!(
        "ray {pos} ({}) enters heading {}",
        position_name(shape, pos),
        q.heading
    );
    let size = format!(
        "{} and {}",
        quantity(trace.length, "cell", "cells"),
        quantity(trace.turns, "turn", "turns")
    );
    let end = match trace.outcome {
        Outcome::Absorbed if trace.length == 0 => {
            "is absorbed at once: an atom sits on the first cell".to_string()
        }
        Outcome::Absorbed => format!("is absorbed after {size}"),
        Outcome::Reflected if trace.length == 0 => {
            "is reflected at once: an atom sits diagonally beside the entry (edge reflection)"
                .to_string()
        }
        Outcome::Reflected => format!("is reflected after {size}, and retraces its path back out"),
        Outcome::Miss => {
            "misses the board: an atom sits diagonally beside the entry (edge-miss rules)"
                .to_string()
        }
        Outcome::Exit(k) => format!(
            "comes out at {k} ({}) after {size}",
            position_name(shape, k)
        ),
    };
    let _ = write!(out, " and {end}.");
    if !path.is_empty() {
        let first = path[0];
        let _ = write!(out, "\npath: enters ({},{})", first.row, first.col);
        for w in path.windows(2) {
            if (w[0].row, w[0].col) == (w[1].row, w[1].col) {
                let _ = write!(
                    out,
                    ", turns {} at ({},{})",
                    w[1].heading, w[1].row, w[1].col
                );
            }
        }
        if let Some(last) = path.last() {
            let verb = match trace.outcome {
                Outcome::Absorbed => "hits the atom ahead of",
                Outcome::Reflected => "reverses at",
                _ => "leaves from",
            };
            let _ = write!(out, ", {verb} ({},{})", last.row, last.col);
        }
        out.push('.');
    }
    out
}

/// The statistics table of one molecule, like J. Forget's display programme:
/// number, lengths and turns for absorbed, reflected (edge, deep) and exit rays.
pub fn stats_table(s: &Stats) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "{:<12}{:>7}{:>12}{:>11}{:>12}{:>11}",
        "rays", "number", "max length", "max turns", "tot length", "tot turns"
    );
    let row = |out: &mut String, name: &str, v: [u32; 5]| {
        let _ = writeln!(
            out,
            "{name:<12}{:>7}{:>12}{:>11}{:>12}{:>11}",
            v[0], v[1], v[2], v[3], v[4]
        );
    };
    row(
        &mut out,
        "absorbed",
        [
            s.absorbed_number,
            s.absorbed_max_length,
            s.absorbed_max_turns,
            s.absorbed_tot_length,
            s.absorbed_tot_turns,
        ],
    );
    row(
        &mut out,
        "reflected",
        [
            s.reflected_number,
            s.reflected_max_length,
            s.reflected_max_turns,
            s.reflected_tot_length,
            s.reflected_tot_turns,
        ],
    );
    let _ = writeln!(out, "{:<12}{:>7}", "  edge", s.reflected_edge);
    let _ = writeln!(out, "{:<12}{:>7}", "  deep", s.reflected_deep);
    row(
        &mut out,
        "out (pairs)",
        [
            s.out_number,
            s.out_max_length,
            s.out_max_turns,
            s.out_tot_length,
            s.out_tot_turns,
        ],
    );
    out
}

/// The header of a trace: molecule, configuration and numbers, spectrum.
pub fn trace_header(report: &TraceReport) -> String {
    let mut out = format!("molecule  {}\nconfig    {}", report.molecule, report.config);
    match (report.number, report.canonical_number, &report.transform) {
        (Some(n), Some(c), Some(t)) => {
            let _ = write!(out, ", number {n}, canonical number {c}, transform {t}");
        }
        _ => out.push_str(" (too many molecules to number)"),
    }
    if report.rules != Rules::Standard {
        let _ = write!(out, ", {} rules", report.rules);
    }
    let _ = write!(out, "\nspectrum  {}\n", report.analysis().spectrum);
    out
}

/// The full text of a trace: header, board with its spectrum, statistics table.
pub fn trace_text(report: &TraceReport, notation: Notation) -> String {
    let m = report.molecule();
    let spectrum = &report.analysis().spectrum;
    let mut out = trace_header(report);
    out.push('\n');
    match spectrum.marks_in(notation) {
        Some(marks) => out.push_str(&board(m, &marks)),
        None => {
            out.push_str(&board(m, &[]));
            out.push_str(if notation == Notation::Emacs && spectrum.pairs() <= 52 {
                "(more than 9 exit pairs: the Emacs notation cannot show them)\n"
            } else {
                "(more than 52 exit pairs: no letters for the border)\n"
            });
        }
    }
    let _ = writeln!(out, "\n{}\n", balls_line(m.atoms().len()));
    out.push_str(&stats_table(&report.stats));
    out
}

/// The text for the ray from `pos`: its path drawn over the board and
/// described; `None` when the report did not record that path.
pub fn ray_text(report: &TraceReport, pos: usize) -> Option<String> {
    let m = report.molecule();
    let (trace, path) = report.path(pos)?;
    let mut out = path_board(m, pos, trace, path);
    let _ = writeln!(out, "\n{}\n", balls_line(m.atoms().len()));
    out.push_str(&describe_ray(m.shape(), pos, trace, path));
    out.push('\n');
    Some(out)
}
