//! # bbx — explore and solve the deduction game Black Box
//!
//! In Black Box (Eric Solomon) a hider places *atoms* in a p×p box and a seeker
//! shoots *rays* in from the 4p border positions, learning for each one whether
//! it was absorbed (`@`), reflected (`&`) or where it came out. bbx answers
//! three questions from one set of rules:
//!
//! * which molecules (placements of atoms) fit an observed game,
//! * which spectra (results of all rays) are shared by several molecules,
//! * and whether those two answers agree.
//!
//! The crate is built in layers, each folder using only the ones above it in
//! this table (a test, `tests/layers.rs`, keeps it so):
//!
//! | module | layer |
//! |--------|-------|
//! | [`control`] | stopping long work: the budget, the cancellation token, how work ended |
//! | [`error`] | the errors every layer returns |
//! | [`setting`] | the settings a user can change, which each front names its own way |
//! | [`work`] | long work shared out among threads and machines and resumed: work directories, the cluster |
//! | [`rules`] | the rules of the game: configurations, molecules, rays, spectra, symmetries, numbering |
//! | [`solver`] | the rules as SAT clauses: every molecule that fits an observation |
//! | [`puzzle`] | reading boards and observed games from files |
//! | [`tables`] | the exact tables of a whole configuration, as `bbx stats` prints them |
//! | [`catalogue`] | the SQLite catalogue of a whole configuration |
//! | [`census`] | the same tables without a catalogue, one molecule per orbit, on timely dataflow |
//! | [`verify`] | enumeration and SAT checking each other |
//! | [`assistant`] | the best next ray, the best strategy, puzzles with one answer |
//! | [`render`] | pictures: boards, paths and tables as text |
//! | [`play`] | the game: referee, coach, save files; its screen in the terminal |
//!
//! The main types are re-exported here.
//!
//! ## Features
//!
//! The default feature, `cli`, builds the `bbx` program and every module. A
//! program that needs less takes `default-features = false` and adds what it
//! uses; the rules, the solver, the puzzle formats, the tables, the
//! assistant, the pictures and the game (its referee, coach and save files)
//! are always there, without SQLite, timely or a terminal library, and build
//! for WebAssembly in a browser (the web page in `web/` is such a program):
//!
//! | feature | adds | brings in |
//! |---------|------|-----------|
//! | `catalogue` | [`catalogue`] | rusqlite (SQLite, compiled from its C source) |
//! | `census` | [`work`], [`census`] and [`verify`] (and `catalogue`) | timely |
//! | `play` | [`play`]'s screen in the terminal | ratatui, crossterm |
//! | `cli` (default) | all of the above and the binary | clap, indicatif… |
//!
//! ```toml
//! [dependencies]
//! bbx = { path = "…", default-features = false }   # rules, solver, assistant
//! ```
//!
//! ```
//! use bbx::rules::enumeration;
//! use bbx::{Analysis, Molecule, Rules};
//!
//! let m: Molecule = "O-O-------------".parse()?;
//! let a = Analysis::of(&m, Rules::Standard);
//! assert_eq!(a.spectrum.to_string(), "@&ab@&@cbac@&@&@");
//! assert_eq!(a.stats.out_tot_length, 11);
//! assert_eq!(enumeration::rank(&m), Some(2));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

#![warn(missing_docs)]

pub mod control;
pub mod error;
pub mod files;
pub mod setting;

#[cfg(feature = "census")]
pub mod work;

pub mod rules;

pub mod puzzle;
pub mod solver;

#[cfg(feature = "catalogue")]
pub mod catalogue;
pub mod tables;

#[cfg(feature = "census")]
pub mod census;

#[cfg(feature = "census")]
pub mod verify;

pub mod assistant;

pub mod render;

pub mod play;

/// The `rand` crate the random choices come from (generators and traits), so
/// that a caller's generator matches the version bbx takes.
pub use rand;

pub use error::{Error, ParseError, Result};
pub use rules::board::{Heading, Molecule};
pub use rules::config::Config;
pub use rules::ray::{Outcome, PathStep, RayTrace, Rules, Tracer};
pub use rules::spectrum::{Analysis, Observation, Spectrum, Stats};
pub use rules::symmetry::Transform;
