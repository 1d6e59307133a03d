//! `bbx suggest --policy`, run as a real binary: the ray each policy shoots
//! next is the one `bbx strategy` plays, on the opening (its `first_rays`)
//! and after the rays of its games; and what it says when it cannot answer.

use bbx::{Config, Observation, Outcome};
use serde_json::Value;

use crate::common::{bbx, json_error, json_ok};

const POLICIES: [&str; 5] = ["greedy", "entropy", "score", "lookahead", "rollout"];

/// `bbx suggest - --policy POLICY --json` on the linear puzzle of `config`
/// with `seen` shot: its exit status and its `policy` object.
fn next(config: Config, seen: &Observation, policy: &str) -> (i32, Value) {
    let out = bbx()
        .args([
            "suggest",
            "-",
            "--json",
            "--max-rays",
            "3",
            "--policy",
            policy,
        ])
        .write_stdin(format!("{config} {seen}\n"))
        .output()
        .unwrap();
    let v: Value = serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(&out.stderr)));
    (out.status.code().unwrap(), v["policy"].clone())
}

#[test]
fn every_policys_next_ray_is_the_strategys_first_and_along_its_games() {
    for (config, molecules) in [
        ("A2_B4", &[5u64][..]),
        ("A3_B4", &[300]),
        ("A3_B5", &[7, 1891]),
    ] {
        let config: Config = config.parse().unwrap();
        let name = config.to_string();
        for policy in POLICIES {
            let report = json_ok(&["strategy", &name, "--policy", policy]);
            let empty = Observation::empty(config.shape());
            let (status, p) = next(config, &empty, policy);
            assert_eq!(status, 0, "{name} {policy}: {p}");
            assert_eq!(p["name"], policy);
            assert!(p["unanswered"].is_null(), "{name} {policy}: {p}");
            assert_eq!(
                p["ray"], report["first_rays"][0]["position"],
                "{name} {policy}: suggest's first ray"
            );
            if policy == "rollout" {
                assert_eq!(p["exact_below"], 8);
                assert_eq!(p["candidates"][0]["ray"], p["ray"]);
                assert_eq!(p["candidates"].as_array().unwrap().len(), 3);
            } else {
                assert!(p["exact_below"].is_null() && p["candidates"] == Value::Array(vec![]));
            }
            for &n in molecules {
                let game = json_ok(&[
                    "strategy",
                    &name,
                    "--policy",
                    policy,
                    "--molecule",
                    &n.to_string(),
                ]);
                let mut seen = empty.clone();
                for s in game["shots"].as_array().unwrap() {
                    let q = s["position"].as_u64().unwrap() as usize;
                    let (_, p) = next(config, &seen, policy);
                    assert_eq!(p["ray"], q, "{name} {policy} molecule {n} after {seen}");
                    let outcome: Outcome = serde_json::from_value(s["outcome"].clone()).unwrap();
                    seen.record(q, outcome);
                }
                let (_, p) = next(config, &seen, policy);
                assert!(p["ray"].is_null(), "{name} {policy} molecule {n}: {p}");
                let stop = if game["left"] == 1 {
                    "known"
                } else if p["stop"] == "place_atoms" && policy == "score" {
                    "place_atoms"
                } else {
                    "no_ray_splits"
                };
                assert_eq!(p["stop"], stop, "{name} {policy} molecule {n}");
            }
        }
    }
}

#[test]
fn it_says_why_it_cannot_answer_and_exits_as_documented() {
    let config: Config = "A3_B5".parse().unwrap();
    let empty = format!("{config} {}\n", Observation::empty(5));
    // No time: the search finds nothing, and the answer is the error object
    // of exit status 4, as every command's.
    let out = bbx()
        .args([
            "suggest",
            "-",
            "--json",
            "--policy",
            "rollout",
            "--timeout",
            "0",
        ])
        .write_stdin(empty.as_str())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(4));
    let message = json_error(&out.stdout, "time_limit", 4);
    assert!(message.contains("time limit"), "{message}");
    let out = bbx()
        .args(["suggest", "-", "--policy", "greedy", "--timeout", "0"])
        .write_stdin(empty.as_str())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(4));
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(
        text.contains("the greedy policy: no next ray, as the time limit stopped the search"),
        "{text}"
    );
    // More molecules fit than a policy weighs (75,287,520 at A5_B10's
    // opening): said, exit status 0, and not blamed on --max.
    let out = bbx()
        .args([
            "suggest", "-", "--json", "--policy", "entropy", "--max", "100",
        ])
        .write_stdin(format!("A5_B10 {}\n", Observation::empty(10)))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    let p = &v["policy"];
    assert_eq!(p["unanswered"], "too_large", "{p}");
    assert!(p["ray"].is_null());
    assert!(
        p["why"].as_str().unwrap().contains(
            "75,287,520 molecules fit: a policy's next ray is worked out on at most 1,000,000"
        ),
        "{p}"
    );
    // Without --policy, null; --exact-below asks for it.
    let v = json_ok(&["suggest", "generated-a4-b8-partial"]);
    assert!(v["policy"].is_null());
    let out = bbx()
        .args(["suggest", "generated-a4-b8-partial", "--exact-below", "3"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    // The text names the ray and what rollout weighed.
    let out = bbx()
        .args(["suggest", "generated-a4-b8-partial", "--policy", "ROLLOUT"])
        .output()
        .unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(
        text.contains("the rollout policy (exact below 8) shoots ray 7 next (left, row 7)")
            && text.contains("     7  left, row 7          1.824  (31 in all)"),
        "{text}"
    );
}

#[test]
fn a_policy_weighs_every_molecule_that_fits_when_few_are_listed() {
    // 2,300 molecules fit A3_B5's opening; with --max 10 the search lists
    // 10, and the policy took them from the exact count instead of saying
    // it had too few.
    let config: Config = "A3_B5".parse().unwrap();
    let name = config.to_string();
    let empty = Observation::empty(config.shape());
    for policy in POLICIES {
        let report = json_ok(&["strategy", &name, "--policy", policy]);
        let out = bbx()
            .args(["suggest", "-", "--json", "--max", "10", "--policy", policy])
            .write_stdin(format!("{config} {empty}\n"))
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(0), "{policy}");
        let v: Value = serde_json::from_slice(&out.stdout).unwrap();
        let p = &v["policy"];
        assert!(p["unanswered"].is_null(), "{policy}: {p}");
        assert_eq!(p["molecules"], 2300, "{policy}: {p}");
        assert_eq!(
            p["ray"], report["first_rays"][0]["position"],
            "{policy}: the strategy's first ray"
        );
    }
}
