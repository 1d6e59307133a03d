//! One module per subcommand: its arguments (with their `--help` text) and
//! `run`, which calls the library and returns what to print and the exit code.

pub mod completions;
pub mod explore;
pub mod generate;
pub mod man;
pub mod play;
pub mod puzzles;
pub mod show;
pub mod solve;
pub mod stats;
pub mod strategy;
pub mod suggest;
pub mod trace;
pub mod verify;
