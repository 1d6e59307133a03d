//! `bbx verify`, run as a real binary: enumeration and SAT agree on whole
//! configurations under both rule sets, and with hidden rays.

use std::collections::{BTreeMap, HashMap};

use bbx::rules::enumeration::Molecules;
use bbx::{Config, Rules, Spectrum};
use serde_json::Value;

use crate::common::{bbx, temp_dir};

fn verify(args: &[&str]) -> Value {
    // A census streams the groups of a standard-rules verify: in a work
    // directory of this call's own, beside the (absent) catalogue.
    let work = temp_dir("verify-work");
    let db = work.join("none.sqlite");
    let out = bbx()
        .arg("verify")
        .args(args)
        .arg("--db")
        .arg(&db)
        .arg("--work-dir")
        .arg(&*work)
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

/// Counted here, apart from `bbx verify`: (size, spectra, molecules) for each
/// number of molecules sharing a spectrum, by tracing every molecule.
fn counted(config: &str, rules: Rules) -> Vec<(u64, u64, u64)> {
    let config: Config = config.parse().unwrap();
    let mut by_spectrum: HashMap<Spectrum, u64> = HashMap::new();
    for m in Molecules::new(config) {
        *by_spectrum.entry(Spectrum::of(&m, rules)).or_default() += 1;
    }
    let mut sizes: BTreeMap<u64, u64> = BTreeMap::new();
    for &k in by_spectrum.values() {
        *sizes.entry(k).or_default() += 1;
    }
    sizes.into_iter().map(|(k, n)| (k, n, k * n)).collect()
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

    // 2300 = C(25, 3) and 12650 = C(25, 4) molecules; the rows themselves are
    // counted by tracing every molecule here.
    for (config, molecules) in [("A3_B5", 2300), ("A4_B5", 12650)] {
        for (rules, name) in [
            (Rules::Standard, "standard"),
            (Rules::EdgeMiss, "edge-miss"),
        ] {
            let v = verify(&[config, "--rules", name]);
            let t = table(&v);
            assert_eq!(t.iter().map(|r| r.2).sum::<u64>(), molecules);
            assert_eq!(t, counted(config, rules), "{config} {name}");
            assert_eq!(v["checked"], v["spectra"]);
            if (config, rules) == ("A4_B5", Rules::Standard) {
                // The ambiguous part, as the ambiguity table of docs/findings.md gives it
                // (that table was computed by bbx's catalogue; the count
                // above is independent of both).
                let ambiguous: Vec<(u64, u64, u64)> = t.into_iter().filter(|r| r.0 > 1).collect();
                assert_eq!(
                    ambiguous,
                    [(2, 216, 432), (3, 60, 180), (12, 2, 24), (29, 1, 29)]
                );
            }
        }
    }
}

#[test]
fn hidden_rays_and_samples() {
    let v = verify(&["A3_B5", "--partial", "0.5"]);
    let t = table(&v);
    // Every distinct spectrum is checked, with half its rays hidden.
    let distinct: u64 = counted("A3_B5", Rules::Standard).iter().map(|r| r.1).sum();
    assert_eq!(t.iter().map(|r| r.1).sum::<u64>(), distinct);
    // Hiding rays makes molecules share observations.
    assert!(t.iter().any(|r| r.0 > 10));
    // Every ambiguous spectrum (764) and 200 of the unique ones, drawn at random.
    let v = verify(&["A4_B6", "--sample", "200", "--seed", "7"]);
    assert_eq!(v["checked"], 764 + 200);
    assert_eq!(v["unique_checked"], 200);
    assert_eq!(v["unique_spectra"], 57269);
    let v = verify(&["A4_B6", "--ambiguous"]);
    assert_eq!(
        table(&v),
        [(2, 696, 1392), (3, 36, 108), (4, 24, 96), (5, 8, 40)]
    );
    // Enumerated in memory (hidden rays), the sample means the same.
    let v = verify(&[
        "A4_B6",
        "--sample",
        "200",
        "--partial",
        "0.5",
        "--seed",
        "7",
    ]);
    assert_eq!(v["checked"], 764 + 200);
    let v = verify(&["A4_B6", "--sample", "1000"]);
    // Every ambiguous spectrum is checked, whatever the sample of unique ones.
    let t = table(&v);
    assert_eq!(t.iter().filter(|r| r.0 > 1).map(|r| r.1).sum::<u64>(), 764);
}

#[test]
fn spectra_from_a_complete_catalogue() {
    let dir = temp_dir("verify-db");
    let db = dir.join("bbx.sqlite");
    let run = |args: &[&str]| {
        bbx()
            .args(args)
            .arg("--db")
            .arg(&db)
            .output()
            .expect("runs")
    };
    assert!(run(&["explore", "A4_B5", "--quiet"]).status.success());
    let out = run(&["verify", "A4_B5", "--ambiguous", "--partial", "0.3"]);
    assert_eq!(out.status.code(), Some(0));
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("(catalogue "), "{text}");
    // Every ambiguous spectrum of A4_B5, counted here.
    let ambiguous: u64 = counted("A4_B5", Rules::Standard)
        .iter()
        .filter(|r| r.0 > 1)
        .map(|r| r.1)
        .sum();
    let verdict = format!("verdict: enumeration and SAT agree on all {ambiguous} checked spectra");
    assert!(text.contains(&verdict), "{text}");
}

#[test]
fn bad_input() {
    let out = bbx()
        .args(["verify", "A2_B4", "--partial", "1.5"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("expected a fraction: a number from 0 to 1")
    );
}

#[test]
fn a_sample_of_nothing_is_refused() {
    // It would check no spectrum and still report agreement.
    let out = bbx()
        .args(["verify", "A3_B4", "--sample", "0"])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(
        err.contains("expected a number of spectra: a whole number, at least 1")
            && err.contains("--ambiguous"),
        "{err}"
    );
    assert!(out.stdout.is_empty());
}
