//! Pictures: boards, spectra, ray paths and tables as text.
//!
//! This layer only draws. Every function takes a finished value (a molecule,
//! a [`TraceReport`](crate::rules::trace_report::TraceReport), a
//! [`SolveReport`](crate::solver::solve_report::SolveReport), a
//! [`StatsReport`](crate::tables::StatsReport), a verification) and returns
//! text; the layers below compute.
//!
//! The board layout is J. Forget's: border marks around the cells, one
//! character every two columns (see [`crate::puzzle`] for the reverse).
//!
//! ```
//! use bbx::{render, Molecule, Rules, Spectrum};
//! let m: Molecule = "O-O-------------".parse().unwrap();
//! let s = Spectrum::of(&m, Rules::Standard);
//! let marks = s.marks().unwrap();
//! assert_eq!(
//!     render::board(&m, &marks),
//!     "   @ & @ &\n @ O - O - @\n & - - - - c\n a - - - - a\n b - - - - b\n   @ & @ c\n"
//! );
//! ```

mod assist;
#[cfg(feature = "catalogue")]
mod catalogue;
mod diagram;
mod generate;
mod solve;
mod strategy;
mod trace;
#[cfg(feature = "census")]
mod verify;

pub use assist::{next_ray_line, plan_text, suggest_text};
#[cfg(feature = "catalogue")]
pub use catalogue::{molecule_row, molecule_row_in, spectral_group, spectral_group_in, stats_text};
pub use diagram::{
    balls_line, balls_range_line, board, grid, marks_in, observed_marks, position_name,
    side_by_side,
};
pub use generate::{PuzzleReport, generated_text};
pub use solve::{
    PageBoard, RayTable, SolvePage, certainty_board, certainty_board_in, probability_board,
    solve_page, solve_text, solve_text_in, solving_line, verdict,
};
pub use strategy::{bound_text, game_text, optimum_text, strategy_text, tree_check_text};
pub use trace::{describe_ray, path_board, ray_text, stats_table, trace_header, trace_text};
#[cfg(feature = "census")]
pub use verify::{verify_streamed_text, verify_text};

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::board::Molecule;
    use crate::rules::notation::Notation;

    #[test]
    fn marks_are_written_in_emacs_notation_up_to_nine_pairs() {
        let letters: Vec<char> = "@&ab~ i".chars().collect();
        let emacs: String = marks_in(&letters, Notation::Emacs)
            .unwrap()
            .into_iter()
            .collect();
        assert_eq!(emacs, "HR12~ 9");
        assert_eq!(marks_in(&letters, Notation::Letters).unwrap(), letters);
        // A tenth pair has no digit.
        assert!(marks_in(&['a', 'j'], Notation::Emacs).is_none());
        assert!(marks_in(&['A'], Notation::Emacs).is_none());
    }
    use crate::rules::ray::{Outcome, RayTrace, Rules, Tracer};
    use crate::rules::spectrum::Spectrum;

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
        let d = describe_ray(8.into(), 31, &trace, &path);
        assert!(d.starts_with("ray 31 (top, column 2) enters heading south and comes out at 15 (bottom, column 7) after 23 cells and 6 turns."), "{d}");
        assert!(d.contains("turns east at (2,2)"), "{d}");
    }

    #[test]
    fn emacs_notation() {
        let m: Molecule = "O-O-------------".parse().unwrap();
        let s = Spectrum::of(&m, Rules::Standard);
        let marks: String = s.marks_in(Notation::Emacs).unwrap().into_iter().collect();
        assert_eq!(marks, "HR12HRH3213HRHRH");
        let empty = Spectrum::of(&Molecule::new(5, []).unwrap(), Rules::Standard);
        assert!(empty.marks_in(Notation::Emacs).is_none());
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
