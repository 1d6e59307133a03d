//! The `bbx` command: parses the arguments and hands them to one of
//! [`commands`], each of which calls the library and returns the text to print.

use std::process::ExitCode;

use clap::{CommandFactory, Parser, Subcommand};

mod cli;
mod commands;
mod terminal;

/// Explore and solve the deduction game Black Box.
#[derive(Parser)]
#[command(name = "bbx", version, about, long_about = None, propagate_version = true)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Trace every ray of one molecule: spectrum, numbers, board and statistics.
    Trace(commands::trace::Args),
    /// Find every molecule that fits an observed game (SAT with blocking clauses).
    Solve(commands::solve::Args),
    /// Enumerate every molecule of a configuration into the SQLite catalogue.
    Explore(commands::explore::Args),
    /// Display catalogued molecules as J. Forget's display programme does.
    Show(commands::show::Args),
    /// The ambiguity table, unique spectra, largest groups and ray records of a configuration.
    Stats(commands::stats::Args),
    /// Check enumeration and SAT against each other, spectrum by spectrum.
    Verify(commands::verify::Args),
    /// Rank the rays not yet shot by how well they tell the remaining molecules apart.
    Suggest(commands::suggest::Args),
    /// Play a policy against every molecule of a configuration: rays, score, luck.
    Strategy(commands::strategy::Args),
    /// Make a random puzzle: with one answer (--unique), and as few rays as possible (--minimal).
    Generate(commands::generate::Args),
    /// Play Black Box in the terminal, with the solver as referee and coach.
    Play(commands::play::Args),
    /// Print the shell completion script for bash, zsh, fish, elvish or powershell.
    Completions(commands::completions::Args),
    /// Print the manual page, or write one page per command into a directory.
    Man(commands::man::Args),
}

fn main() -> ExitCode {
    let json = cli::json_mode();
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        // With --json, a command line that does not parse is an error
        // object on standard output too (help and --version print as usual).
        Err(e) if json && e.use_stderr() => {
            let _ = e.print();
            let rendered = e.to_string();
            let message = rendered
                .lines()
                .next()
                .unwrap_or_default()
                .trim_start_matches("error: ");
            let status = cli::Status::BadInput;
            let failed = cli::emit(&cli::json_error("usage", message, status));
            return failed.map_or_else(|failed| failed, |()| status).into();
        }
        Err(e) => e.exit(),
    };
    let result = match cli.command {
        Command::Trace(args) => commands::trace::run(args),
        Command::Solve(args) => commands::solve::run(args),
        Command::Explore(args) => commands::explore::run(args),
        Command::Show(args) => commands::show::run(args),
        Command::Stats(args) => commands::stats::run(args),
        Command::Verify(args) => commands::verify::run(args),
        Command::Suggest(args) => commands::suggest::run(args),
        Command::Strategy(args) => commands::strategy::run(args),
        Command::Generate(args) => commands::generate::run(args),
        Command::Play(args) => commands::play::run(args),
        Command::Completions(args) => commands::completions::run(args, Cli::command()),
        Command::Man(args) => commands::man::run(args, Cli::command()),
    };
    let status = match result {
        Ok((text, status)) => cli::emit(&text).map_or_else(|failed| failed, |()| status),
        Err(e) if json => {
            let message = e.show(&cli::Flags);
            eprintln!("error: {message}");
            let status = cli::status_of(&e);
            let text = cli::json_error(cli::error_kind(&e), &message, status);
            cli::emit(&text).map_or_else(|failed| failed, |()| status)
        }
        Err(e) => {
            eprintln!("error: {}", e.show(&cli::Flags));
            cli::status_of(&e)
        }
    };
    status.into()
}
