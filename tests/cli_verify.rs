//! `bbx verify`, run as a real binary: enumeration and SAT agree on whole
//! configurations under both rule sets, and with hidden rays.

use assert_cmd::Command;
use serde_json::Value;

fn verify(args: &[&str]) -> Value {
    let db = std::env::temp_dir().join(format!("bbx-verify-none-{}.sqlite", std::process::id()));
    let out = Command::cargo_bin("bbx")
        .expect("binary")
        .arg("verify")
        .args(args)
        .arg("--db")
        .arg(&db)
        .arg("--json")
        .output()
        .expect("runs");
    assert_eq!(
        out.status.code(),
        Some(0),
        "{args:?}: {}",
        String::from_utf8_lossy(&out.stdout)
    );
    assert!(!db.exists(), "verify must not create a catalogue");
    serde_json::from_slice(&out.stdout).expect("json")
}

/// (size, spectra, molecules) by enumeration, checking SAT found the same.
fn table(v: &Value) -> Vec<(u64, u64, u64)> {
    v["rows"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            assert_eq!(r["enumeration_spectra"], r["sat_spectra"]);
            assert_eq!(r["enumeration_molecules"], r["sat_molecules"]);
            assert_eq!(r["mismatches"], 0);
            (
                r["size"].as_u64().unwrap(),
                r["enumeration_spectra"].as_u64().unwrap(),
                r["enumeration_molecules"].as_u64().unwrap(),
            )
        })
        .collect()
}

#[test]
fn whole_configurations_under_both_rule_sets() {
    let v = verify(&["A2_B4"]);
    assert_eq!(table(&v), [(1, 120, 120)]);
    let v = verify(&["A2_B4", "--rules", "edge-miss"]);
    assert_eq!(v["mismatches"].as_array().unwrap().len(), 0);
    assert_eq!(table(&v).iter().map(|r| r.2).sum::<u64>(), 120);

    let v = verify(&["A3_B5"]);
    let t = table(&v);
    assert_eq!(t.iter().map(|r| r.2).sum::<u64>(), 2300);
    assert_eq!(v["checked"], v["spectra"]);
    let v = verify(&["A3_B5", "--rules", "edge-miss"]);
    assert_eq!(table(&v).iter().map(|r| r.2).sum::<u64>(), 2300);

    let v = verify(&["A4_B5"]);
    let t = table(&v);
    assert_eq!(t.iter().map(|r| r.2).sum::<u64>(), 12650);
    // The ambiguous part is the same as in the catalogue's table.
    let ambiguous: Vec<(u64, u64, u64)> = t.into_iter().filter(|r| r.0 > 1).collect();
    assert_eq!(
        ambiguous,
        [(2, 216, 432), (3, 60, 180), (12, 2, 24), (29, 1, 29)]
    );
    let v = verify(&["A4_B5", "--rules", "edge-miss"]);
    assert_eq!(table(&v).iter().map(|r| r.2).sum::<u64>(), 12650);
}

#[test]
fn hidden_rays_and_samples() {
    let v = verify(&["A3_B5", "--partial", "0.5"]);
    let t = table(&v);
    assert_eq!(t.iter().map(|r| r.1).sum::<u64>(), 2292);
    // Hiding rays makes molecules share observations.
    assert!(t.iter().any(|r| r.0 > 10));
    let v = verify(&["A4_B6", "--sample", "200", "--seed", "7"]);
    assert_eq!(v["checked"], 200);
    // Fewer ambiguous spectra (764) than asked? No: more, so the sample is random.
    let v = verify(&["A4_B6", "--ambiguous"]);
    assert_eq!(
        table(&v),
        [(2, 696, 1392), (3, 36, 108), (4, 24, 96), (5, 8, 40)]
    );
    let v = verify(&["A4_B6", "--sample", "1000"]);
    // 764 ambiguous spectra are fewer than 1000: all of them are included.
    let t = table(&v);
    assert_eq!(t.iter().filter(|r| r.0 > 1).map(|r| r.1).sum::<u64>(), 764);
}

#[test]
fn spectra_from_a_complete_catalogue() {
    let db = std::env::temp_dir().join(format!("bbx-verify-db-{}.sqlite", std::process::id()));
    let _ = std::fs::remove_file(&db);
    let bbx = |args: &[&str]| {
        Command::cargo_bin("bbx")
            .expect("binary")
            .args(args)
            .arg("--db")
            .arg(&db)
            .output()
            .expect("runs")
    };
    assert!(bbx(&["explore", "A4_B5", "--quiet"]).status.success());
    let out = bbx(&["verify", "A4_B5", "--ambiguous", "--partial", "0.3"]);
    let _ = std::fs::remove_file(&db);
    assert_eq!(out.status.code(), Some(0));
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("(catalogue "), "{text}");
    assert!(
        text.contains("verdict: enumeration and SAT agree on all 279 checked spectra"),
        "{text}"
    );
}

#[test]
fn bad_input() {
    let out = Command::cargo_bin("bbx")
        .unwrap()
        .args(["verify", "A2_B4", "--partial", "1.5"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("between 0 and 1"));
}
