//! The puzzles built into bbx: `bbx puzzles` lists and prints them, and every
//! command that reads a puzzle or a molecule takes one by name, from any
//! directory, as after `cargo install`.

use crate::common::{bbx, puzzle, temp_dir};

/// `bbx ARGS` run in `dir`: exit status, standard output and error.
fn run_in(dir: &std::path::Path, args: &[&str]) -> (Option<i32>, String, String) {
    let out = bbx().current_dir(dir).args(args).output().expect("runs");
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn a_built_in_puzzle_is_read_by_name_from_an_empty_directory() {
    let empty = temp_dir("built-in");
    let (code, out, err) = run_in(&empty, &["solve", "seed-emacs-game-2"]);
    assert_eq!(code, Some(0), "{err}");
    assert!(
        out.starts_with(
            "puzzle    seed-emacs-game-2 (8×8, 12 rays shot, 18 of 32 border marks known)"
        ),
        "{out}"
    );
    // The same answer as from the file, but for the name it goes by.
    let from_file = crate::common::stdout(&["solve", &puzzle("seed-emacs-game-2.txt")]);
    assert_eq!(
        out.replace("seed-emacs-game-2", "F"),
        from_file.replace(&puzzle("seed-emacs-game-2.txt"), "F")
    );
    // With its extension, in any case, and from a subdirectory's name.
    for name in ["seed-emacs-game-2.txt", "SEED-EMACS-GAME-2"] {
        assert_eq!(run_in(&empty, &["solve", name]).0, Some(0), "{name}");
    }
    let (code, out, _) = run_in(
        &empty,
        &["suggest", "tatham/a5-b8-checked-once", "--max-rays", "1"],
    );
    assert_eq!(code, Some(0));
    assert!(out.contains("54 molecules fit."), "{out}");
    // A molecule's picture, for trace.
    let (code, out, _) = run_in(&empty, &["trace", "seed-23-cell-path", "--ray", "31"]);
    assert_eq!(code, Some(0));
    assert!(out.contains("after 23 cells and 6 turns"), "{out}");
    // play sets the game up, then asks for the terminal it lacks here.
    let (code, _, err) = run_in(&empty, &["play", "seed-pure-thought-a4-b8"]);
    assert_eq!(code, Some(2));
    assert!(err.contains("needs a terminal"), "{err}");
    // No such file or puzzle: says where the built-in ones are listed.
    let (code, _, err) = run_in(&empty, &["solve", "seed-emacs-game-9"]);
    assert_eq!(code, Some(2));
    assert!(
        err.contains("nor a built-in puzzle (`bbx puzzles` lists them)"),
        "{err}"
    );
}

#[test]
fn a_file_of_the_same_name_wins_over_the_built_in_puzzle() {
    let dir = temp_dir("built-in-shadowed");
    std::fs::write(dir.join("seed-emacs-game-2"), "A2_B4 @&ab@&@cbac@&@&@\n").unwrap();
    let (code, out, _) = run_in(&dir, &["solve", "seed-emacs-game-2", "--count"]);
    assert_eq!(code, Some(0));
    assert_eq!(out, "1\n");
    let (_, out, _) = run_in(&dir, &["solve", "seed-emacs-game-2"]);
    assert!(
        out.contains("(4×4, 13 rays shot, 16 of 16 border marks known)"),
        "{out}"
    );
}

#[test]
fn puzzles_lists_every_one_and_prints_each_as_its_file() {
    let list = crate::common::stdout(&["puzzles"]);
    let names: Vec<&str> = list
        .lines()
        .skip(1)
        .take_while(|l| !l.is_empty())
        .filter_map(|l| l.split_whitespace().next())
        .collect();
    assert_eq!(names.len(), 18, "{list}");
    for line in list.lines() {
        assert!(line.chars().count() <= 80, "{line}");
    }
    for name in names {
        let text = crate::common::stdout(&["puzzles", name]);
        let ext = if name.ends_with("-won") || name.ends_with("checked-once") {
            "sav"
        } else {
            "txt"
        };
        let file = std::fs::read_to_string(puzzle(&format!("{name}.{ext}"))).unwrap();
        assert_eq!(text, file, "{name}");
    }
    let out = bbx()
        .args(["puzzles", "nothing-of-the-kind"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("`bbx puzzles` lists them"));
}
