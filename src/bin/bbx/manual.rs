//! The manual pages: clap_mangen's sections, then the help's closing
//! paragraphs and the sections every page of bbx has, in roff.

use clap_mangen::Man;
use roff::{Roff, bold, roman};

/// The manual page of `command`: clap_mangen's sections (name, synopsis,
/// description, options, commands), then the help's closing paragraphs in
/// sections of their own (NOTES, EXAMPLES, SEE ALSO), and the sections every
/// page of bbx has: EXIT STATUS, ENVIRONMENT and FILES.
pub fn render(command: clap::Command) -> std::io::Result<Vec<u8>> {
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
        None => entries(&mut roff, EXIT_STATUS),
    }
    roff.control("SH", ["ENVIRONMENT"]);
    entries(&mut roff, ENVIRONMENT);
    roff.control("SH", ["FILES"]);
    entries(&mut roff, FILES);
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

/// A list of terms, each with what it means: a line each, the term and
/// its meaning apart by a tab.
fn entries(roff: &mut Roff, list: &str) {
    for (term, meaning) in list.lines().filter_map(|l| l.split_once('\t')) {
        roff.control("TP", []);
        roff.text([bold(term)]);
        roff.text([roman(meaning)]);
    }
}

/// The exit statuses, the same on every command (README's table).
const EXIT_STATUS: &str = "\
0\tDone: the answer is complete (or as complete as --max asked).\n\
1\tThe answer is no: no molecule fits (solve, suggest), enumeration and SAT disagree (verify).\n\
2\tBad input: an argument or a file that cannot be used as given; the message says which and what was expected.\n\
3\tbbx or the machine failed: the database (busy, damaged, a full disk), a census's work directory or connections, the solver, writing the output.\n\
4\tA limit (--timeout, or --memory for solve and suggest) stopped a search before it found anything.\n\
130\tInterrupted by Ctrl-C (or, for play, SIGTERM or SIGHUP); what was done is kept or shown.";

/// The environment variables bbx reads.
const ENVIRONMENT: &str = "\
BBX_DB\tThe catalogue that explore, show, stats and verify read and write when --db is not given.\n\
XDG_DATA_HOME\tOn Linux, the user's data directory (default ~/.local/share), where the default catalogue is: bbx/bbx.sqlite in it.\n\
RAYON_NUM_THREADS\tThe number of worker threads of the commands that work in parallel, when -w is not given.\n\
XDG_CACHE_HOME\tOn Linux, the user's cache directory (default ~/.cache), where a census (stats, verify) and strategy's --bound and --optimal make their work directories when --work-dir is not given: bbx/ in it.\n\
COLUMNS\tThe width the help is wrapped to when standard output is not a terminal.";

/// The files bbx reads and writes by itself.
const FILES: &str = "\
~/.local/share/bbx/bbx.sqlite\tThe default catalogue, made when first written (on macOS ~/Library/Application Support/bbx/bbx.sqlite, on Windows %APPDATA%\\bbx\\bbx.sqlite); BBX_DB or --db names another.\n\
~/.cache/bbx/bbx-census-CONFIG/, bbx-verify-CONFIG/, bbx-bound-CONFIG/, bbx-optimum-CONFIG/\tThe work directories of a census, a verify, a bound and an optimum (their records and checkpoints; on macOS in ~/Library/Caches/bbx), private to the user, kept while the work can be resumed; when it ends bbx removes the files it made there, and the directory if nothing else is in it; --work-dir puts them elsewhere.\n\
bbx-CONFIG-seed-N.txt\tA game saved by play (the s key), in the current directory unless --out names another file.";

#[cfg(test)]
pub mod tests {
    /// Every page, rendered, for the tests that read them.
    pub fn pages() -> Vec<String> {
        use super::render;
        use clap::CommandFactory;
        let mut command = crate::Cli::command().disable_help_subcommand(true);
        command.build();
        std::iter::once(command.clone())
            .chain(command.get_subcommands().cloned())
            .map(|page| String::from_utf8(render(page).unwrap()).unwrap())
            .collect()
    }
}
