//! `bbx solve`: the molecules that fit, what is certain, the rays that split
//! them, the guess and the conflict.

use itertools::Itertools as _;
use std::fmt::Write as _;

use crate::control::{Cut, Ended};
use crate::error::{about, grouped, quantity};
use crate::render::board::{board, grid, marks_in, observed_marks, position_name};
use crate::rules::config::Shape;
use crate::rules::notation::Notation;
use crate::rules::ray::{Outcome, Rules};
use crate::rules::spectrum::{Observation, Spectrum};
use crate::setting::{Naming, Setting};
use crate::solver::Certainty;
use crate::solver::report::{Known, SolveReport};

/// The certainty map drawn as a board: `O` an atom in every molecule, `-` empty
/// in every one, `?` undecided; the border shows the observation.
pub fn certainty_board(observed: &Observation, certainty: &[Certainty]) -> String {
    certainty_board_in(observed, certainty, Notation::Letters)
}

/// [`certainty_board`] with its border in `notation` (in letters where
/// `notation` cannot write it).
pub fn certainty_board_in(
    observed: &Observation,
    certainty: &[Certainty],
    notation: Notation,
) -> String {
    let letters = observed_marks(observed).unwrap_or_default();
    let marks = marks_in(&letters, notation).unwrap_or(letters);
    grid(
        observed.shape(),
        |i| match certainty[i] {
            Certainty::Atom => 'O',
            Certainty::Empty => '-',
            Certainty::Undecided => '?',
        },
        &marks,
    )
}

/// What a limit is called in the text: `time limit`, `memory bound`.
pub(crate) fn limit_name(cut: Cut) -> &'static str {
    match cut {
        Cut::TimedOut => "time limit",
        Cut::Cancelled => "interruption",
        Cut::OverMemory => "memory bound",
    }
}

/// The limit and the setting that raises it: `time limit (--timeout raises
/// it)`, `interruption`.
pub(crate) fn limit_raised(cut: Cut, naming: &dyn Naming) -> String {
    let setting = match cut {
        Cut::TimedOut => Setting::Timeout,
        Cut::OverMemory => Setting::Memory,
        Cut::Cancelled => return limit_name(cut).to_string(),
    };
    format!("{} ({} raises it)", limit_name(cut), naming.name(setting))
}

/// The first line of a solve or a suggestion: the puzzle, its box and the
/// rays shot.
pub(crate) fn puzzle_line(report: &SolveReport) -> String {
    let p = report.solution().observation.shape();
    let (file, shot) = (&report.origin, report.shot);
    format!(
        "puzzle    {file} ({p}, {shot} of {} rays shot)\n",
        p.positions()
    )
}

/// The one-line verdict of a solve: how many molecules fit; `naming`
/// names the settings it mentions.
pub fn verdict(report: &SolveReport, naming: &dyn Naming) -> String {
    let word = if report.count == 1 {
        "molecule fits"
    } else {
        "molecules fit"
    };
    let n = grouped(report.count);
    let memory = naming.name(Setting::Memory);
    if report.known == Known::Exact {
        return if report.count == 0 {
            "No molecule fits these observations.".to_string()
        } else {
            format!("{n} {word}.")
        };
    }
    if let (Known::Estimate, Some(e)) = (report.known, &report.estimate) {
        return format!(
            "About {} molecules fit ({} to {} at 95%, estimated from a uniform random sample: too many to count).",
            about(e.value),
            about(e.low),
            about(e.high)
        );
    }
    match (report.ended, report.ended.cut()) {
        (Ended::Complete, _) if report.count == 0 => {
            "No molecule fits these observations.".to_string()
        }
        (Ended::Complete, _) => format!("{n} {word}."),
        (_, Some(cut)) if report.count == 0 => format!(
            "No molecule found yet: the {} stopped the search before any was found, or before it could show that none fits{}.",
            limit_name(cut),
            if cut == Cut::OverMemory {
                format!(" ({memory} raises it)")
            } else {
                String::new()
            }
        ),
        (Ended::TimedOut, _) => format!(
            "At least {n} {word} (the time limit stopped the search before it was complete)."
        ),
        (Ended::Cancelled, _) => {
            format!("At least {n} {word} (interrupted before the search was complete).")
        }
        (Ended::OverMemory, _) => format!(
            "At least {n} {word} (the memory bound stopped the search before it was complete; {memory} raises it)."
        ),
        _ => format!(
            "At least {n} {word} (the search stopped at {} {}).",
            naming.name(Setting::Max),
            report.listed
        ),
    }
}

/// The full text of a solve: verdict, each molecule (up to `boards`), certainty
/// map, splitting rays, the guess, or the conflict; `naming` names the
/// settings it mentions.
pub fn solve_text(report: &SolveReport, boards: usize, naming: &dyn Naming) -> String {
    solve_text_in(report, boards, naming, Notation::Letters)
}

/// [`solve_text`] with the boards' borders in `notation` (in letters where
/// it cannot write them: Emacs notation past 9 exit pairs); the spectra and
/// the observation, as strings, stay in letters.
pub fn solve_text_in(
    report: &SolveReport,
    boards: usize,
    naming: &dyn Naming,
    notation: Notation,
) -> String {
    let sol = report.solution();
    let p = sol.observation.shape();
    let mut out = String::new();
    let atoms = if report.atoms_min == report.atoms_max {
        quantity(report.atoms_min, "atom", "atoms")
    } else {
        format!("{} to {} atoms", report.atoms_min, report.atoms_max)
    };
    out.push_str(&puzzle_line(report));
    let _ = writeln!(out, "searched  {atoms}, {} rules", report.rules);
    let _ = writeln!(out, "observed  {}", report.observation);
    let _ = writeln!(out, "\n{}", verdict(report, naming));
    let name = |s: Setting| naming.name(s);
    if report.ended.is_complete() && report.count == 0 {
        match report.fewest_atoms {
            Some(fewest) if fewest > report.atoms_max => {
                let _ = writeln!(
                    out,
                    "The rays need at least {fewest} atoms, more than the {} searched: check the count (`There are N balls in the box`, or {}).",
                    report.atoms_max,
                    name(Setting::Atoms)
                );
            }
            Some(fewest) if report.conflict.is_none() => {
                let _ = writeln!(
                    out,
                    "The rays fit together (with as few as {fewest} atoms), but not with {atoms}: check the count (`There are N balls in the box`, or {}).",
                    name(Setting::Atoms)
                );
            }
            _ => {}
        }
        if let Some(cut) = sol.conflict_cut {
            let _ = writeln!(
                out,
                "Which rays contradict each other was not worked out: the {} came first.",
                limit_name(cut)
            );
        }
        let misses = (1..=p.positions()).any(|q| sol.observation.get(q) == Some(Outcome::Miss));
        if misses && report.rules == Rules::Standard {
            let _ = writeln!(
                out,
                "The game marks rays that missed the board (~), which the standard rules never give: try {} edge-miss.",
                name(Setting::Rules)
            );
        }
    }
    if let Some(conflict) = &report.conflict {
        let list = conflict.iter().map(|&q| {
            let what = sol
                .observation
                .get(q)
                .map(Outcome::words)
                .unwrap_or_default();
            format!("  ray {q} ({}): {what}", position_name(p, q))
        });
        let _ = writeln!(
            out,
            "\nThese observed rays cannot hold together (each one is needed for the contradiction):\n{}",
            list.format("\n")
        );
        let mut marks = vec![' '; p.positions()];
        let obs_marks = sol.observation.marks().unwrap_or_default();
        for &q in conflict {
            marks[q - 1] = obs_marks.get(q - 1).copied().unwrap_or('?');
        }
        let _ = write!(out, "\n{}", grid(p, |_| '-', &marks));
    }
    for (i, m) in sol.molecules.iter().enumerate().take(boards) {
        let number = match report.found[i].number {
            Some(n) => format!(", number {n}"),
            None => String::new(),
        };
        let of = grouped(report.count);
        let _ = writeln!(out, "\nmolecule {} of {of}{number}: {m}", i + 1);
        let s = Spectrum::of(m, report.rules);
        match s
            .marks_in(notation)
            .or_else(|| s.marks_in(Notation::Letters))
        {
            Some(marks) => out.push_str(&board(m, &marks)),
            None => out.push_str(&board(m, &[])),
        }
    }
    // With no board asked for, none is "more".
    let shown = boards.min(report.listed);
    if report.listed == 0 && report.count > 0 {
        if let Some(cut) = report.ended.cut() {
            let _ = writeln!(
                out,
                "\nNone of them is listed: the {} stopped the search first.",
                limit_raised(cut, naming)
            );
        }
    } else if boards > 0 && report.count > shown as u128 {
        let more = grouped(report.count - shown as u128);
        if report.listed as u128 == report.count {
            let _ = writeln!(
                out,
                "\n… and {more} more ({} N prints more boards, {} lists them all).",
                name(Setting::Boards),
                name(Setting::Json)
            );
        } else {
            let _ = writeln!(
                out,
                "\n… and {more} more ({} N prints more boards; {} lists the first {}, {} more).",
                name(Setting::Boards),
                name(Setting::Json),
                report.listed,
                name(Setting::Max)
            );
        }
    }
    if let Some(c) = report.certainty()
        && report.count > 0
    {
        let atoms = c.iter().filter(|x| **x == Certainty::Atom).count();
        let undecided = c.iter().filter(|x| **x == Certainty::Undecided).count();
        let _ = writeln!(
            out,
            "\ncertain: {}, {}, {undecided} undecided (O atom in every molecule, - empty in every one, ? undecided)",
            quantity(atoms, "atom", "atoms"),
            quantity(c.len() - atoms - undecided, "empty cell", "empty cells")
        );
        out.push_str(&certainty_board_in(&sol.observation, c, notation));
    } else if let Some(cut) = sol.certainty_cut
        && !sol.molecules.is_empty()
    {
        let _ = writeln!(
            out,
            "\ncertain: not worked out (the {} came first).",
            limit_name(cut)
        );
    } else if sol.certainty_skipped && !sol.molecules.is_empty() {
        let _ = writeln!(
            out,
            "\ncertain: not worked out (for a search stopped at {}, it would take too many solver calls on a model this large).",
            name(Setting::Max)
        );
    }
    let untraced = report.splits.is_empty() && report.listed >= 2;
    if let (true, Some(cut)) = (untraced, report.after.cut()) {
        let _ = writeln!(
            out,
            "\nrays not shot that tell them apart: not worked out (the {} came first).",
            limit_raised(cut, naming)
        );
    } else if !report.splits.is_empty() {
        let _ = writeln!(out, "\nrays not shot that tell them apart (best first):");
        if let Some(caveat) = report.ranking_caveat() {
            let _ = writeln!(out, "  {}", caveat.show(naming));
        }
        for s in report.splits.iter().take(10) {
            let classes = (s.classes.iter()).map(|c| format!("{} ×{}", c.outcome.words(), c.count));
            let _ = writeln!(
                out,
                "  ray {} ({}): {}; {:.2} expected to remain",
                s.position,
                position_name(p, s.position),
                classes.format(", "),
                s.expected_remaining
            );
        }
        if report.splits.len() > 10 {
            let more = report.splits.len() - 10;
            let _ = writeln!(
                out,
                "  … {more} more {} them",
                if more == 1 {
                    "ray splits"
                } else {
                    "rays split"
                }
            );
        }
    } else if report.count > 1 && sol.observation.is_complete() {
        let _ = writeln!(
            out,
            "\nEvery ray has been shot: no further ray can tell these molecules apart."
        );
    } else if report.count > 1 && report.ended.is_complete() {
        let _ = writeln!(
            out,
            "\nNo ray left to shoot tells these molecules apart: they share every result."
        );
    }
    if let Some(g) = &report.guess {
        let _ = write!(out, "\nyour guess {}: ", g.molecule);
        let placed = g.molecule.chars().filter(|&c| c == 'O').count();
        if placed < report.atoms_min {
            out.push_str(&incomplete(report, &g.molecule, placed));
            return out;
        }
        match &g.differs_at {
            None if g.fits => out.push_str("fits every observed ray.\n"),
            None => {
                let _ = writeln!(
                    out,
                    "reproduces every observed ray but has {}, not {atoms}.",
                    quantity(
                        g.molecule.chars().filter(|&c| c == 'O').count(),
                        "atom",
                        "atoms"
                    )
                );
            }
            Some((q, observed, guessed)) => {
                let _ = writeln!(
                    out,
                    "does not fit: ray {q} ({}) was observed {}, the guess gives {}.",
                    position_name(p, *q),
                    observed.words(),
                    guessed.words()
                );
            }
        }
    }
    out
}

/// What to say of a guess with fewer atoms than are hidden: how many are
/// missing, and whether the molecules that fit hold every atom placed (its
/// rays differ from the observed ones wherever a missing atom shows, which
/// says nothing of the atoms placed).
fn incomplete(report: &SolveReport, guess: &str, placed: usize) -> String {
    let hidden = if report.atoms_min == report.atoms_max {
        format!("{}", report.atoms_min)
    } else {
        format!("{} to {}", report.atoms_min, report.atoms_max)
    };
    let cells: Vec<usize> = guess
        .chars()
        .filter(|&c| c != '/')
        .enumerate()
        .filter(|&(_, c)| c == 'O')
        .map(|(i, _)| i)
        .collect();
    let sol = report.solution();
    let holding = sol
        .molecules
        .iter()
        .filter(|m| cells.iter().all(|c| m.atoms().binary_search(c).is_ok()))
        .count();
    let all = sol.ended.is_complete() && report.count == sol.molecules.len() as u128;
    let atoms = quantity(placed, "atom", "atoms");
    let start = format!("incomplete: {atoms} placed where {hidden} are hidden");
    let fit = if holding == 1 { "fits" } else { "fit" };
    match (holding, all) {
        (0, true) => format!("{start}, and no molecule that fits holds all of them.\n"),
        (n, true) => format!(
            "{start}; {} that {fit} {} every one of them.\n",
            quantity(n, "molecule", "molecules"),
            if n == 1 { "holds" } else { "hold" }
        ),
        (n, false) => format!(
            "{start}; of the molecules found, {n} {} every one of them.\n",
            if n == 1 { "holds" } else { "hold" }
        ),
    }
}

/// Each cell's probability of holding an atom, as a board: the percentage
/// (rounded; `<1` and `>99` near the ends), `-` where no molecule that fits
/// has an atom, `O` where every one does.
pub fn probability_board(observed: &Observation, probabilities: &[f64]) -> String {
    let Shape {
        width: w,
        height: h,
    } = observed.shape();
    let mut out = String::new();
    for r in 0..h {
        let cells: Vec<String> = (0..w)
            .map(|c| {
                let x = probabilities[r * w + c];
                let text = if x <= 0.0 {
                    "-".to_string()
                } else if x >= 1.0 {
                    "O".to_string()
                } else if x < 0.01 {
                    "<1".to_string()
                } else if x > 0.99 {
                    ">99".to_string()
                } else {
                    format!("{:.0}", 100.0 * x)
                };
                format!("{text:>3}")
            })
            .collect();
        out.push_str(&cells.join(" "));
        out.push('\n');
    }
    out
}
