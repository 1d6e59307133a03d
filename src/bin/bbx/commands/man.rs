//! `bbx man`.

use std::path::PathBuf;

use crate::exit::Status;

use clap_mangen::Man;

use crate::manual::render;

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

fn io_error(path: &str, source: std::io::Error) -> bbx::Error {
    bbx::Error::Io {
        path: path.to_string(),
        source,
    }
}
