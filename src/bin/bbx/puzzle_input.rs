//! The puzzle a command reads (`solve`, `suggest`) and its search with a
//! spinner.

use std::ops::RangeInclusive;

use bbx::Rules;
use bbx::control::{Budget, Ended};
use bbx::puzzle::{Format, Puzzle, load_puzzle_arg_within};
use bbx::solver::{self, Limits, Solution};

use crate::exit::Status;
use crate::output::stopped_by;
use crate::progress::spinner;

/// Where a puzzle comes from and how to read it (shared by solve and suggest).
#[derive(clap::Args)]
pub struct PuzzleInput {
    /// The puzzle file, `-` for standard input, a built-in puzzle, or the puzzle itself
    ///
    /// The name of a built-in puzzle (`bbx puzzles` lists them) is read
    /// where no file of that name exists, and so is a game ID of Tatham's
    /// Black Box or a puzzle in the linear form, in quotes ('A2_B4
    /// @&ab@&@?ba?@&@&@').
    #[arg(value_name = "FILE|NAME|ID")]
    pub file: String,
    /// The puzzle format [default: detected]
    ///
    /// For a file whose format the first lines do not tell apart (formats
    /// below).
    #[arg(long, value_name = "FORMAT", value_parser = crate::values::format(), ignore_case = true)]
    pub format: Option<Format>,
    /// Atoms: N, or a range A..B [default: the file's]
    ///
    /// A range such as 3..5 searches every count in it. The default is the
    /// count the file gives ('There are N balls in the box', the
    /// configuration of a linear puzzle, Tatham's parameters).
    #[arg(long, value_name = "N|A..B", value_parser = parse_atoms, allow_negative_numbers = true)]
    pub atoms: Option<RangeInclusive<usize>>,
    /// Ray rules [default: the file's, else standard]
    ///
    /// edge-miss for seed001 files (A. Janns's rules), standard otherwise.
    #[arg(long, value_name = "RULES", value_parser = crate::values::rules(), ignore_case = true)]
    pub rules: Option<Rules>,
}

impl PuzzleInput {
    /// Reads the puzzle (a file, a built-in one by name, or one given
    /// inline) within `budget` and settles its atom counts and rules;
    /// `Err(ended)` when the budget stopped the reading.
    pub fn load(&self, budget: &Budget) -> bbx::Result<Result<Loaded, Ended>> {
        let read = match crate::samples::find(&self.file) {
            Some(sample) => {
                bbx::puzzle::parse_puzzle_within(sample.text, sample.name, self.format, budget)?
            }
            None => load_puzzle_arg_within(&self.file, self.format, budget)
                .map_err(crate::samples::not_found)?,
        };
        let Some(puzzle) = read.value else {
            return Ok(Err(read.ended));
        };
        let (atoms, rules) = puzzle.search_settings(self.atoms.clone(), self.rules)?;
        Ok(Ok((puzzle, atoms, rules)))
    }

    /// What to print when the budget stopped the reading (`ended`): the
    /// command has nothing to report.
    pub fn not_read(&self, as_json: bool, ended: Ended) -> (String, Status) {
        let file = if self.file == "-" {
            "standard input".to_string()
        } else {
            bbx::error::one_line(&self.file).into_owned()
        };
        let message = bbx::control::nothing_before(ended, &format!("{file} was read"));
        stopped_by(as_json, ended, &message)
    }
}

/// A puzzle read, with the atom counts and the rules to search it under.
pub type Loaded = (Puzzle, RangeInclusive<usize>, Rules);

/// Parses `N` or `A..B` (also `A..=B`).
pub fn parse_atoms(s: &str) -> Result<RangeInclusive<usize>, String> {
    bbx::puzzle::parse_atom_counts(s)
}

/// Solves `puzzle` for `command`, with a spinner counting the molecules
/// listed so far; returns the spinner, still shown, with the answer. The
/// deadline holds even inside one long solver call: [`solver::solve`]
/// answers with what it found a moment past it.
pub fn solve_showing(
    command: &str,
    quiet: bool,
    puzzle: &Puzzle,
    (atoms, rules): (RangeInclusive<usize>, Rules),
    limits: &Limits,
) -> (indicatif::ProgressBar, bbx::Result<Solution>) {
    let what = format!("{command} {}", puzzle.origin);
    let spinner = spinner(quiet, what.clone());
    let mut n = 0;
    let solution = solver::solve(&puzzle.observation, rules, atoms, limits, |_| {
        n += 1;
        let found = bbx::error::quantity(n, "molecule", "molecules");
        spinner.set_message(format!("{what}: {found} found"));
    });
    (spinner, solution)
}
