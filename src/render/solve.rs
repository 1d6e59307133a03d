//! `bbx solve`: the molecules that fit, what is certain, the rays that split
//! them, the guess and the conflict.

use itertools::Itertools as _;
use std::fmt::Write as _;

use crate::control::{Cut, Ended};
use crate::error::{about, grouped, mean, quantity};
use crate::render::diagram::{board, grid, marks_in, observed_marks, position_name};
use crate::rules::config::Shape;
use crate::rules::notation::Notation;
use crate::rules::ray::{Outcome, Rules};
use crate::rules::spectrum::{Observation, Spectrum};
use crate::setting::{Naming, Setting};
use crate::solver::Certainty;
use crate::solver::solve_report::{Known, SolveReport};

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
    let (file, shot) = (&report.origin, quantity(report.shot, "ray", "rays"));
    format!(
        "puzzle    {file} ({p}, {shot} shot, {} of {} border marks known)\n",
        report.marks,
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
        return match report.by_atoms.as_deref() {
            _ if report.count == 0 => "No molecule fits these observations.".to_string(),
            // A range: how many of each count.
            Some(counts @ [_, _, ..]) => {
                let each = counts
                    .iter()
                    .map(|c| format!("{} of {} atoms", grouped(c.molecules), c.atoms))
                    .collect::<Vec<_>>()
                    .join(", ");
                format!("{n} {word}: {each}.")
            }
            _ => format!("{n} {word}."),
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
    let atoms = atoms_searched(report);
    out.push_str(&puzzle_line(report));
    let _ = writeln!(out, "searched  {atoms}, {} rules", report.rules);
    let _ = writeln!(out, "observed  {}", report.observation);
    let _ = writeln!(out, "\n{}", verdict(report, naming));
    for note in nothing_fits(report, naming) {
        let _ = writeln!(out, "{note}");
    }
    if let Some((heading, rays)) = conflict(report) {
        let _ = writeln!(out, "\n{heading}\n{}", rays.iter().format("\n"));
        let conflict = report.conflict.as_deref().unwrap_or_default();
        let mut marks = vec![' '; p.positions()];
        let obs_marks = sol.observation.marks().unwrap_or_default();
        for &q in conflict {
            marks[q - 1] = obs_marks.get(q - 1).copied().unwrap_or('?');
        }
        let _ = write!(out, "\n{}", grid(p, |_| '-', &marks));
    }
    let name = |s: Setting| naming.name(s);
    for (i, m) in sol.molecules.iter().enumerate().take(boards) {
        let number = match report.found[i].number {
            Some(n) => format!(", number {n}"),
            None => String::new(),
        };
        let of = match (report.known, &report.estimate) {
            (Known::Estimate, Some(e)) => format!("about {}", about(e.value)),
            (Known::AtLeast, _) => format!("at least {}", grouped(report.count)),
            _ => grouped(report.count),
        };
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
        let more = match (report.known, &report.estimate) {
            (Known::Estimate, Some(e)) => format!("about {}", about(e.value - shown as f64)),
            (Known::AtLeast, _) => format!("at least {}", grouped(report.count - shown as u128)),
            _ => grouped(report.count - shown as u128),
        };
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
    } else if let Some(why) = certain_unknown(report, naming) {
        let _ = writeln!(out, "\n{why}");
    }
    if report.splits.is_empty() {
        if let Some(why) = no_ranking(report, naming) {
            let _ = writeln!(out, "\n{why}");
        }
    } else {
        let _ = writeln!(out, "\nrays not shot that tell them apart (best first):");
        if let Some(caveat) = report.ranking_caveat() {
            let _ = writeln!(out, "  {}", caveat.show(naming));
        }
        for s in report.splits.iter().take(10) {
            let classes = (s.classes.iter())
                .map(|c| format!("{} ×{}", c.outcome.words(), grouped(c.count as u128)));
            let _ = writeln!(
                out,
                "  ray {} ({}): {}; {} expected to remain",
                s.position,
                position_name(p, s.position),
                classes.format(", "),
                mean(s.expected_remaining, report.sample.is_some())
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
    }
    if let Some(guess) = guess_line(report) {
        let _ = write!(out, "\n{guess}\n");
    }
    out
}

/// Why the cells certain are not shown though molecules were found.
fn certain_unknown(report: &SolveReport, naming: &dyn Naming) -> Option<String> {
    let sol = report.solution();
    if sol.molecules.is_empty() || sol.certainty.is_some() {
        return None;
    }
    if let Some(cut) = sol.certainty_cut {
        return Some(format!(
            "certain: not worked out (the {} came first).",
            limit_name(cut)
        ));
    }
    sol.certainty_skipped.then(|| format!(
        "certain: not worked out (for a search stopped at {}, it would take too many solver calls on a model this large).",
        naming.name(Setting::Max)
    ))
}

/// Why no ray is ranked though several molecules fit: a limit came first,
/// every ray was shot, or no ray left tells them apart.
fn no_ranking(report: &SolveReport, naming: &dyn Naming) -> Option<String> {
    let sol = report.solution();
    if report.count > 1 && sol.observation.is_complete() {
        Some("Every ray has been shot: no further ray can tell these molecules apart.".into())
    } else if let (false, None, Some(caveat)) =
        (report.splits_exact, &report.sample, report.ranking_caveat())
    {
        // Not ranked: the first molecules found are no sample to rank on.
        Some(caveat.show(naming))
    } else if let (true, Some(cut)) = (report.listed >= 2, report.after.cut()) {
        Some(format!(
            "rays not shot that tell them apart: not worked out (the {} came first).",
            limit_raised(cut, naming)
        ))
    } else if report.count > 1 && report.ended.is_complete() {
        Some("No ray left to shoot tells these molecules apart: they share every result.".into())
    } else {
        None
    }
}

/// The atoms searched: `4 atoms`, `3 to 5 atoms`.
fn atoms_searched(report: &SolveReport) -> String {
    if report.atoms_min == report.atoms_max {
        quantity(report.atoms_min, "atom", "atoms")
    } else {
        format!("{} to {} atoms", report.atoms_min, report.atoms_max)
    }
}

/// When a complete search found no molecule: what to check (the count,
/// the rules), and whether the rays that contradict each other were
/// worked out.
fn nothing_fits(report: &SolveReport, naming: &dyn Naming) -> Vec<String> {
    let mut notes = Vec::new();
    if !(report.ended.is_complete() && report.count == 0) {
        return notes;
    }
    let sol = report.solution();
    let (atoms, atoms_setting) = (atoms_searched(report), naming.name(Setting::Atoms));
    match report.fewest_atoms {
        Some(fewest) if fewest > report.atoms_max => notes.push(format!(
            "The rays need at least {fewest} atoms, more than the {} searched: check the count (`There are N balls in the box`, or {atoms_setting}).",
            report.atoms_max,
        )),
        Some(fewest) if report.conflict.is_none() => notes.push(format!(
            "The rays fit together (with as few as {fewest} atoms), but not with {atoms}: check the count (`There are N balls in the box`, or {atoms_setting}).",
        )),
        _ => {}
    }
    if let Some(cut) = sol.conflict_cut {
        notes.push(format!(
            "Which rays contradict each other was not worked out: the {} came first.",
            limit_name(cut)
        ));
    }
    let p = sol.observation.shape();
    let misses = (1..=p.positions()).any(|q| sol.observation.get(q) == Some(Outcome::Miss));
    if misses && report.rules == Rules::Standard {
        notes.push(format!(
            "The game marks rays that missed the board (~), which the standard rules never give: try {} edge-miss.",
            naming.name(Setting::Rules)
        ));
    }
    notes
}

/// The rays that cannot hold together, when the solver found them: a
/// heading and a line for each.
fn conflict(report: &SolveReport) -> Option<(&'static str, Vec<String>)> {
    let sol = report.solution();
    let p = sol.observation.shape();
    let rays = report.conflict.as_ref()?.iter().map(|&q| {
        let what = sol
            .observation
            .get(q)
            .map(Outcome::words)
            .unwrap_or_default();
        format!("  ray {q} ({}): {what}", position_name(p, q))
    });
    let heading =
        "These observed rays cannot hold together (each one is needed for the contradiction):";
    Some((heading, rays.collect()))
}

/// Whether the puzzle's guess fits, when it has one: `your guess …: fits
/// every observed ray.`
fn guess_line(report: &SolveReport) -> Option<String> {
    let g = report.guess.as_ref()?;
    let p = report.solution().observation.shape();
    let placed = g.molecule.chars().filter(|&c| c == 'O').count();
    let said = if placed < report.atoms_min {
        incomplete(report, &g.molecule, placed)
            .trim_end()
            .to_string()
    } else {
        match &g.differs_at {
            None if g.fits => "fits every observed ray.".to_string(),
            None => format!(
                "reproduces every observed ray but has {}, not {}.",
                quantity(placed, "atom", "atoms"),
                atoms_searched(report)
            ),
            Some((q, observed, guessed)) => format!(
                "does not fit: ray {q} ({}) was observed {}, the guess gives {}.",
                position_name(p, *q),
                observed.words(),
                guessed.words()
            ),
        }
    };
    Some(format!("your guess {}: {said}", g.molecule))
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

/// A solve as a page shows it, beside its boards rather than in text: the
/// sentences of [`solve_text`] and what each board draws (the cells
/// certain, the molecules found), so that a front adds no word of its own.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct SolvePage {
    /// The box's width.
    pub width: usize,
    /// The box's height.
    pub height: usize,
    /// `the puzzle pasted: 8×8, 9 rays shot, 12 of 32 border marks known, 4 atoms, standard rules`.
    pub heading: String,
    /// The rays observed, in the linear form (`@&ab??…`).
    pub observed: String,
    /// How many molecules fit ([`verdict`]).
    pub verdict: String,
    /// No molecule fits (the verdict is bad news).
    pub none: bool,
    /// After the verdict: why none fits, the rays that contradict each
    /// other, what was not worked out, the guess.
    pub notes: Vec<String>,
    /// The border marks of the rays observed, one per border position (a
    /// space where none), drawn around each board.
    pub marks: Vec<char>,
    /// The boards: the cells certain (when known), then the molecules.
    pub boards: Vec<PageBoard>,
    /// Below the boards, when more molecules were listed than drawn.
    pub more: Option<String>,
    /// The rays not shot that tell the molecules apart, best first.
    pub rays: Option<RayTable>,
    /// How long it took.
    pub answered: String,
    /// How many molecules fit, for programs (a number in text: it may pass
    /// what JSON numbers hold exactly).
    pub count: String,
    /// The search was complete, for programs.
    pub complete: bool,
}

/// One board of a [`SolvePage`].
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct PageBoard {
    /// What it shows: `molecule 2 of 9, number 1234`.
    pub caption: String,
    /// Its atoms (linear cells).
    pub atoms: Vec<usize>,
    /// Cells ringed: an atom in every molecule that fits.
    pub ringed: Vec<usize>,
    /// Cells dotted: empty in every molecule that fits.
    pub dotted: Vec<usize>,
    /// The molecule, in the linear form, when the board is one.
    pub molecule: Option<String>,
}

/// The rays of a [`SolvePage`] as a table.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct RayTable {
    /// Its heading.
    pub heading: String,
    /// Why the ranking may differ from the true one, when it does not rest
    /// on every molecule ([`SolveReport::ranking_caveat`]).
    pub caveat: Option<String>,
    /// The columns' names.
    pub columns: Vec<String>,
    /// A row per ray: its position, where it is, its outcomes, the
    /// molecules expected left and its bits.
    pub rows: Vec<Vec<String>>,
}

/// Most rays a [`SolvePage`] ranks.
const PAGE_RAYS: usize = 8;

/// `report` as a page shows it, with its first `boards` molecules drawn,
/// answered in `elapsed`; `naming` names the settings it mentions.
///
/// ```
/// use bbx::control::Budget;
/// use bbx::render::solve_page;
/// use bbx::setting::Plain;
/// use bbx::solver::{self, Limits, solve_report::SolveReport};
/// use bbx::{Observation, Rules};
/// let seen = Observation::parse("@&??????????????", "example").unwrap();
/// let found = solver::solve(&seen, Rules::Standard, 2..=2, &Limits::default(), |_| {}).unwrap();
/// let report = SolveReport::new("the puzzle", found, None, &Budget::default());
/// let page = solve_page(&report, 2, std::time::Duration::from_millis(20), &Plain);
/// assert!(page.heading.starts_with("the puzzle: 4×4, 2 rays shot, 2 of 16 border marks known, 2 atoms"));
/// let certain = &page.boards[0];
/// assert_eq!(certain.caption, format!("certain: 0 atoms (ringed), 1 empty cell (dotted)"));
/// assert_eq!(certain.dotted, [4]); // row 2, column 1: ray 2 enters it and comes back
/// assert!(page.boards[1].caption.starts_with("molecule 1 of"));
/// assert_eq!((page.marks[0], page.marks[1]), ('@', '&'));
/// ```
pub fn solve_page(
    report: &SolveReport,
    boards: usize,
    elapsed: std::time::Duration,
    naming: &dyn Naming,
) -> SolvePage {
    let sol = report.solution();
    let p = sol.observation.shape();
    let heading = format!(
        "{}: {p}, {} shot, {} of {} border marks known, {}, {} rules",
        report.origin,
        quantity(report.shot, "ray", "rays"),
        report.marks,
        p.positions(),
        atoms_searched(report),
        report.rules
    );
    let mut notes = nothing_fits(report, naming);
    if let Some((heading, rays)) = conflict(report) {
        notes.push(heading.to_string());
        notes.extend(rays.into_iter().map(|r| r.trim().to_string()));
    }
    notes.extend(certain_unknown(report, naming));
    if report.splits.is_empty() {
        notes.extend(no_ranking(report, naming));
    }
    notes.extend(guess_line(report));
    let mut shown = Vec::new();
    if let Some(c) = sol.certainty.as_ref().filter(|_| !sol.molecules.is_empty()) {
        let cells = |what| (0..c.len()).filter(|&i| c[i] == what).collect::<Vec<_>>();
        let (ringed, dotted) = (cells(Certainty::Atom), cells(Certainty::Empty));
        shown.push(PageBoard {
            caption: format!(
                "certain: {} (ringed), {} (dotted)",
                quantity(ringed.len(), "atom", "atoms"),
                quantity(dotted.len(), "empty cell", "empty cells")
            ),
            atoms: Vec::new(),
            ringed,
            dotted,
            molecule: None,
        });
    }
    for (i, m) in sol.molecules.iter().enumerate().take(boards) {
        let found = report.found.get(i);
        let number = match found.and_then(|f| f.number) {
            Some(n) => format!(", number {n}"),
            None => String::new(),
        };
        shown.push(PageBoard {
            caption: format!("molecule {} of {}{number}", i + 1, report.count),
            atoms: m.atoms().to_vec(),
            ringed: Vec::new(),
            dotted: Vec::new(),
            molecule: Some(found.map_or_else(|| m.to_string(), |f| f.molecule.clone())),
        });
    }
    let drawn = boards.min(sol.molecules.len());
    let more = (drawn < report.listed).then(|| {
        format!(
            "The first {drawn} of the {} molecules listed are drawn.",
            report.listed
        )
    });
    let rays = (!report.splits.is_empty()).then(|| RayTable {
        heading: "Rays not shot that tell them apart, best first".into(),
        caveat: report.ranking_caveat().map(|c| c.show(naming)),
        columns: ["ray", "position", "outcomes", "expected left", "bits"]
            .map(String::from)
            .to_vec(),
        rows: (report.splits.iter().take(PAGE_RAYS))
            .map(|s| {
                vec![
                    s.position.to_string(),
                    position_name(p, s.position),
                    s.classes.len().to_string(),
                    mean(s.expected_remaining, report.sample.is_some()),
                    format!("{:.2}", s.entropy),
                ]
            })
            .collect(),
    });
    let marks = observed_marks(&sol.observation)
        .unwrap_or_default()
        .into_iter()
        .map(|m| if m == '?' { ' ' } else { m })
        .collect();
    SolvePage {
        width: p.width,
        height: p.height,
        heading,
        observed: report.observation.clone(),
        verdict: verdict(report, naming),
        none: report.count == 0,
        notes,
        marks,
        boards: shown,
        more,
        rays,
        answered: format!("answered in {:.2} s", elapsed.as_secs_f64()),
        count: report.count.to_string(),
        complete: report.ended.is_complete(),
    }
}

/// A search in hand, in one line: `solving… 120 molecules so far (1.4 s)`.
pub fn solving_line(found: usize, elapsed: std::time::Duration) -> String {
    format!(
        "solving… {} so far ({:.1} s)",
        quantity(found, "molecule", "molecules"),
        elapsed.as_secs_f64()
    )
}
