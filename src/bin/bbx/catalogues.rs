//! Where catalogues live: `--db FILE`, else the environment variable
//! `BBX_DB`, else `bbx.sqlite` in the user's data directory (on Linux
//! `$XDG_DATA_HOME/bbx`, by default `~/.local/share/bbx`; on macOS
//! `~/Library/Application Support/bbx`; on Windows `%APPDATA%\bbx`), so that
//! a catalogue explored in one directory is found from any other. clap reads
//! `--db` and `BBX_DB` (the commands' `--db` options name the variable); this
//! module gives the default and makes its directory.

use std::path::{Path, PathBuf};

/// The environment variable naming the catalogue when `--db` does not.
pub const ENV: &str = "BBX_DB";

/// The file name of the default catalogue.
const FILE: &str = "bbx.sqlite";

/// The directory of the default catalogue: `bbx` in the user's data
/// directory, or the current directory where the system has none.
fn data_dir() -> PathBuf {
    dirs::data_dir().map_or_else(PathBuf::new, |d| d.join("bbx"))
}

/// The default catalogue: `bbx.sqlite` in [`data_dir`].
pub fn default_path() -> String {
    data_dir().join(FILE).to_string_lossy().into_owned()
}

/// Before a command opens the catalogue `db`: when `db` is the default
/// one, makes the data directory that holds it, so that the default
/// catalogue is read (absent, as none yet) or written like any file (a file
/// given by `--db` or `BBX_DB` is where the user put it, and its directory
/// theirs to make).
pub fn prepare(db: &str) -> bbx::Result<()> {
    if db != default_path() {
        return Ok(());
    }
    let dir = data_dir();
    if dir.as_os_str().is_empty() || Path::new(&dir).is_dir() {
        return Ok(());
    }
    std::fs::create_dir_all(&dir).map_err(|source| bbx::Error::Io {
        path: dir.display().to_string(),
        source,
    })
}

/// The long help of a `--db` option: `what` it is, and where the default
/// catalogue is on this machine.
pub fn help(what: &str) -> String {
    format!(
        "{what}\n\n[default: {}; the environment variable {ENV}, when set, names another]",
        default_path()
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_default_catalogue_is_in_a_directory_of_bbx_own() {
        let path = default_path();
        assert!(path.ends_with("bbx.sqlite"), "{path}");
        let dir = Path::new(&path).parent().unwrap();
        if dirs::data_dir().is_some() {
            assert!(dir.ends_with("bbx"), "{path}");
        }
        // A file the user named is left alone.
        prepare("somewhere/else.sqlite").unwrap();
        assert!(!Path::new("somewhere").exists());
    }
}
