//! Errors that say what failed and where, run as a real binary: a wrong cell
//! at its line and column, byte-order marks accepted, binary and empty input
//! called so, a broken file in A. Janns's format reported in its own terms, empty ranges,
//! directories given for files, and atom counts that do not fit.

use crate::common::{bbx, json_error, puzzle, rejects, stdout, temp_dir};

/// J. Forget's A2_B4 board with its border, as `puzzles/` holds it.
const A2_B4: &str = "   @ & @ &\n @ O - O - @\n & - - - - c\n a - - - - a\n b - - - - b\n   @ & @ c\n\nThere are 2 balls in the box\n";

/// `A2_B4` with the cell at (`row`, `col`) replaced by `ch`.
fn with_cell(row: usize, col: usize, ch: char) -> String {
    let mut lines: Vec<String> = A2_B4.lines().map(str::to_string).collect();
    let line = &mut lines[row];
    let at = 1 + 2 * col;
    line.replace_range(at..at + 1, &ch.to_string());
    lines.join("\n") + "\n"
}

/// The message must be one line: `error: …`.
fn one_line(err: &str) {
    assert_eq!(err.trim_end().lines().count(), 1, "{err}");
}

#[test]
fn a_wrong_cell_is_reported_at_its_line_and_column() {
    // Every cell of the box, including the first and last of each row, where
    // the picture's layout alone cannot tell a row from a border line.
    for row in 1..=4 {
        for col in 1..=4 {
            for ch in ['X', '#', 'o', '0', '*'] {
                let text = with_cell(row, col, ch);
                let at = format!("standard input:{}:{}: ", row + 1, 2 * col + 2);
                let err = rejects(&["solve", "-"], Some(&text), &at);
                assert!(
                    err.contains(&format!("unexpected character '{ch}' in the box")),
                    "{text}{err}"
                );
                one_line(&err);
                // The same picture read as a molecule.
                rejects(&["trace", "-"], Some(&text), &at);
            }
        }
    }
    // Rows with a blank left mark, and boards drawn without a border.
    let blank_left = "   @ &\n   X -\n   - -\n   @ &\n";
    rejects(
        &["solve", "-", "--atoms", "1"],
        Some(blank_left),
        "standard input:2:4: unexpected character 'X'",
    );
    rejects(
        &["trace", "-"],
        Some("O - -\nX - -\n- - -\n"),
        "standard input:2:1: unexpected character 'X'",
    );
    rejects(
        &["trace", "-"],
        Some("O - -\n- - -\n- - X\n"),
        "standard input:3:5: unexpected character 'X'",
    );
}

#[test]
fn a_byte_order_mark_is_accepted() {
    let dir = temp_dir("bom");
    for name in [
        "seed-a2-b4-molecule-2.txt",
        "seed-emacs-game-2.txt",
        "seed001-sample.txt",
        "seed-a2-b4-molecule-2-spectrum.txt",
    ] {
        let text = std::fs::read_to_string(puzzle(name)).unwrap();
        let with_bom = dir.join(name);
        std::fs::write(&with_bom, format!("\u{feff}{text}")).unwrap();
        let plain = stdout(&["solve", &puzzle(name), "--count"]);
        let bom = stdout(&["solve", with_bom.to_str().unwrap(), "--count"]);
        assert_eq!(bom, plain, "{name}");
    }
    // A molecule, in its linear form and as a picture.
    let traced = bbx()
        .args(["trace", "-"])
        .write_stdin("\u{feff}O-O-------------\n")
        .assert()
        .success();
    let text = String::from_utf8_lossy(&traced.get_output().stdout).into_owned();
    assert!(text.contains("spectrum  @&ab@&@cbac@&@&@"), "{text}");
    bbx()
        .args(["trace", "-"])
        .write_stdin(format!("\u{feff}{A2_B4}"))
        .assert()
        .success();
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn binary_input_is_not_a_text_puzzle() {
    let dir = temp_dir("binary");
    let nul = dir.join("nul.txt");
    std::fs::write(&nul, with_cell(2, 2, '\0')).unwrap();
    let nul = nul.to_str().unwrap();
    let err = rejects(
        &["solve", nul],
        None,
        &format!("{nul}:3:6: not a text puzzle"),
    );
    assert!(err.contains("NUL"), "{err}");
    one_line(&err);
    rejects(
        &["trace", nul],
        None,
        &format!("{nul}:3:6: not a text molecule"),
    );

    let bytes = dir.join("bytes.bin");
    std::fs::write(
        &bytes,
        [0x89, b'P', b'N', b'G', 0x0d, 0x0a, 0x1a, 0x0a, 0, 0],
    )
    .unwrap();
    let bytes = bytes.to_str().unwrap();
    let err = rejects(
        &["solve", bytes],
        None,
        &format!("{bytes}:1:1: not a text puzzle"),
    );
    assert!(err.contains("0x89"), "{err}");
    one_line(&err);
    rejects(&["trace", bytes], None, "not a text molecule");

    // UTF-16 (as some editors save): not UTF-8.
    let utf16: Vec<u8> = "\u{feff}5 5\n1\n"
        .encode_utf16()
        .flat_map(u16::to_le_bytes)
        .collect();
    let wide = dir.join("utf16.txt");
    std::fs::write(&wide, utf16).unwrap();
    rejects(
        &["solve", wide.to_str().unwrap()],
        None,
        "not a text puzzle: byte 0xFF is not UTF-8",
    );
    // Control characters on standard input, at their place.
    rejects(
        &["solve", "-"],
        Some("A2_B4 @&ab@&@\u{7}bac@&@&@\n"),
        "standard input:1:14: not a text puzzle",
    );
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn a_broken_seed001_file_is_reported_as_one() {
    for (text, at, what) in [
        ("5 5\n-1\n", "2:1", "border position -1 is out of range"),
        (
            "5 5\n1\n2 6\n-3 4\n",
            "4:1",
            "border position -3 is out of range",
        ),
        (
            "5 5\n1\n2 99\n",
            "3:3",
            "border position 99 is out of range",
        ),
        (
            "5 5\n1\n2 +21\n",
            "3:3",
            "border position 21 is out of range",
        ),
        ("5 5\n3 -7\n", "2:3", "border position -7 is out of range"),
        ("5 5\n1 2 3\n", "2:5", "a ray line holds 1 number"),
    ] {
        let err = rejects(
            &["solve", "-"],
            Some(text),
            &format!("standard input:{at}: {what}"),
        );
        assert!(!err.contains("board"), "{text:?}: {err}");
        one_line(&err);
    }
}

#[test]
fn empty_input_says_so() {
    let dir = temp_dir("empty");
    let empty = dir.join("empty.txt");
    std::fs::write(&empty, "").unwrap();
    let blank = dir.join("blank.txt");
    std::fs::write(&blank, "\n   \n\t\n").unwrap();
    for file in [
        "/dev/null",
        empty.to_str().unwrap(),
        blank.to_str().unwrap(),
    ] {
        for command in ["trace", "solve", "suggest"] {
            let err = rejects(
                &[command, file],
                None,
                &format!("{file}: the input is empty"),
            );
            assert!(!err.contains("no such file"), "{err}");
            one_line(&err);
        }
    }
    for command in ["trace", "solve", "suggest"] {
        rejects(
            &[command, "-"],
            Some(""),
            "standard input: the input is empty",
        );
    }
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn directories_are_called_directories() {
    let dir = temp_dir("directories");
    let d = dir.to_str().unwrap();
    for args in [
        vec!["explore", "A2_B4"],
        vec!["show", "A2_B4", "1"],
        vec!["stats", "A2_B4"],
        vec!["verify", "A2_B4"],
    ] {
        let mut args = args.clone();
        args.extend(["--db", d]);
        let err = rejects(&args, None, &format!("{d}: is a directory"));
        assert!(!err.contains("writable"), "{err}");
        one_line(&err);
    }
    rejects(
        &["solve", d],
        None,
        &format!("{d}: is a directory, not a puzzle file"),
    );
    rejects(
        &["trace", d],
        None,
        &format!("{d}: is a directory, not a molecule file"),
    );
    // Nothing was written into it.
    assert_eq!(std::fs::read_dir(&dir).unwrap().count(), 0);
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn an_empty_range_of_molecules_is_called_empty() {
    let dir = temp_dir("range");
    let db = dir.join("a2.sqlite");
    let db = db.to_str().unwrap();
    stdout(&["explore", "A2_B4", "--db", db, "--quiet"]);
    let err = rejects(
        &["show", "A2_B4", "--from", "10", "--to", "5", "--db", db],
        None,
        "--from 10 --to 5 is an empty range",
    );
    assert!(!err.contains("say which molecules"), "{err}");
    rejects(
        &["show", "A2_B4", "--from", "121", "--db", db],
        None,
        "molecule number 121 is out of range",
    );
    // A range of one is not empty.
    let one = stdout(&["show", "A2_B4", "--from", "7", "--to", "7", "--db", db]);
    assert!(one.contains("number 7"), "{one}");
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn an_atom_range_past_the_cells_is_refused() {
    let game = puzzle("seed-emacs-game-2.txt");
    let err = rejects(
        &["solve", &game, "--atoms", "3..99"],
        None,
        "99 atoms do not fit in the 8×8 box",
    );
    assert!(err.contains("64"), "{err}");
    rejects(
        &["suggest", &game, "--atoms", "3..65"],
        None,
        "65 atoms do not fit",
    );
    rejects(
        &["solve", &game, "--atoms", "65..70"],
        None,
        "65 atoms do not fit",
    );
    // The whole box is a range that fits.
    let out = bbx()
        .args([
            "solve",
            &game,
            "--atoms",
            "3..64",
            "--count",
            "--timeout",
            "0",
        ])
        .output()
        .unwrap();
    assert!(out.status.code() != Some(2), "{out:?}");
}

#[test]
fn input_is_read_up_to_a_bound_and_more_is_refused() {
    // An endless or huge input is refused after 16 MiB instead of being read
    // into memory whole: files, devices and standard input alike.
    let huge = "a".repeat(17 << 20);
    for args in [vec!["solve", "-"], vec!["suggest", "-"], vec!["trace", "-"]] {
        let err = rejects(&args, Some(&huge), "standard input: more than 16 MiB");
        one_line(&err);
    }
    for args in [
        vec!["solve", "/dev/zero"],
        vec!["suggest", "/dev/zero"],
        vec!["trace", "/dev/zero"],
    ] {
        rejects(&args, None, "/dev/zero: more than 16 MiB");
    }
    // Just under the bound is read and judged on its content.
    let dir = temp_dir("bound");
    let big = dir.join("big.txt");
    std::fs::write(&big, "a".repeat((16 << 20) - 1)).unwrap();
    let err = rejects(&["solve", big.to_str().unwrap()], None, "big.txt");
    assert!(!err.contains("more than 16 MiB"), "{err}");
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn with_json_an_error_is_one_object_on_standard_output() {
    // The object names the kind and the exit status, and says what the
    // error line says; standard error keeps that line, and the exit status
    // is the one without --json.
    let dir = temp_dir("json-errors");
    let absent = dir.join("absent.sqlite");
    let absent = absent.to_str().unwrap();
    let cases: [(&[&str], &str, i32); 9] = [
        (&["trace", "OO", "--json"], "parse", 2),
        (&["trace", "A4_B", "1", "--json"], "config", 2),
        (&["explore", "A4B8", "--json"], "config", 2),
        (&["stats", "A99_B2", "--json"], "config", 2),
        (&["trace", "O-O-", "--config", "A4", "--json"], "config", 2),
        (&["solve", "no-such-file.txt", "--json"], "io", 2),
        (
            &["show", "A3_B4", "1", "--db", absent, "--json"],
            "invalid",
            2,
        ),
        (&["verify", "A2_B4", "--partial", "2", "--json"], "usage", 2),
        (&["generate", "A3_B5", "--seed", "x", "--json"], "usage", 2),
    ];
    for (args, kind, status) in cases {
        let out = bbx().args(args).output().unwrap();
        assert_eq!(out.status.code(), Some(status), "{args:?}");
        let message = json_error(&out.stdout, kind, status);
        let err = String::from_utf8_lossy(&out.stderr);
        // What standard error says, all of it (clap's tip and usage too).
        assert_eq!(err.trim_end(), format!("error: {message}"), "{args:?}");
        if !["usage", "config"].contains(&kind) {
            assert!(!message.contains('\n'), "{args:?}: {message}");
        }
    }
    // Stopped with nothing to report: the sentence saying why.
    let out = bbx()
        .args(["strategy", "A3_B5", "--timeout", "0", "--json"])
        .output()
        .unwrap();
    let message = json_error(&out.stdout, "time_limit", 4);
    assert!(message.contains("the time limit passed"), "{message}");
    assert_eq!(String::from_utf8_lossy(&out.stderr), format!("{message}\n"));
    // Without --json, nothing changes: the error line alone.
    let out = bbx().args(["trace", "OO"]).output().unwrap();
    assert!(out.stdout.is_empty());
    // --help stays text.
    let help = stdout(&["solve", "--help", "--json"]);
    assert!(help.starts_with("Every molecule that fits"), "{help}");
}

#[test]
fn messages_quote_what_was_written_short_and_on_one_line() {
    // What each message quotes is escaped onto one line and cut at 60
    // characters: a file's token of 100,000 characters, a label repeated
    // 400 times, an argument with a line end in it.
    let short = |err: &str| {
        one_line(err);
        assert!(err.len() < 300, "{} bytes: {err}", err.len());
    };
    let junk = format!("A4_B8{} @@\n", "x".repeat(100_000));
    short(&rejects(
        &["solve", "-"],
        Some(&junk),
        "invalid configuration 'A4_B8xxxxxxxx",
    ));
    let digits = format!("5 5\n1 {}\n", "9".repeat(100_000));
    short(&rejects(
        &["solve", "-"],
        Some(&digits),
        "border position 99999999999",
    ));
    let labels = format!("A2_B100 {}\n", "a".repeat(400));
    short(&rejects(
        &["solve", "-"],
        Some(&labels),
        "pair label 'a' appears 400 times (at 1:9, 1:10, 1:11, 1:12, 1:13 and 395 more)",
    ));
    short(&rejects(
        &["play", "bad\ngame"],
        None,
        "'bad\\ngame' is neither a configuration",
    ));
    short(&rejects(
        &["trace", "-zz\nq"],
        None,
        "unexpected argument '-zz\\nq'",
    ));
    // A file's name with a line end in it: escaped, whole.
    let dir = temp_dir("quoted-names");
    let odd = dir.join("odd\nname.txt");
    std::fs::write(&odd, "A2_B4 @&ab@&@cbac@&@&X\n").unwrap();
    short(&rejects(
        &["solve", odd.to_str().unwrap()],
        None,
        "odd\\nname.txt:1:22: pair label 'X' appears only once",
    ));
    short(&rejects(
        &["solve", dir.join("no\nsuch.txt").to_str().unwrap()],
        None,
        "no\\nsuch.txt: no such file",
    ));
    // The argument parser's own message around it says more, on lines of
    // its own.
    rejects(
        &["solve", "-", "--format", "tat'ham"],
        Some("A2_B4 @&ab@&@cbac@&@&@\n"),
        "invalid value 'tat'ham' for '--format <FORMAT>'",
    );
}

#[test]
fn each_message_says_what_is_wrong_not_what_broke_underneath() {
    let dir = temp_dir("messages");
    // A file given as the census's work directory.
    let file = dir.join("a-file");
    std::fs::write(&file, "x").unwrap();
    let file = file.to_str().unwrap();
    rejects(
        &["stats", "A4_B6", "-w", "1", "--work-dir", file],
        None,
        "is a file, not a directory",
    );
    // A puzzle written into a directory that does not exist: that
    // directory is named, not bbx's temporary file.
    let missing = dir.join("no-such-directory").join("x.txt");
    let err = rejects(
        &["generate", "A3_B5", "--out", missing.to_str().unwrap()],
        None,
        "there is no directory",
    );
    assert!(!err.contains(".tmp") && !err.contains(".bbx-"), "{err}");
    // A board row shifted by a space.
    let err = rejects(
        &["solve", "-"],
        Some("   @ & @ &\n @ O - O - @\n  & - - - - c\n a - - - - a\n b - - - - b\n   @ & @ c\n"),
        "standard input:3:1: this row is shifted right by 1 space",
    );
    assert!(!err.contains("1 rows"), "{err}");
    // A host file with one process, which would not be read.
    rejects(
        &["stats", "A4_B6", "-w", "1", "--hostfile", "nope.txt"],
        None,
        "a host file is for a census on several processes",
    );
    // Other rules than the standard ones for a game of Tatham's, whose rays
    // follow them.
    rejects(
        &["solve", "tatham/a5-b8-checked-once", "--rules", "edge-miss"],
        None,
        "whose rays follow the standard rules",
    );
}
