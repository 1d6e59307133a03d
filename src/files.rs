//! Writing a user's file whole or not at all, and naming a file in a
//! message.
//!
//! A save or an output file written in place is truncated first: a full disk
//! or a kill in the middle leaves half a file where a good one was. bbx
//! writes such files into a temporary file beside them and renames it over
//! the old one once it is complete, so the old file stays until the new one
//! is whole.

use std::ffi::OsStr;
use std::fs::File;
use std::io::{self, Write};
use std::path::{Path, PathBuf};

use crate::error::Error;
use crate::setting::Setting;

/// Refuses to write a user's text over a directory, into a directory that
/// is not there, or over a file that is not text (a catalogue, say); a
/// text file (an earlier puzzle) may be replaced. `path` is the output file
/// asked for ([`Setting::Out`]).
pub fn check_text_out(path: &str) -> Result<(), Error> {
    let p = Path::new(path);
    let refuse =
        |why: String| Error::invalid(crate::text![Setting::Out, format!(" {path}: {why}")]);
    if let Some(dir) = p.parent().filter(|d| !d.as_os_str().is_empty())
        && !dir.is_dir()
    {
        let dir = dir.display();
        return Err(refuse(format!(
            "there is no directory {dir}: make it first, or write elsewhere"
        )));
    }
    if p.is_dir() {
        let name = p.join("puzzle.txt");
        return Err(refuse(format!(
            "is a directory: give a file name, such as {}",
            name.display()
        )));
    }
    if let Ok(mut f) = File::open(p) {
        let mut head = [0u8; 512];
        let n = io::Read::read(&mut f, &mut head).unwrap_or(0);
        let head = &head[..n];
        let sqlite = head.starts_with(b"SQLite format 3\0");
        if sqlite
            || std::str::from_utf8(head).is_err_and(|e| e.error_len().is_some())
            || head.contains(&0)
        {
            let what = if sqlite {
                "it is an SQLite database, perhaps a catalogue"
            } else {
                "it is not text"
            };
            return Err(refuse(format!(
                "the file exists and is not a puzzle ({what}): give another file name"
            )));
        }
    }
    Ok(())
}

/// The most characters of a name or an argument a message quotes.
pub const SHOWN: usize = 200;

/// A file name (or any text a user gave) as a message shows it: as it is
/// when it is printable and short; otherwise on one line, its control
/// characters escaped (`\n`), and cut after [`SHOWN`] characters, so that
/// a message stays one line of readable size whatever it names.
///
/// ```
/// use bbx::files::shown;
/// assert_eq!(shown("work/bbx-census-A5_B6"), "work/bbx-census-A5_B6");
/// assert_eq!(shown("a\nb"), "a\\nb");
/// assert_eq!(shown("x".repeat(1000)).chars().count(), bbx::files::SHOWN + 1);
/// ```
pub fn shown(name: impl AsRef<OsStr>) -> String {
    shown_within(name, SHOWN)
}

/// [`shown`], cut after `limit` characters.
pub fn shown_within(name: impl AsRef<OsStr>, limit: usize) -> String {
    let text = name.as_ref().to_string_lossy();
    let mut out = String::with_capacity(text.len().min(4 * limit));
    for (i, c) in text.chars().enumerate() {
        if i == limit {
            out.push('…');
            break;
        }
        if c.is_control() {
            out.extend(c.escape_default());
        } else {
            out.push(c);
        }
    }
    out
}

/// Writes `bytes` to `path`, replacing what was there only once the new
/// content is complete (see [`write_whole_with`]).
pub fn write_whole(path: &Path, bytes: &[u8]) -> io::Result<()> {
    write_whole_with(path, |f| f.write_all(bytes))
}

/// Writes `path` with `write`, into a temporary file in the same directory
/// that then replaces `path` (keeping its permissions; a new file gets the
/// usual mode, 0666 less the umask): if `write` or the
/// disk fails, `path` is left as it was and the temporary file is removed.
/// A path that is a symbolic link has its target replaced; one that is not
/// a regular file (a device such as `/dev/stdout`, a pipe) is written in
/// place, since it cannot be replaced.
pub fn write_whole_with(
    path: &Path,
    write: impl FnOnce(&mut File) -> io::Result<()>,
) -> io::Result<()> {
    let target: PathBuf = match std::fs::symlink_metadata(path) {
        Ok(m) if m.file_type().is_symlink() => std::fs::canonicalize(path)?,
        _ => path.to_path_buf(),
    };
    let existing = std::fs::metadata(&target).ok();
    if existing.as_ref().is_some_and(|m| !m.is_file()) {
        let mut file = std::fs::OpenOptions::new().write(true).open(&target)?;
        return write(&mut file);
    }
    let dir = match target.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    };
    let mut builder = tempfile::Builder::new();
    builder.prefix(".bbx-").suffix(".tmp");
    // A new file gets the mode any program's new file gets (0666 less the
    // umask), not the temporary file's private 0600.
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        builder.permissions(std::fs::Permissions::from_mode(0o666));
    }
    let mut tmp = builder.tempfile_in(dir).map_err(without_temporary_name)?;
    write(tmp.as_file_mut())?;
    tmp.as_file().sync_all()?;
    if let Some(m) = existing {
        tmp.as_file().set_permissions(m.permissions())?;
    }
    tmp.persist(&target)
        .map_err(|e| without_temporary_name(e.error))?;
    Ok(())
}

/// An error about the temporary file, said in the operating system's words
/// alone: the caller names the file the user asked for, and the temporary
/// file, which the user never made, goes unnamed.
fn without_temporary_name(e: io::Error) -> io::Error {
    // The tempfile crate adds ` at path "…"` to the system's words.
    let text = e.to_string();
    match text.rfind(" at path \"") {
        Some(at) => io::Error::new(e.kind(), &text[..at]),
        None => e,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_failed_write_leaves_the_old_file_and_no_temporary_one() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("game.txt");
        write_whole(&path, b"first save\n").unwrap();
        // The disk fills after 5 bytes of the new content.
        let e = write_whole_with(&path, |f| {
            f.write_all(b"secon")?;
            Err(io::Error::new(io::ErrorKind::StorageFull, "disk full"))
        })
        .unwrap_err();
        assert_eq!(e.kind(), io::ErrorKind::StorageFull);
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "first save\n");
        let names: Vec<_> = std::fs::read_dir(dir.path())
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(names, ["game.txt"]);
        write_whole(&path, b"second save\n").unwrap();
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "second save\n");
    }

    #[test]
    fn an_error_names_no_temporary_file() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("no-such-directory").join("game.txt");
        let e = write_whole(&path, b"a save\n").unwrap_err();
        assert_eq!(e.kind(), io::ErrorKind::NotFound);
        assert!(!e.to_string().contains(".bbx-"), "{e}");
    }

    #[cfg(unix)]
    #[test]
    fn a_link_keeps_pointing_at_the_file_it_names() {
        let dir = tempfile::tempdir().unwrap();
        let real = dir.path().join("real.txt");
        let link = dir.path().join("link.txt");
        std::fs::write(&real, "old").unwrap();
        std::os::unix::fs::symlink(&real, &link).unwrap();
        write_whole(&link, b"new").unwrap();
        assert!(
            std::fs::symlink_metadata(&link)
                .unwrap()
                .file_type()
                .is_symlink()
        );
        assert_eq!(std::fs::read_to_string(&real).unwrap(), "new");
    }

    #[cfg(unix)]
    #[test]
    fn a_new_file_gets_the_mode_of_any_new_file() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        // What the umask makes of a plain new file.
        let plain = dir.path().join("plain.txt");
        std::fs::File::create(&plain).unwrap();
        let usual = std::fs::metadata(&plain).unwrap().permissions().mode() & 0o777;
        let path = dir.path().join("saved.txt");
        write_whole(&path, b"a save\n").unwrap();
        let mode = std::fs::metadata(&path).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode, usual, "{mode:o} against {usual:o}");
        // An existing file keeps its own mode.
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o600)).unwrap();
        write_whole(&path, b"again\n").unwrap();
        let mode = std::fs::metadata(&path).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode, 0o600);
    }
}
