//! Drawing boards, spectra, ray paths and statistics as text.
//!
//! The board layout is the seed's: border marks around the cells, one
//! character every two columns (see [`crate::puzzle`] for the reverse).
//!
//! ```
//! use bbx::{render, Molecule, Rules, Spectrum};
//! let m: Molecule = "O-O-------------".parse().unwrap();
//! let s = Spectrum::of(&m, Rules::Standard);
//! let marks = render::spectrum_marks(&s, render::Notation::Seed).unwrap();
//! assert_eq!(
//!     render::board(&m, &marks),
//!     "   @ & @ &\n @ O - O - @\n & - - - - c\n a - - - - a\n b - - - - b\n   @ & @ c\n"
//! );
//! ```

use std::fmt::Write as _;

use crate::catalogue::MoleculeRow;
use crate::rules::board::{Heading, Molecule, port};
use crate::rules::config::Config;
use crate::rules::enumeration::{canonical, rank};
use crate::rules::ray::{Outcome, PathStep, RayTrace, Rules, Tracer};
use crate::rules::spectrum::{Analysis, Observation, Spectrum, Stats};
use crate::solver::{Certainty, Solution};
use crate::tables::StatsReport;

/// How exit pairs and results are written on the border.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Notation {
    /// The seed's: `@` hit, `&` reflection, letters for exit pairs.
    #[default]
    Seed,
    /// Emacs `blackbox.el`'s: `H` hit, `R` reflection, digits 1–9 for exit
    /// pairs (so at most 9 pairs).
    Emacs,
}

/// The border marks of a spectrum in the given notation (`~` for a miss);
/// `None` when the notation cannot write it (more than 52 pairs, or more than 9
/// in Emacs notation).
pub fn spectrum_marks(s: &Spectrum, notation: Notation) -> Option<Vec<char>> {
    let marks = s.marks()?;
    match notation {
        Notation::Seed => Some(marks),
        Notation::Emacs => {
            if s.pairs() > 9 {
                return None;
            }
            Some(
                marks
                    .into_iter()
                    .map(|c| match c {
                        '@' => 'H',
                        '&' => 'R',
                        'a'..='i' => (b'1' + (c as u8 - b'a')) as char,
                        other => other,
                    })
                    .collect(),
            )
        }
    }
}

/// Draws a board: `cell(i)` gives the character of linear cell i, `marks[i]`
/// the mark of position i+1 (a space for none). Trailing blanks are trimmed.
pub fn grid(width: usize, cell: impl Fn(usize) -> char, marks: &[char]) -> String {
    let p = width;
    let mark = |pos: usize| marks.get(pos - 1).copied().unwrap_or(' ');
    let mut out = String::new();
    let mut push = |line: String| {
        out.push_str(line.trim_end());
        out.push('\n');
    };
    let mut top = String::from("  ");
    for k in 0..p {
        let _ = write!(top, " {}", mark(4 * p - k));
    }
    push(top);
    for r in 1..=p {
        let mut line = format!(" {}", mark(r));
        for c in 1..=p {
            let _ = write!(line, " {}", cell(p * (r - 1) + c - 1));
        }
        let _ = write!(line, " {}", mark(3 * p + 1 - r));
        push(line);
    }
    let mut bottom = String::from("  ");
    for k in 0..p {
        let _ = write!(bottom, " {}", mark(p + 1 + k));
    }
    push(bottom);
    out
}

/// Draws a molecule (`O` atoms, `-` empty) with the given border marks.
pub fn board(m: &Molecule, marks: &[char]) -> String {
    let cells = m.cells();
    grid(m.width(), |i| if cells[i] { 'O' } else { '-' }, marks)
}

/// The seed's closing line: `There are N balls in the box`.
pub fn balls_line(n: usize) -> String {
    if n == 1 {
        "There is 1 ball in the box".to_string()
    } else {
        format!("There are {n} balls in the box")
    }
}

/// Where a border position is, in words: `left, row 3`.
pub fn position_name(width: usize, pos: usize) -> String {
    let q = port(width, pos);
    let what = match q.heading {
        Heading::East | Heading::West => "row",
        Heading::North | Heading::South => "column",
    };
    format!("{}, {what} {}", q.side.name(), q.line)
}

/// Draws one ray's path over the board with `+`, as in the seed's 23-cell
/// example; the border shows the ray in Emacs notation (`1` at both ends of an
/// exit, `H` for a hit, `R` for a reflection, `~` for a miss).
pub fn path_board(m: &Molecule, pos: usize, trace: &RayTrace, path: &[PathStep]) -> String {
    let p = m.width();
    let cells = m.cells();
    let mut on_path = vec![false; p * p];
    for s in path {
        on_path[p * (s.row - 1) + s.col - 1] = true;
    }
    let mut marks = vec![' '; 4 * p];
    marks[pos - 1] = match trace.outcome {
        Outcome::Absorbed => 'H',
        Outcome::Reflected => 'R',
        Outcome::Miss => '~',
        Outcome::Exit(k) => {
            marks[k - 1] = '1';
            '1'
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

fn plural(n: u32, word: &str) -> String {
    if n == 1 {
        format!("1 {word}")
    } else {
        format!("{n} {word}s")
    }
}

/// Describes one ray in words: where it enters, every turn, how it ends.
pub fn describe_ray(width: usize, pos: usize, trace: &RayTrace, path: &[PathStep]) -> String {
    let q = port(width, pos);
    let mut out = format!(
        "ray {pos} ({}) enters heading {}",
        position_name(width, pos),
        q.heading
    );
    let size = format!(
        "{} and {}",
        plural(trace.length, "cell"),
        plural(trace.turns, "turn")
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
            position_name(width, k)
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

/// The statistics table of one molecule, like the seed's display programme:
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

/// Everything `bbx trace` reports about one molecule, ready to print as text
/// or to serialise as JSON.
#[derive(Debug, Clone, serde::Serialize)]
pub struct TraceReport {
    /// The configuration, `An_Bp`.
    pub config: String,
    /// The rules used.
    pub rules: Rules,
    /// The linear form.
    pub molecule: String,
    /// The normalised spectrum (`null` past 52 exit pairs).
    pub spectrum: Option<String>,
    /// The molecule's number (`null` when the configuration is not numbered).
    pub number: Option<u64>,
    /// The smallest number in its enantiomer group.
    pub canonical_number: Option<u64>,
    /// The transform mapping the canonical molecule onto this one.
    pub transform: Option<String>,
    /// One entry per border position.
    pub rays: Vec<RayReport>,
    /// The 17 statistics.
    pub stats: Stats,
    #[serde(skip)]
    analysis: Analysis,
    #[serde(skip)]
    molecule_value: Molecule,
}

/// One ray of a [`TraceReport`].
#[derive(Debug, Clone, serde::Serialize)]
pub struct RayReport {
    /// Border position, 1..=4p.
    pub position: usize,
    /// `absorbed`, `reflected`, `exit` or `miss`.
    pub result: &'static str,
    /// The mark on the border in the seed's notation (`null` past 52 pairs).
    pub mark: Option<char>,
    /// Where the ray comes out, for `exit`.
    pub exit: Option<usize>,
    /// Cells entered.
    pub length: u32,
    /// 90° turns.
    pub turns: u32,
    /// The path, when requested: `[row, column, heading]` per state.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub path: Option<Vec<(usize, usize, Heading)>>,
}

impl serde::Serialize for Heading {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.name())
    }
}

impl TraceReport {
    /// Traces `m` under `rules`, recording the paths of the positions in `paths`.
    pub fn new(m: &Molecule, rules: Rules, paths: &[usize]) -> TraceReport {
        let analysis = Analysis::of(m, rules);
        let marks = analysis.spectrum.marks();
        let canonical = canonical(m);
        let mut tracer = Tracer::new(m.width(), rules);
        tracer.load(m);
        let rays = analysis
            .rays
            .iter()
            .enumerate()
            .map(|(i, r)| {
                let pos = i + 1;
                let (result, exit) = match r.outcome {
                    Outcome::Absorbed => ("absorbed", None),
                    Outcome::Reflected => ("reflected", None),
                    Outcome::Exit(k) => ("exit", Some(k)),
                    Outcome::Miss => ("miss", None),
                };
                let path = paths.contains(&pos).then(|| {
                    tracer
                        .trace_path(pos)
                        .1
                        .into_iter()
                        .map(|s| (s.row, s.col, s.heading))
                        .collect()
                });
                RayReport {
                    position: pos,
                    result,
                    mark: marks.as_ref().map(|m| m[i]),
                    exit,
                    length: r.length,
                    turns: r.turns,
                    path,
                }
            })
            .collect();
        TraceReport {
            config: m.config().to_string(),
            rules,
            molecule: m.to_string(),
            spectrum: analysis.spectrum.normalized(),
            number: rank(m),
            canonical_number: canonical.map(|c| c.0),
            transform: canonical.map(|c| c.1.name().to_string()),
            rays,
            stats: analysis.stats,
            analysis,
            molecule_value: m.clone(),
        }
    }

    /// The header: molecule, configuration and numbers, spectrum.
    pub fn header(&self) -> String {
        let mut out = format!("molecule  {}\nconfig    {}", self.molecule, self.config);
        match (self.number, self.canonical_number, &self.transform) {
            (Some(n), Some(c), Some(t)) => {
                let _ = write!(out, ", number {n}, canonical number {c}, transform {t}");
            }
            _ => out.push_str(" (too many molecules to number)"),
        }
        if self.rules != Rules::Standard {
            let _ = write!(out, ", {} rules", self.rules);
        }
        let _ = write!(out, "\nspectrum  {}\n", self.analysis.spectrum);
        out
    }

    /// The full text: header, board with its spectrum, statistics table.
    pub fn text(&self, notation: Notation) -> String {
        let m = &self.molecule_value;
        let mut out = self.header();
        out.push('\n');
        match spectrum_marks(&self.analysis.spectrum, notation) {
            Some(marks) => out.push_str(&board(m, &marks)),
            None => {
                out.push_str(&board(m, &[]));
                out.push_str(
                    if notation == Notation::Emacs && self.analysis.spectrum.pairs() <= 52 {
                        "(more than 9 exit pairs: the Emacs notation cannot show them)\n"
                    } else {
                        "(more than 52 exit pairs: no letters for the border)\n"
                    },
                );
            }
        }
        let _ = writeln!(out, "\n{}\n", balls_line(m.atoms().len()));
        out.push_str(&stats_table(&self.stats));
        out
    }

    /// The text for one ray: its path drawn over the board and described.
    pub fn ray_text(&self, pos: usize) -> String {
        let m = &self.molecule_value;
        let mut tracer = Tracer::new(m.width(), self.rules);
        tracer.load(m);
        let (trace, path) = tracer.trace_path(pos);
        let mut out = path_board(m, pos, &trace, &path);
        let _ = writeln!(out, "\n{}\n", balls_line(m.atoms().len()));
        out.push_str(&describe_ray(m.width(), pos, &trace, &path));
        out.push('\n');
        out
    }
}

/// The certainty map drawn as a board: `O` an atom in every molecule, `-` empty
/// in every one, `?` undecided; the border shows the observation.
pub fn certainty_board(observed: &Observation, certainty: &[Certainty]) -> String {
    let marks: Vec<char> = observed
        .marks()
        .unwrap_or_default()
        .into_iter()
        .map(|c| if c == '?' { ' ' } else { c })
        .collect();
    grid(
        observed.width(),
        |i| match certainty[i] {
            Certainty::Atom => 'O',
            Certainty::Empty => '-',
            Certainty::Undecided => '?',
        },
        &marks,
    )
}

/// One outcome class of a split, for JSON.
#[derive(Debug, Clone, serde::Serialize)]
pub struct ClassReport {
    /// `absorbed`, `reflected`, `exit` or `miss`.
    pub result: &'static str,
    /// The exit position, for `exit`.
    pub exit: Option<usize>,
    /// How many of the molecules give this outcome.
    pub count: usize,
}

/// An unshot ray that tells molecules apart, for JSON.
#[derive(Debug, Clone, serde::Serialize)]
pub struct SplitReport {
    /// Border position.
    pub position: usize,
    /// Its possible outcomes.
    pub classes: Vec<ClassReport>,
    /// Molecules expected to remain after shooting it.
    pub expected_remaining: f64,
    /// Information it gives, in bits.
    pub entropy: f64,
}

/// Whether the player's guess fits, for JSON.
#[derive(Debug, Clone, serde::Serialize)]
pub struct GuessReport {
    /// The guess, linear form.
    pub molecule: String,
    /// Whether it has the right atom count and reproduces every observed ray.
    pub fits: bool,
    /// A ray on which it differs: position, observed and guessed results.
    pub differs_at: Option<(usize, String, String)>,
    /// Whether it is among the molecules found.
    pub among_solutions: bool,
}

fn result_name(o: Outcome) -> (&'static str, Option<usize>) {
    match o {
        Outcome::Absorbed => ("absorbed", None),
        Outcome::Reflected => ("reflected", None),
        Outcome::Exit(k) => ("exit", Some(k)),
        Outcome::Miss => ("miss", None),
    }
}

/// Everything `bbx solve` reports, ready to print as text or JSON.
#[derive(Debug, Clone, serde::Serialize)]
pub struct SolveReport {
    /// The puzzle file.
    pub origin: String,
    /// The rules used.
    pub rules: Rules,
    /// Smallest atom count searched.
    pub atoms_min: usize,
    /// Largest atom count searched.
    pub atoms_max: usize,
    /// The observation (spectrum string with `?` for rays not shot).
    pub observation: String,
    /// Rays shot (positions with a known result).
    pub shot: usize,
    /// Molecules found.
    pub count: usize,
    /// False when `--max` or the timeout stopped the search.
    pub complete: bool,
    /// True when the timeout stopped it.
    pub timed_out: bool,
    /// The molecules, linear form.
    pub solutions: Vec<String>,
    /// Their numbers, where the configuration is numbered.
    pub numbers: Vec<Option<u64>>,
    /// Their full spectra.
    pub spectra: Vec<String>,
    /// Linear indices of the cells that hold an atom in every molecule.
    pub certain_atoms: Vec<usize>,
    /// Linear indices of the cells empty in every molecule.
    pub certain_empty: Vec<usize>,
    /// When nothing fits: the positions of a smallest set of contradicting rays.
    pub conflict: Option<Vec<usize>>,
    /// Unshot rays that tell the molecules apart, best first.
    pub splits: Vec<SplitReport>,
    /// The player's guess, if the puzzle has one.
    pub guess: Option<GuessReport>,
    #[serde(skip)]
    solution: Solution,
}

impl SolveReport {
    /// Builds the report of `solution` for the puzzle from `origin`, with the
    /// player's `guess` if any.
    pub fn new(origin: &str, solution: Solution, guess: Option<&Molecule>) -> SolveReport {
        let rules = solution.rules;
        let splits = solution
            .splits()
            .into_iter()
            .map(|s| SplitReport {
                position: s.position,
                classes: s
                    .classes
                    .iter()
                    .map(|&(o, count)| {
                        let (result, exit) = result_name(o);
                        ClassReport {
                            result,
                            exit,
                            count,
                        }
                    })
                    .collect(),
                expected_remaining: s.expected_remaining,
                entropy: s.entropy,
            })
            .collect();
        let guess = guess.map(|g| {
            let s = Spectrum::of(g, rules);
            let differs = solution.observation.first_difference(&s);
            let count_ok = solution.atoms.contains(&g.atoms().len());
            GuessReport {
                molecule: g.to_string(),
                fits: differs.is_none() && count_ok,
                differs_at: differs.map(|p| {
                    let observed = solution
                        .observation
                        .get(p)
                        .map(Outcome::words)
                        .unwrap_or_default();
                    (p, observed, s.get(p).words())
                }),
                among_solutions: solution.molecules.contains(g),
            }
        });
        SolveReport {
            origin: origin.to_string(),
            rules,
            atoms_min: *solution.atoms.start(),
            atoms_max: *solution.atoms.end(),
            observation: solution.observation.to_string(),
            shot: solution.observation.shot_count(),
            count: solution.molecules.len(),
            complete: solution.complete,
            timed_out: solution.timed_out,
            solutions: solution.molecules.iter().map(|m| m.to_string()).collect(),
            numbers: solution.molecules.iter().map(rank).collect(),
            spectra: solution
                .molecules
                .iter()
                .map(|m| Spectrum::of(m, rules).to_string())
                .collect(),
            certain_atoms: solution.certain_atoms(),
            certain_empty: solution.certain_empty(),
            conflict: solution.conflict.clone(),
            splits,
            guess,
            solution,
        }
    }

    /// The one-line verdict: how many molecules fit.
    pub fn verdict(&self) -> String {
        let n = self.count;
        let word = if n == 1 {
            "molecule fits"
        } else {
            "molecules fit"
        };
        if self.complete {
            match n {
                0 => "No molecule fits these observations.".to_string(),
                _ => format!("{n} {word}."),
            }
        } else if self.timed_out {
            format!(
                "At least {n} {word} (the time limit stopped the search before it was complete)."
            )
        } else {
            format!("At least {n} {word} (the search stopped at --max {n}).")
        }
    }

    /// The full text: verdict, each molecule (up to `show`), certainty map,
    /// splitting rays, the guess, or the conflict.
    pub fn text(&self, show: usize) -> String {
        let sol = &self.solution;
        let p = sol.observation.width();
        let mut out = String::new();
        let atoms = if self.atoms_min == self.atoms_max {
            format!("{} atoms", self.atoms_min)
        } else {
            format!("{} to {} atoms", self.atoms_min, self.atoms_max)
        };
        let _ = writeln!(
            out,
            "puzzle    {} ({p}×{p}, {} of {} rays shot)",
            self.origin,
            self.shot,
            4 * p
        );
        let _ = writeln!(out, "searched  {atoms}, {} rules", self.rules);
        let _ = writeln!(out, "observed  {}", self.observation);
        let _ = writeln!(out, "\n{}", self.verdict());
        if let Some(conflict) = &self.conflict {
            let list: Vec<String> = conflict
                .iter()
                .map(|&q| {
                    let what = sol
                        .observation
                        .get(q)
                        .map(Outcome::words)
                        .unwrap_or_default();
                    format!("  ray {q} ({}): {what}", position_name(p, q))
                })
                .collect();
            let _ = writeln!(
                out,
                "\nThese observed rays cannot hold together (each one is needed for the contradiction):\n{}",
                list.join("\n")
            );
            let mut marks = vec![' '; 4 * p];
            let obs_marks = sol.observation.marks().unwrap_or_default();
            for &q in conflict {
                marks[q - 1] = obs_marks.get(q - 1).copied().unwrap_or('?');
            }
            let _ = write!(out, "\n{}", grid(p, |_| '-', &marks));
        }
        for (i, m) in sol.molecules.iter().enumerate().take(show) {
            let number = match self.numbers[i] {
                Some(n) => format!(", number {n}"),
                None => String::new(),
            };
            let _ = writeln!(out, "\nmolecule {} of {}{number}: {m}", i + 1, self.count);
            let s = Spectrum::of(m, self.rules);
            match spectrum_marks(&s, Notation::Seed) {
                Some(marks) => out.push_str(&board(m, &marks)),
                None => out.push_str(&board(m, &[])),
            }
        }
        if self.count > show {
            let _ = writeln!(
                out,
                "\n… and {} more (--show N prints more boards, --json lists them all).",
                self.count - show
            );
        }
        if let Some(c) = &sol.certainty
            && !sol.molecules.is_empty()
        {
            let atoms = c.iter().filter(|x| **x == Certainty::Atom).count();
            let undecided = c.iter().filter(|x| **x == Certainty::Undecided).count();
            let _ = writeln!(
                out,
                "\ncertain: {atoms} atoms, {} empty cells, {undecided} undecided (O atom in every molecule, - empty in every one, ? undecided)",
                c.len() - atoms - undecided
            );
            out.push_str(&certainty_board(&sol.observation, c));
        }
        if !self.splits.is_empty() {
            let _ = writeln!(out, "\nrays not shot that tell them apart (best first):");
            for s in self.splits.iter().take(10) {
                let classes: Vec<String> = s
                    .classes
                    .iter()
                    .map(|c| match c.exit {
                        Some(k) => format!("out at {k} ×{}", c.count),
                        None => format!("{} ×{}", c.result, c.count),
                    })
                    .collect();
                let _ = writeln!(
                    out,
                    "  ray {} ({}): {}; {:.2} expected to remain",
                    s.position,
                    position_name(p, s.position),
                    classes.join(", "),
                    s.expected_remaining
                );
            }
            if self.splits.len() > 10 {
                let _ = writeln!(out, "  … {} more rays split them", self.splits.len() - 10);
            }
        } else if self.count > 1 && sol.observation.is_complete() {
            let _ = writeln!(
                out,
                "\nEvery ray has been shot: no further ray can tell these molecules apart."
            );
        } else if self.count > 1 && self.complete {
            let _ = writeln!(
                out,
                "\nNo ray left to shoot tells these molecules apart: they share every result."
            );
        }
        if let Some(g) = &self.guess {
            let _ = write!(out, "\nyour guess {}: ", g.molecule);
            match &g.differs_at {
                None if g.fits => out.push_str("fits every observed ray.\n"),
                None => {
                    let _ = writeln!(
                        out,
                        "reproduces every observed ray but has {} atoms, not {atoms}.",
                        g.molecule.chars().filter(|&c| c == 'O').count()
                    );
                }
                Some((q, observed, guessed)) => {
                    let _ = writeln!(
                        out,
                        "does not fit: ray {q} ({}) was observed {observed}, the guess gives {guessed}.",
                        position_name(p, *q)
                    );
                }
            }
        }
        out
    }
}

/// A catalogue row drawn as the seed's display programme does: header, board
/// with its spectrum, statistics table.
pub fn molecule_row(config: Config, row: &MoleculeRow) -> String {
    let mut out = format!(
        "{config} number {}, canonical number {}, transform {}\nmolecule  {}\nspectrum  {}\n\n",
        row.number, row.canonical_number, row.transform, row.molecule, row.spectrum
    );
    out.push_str(&row_board(row));
    let _ = writeln!(out, "\n{}\n", balls_line(config.atoms));
    out.push_str(&stats_table(&row.stats));
    out
}

fn row_board(row: &MoleculeRow) -> String {
    let m = Molecule::parse_linear(&row.molecule, "catalogue")
        .unwrap_or_else(|_| Molecule::new(1, []).expect("1×1"));
    let marks: Vec<char> = row.spectrum.chars().collect();
    board(&m, &marks)
}

/// Boards side by side, separated by `gap` spaces, as the seed shows spectral
/// groups.
pub fn side_by_side(boards: &[String], gap: usize) -> String {
    let blocks: Vec<Vec<&str>> = boards.iter().map(|b| b.lines().collect()).collect();
    let widths: Vec<usize> = blocks
        .iter()
        .map(|b| b.iter().map(|l| l.chars().count()).max().unwrap_or(0))
        .collect();
    let height = blocks.iter().map(Vec::len).max().unwrap_or(0);
    let mut out = String::new();
    for i in 0..height {
        let mut line = String::new();
        for (j, b) in blocks.iter().enumerate() {
            let part = b.get(i).copied().unwrap_or("");
            line.push_str(part);
            if j + 1 < blocks.len() {
                let pad = widths[j] - part.chars().count() + gap;
                line.extend(std::iter::repeat_n(' ', pad));
            }
        }
        out.push_str(line.trim_end());
        out.push('\n');
    }
    out
}

/// A spectral group: the molecules sharing one spectrum, side by side (at most
/// `per_line` boards per line).
pub fn spectral_group(config: Config, rows: &[MoleculeRow], per_line: usize) -> String {
    let mut out = String::new();
    if let Some(first) = rows.first() {
        let numbers: Vec<String> = rows.iter().map(|r| r.number.to_string()).collect();
        let _ = writeln!(
            out,
            "{config} spectrum {} is shared by {} molecules: {}\n",
            first.spectrum,
            rows.len(),
            numbers.join(", ")
        );
    }
    for chunk in rows.chunks(per_line.max(1)) {
        let boards: Vec<String> = chunk.iter().map(row_board).collect();
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

/// The text of `bbx stats`: the seed's ambiguity table, unique share,
/// largest groups, records.
pub fn stats_text(report: &StatsReport) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "{}: {} molecules{}\n",
        report.config,
        report.molecules,
        if report.computed_in_memory {
            " (computed in memory: no complete catalogue in the database)"
        } else {
            ""
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
        "\n{} of {} molecules ({share:.2}%) have a spectrum no other molecule has.",
        report.unique_molecules, report.molecules
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
                "  {} molecules ({}) differ by up to {} atom{}: {}",
                g.numbers.len(),
                n.join(", "),
                g.atoms_apart,
                if g.atoms_apart == 1 { "" } else { "s" },
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
            let _ = writeln!(
                out,
                "  {:<10}most {:<7}{:>4}   molecule {}, ray {}",
                r.kind,
                if r.measure == "turns" {
                    "turns"
                } else {
                    "cells"
                },
                r.value,
                r.number,
                r.ray
            );
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn seed_23_cell_path() {
        let m: Molecule = "-------O\
                           --------\
                           O-------\
                           --------\
                           -------O\
                           --------\
                           O-------\
                           --------"
            .parse()
            .unwrap();
        let mut t = Tracer::new(8, Rules::Standard);
        t.load(&m);
        let (trace, path) = t.trace_path(31);
        assert_eq!(
            trace,
            RayTrace {
                outcome: Outcome::Exit(15),
                length: 23,
                turns: 6
            }
        );
        let expected = "     1
   - + - - - - - O
   - + + + + + + -
   O - - - - - + -
   - + + + + + + -
   - + - - - - - O
   - + + + + + + -
   O - - - - - + -
   - - - - - - + -
               1
";
        assert_eq!(path_board(&m, 31, &trace, &path), expected);
        let d = describe_ray(8, 31, &trace, &path);
        assert!(d.starts_with("ray 31 (top, column 2) enters heading south and comes out at 15 (bottom, column 7) after 23 cells and 6 turns."), "{d}");
        assert!(d.contains("turns east at (2,2)"), "{d}");
    }

    #[test]
    fn emacs_notation() {
        let m: Molecule = "O-O-------------".parse().unwrap();
        let s = Spectrum::of(&m, Rules::Standard);
        let marks: String = spectrum_marks(&s, Notation::Emacs)
            .unwrap()
            .into_iter()
            .collect();
        assert_eq!(marks, "HR12HRH3213HRHRH");
        let empty = Spectrum::of(&Molecule::new(5, []).unwrap(), Rules::Standard);
        assert!(spectrum_marks(&empty, Notation::Emacs).is_none());
    }

    #[test]
    fn stats_table_layout() {
        let m: Molecule = "O-O-------------".parse().unwrap();
        let a = crate::rules::spectrum::Analysis::of(&m, Rules::Standard);
        let t = stats_table(&a.stats);
        assert!(
            t.contains("absorbed          6           3          0           7          0"),
            "{t}"
        );
        assert!(
            t.contains("out (pairs)       3           4          1          11          1"),
            "{t}"
        );
    }
}
