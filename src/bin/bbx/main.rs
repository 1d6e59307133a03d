//! The `bbx` command: parses the arguments and hands them to one of
//! [`commands`], each of which calls the library and returns the text to print.

use std::process::ExitCode;

use clap::{CommandFactory, Parser, Subcommand};

mod catalogues;
mod cli;
mod commands;
mod exit;
mod fit;
mod manual;
mod output;
mod progress;
mod puzzle_input;
mod samples;
mod terminal;
mod values;
mod work;

/// Play, solve and explore the deduction game Black Box.
///
/// Black Box hides atoms in a square box; rays shot in from the border come
/// back absorbed, reflected or out elsewhere, and tell where the atoms are.
/// bbx plays the game in the terminal, finds every molecule (placement of
/// the atoms) that fits the rays of a game, ranks the next ray, and counts
/// and checks the ambiguities of whole configurations (An_Bp: n atoms in a
/// p×p box).
#[derive(Parser)]
#[command(
    name = "bbx",
    version,
    propagate_version = true,
    after_help = SHORT_AFTER_HELP,
    after_long_help = LONG_AFTER_HELP
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Play Black Box in the terminal, with a coach
    ///
    /// Play Black Box in the terminal, with the solver as referee and coach: a
    /// random molecule, a puzzle, a saved game or a game of Simon Tatham's
    /// Black Box.
    Play(commands::play::Args),
    /// List the puzzles built into bbx, or print one
    ///
    /// List the sample puzzles built into bbx, or print one; every command
    /// that reads a puzzle takes one by name.
    Puzzles(commands::puzzles::Args),
    /// Every molecule that fits the rays of a game
    ///
    /// Find every molecule that fits an observed game (SAT with blocking
    /// clauses), the cells they agree on, and the rays that tell them apart.
    Solve(commands::solve::Args),
    /// The rays worth shooting next in a game
    ///
    /// Rank the rays not yet shot by how well they tell the remaining
    /// molecules apart, and with --plan the strategy that needs the fewest.
    Suggest(commands::suggest::Args),
    /// Make a random puzzle, with one answer if asked
    ///
    /// Make a random puzzle: with one answer (--unique), and as few rays as
    /// possible (--minimal).
    Generate(commands::generate::Args),
    /// Trace every ray of one molecule
    ///
    /// Trace every ray of one molecule: its spectrum, numbers, board and
    /// statistics, and the path of a ray drawn on the board.
    Trace(commands::trace::Args),
    /// Play a policy against every molecule of a configuration
    ///
    /// Play a policy against every molecule of a configuration: rays, score,
    /// luck; and the best strategy, or a lower bound, if asked.
    Strategy(commands::strategy::Args),
    /// Store every molecule of a configuration in a catalogue
    ///
    /// Enumerate every molecule of a configuration into the SQLite catalogue,
    /// with its spectrum and statistics.
    Explore(commands::explore::Args),
    /// Draw catalogued molecules and spectral groups
    ///
    /// Display catalogued molecules as J. Forget's display programme does:
    /// by number, range, spectrum or spectral group.
    Show(commands::show::Args),
    /// The ambiguity table and ray records of a configuration
    ///
    /// The ambiguity table, unique spectra, largest groups and ray records of
    /// a configuration, from a catalogue or counted by a census.
    Stats(commands::stats::Args),
    /// Check enumeration and SAT against each other
    ///
    /// Check enumeration and SAT against each other, spectrum by spectrum.
    Verify(commands::verify::Args),
    /// Print a shell completion script
    ///
    /// Print the shell completion script for bash, zsh, fish, elvish or
    /// powershell.
    Completions(commands::completions::Args),
    /// Print the manual page, or write every page
    ///
    /// Print the manual page, or write one page per command into a
    /// directory.
    Man(commands::man::Args),
}

/// What `bbx -h` shows after the commands.
const SHORT_AFTER_HELP: &str = "\
Examples:
  bbx play
  bbx solve seed-emacs-game-2

'bbx help COMMAND' (or 'bbx COMMAND --help') tells more; 'bbx --help' lists
the exit statuses and the documentation.";

/// What `bbx --help` (and the manual page) shows after the commands.
const LONG_AFTER_HELP: &str = "\
Examples:
  bbx play                          a game of A4_B8 in the terminal
  bbx puzzles                       the puzzles built into bbx
  bbx solve seed-emacs-game-2       every molecule that fits a game
  bbx suggest generated-a4-b8-partial --max-rays 3
  bbx trace A4_B6 868               every ray of one molecule
  bbx stats A4_B6                   the ambiguity table of A4_B6

Exit status:
  0    done
  1    the answer is no: no molecule fits (solve, suggest), enumeration and
       SAT disagree (verify)
  2    bad input: an argument or a file that cannot be used as given
  3    bbx or the machine failed (database, disk, solver, connection)
  4    a limit (--timeout, --memory) stopped a search before it found anything
  130  interrupted by Ctrl-C; what was done is kept or shown

Documentation: 'bbx COMMAND --help', the manual pages ('bbx man --out
~/.local/share/man', then 'man bbx-solve'), and in bbx's source README.md,
docs/guide.md (every command and format) and docs/json.md (--json).";

fn main() -> ExitCode {
    let json = output::json_mode();
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        // With --json, a command line that does not parse is an error
        // object on standard output too (help and --version print as usual),
        // with clap's whole message: what is wrong, the usage, the tip.
        Err(e) if json && e.use_stderr() => {
            let _ = e.print();
            let rendered = e.render().to_string();
            let message = rendered.trim_end().trim_start_matches("error: ");
            // A configuration that does not parse is the same kind of error
            // wherever it is given.
            let kind = match std::error::Error::source(&e)
                .and_then(|source| source.downcast_ref::<bbx::Error>())
            {
                Some(error) => output::error_kind(error),
                None => "usage",
            };
            let status = exit::Status::BadInput;
            let failed = output::emit(&output::json_error(kind, message, status));
            return failed.map_or_else(|failed| failed, |()| status).into();
        }
        Err(e) => e.exit(),
    };
    let result = match cli.command {
        Command::Play(args) => commands::play::run(args),
        Command::Puzzles(args) => commands::puzzles::run(args),
        Command::Solve(args) => commands::solve::run(args),
        Command::Suggest(args) => commands::suggest::run(args),
        Command::Generate(args) => commands::generate::run(args),
        Command::Trace(args) => commands::trace::run(args),
        Command::Strategy(args) => commands::strategy::run(args),
        Command::Explore(args) => commands::explore::run(args),
        Command::Show(args) => commands::show::run(args),
        Command::Stats(args) => commands::stats::run(args),
        Command::Verify(args) => commands::verify::run(args),
        Command::Completions(args) => commands::completions::run(args, Cli::command()),
        Command::Man(args) => commands::man::run(args, Cli::command()),
    };
    let status = match result {
        Ok((text, status)) => output::emit(&text).map_or_else(|failed| failed, |()| status),
        Err(e) if json => {
            let message = e.show(&output::Flags);
            eprintln!("error: {message}");
            let status = exit::status_of(&e);
            let text = output::json_error(output::error_kind(&e), &message, status);
            output::emit(&text).map_or_else(|failed| failed, |()| status)
        }
        Err(e) => {
            eprintln!("error: {}", e.show(&output::Flags));
            exit::status_of(&e)
        }
    };
    status.into()
}
