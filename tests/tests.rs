//! bbx's integration tests, as one test crate (as ripgrep and cargo keep
//! theirs): one link of the library and the test support instead of one per
//! file. Each module is the suite of one part of bbx; run one with
//! `cargo test --release --test integration MODULE::`, for example
//! `cargo test --release --test integration layers::`.

mod common;

mod census;
mod cli_args;
mod cli_bound;
mod cli_catalogue;
mod cli_census;
mod cli_errors;
mod cli_generate;
mod cli_help;
mod cli_install;
mod cli_optimal;
mod cli_policy;
mod cli_puzzles;
mod cli_solve;
mod cli_store;
mod cli_strategy;
mod cli_trace;
mod cli_verify;
mod cli_verify_stream;
mod cli_workdir;
mod docs;
mod facts;
mod fuzz;
mod game_middle;
mod json_schema;
mod layers;
mod optimal;
mod play_board;
mod play_coach;
mod play_saves;
mod play_screens;
mod play_start;
mod play_tatham;
mod play_terminal;
mod play_verdict;
mod properties;
mod rectangles;
mod reference;
mod sat_props;
mod tatham;
mod web;
