//! # bbx — explore and solve the deduction game Black Box
//!
//! In Black Box (Eric Solomon) a hider places *atoms* in a p×p box and a seeker
//! shoots *rays* in from the 4p border positions, learning for each one whether
//! it was absorbed (`@`), reflected (`&`) or where it came out. bbx answers
//! three questions from one ray engine:
//!
//! * which molecules (placements of atoms) fit an observed game,
//! * which spectra (results of all rays) are shared by several molecules,
//! * and whether those two answers agree.
//!
//! The crate is organised the way the game is:
//!
//! | module | concept |
//! |--------|---------|
//! | [`config`] | configurations `An_Bp` |
//! | [`board`] | cells, border positions, molecules |
//! | [`ray`] | the rules and the [`Tracer`] that applies them |
//! | [`spectrum`] | spectra and the 17 per-molecule statistics |
//! | [`symmetry`] | the eight symmetries of the square |
//! | [`enumeration`] | molecule numbers, canonical molecules, enumeration |
//! | [`catalogue`] | the SQLite catalogue of a configuration |
//! | [`puzzle`] | reading boards and games drawn in the seed's display |
//! | [`sat`] | the rules as SAT clauses: every molecule that fits an observation |
//! | [`verify`] | enumeration and SAT checking each other |
//! | [`generate`] | puzzles with exactly one answer |
//! | [`plan`] | the best shooting strategy, as a decision tree |
//! | [`render`] | drawing boards, spectra, paths and tables |
//!
//! ```
//! use bbx::{Molecule, Rules, Analysis, enumeration};
//!
//! let m: Molecule = "O-O-------------".parse()?;
//! let a = Analysis::of(&m, Rules::Standard);
//! assert_eq!(a.spectrum.to_string(), "@&ab@&@cbac@&@&@");
//! assert_eq!(a.stats.out_tot_length, 11);
//! assert_eq!(enumeration::rank(&m), Some(2));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

#![warn(missing_docs)]

pub mod board;
pub mod catalogue;
pub mod config;
pub mod enumeration;
pub mod error;
pub mod generate;
pub mod plan;
pub mod puzzle;
pub mod ray;
pub mod render;
pub mod sat;
pub mod spectrum;
pub mod symmetry;
pub mod verify;

pub use board::{Heading, Molecule};
pub use config::Config;
pub use error::{Error, ParseError, Result};
pub use ray::{Outcome, PathStep, RayTrace, Rules, Tracer};
pub use spectrum::{Analysis, Observation, Spectrum, Stats};
pub use symmetry::Transform;
