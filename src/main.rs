//! The `bbx` command: parses arguments, calls the library, prints.

use std::io::Write;
use std::process::ExitCode;

use bbx::puzzle::load_molecule;
use bbx::render::{Notation, TraceReport};
use bbx::{Config, Rules};
use clap::{Parser, Subcommand};

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
    #[command(
        after_help = "Examples:\n  bbx trace O-O-------------\n  bbx trace --config A4_B6 868\n  bbx trace puzzles/seed-23-cell-path.txt --ray 31\n  bbx trace O-O------------- --json"
    )]
    Trace(TraceArgs),
}

#[derive(clap::Args)]
struct TraceArgs {
    /// The molecule: its linear form (`O` atom, `-` or `.` empty, row by row), a
    /// file holding that or a picture in the seed's display, `-` for standard
    /// input, or a molecule number together with --config.
    molecule: String,
    /// Check that the molecule belongs to this configuration (e.g. A4_B8).
    #[arg(long, value_name = "An_Bp")]
    config: Option<Config>,
    /// Ray rules.
    #[arg(long, default_value = "standard", value_name = "standard|edge-miss")]
    rules: Rules,
    /// Draw the path of the ray shot from border position K and describe it
    /// (repeatable).
    #[arg(long = "ray", value_name = "K")]
    rays: Vec<usize>,
    /// Write the border in Emacs notation (H, R, digits) instead of @, & and letters.
    #[arg(long)]
    emacs: bool,
    /// Print one JSON object instead of text.
    #[arg(long)]
    json: bool,
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Trace(args) => trace(args),
    };
    match result {
        Ok(text) => emit(&text),
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::from(2)
        }
    }
}

/// Prints `text`; a closed pipe (`bbx … | head`) is not an error.
fn emit(text: &str) -> ExitCode {
    let mut out = std::io::stdout().lock();
    match out.write_all(text.as_bytes()).and_then(|_| out.flush()) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: cannot write the output: {e}");
            ExitCode::from(2)
        }
    }
}

fn trace(args: TraceArgs) -> bbx::Result<String> {
    let m = load_molecule(&args.molecule, args.config)?;
    let positions = 4 * m.width();
    if let Some(&k) = args.rays.iter().find(|&&k| k == 0 || k > positions) {
        return Err(bbx::Error::Invalid(format!(
            "--ray {k}: border positions of a {w}×{w} box are 1 to {positions}",
            w = m.width()
        )));
    }
    let report = TraceReport::new(&m, args.rules, &args.rays);
    if args.json {
        let mut s = serde_json::to_string_pretty(&report)
            .map_err(|e| bbx::Error::Invalid(e.to_string()))?;
        s.push('\n');
        return Ok(s);
    }
    let notation = if args.emacs {
        Notation::Emacs
    } else {
        Notation::Seed
    };
    if args.rays.is_empty() {
        return Ok(report.text(notation));
    }
    let mut out = report.header();
    for &k in &args.rays {
        out.push('\n');
        out.push_str(&report.ray_text(k));
    }
    Ok(out)
}
