//! The sample puzzles of the repository's `puzzles/`, built into the binary,
//! so that every example of the help and of README works after `cargo
//! install`, from any directory. A sample's name is its path under
//! `puzzles/` without the extension (`seed-emacs-game-2`,
//! `tatham/a5-b8-checked-once`); a command that reads a puzzle or a molecule
//! from a file takes the name of a sample where no such file exists
//! ([`find`]). `bbx puzzles` lists them and prints one.

/// One sample: its name, what it shows and its text.
pub struct Sample {
    /// Its path under `puzzles/` without the extension.
    pub name: &'static str,
    /// Its file name in `puzzles/`, extension included.
    pub file: &'static str,
    /// What it shows, in a few words.
    pub about: &'static str,
    /// The file's text.
    pub text: &'static str,
}

/// A sample from `puzzles/NAME.EXT`, with what it shows.
macro_rules! sample {
    ($name:literal, $ext:literal, $about:literal) => {
        Sample {
            name: $name,
            file: concat!($name, ".", $ext),
            about: $about,
            text: include_str!(concat!("../../../puzzles/", $name, ".", $ext)),
        }
    };
}

/// Every sample, in the order `bbx puzzles` lists them: games first, then
/// the formats and the special cases. (`puzzles/a12-b20-set/`, the
/// benchmarks' games, is not built in.)
pub static SAMPLES: &[Sample] = &[
    sample!("seed-emacs-game-1", "txt", "a game in Emacs notation"),
    sample!("seed-emacs-game-2", "txt", "a game, guess included"),
    sample!("seed-emacs-game-3", "txt", "a game, guess included"),
    sample!("seed-emacs-game-4", "txt", "a game, guess included"),
    sample!("seed-pure-thought-a4-b8", "txt", "won by thought alone"),
    sample!("generated-a4-b8-partial", "txt", "a game under way"),
    sample!("generated-a8-b15-partial", "txt", "a large game under way"),
    sample!("generated-a5-b10-full", "txt", "every ray shot"),
    sample!("generated-a10-b20-full", "txt", "every ray of a 20×20 box"),
    sample!(
        "tatham/a5-b8-checked-once",
        "sav",
        "a save of Tatham's game"
    ),
    sample!("tatham/a3-6-b8-won", "sav", "Tatham's, 3 to 6 balls, won"),
    sample!("tatham/a3-b5-game-id", "txt", "a game ID of Tatham's"),
    sample!("seed001-sample", "txt", "A. Janns's format"),
    sample!(
        "seed-a2-b4-molecule-2-spectrum",
        "txt",
        "a spectrum, one line"
    ),
    sample!("seed-a2-b4-molecule-2", "txt", "a molecule and its rays"),
    sample!(
        "a4-b6-molecules-868-and-15993",
        "txt",
        "one spectrum, two molecules"
    ),
    sample!("seed-23-cell-path", "txt", "a ray 23 cells long"),
    sample!("contradictory-a2-b4", "txt", "rays no molecule gives"),
];

/// The sample `arg` names, when no file of that name exists: `NAME`, or
/// `NAME.EXT` as the file is called, in any case. `-` (standard input) and
/// an existing path are files, never samples.
pub fn find(arg: &str) -> Option<&'static Sample> {
    if arg == "-" || std::path::Path::new(arg).exists() {
        return None;
    }
    SAMPLES
        .iter()
        .find(|s| s.name.eq_ignore_ascii_case(arg) || s.file.eq_ignore_ascii_case(arg))
}

/// A file that does not exist, said with where the built-in puzzles are
/// listed; any other error as it is.
pub fn not_found(e: bbx::Error) -> bbx::Error {
    match e {
        bbx::Error::Io { path, source } if source.kind() == std::io::ErrorKind::NotFound => {
            bbx::Error::Io {
                path,
                source: std::io::Error::new(
                    std::io::ErrorKind::NotFound,
                    "no such file, nor a built-in puzzle (`bbx puzzles` lists them)",
                ),
            }
        }
        other => other,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_sample_is_found_by_name_and_is_its_file() {
        for s in SAMPLES {
            assert!(std::ptr::eq(find(s.name).unwrap(), s), "{}", s.name);
            assert!(std::ptr::eq(find(s.file).unwrap(), s), "{}", s.file);
            let upper = s.name.to_ascii_uppercase();
            assert!(std::ptr::eq(find(&upper).unwrap(), s), "{upper}");
        }
        assert!(find("-").is_none());
        assert!(find("no-such-sample").is_none());
    }

    #[test]
    fn every_puzzle_of_the_repository_is_built_in() {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("puzzles");
        let mut files = Vec::new();
        for dir in [root.clone(), root.join("tatham")] {
            for entry in std::fs::read_dir(&dir).unwrap() {
                let path = entry.unwrap().path();
                if path.is_file() {
                    let name = path.strip_prefix(&root).unwrap().to_string_lossy();
                    files.push(name.replace('\\', "/"));
                }
            }
        }
        files.sort();
        let mut built_in: Vec<String> = SAMPLES.iter().map(|s| s.file.to_string()).collect();
        built_in.sort();
        assert_eq!(built_in, files);
        for s in SAMPLES {
            let text = std::fs::read_to_string(root.join(s.file)).unwrap();
            assert_eq!(s.text, text, "{}", s.name);
        }
    }
}
