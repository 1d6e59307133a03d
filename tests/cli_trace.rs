//! `bbx trace`, run as a real binary.

use predicates::prelude::*;

use crate::common::{bbx, puzzle, rejects};

#[test]
fn text_output_for_the_seed_record() {
    let out = bbx().args(["trace", "O-O-------------"]).assert().success();
    let text = String::from_utf8(out.get_output().stdout.clone()).unwrap();
    assert!(
        text.contains("config    A2_B4, number 2, canonical number 2, transform id"),
        "{text}"
    );
    assert!(text.contains("spectrum  @&ab@&@cbac@&@&@"), "{text}");
    assert!(
        text.contains(
            "   @ & @ &\n @ O - O - @\n & - - - - c\n a - - - - a\n b - - - - b\n   @ & @ c\n"
        ),
        "{text}"
    );
    assert!(text.contains("There are 2 balls in the box"), "{text}");
    assert!(
        text.contains("absorbed          6           3          0           7          0"),
        "{text}"
    );
    assert!(text.contains("  edge            3"), "{text}");
    assert!(text.contains("  deep            1"), "{text}");
    assert!(
        text.contains("out (pairs)       3           4          1          11          1"),
        "{text}"
    );
}

#[test]
fn molecule_by_number_and_from_a_picture() {
    bbx()
        .args(["trace", "--config", "a4_b6", "15993"])
        .assert()
        .success()
        .stdout(predicate::str::contains(
            "molecule  --O---------O-O---------O-----------",
        ))
        .stdout(predicate::str::contains("canonical number 7361"))
        .stdout(predicate::str::contains(
            "spectrum  @&@&@&@a@bcda@b@&@dc&@&@",
        ));
    bbx()
        .args([
            "trace",
            &puzzle("seed-a2-b4-molecule-2.txt"),
            "--config",
            "A2_B4",
        ])
        .assert()
        .success()
        .stdout(predicate::str::contains("number 2,"));
    bbx()
        .args(["trace", "-"])
        .write_stdin("   - O\n   O -\n")
        .assert()
        .success()
        .stdout(predicate::str::contains("molecule  -OO-"));
}

#[test]
fn emacs_notation() {
    bbx()
        .args(["trace", "O-O-------------", "--emacs"])
        .assert()
        .success()
        .stdout(predicate::str::contains(
            "   H R H R\n H O - O - H\n R - - - - 3\n 1 - - - - 1\n",
        ));
}

#[test]
fn json_output() {
    let out = bbx()
        .args(["trace", "O-O-------------", "--json"])
        .assert()
        .success();
    let v: serde_json::Value = serde_json::from_slice(&out.get_output().stdout).unwrap();
    assert_eq!(v["config"], "A2_B4");
    assert_eq!(v["molecule"], "O-O-------------");
    assert_eq!(v["spectrum"], "@&ab@&@cbac@&@&@");
    assert_eq!(v["number"], 2);
    assert_eq!(v["canonical_number"], 2);
    assert_eq!(v["transform"], "id");
    let rays = v["rays"].as_array().unwrap();
    assert_eq!(rays.len(), 16);
    assert_eq!(rays[7]["result"], "exit");
    assert_eq!(rays[7]["exit"], 11);
    assert_eq!(rays[7]["length"], 3);
    assert_eq!(rays[7]["turns"], 1);
    assert_eq!(rays[0]["result"], "absorbed");
    assert!(rays[0]["exit"].is_null());
    let stats = v["stats"].as_object().unwrap();
    assert_eq!(stats.len(), 17);
    assert_eq!(stats["out_tot_length"], 11);
    assert_eq!(stats["reflected_edge"], 3);

    // A configuration too large to number has null numbers.
    let mut big = vec!['-'; 400];
    for i in (0..400).step_by(37).take(10) {
        big[i] = 'O';
    }
    let big: String = big.into_iter().collect();
    let out = bbx()
        .args(["trace", &big, "--json", "--config", "A10_B20"])
        .assert()
        .success();
    let v: serde_json::Value = serde_json::from_slice(&out.get_output().stdout).unwrap();
    assert!(v["number"].is_null() && v["canonical_number"].is_null() && v["transform"].is_null());
    assert_eq!(v["rays"].as_array().unwrap().len(), 80);
}

#[test]
fn ray_path_is_drawn_and_described() {
    let expected = "     1
   - + - - - - - O
   - + + + + + + -
   O - - - - - + -
   - + + + + + + -
   - + - - - - - O
   - + + + + + + -
   O - - - - - + -
   - - - - - - + -
               1
";
    let out = bbx()
        .args(["trace", &puzzle("seed-23-cell-path.txt"), "--ray", "31"])
        .assert()
        .success();
    let text = String::from_utf8(out.get_output().stdout.clone()).unwrap();
    assert!(text.contains(expected), "{text}");
    assert!(
        text.contains("comes out at 15 (bottom, column 7) after 23 cells and 6 turns"),
        "{text}"
    );
    let out = bbx()
        .args([
            "trace",
            &puzzle("seed-23-cell-path.txt"),
            "--ray",
            "31",
            "--json",
        ])
        .assert()
        .success();
    let v: serde_json::Value = serde_json::from_slice(&out.get_output().stdout).unwrap();
    let path = v["rays"][30]["path"].as_array().unwrap();
    assert_eq!(path.len(), 23 + 6);
    assert_eq!(path[0], serde_json::json!([1, 2, "south"]));
    assert!(v["rays"][0]["path"].is_null());
}

#[test]
fn edge_miss_rules() {
    bbx()
        .args(["trace", "O---------------", "--rules", "edge-miss"])
        .assert()
        .success()
        .stdout(predicate::str::contains("spectrum  @~ab@cdebac@ed~@"))
        .stdout(predicate::str::contains(
            "   @ ~ d e\n @ O - - - @\n ~ - - - - c\n",
        ));
    let out = bbx()
        .args([
            "trace",
            "O---------------",
            "--rules",
            "edge-miss",
            "--json",
        ])
        .assert()
        .success();
    let v: serde_json::Value = serde_json::from_slice(&out.get_output().stdout).unwrap();
    assert_eq!(v["rays"][1]["result"], "miss");
    assert_eq!(v["rules"], "edge-miss");
}

#[test]
fn bad_input_is_reported() {
    rejects(
        &["trace", "O-O"],
        None,
        "3 characters, which is not a square",
    );
    rejects(
        &["trace", "O-X-"],
        None,
        "molecule argument:1:3: unexpected character 'X'",
    );
    rejects(
        &["trace", "O-O-------------", "--config", "A3_B4"],
        None,
        "has 2 atoms but configuration A3_B4 has 3",
    );
    rejects(
        &["trace", "O-O-------------", "--config", "A2_B5"],
        None,
        "configuration A2_B5 has a 5×5 box",
    );
    rejects(
        &["trace", "O-O-------------", "--config", "A4"],
        None,
        "expected An_Bp",
    );
    rejects(
        &["trace", "O-O-------------", "--config", "A17_B4"],
        None,
        "do not fit",
    );
    rejects(
        &["trace", "O-O-------------", "--config", "A0_B0"],
        None,
        "at least 1",
    );
    rejects(
        &["trace", "O-O-------------", "--ray", "17"],
        None,
        "1 to 16",
    );
    rejects(
        &["trace", "O-O-------------", "--ray", "0"],
        None,
        "--ray 0: border positions of a 4×4 box are 1 to 16",
    );
    rejects(
        &["trace", "O-O-------------", "--rules", "tatham"],
        None,
        "[possible values: standard, edge-miss]",
    );
    rejects(
        &["trace", "no/such/file.txt"],
        None,
        "no/such/file.txt: no such file",
    );
    rejects(&["trace", "868"], None, "--config");
    rejects(&["trace", "--config", "A2_B4", "121"], None, "1 to 120");
    rejects(
        &["trace", "A4_B8"],
        None,
        "is a configuration, not a molecule",
    );
    rejects(
        &["trace", "-"],
        Some("   O - -\n   - -\n"),
        "every row of a box has as many cells",
    );
    rejects(
        &["trace", "-"],
        Some("   O -\n   - Q\n"),
        "standard input:2:6: unexpected character 'Q'",
    );
    rejects(
        &["trace", "-"],
        Some("   O -\n   - -\n\nThere are 3 balls in the box\n"),
        "says 3 balls but the box holds 1 atom",
    );
    rejects(
        &["trace", "-"],
        Some(""),
        "standard input: the input is empty",
    );
    rejects(&["trace"], None, "MOLECULE");
    rejects(&["frobnicate"], None, "frobnicate");
}
