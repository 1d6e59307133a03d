//! `bbx man`.

use std::path::PathBuf;

use crate::cli::Status;

use clap_mangen::Man;
use roff::{Roff, bold, roman};

#[derive(clap::Args)]
#[command(
    after_help = "Without --out, the page of bbx itself goes to standard output: read it with\n`bbx man | man -l -`. With --out DIR, bbx.1 and one page per command\n(bbx-trace.1, bbx-solve.1, ...) are written into DIR/man1/, ready for MANPATH.\n\nExamples:\n  bbx man | man -l -\n  bbx man --out ~/.local/share/man   (then: man bbx-solve)"
)]
pub struct Args {
    /// Write every page into DIR/man1/ (created if needed) instead of printing
    /// the top page.
    #[arg(long, value_name = "DIR")]
    out: Option<PathBuf>,
}

/// The manual page of `command` (the whole `bbx` command line), or all of
/// them written into a directory.
pub fn run(args: Args, command: clap::Command) -> bbx::Result<(String, Status)> {
    let mut command = command.disable_help_subcommand(true);
    command.build();
    let Some(dir) = args.out else {
        let page = render(command).map_err(|source| io_error("standard output", source))?;
        let text = String::from_utf8(page)
            .map_err(|e| bbx::Error::invalid(format!("the manual page is not UTF-8: {e}")))?;
        return Ok((text, Status::Done));
    };
    let section = dir.join("man1");
    std::fs::create_dir_all(&section)
        .map_err(|source| io_error(&section.display().to_string(), source))?;
    let mut written = Vec::new();
    let pages = std::iter::once(command.clone()).chain(
        command
            .get_subcommands()
            .filter(|c| !c.is_hide_set())
            .cloned(),
    );
    for page in pages {
        let path = section.join(Man::new(page.clone()).get_filename());
        // Rendered first, then written whole: a page replaced half-way
        // (a full disk) would leave neither the old page nor the new one.
        render(page)
            .and_then(|text| bbx::files::write_whole(&path, &text))
            .map_err(|source| io_error(&path.display().to_string(), source))?;
        written.push(path.display().to_string());
    }
    Ok((
        format!(
            "wrote {} manual pages in {}: {}\n",
            written.len(),
            section.display(),
            written
                .iter()
                .map(|p| p.rsplit('/').next().unwrap_or(p))
                .collect::<Vec<_>>()
                .join(" ")
        ),
        Status::Done,
    ))
}

/// The manual page of `command`: clap_mangen's sections (name, synopsis,
/// description, options, commands), then the help's closing paragraphs in
/// sections of their own (NOTES, EXAMPLES, SEE ALSO), and the sections every
/// page of bbx has: EXIT STATUS, ENVIRONMENT and FILES.
fn render(command: clap::Command) -> std::io::Result<Vec<u8>> {
    let man = Man::new(command.clone());
    let mut out = Vec::new();
    man.render_title(&mut out)?;
    man.render_name_section(&mut out)?;
    man.render_synopsis_section(&mut out)?;
    man.render_description_section(&mut out)?;
    if command.get_arguments().any(|a| !a.is_hide_set()) {
        man.render_options_section(&mut out)?;
    }
    if command.has_subcommands() {
        man.render_subcommands_section(&mut out)?;
    }
    let after = command
        .get_after_long_help()
        .or(command.get_after_help())
        .map(|s| s.to_string())
        .unwrap_or_default();
    let mut roff = Roff::new();
    let (mut notes, mut examples, mut exit, mut see_also) = (vec![], vec![], None, None);
    for paragraph in after.split("\n\n").filter(|p| !p.trim().is_empty()) {
        let (head, body) = paragraph.split_once('\n').unwrap_or((paragraph, ""));
        match head.trim() {
            "Examples:" => examples.extend(body.lines()),
            "Exit status:" => exit = Some(body),
            _ if head.starts_with("Exit status:") => {
                exit = Some(paragraph.trim_start_matches("Exit status:").trim_start());
            }
            _ if head.starts_with("Documentation:") => see_also = Some(paragraph),
            _ => notes.push(paragraph),
        }
    }
    if !notes.is_empty() {
        roff.control("SH", ["NOTES"]);
        for (i, note) in notes.iter().enumerate() {
            if i > 0 {
                roff.control("PP", []);
            }
            if note.lines().any(|l| l.starts_with("  ")) {
                preformatted(&mut roff, note.lines());
            } else {
                roff.text([roman(note.replace('\n', " "))]);
            }
        }
    }
    if !examples.is_empty() {
        roff.control("SH", ["EXAMPLES"]);
        preformatted(&mut roff, examples.into_iter());
    }
    roff.control("SH", ["EXIT STATUS"]);
    match exit {
        Some(text) => {
            roff.text([roman(text.replace('\n', " "))]);
        }
        None => entries(&mut roff, &EXIT_STATUS),
    }
    roff.control("SH", ["ENVIRONMENT"]);
    entries(&mut roff, &ENVIRONMENT);
    roff.control("SH", ["FILES"]);
    entries(&mut roff, &FILES);
    if let Some(text) = see_also {
        roff.control("SH", ["SEE ALSO"]);
        preformatted(&mut roff, text.lines());
    }
    roff.to_writer(&mut out)?;
    man.render_version_section(&mut out)?;
    Ok(out)
}

/// Lines kept as they are (examples, tables).
fn preformatted<'a>(roff: &mut Roff, lines: impl Iterator<Item = &'a str>) {
    roff.control("nf", []);
    for line in lines {
        roff.text([roman(line)]);
    }
    roff.control("fi", []);
}

/// A list of terms, each with what it means.
fn entries(roff: &mut Roff, list: &[(&str, &str)]) {
    for (term, meaning) in list {
        roff.control("TP", []);
        roff.text([bold(*term)]);
        roff.text([roman(*meaning)]);
    }
}

/// The exit statuses, the same on every command (README's table).
const EXIT_STATUS: [(&str, &str); 6] = [
    (
        "0",
        "Done: the answer is complete (or as complete as --max asked).",
    ),
    (
        "1",
        "The answer is no: no molecule fits (solve, suggest), enumeration and SAT disagree (verify).",
    ),
    (
        "2",
        "Bad input: an argument or a file that cannot be used as given; the message says which and what was expected.",
    ),
    (
        "3",
        "bbx or the machine failed: the database (busy, damaged, a full disk), a census's work directory or connections, the solver, writing the output.",
    ),
    (
        "4",
        "A limit (--timeout, or --memory for solve and suggest) stopped a search before it found anything.",
    ),
    (
        "130",
        "Interrupted by Ctrl-C (or, for play, SIGTERM or SIGHUP); what was done is kept or shown.",
    ),
];

/// The environment variables bbx reads.
const ENVIRONMENT: [(&str, &str); 5] = [
    (
        "BBX_DB",
        "The catalogue that explore, show, stats and verify read and write when --db is not given.",
    ),
    (
        "XDG_DATA_HOME",
        "On Linux, the user's data directory (default ~/.local/share), where the default catalogue is: bbx/bbx.sqlite in it.",
    ),
    (
        "RAYON_NUM_THREADS",
        "The number of worker threads of the commands that work in parallel, when -w is not given.",
    ),
    (
        "TMPDIR",
        "Where a census (stats, verify) makes its work directory when --work-dir is not given.",
    ),
    (
        "COLUMNS",
        "The width the help is wrapped to when standard output is not a terminal.",
    ),
];

/// The files bbx reads and writes by itself.
const FILES: [(&str, &str); 3] = [
    (
        "~/.local/share/bbx/bbx.sqlite",
        "The default catalogue, made when first written (on macOS ~/Library/Application Support/bbx/bbx.sqlite, on Windows %APPDATA%\\bbx\\bbx.sqlite); BBX_DB or --db names another.",
    ),
    (
        "$TMPDIR/bbx-census-CONFIG/, $TMPDIR/bbx-verify-CONFIG/",
        "A census's work directory (partition files and checkpoints), kept while the census can be resumed and removed when it ends; --work-dir puts it elsewhere.",
    ),
    (
        "bbx-CONFIG-seed-N.txt",
        "A game saved by play (the s key), in the current directory unless --out names another file.",
    ),
];

fn io_error(path: &str, source: std::io::Error) -> bbx::Error {
    bbx::Error::Io {
        path: path.to_string(),
        source,
    }
}

/// Every page, rendered, for the tests that read them.
#[cfg(test)]
pub fn pages_for_tests() -> Vec<String> {
    use clap::CommandFactory;
    let mut command = crate::Cli::command().disable_help_subcommand(true);
    command.build();
    std::iter::once(command.clone())
        .chain(command.get_subcommands().cloned())
        .map(|page| String::from_utf8(render(page).unwrap()).unwrap())
        .collect()
}
