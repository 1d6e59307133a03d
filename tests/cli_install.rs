//! `bbx completions` and `bbx man`, run as a real binary: what a user installs
//! next to the binary.

use predicates::prelude::*;

use crate::common::{bbx, stdout, temp_dir};

/// Every command a user can type, as the completions and pages must know them.
const COMMANDS: [&str; 13] = [
    "puzzles",
    "trace",
    "solve",
    "explore",
    "show",
    "stats",
    "verify",
    "suggest",
    "strategy",
    "generate",
    "play",
    "completions",
    "man",
];

#[test]
fn completion_scripts_for_bash_zsh_and_fish_know_every_command() {
    let bash = stdout(&["completions", "bash"]);
    assert!(bash.contains("_bbx()"), "{bash}");
    assert!(bash.contains("complete -F _bbx"), "{bash}");
    let zsh = stdout(&["completions", "zsh"]);
    assert!(zsh.starts_with("#compdef bbx"), "{zsh}");
    let fish = stdout(&["completions", "fish"]);
    assert!(fish.contains("complete -c bbx"), "{fish}");
    for script in [&bash, &zsh, &fish] {
        for c in COMMANDS {
            assert!(script.contains(c), "{c} missing");
        }
        // Options of the subcommands too, not only their names.
        assert!(script.contains("max-plan"));
        assert!(script.contains("timeout"));
    }
}

#[test]
fn an_unknown_shell_is_refused_with_the_choices() {
    bbx()
        .args(["completions", "tcsh"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("possible values: bash"));
}

#[test]
fn the_manual_page_goes_to_standard_output() {
    let page = stdout(&["man"]);
    assert!(page.contains(".TH bbx 1"), "{page}");
    for c in COMMANDS {
        assert!(
            page.contains(&format!("bbx\\-{c}(1)")),
            "{c} missing:\n{page}"
        );
    }
}

#[test]
fn man_out_writes_one_page_per_command_for_manpath() {
    let dir = temp_dir("man");
    let out = stdout(&["man", "--out", dir.to_str().expect("UTF-8 path")]);
    assert!(out.starts_with("wrote 14 manual pages in "), "{out}");
    let page = std::fs::read_to_string(dir.join("man1/bbx.1")).expect("bbx.1");
    assert!(page.contains(".TH bbx 1"));
    for c in COMMANDS {
        let path = dir.join(format!("man1/bbx-{c}.1"));
        let page = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{c}: {e}"));
        assert!(page.contains(&format!(".TH bbx-{c} 1")), "{c}");
    }
    // The options with their help text, and the examples after them.
    let solve = std::fs::read_to_string(dir.join("man1/bbx-solve.1")).unwrap();
    assert!(solve.contains("timeout"), "{solve}");
    assert!(solve.contains(".SH EXAMPLES"), "{solve}");
    // Every page says how bbx exits, what it reads from the environment and
    // which files it keeps, as man pages do.
    for page in std::fs::read_dir(dir.join("man1")).unwrap() {
        let path = page.unwrap().path();
        let text = std::fs::read_to_string(&path).unwrap();
        for section in [".SH \"EXIT STATUS\"", ".SH ENVIRONMENT", ".SH FILES"] {
            assert!(text.contains(section), "{}: no {section}", path.display());
        }
        for needed in ["BBX_DB", "RAYON_NUM_THREADS", "bbx/bbx.sqlite", "130"] {
            assert!(text.contains(needed), "{}: {needed}", path.display());
        }
        // The help's own headings became sections, not text.
        assert!(!text.contains("\nExamples:"), "{}", path.display());
    }
    let top = std::fs::read_to_string(dir.join("man1/bbx.1")).unwrap();
    assert!(
        top.contains(".SH \"SEE ALSO\"") && top.contains("docs/guide.md"),
        "{top}"
    );
    // Written through a temporary file renamed over the page: each page
    // gets the mode any new file gets here (0666 less the umask), as a
    // file made by the test does, not the temporary file's private 0600.
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let plain = dir.join("plain");
        std::fs::File::create(&plain).unwrap();
        let mode = |p: &std::path::Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o777;
        let usual = mode(&plain);
        for c in COMMANDS {
            let page = dir.join(format!("man1/bbx-{c}.1"));
            assert_eq!(
                mode(&page),
                usual,
                "{c}: {:o} against {usual:o}",
                mode(&page)
            );
        }
        // So does a puzzle written by generate --out.
        let puzzle = dir.join("puzzle.txt");
        bbx()
            .args(["generate", "A2_B4", "--seed", "1", "--out"])
            .arg(&puzzle)
            .assert()
            .success();
        assert_eq!(mode(&puzzle), usual);
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn man_out_into_a_file_is_a_clear_error() {
    let dir = temp_dir("man-file");
    let file = dir.join("not-a-directory");
    std::fs::write(&file, "x").unwrap();
    bbx()
        .args(["man", "--out"])
        .arg(&file)
        .assert()
        .code(2)
        .stderr(
            predicate::str::starts_with("error: ")
                .and(predicate::str::contains(file.to_str().unwrap())),
        );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn completions_offer_the_values_of_every_option_that_has_a_set() {
    let value_sets: [&[&str]; 4] = [
        &["standard", "edge-miss"],
        &["display", "linear", "seed001", "tatham"],
        &["greedy", "entropy", "score", "lookahead", "rollout"],
        &["all-rays", "rays-shot"],
    ];
    // bash lists each set as one word list.
    let bash = stdout(&["completions", "bash"]);
    for set in value_sets {
        let words = format!("compgen -W \"{}\"", set.join(" "));
        assert!(bash.contains(&words), "bash: {words} missing");
    }
    // zsh and fish give each value with what it means.
    let zsh = stdout(&["completions", "zsh"]);
    let fish = stdout(&["completions", "fish"]);
    for set in value_sets {
        for value in set {
            assert!(
                zsh.contains(&format!("(({value}\\:")) || zsh.contains(&format!("\n{value}\\:")),
                "zsh: {value}"
            );
            assert!(fish.contains(&format!("{value}\\t'")), "fish: {value}");
        }
    }
    // A value is declared, not spelt into the value's name.
    for script in [&bash, &zsh, &fish] {
        assert!(!script.contains("standard|edge-miss"));
        assert!(!script.contains("greedy|entropy"));
    }
}
