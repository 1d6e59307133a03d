//! `bbx strategy`, run as a real binary, against games played here by plain
//! simulation (written apart from the library's decision tree), and replayed
//! step by step through `bbx suggest`.

use bbx::rules::enumeration::Molecules;
use bbx::{Config, Molecule, Observation, Outcome, Rules, Spectrum};
use serde_json::Value;

use crate::common::{bbx, json_ok};

/// One game of the greedy, entropy or lookahead policy against `hidden`,
/// simulated molecule set by molecule set: the rays shot with their
/// outcomes, and the molecules left.
fn simulate(
    all: &[(Molecule, Spectrum)],
    hidden: usize,
    policy: &str,
) -> (Vec<(usize, Outcome)>, Vec<usize>) {
    let rays = 4 * all[0].0.width();
    let mut left: Vec<usize> = (0..all.len()).collect();
    let mut shot = vec![false; rays + 1];
    let mut shots = Vec::new();
    loop {
        let mut best: Option<(f64, usize)> = None;
        for q in (1..=rays).filter(|&q| !shot[q]) {
            let mut classes: Vec<(Outcome, f64)> = Vec::new();
            for &m in &left {
                let o = all[m].1.get(q);
                match classes.iter_mut().find(|c| c.0 == o) {
                    Some(c) => c.1 += 1.0,
                    None => classes.push((o, 1.0)),
                }
            }
            if classes.len() < 2 {
                continue;
            }
            // Sums in the order of the outcome codes, as the library's.
            classes.sort_by_key(|c| match c.0 {
                Outcome::Absorbed => 0,
                Outcome::Reflected => 1,
                Outcome::Miss => 2,
                Outcome::Exit(k) => 2 + k,
            });
            let n = left.len() as f64;
            let value = match policy {
                "entropy" => classes
                    .iter()
                    .map(|c| (c.1 / n) * (c.1 / n).log2())
                    .sum::<f64>(),
                "lookahead" => {
                    // For each outcome of q, the best second ray's sum of
                    // squared class sizes (the class's own square when no
                    // ray splits it), summed over the outcomes.
                    let mut total = 0u64;
                    for (o, _) in &classes {
                        let class: Vec<usize> = left
                            .iter()
                            .copied()
                            .filter(|&m| all[m].1.get(q) == *o)
                            .collect();
                        let size = class.len() as u64;
                        let mut least = size * size;
                        for q2 in (1..=rays).filter(|&r| !shot[r] && r != q) {
                            let mut sizes: Vec<(Outcome, u64)> = Vec::new();
                            for &m in &class {
                                let o2 = all[m].1.get(q2);
                                match sizes.iter_mut().find(|c| c.0 == o2) {
                                    Some(c) => c.1 += 1,
                                    None => sizes.push((o2, 1)),
                                }
                            }
                            least = least.min(sizes.iter().map(|c| c.1 * c.1).sum());
                        }
                        total += least;
                    }
                    total as f64 / n
                }
                _ => classes.iter().map(|c| c.1 * c.1).sum::<f64>() / n,
            };
            if best.is_none_or(|(b, _)| value < b - 1e-12) {
                best = Some((value, q));
            }
        }
        let Some((_, q)) = best else {
            return (shots, left);
        };
        let o = all[hidden].1.get(q);
        shots.push((q, o));
        shot[q] = true;
        if let Outcome::Exit(k) = o {
            shot[k] = true;
        }
        left.retain(|&m| all[m].1.get(q) == o);
    }
}

/// The score of a simulated game: rays, then 5 per hidden atom missed by
/// atoms placed on the cells most often holding one (ties: lowest cells).
fn score(
    all: &[(Molecule, Spectrum)],
    hidden: usize,
    shots: &[(usize, Outcome)],
    left: &[usize],
) -> (u64, u64) {
    let cost: u64 = shots
        .iter()
        .map(|(_, o)| if matches!(o, Outcome::Exit(_)) { 2 } else { 1 })
        .sum();
    let p = all[0].0.width();
    let mut freq = vec![0usize; p * p];
    for &m in left {
        for &a in all[m].0.atoms() {
            freq[a] += 1;
        }
    }
    let mut cells: Vec<usize> = (0..p * p).collect();
    cells.sort_by(|&a, &b| freq[b].cmp(&freq[a]).then(a.cmp(&b)));
    cells.truncate(all[0].0.atoms().len());
    let missed = all[hidden]
        .0
        .atoms()
        .iter()
        .filter(|a| !cells.contains(a))
        .count() as u64;
    let guess = Molecule::new(p, cells).unwrap();
    let same = Spectrum::of(&guess, Rules::Standard) == all[hidden].1;
    (cost + 5 * missed, cost + if same { 0 } else { 5 * missed })
}

fn table(config: Config) -> Vec<(Molecule, Spectrum)> {
    Molecules::new(config)
        .map(|m| {
            let s = Spectrum::of(&m, Rules::Standard);
            (m, s)
        })
        .collect()
}

#[test]
fn every_game_is_the_one_a_plain_simulation_plays() {
    for config in ["A2_B4", "A3_B4", "A3_B5", "A1_B6"] {
        let c: Config = config.parse().unwrap();
        let all = table(c);
        for policy in ["greedy", "entropy", "lookahead"] {
            let v = json_ok(&["strategy", config, "--policy", policy, "-q"]);
            let (mut rays, mut scores, mut tatham, mut undecided) = (0u64, 0u64, 0u64, 0u64);
            let mut histogram = vec![0u64; 64];
            for h in 0..all.len() {
                let (shots, left) = simulate(&all, h, policy);
                let (s, t) = score(&all, h, &shots, &left);
                rays += shots.len() as u64;
                scores += s;
                tatham += t;
                histogram[shots.len()] += 1;
                if left.len() > 1 {
                    undecided += 1;
                }
            }
            assert_eq!(v["molecules"], all.len(), "{config} {policy}");
            assert_eq!(v["rays_total"], rays, "{config} {policy}");
            assert_eq!(v["score_total"], scores, "{config} {policy}");
            assert_eq!(v["score_tatham_total"], tatham, "{config} {policy}");
            assert_eq!(v["undecided_games"], undecided, "{config} {policy}");
            let h: Vec<u64> = v["rays_histogram"]
                .as_array()
                .unwrap()
                .iter()
                .map(|x| x.as_u64().unwrap())
                .collect();
            assert_eq!(h[..], histogram[..h.len()], "{config} {policy}");
            // One game alone is the same game.
            for n in [1, all.len() / 2, all.len()] {
                let g = json_ok(&[
                    "strategy",
                    config,
                    "--policy",
                    policy,
                    "--molecule",
                    &n.to_string(),
                ]);
                let (shots, left) = simulate(&all, n - 1, policy);
                let got: Vec<u64> = g["shots"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|s| s["position"].as_u64().unwrap())
                    .collect();
                let want: Vec<u64> = shots.iter().map(|s| s.0 as u64).collect();
                assert_eq!(got, want, "{config} {policy} molecule {n}");
                assert_eq!(g["left"], left.len(), "{config} {policy} molecule {n}");
                assert_eq!(g["score"], score(&all, n - 1, &shots, &left).0);
            }
        }
    }
}

#[test]
fn the_greedy_policy_is_what_suggest_advises_step_by_step() {
    let config: Config = "A3_B5".parse().unwrap();
    let all = table(config);
    for n in [7usize, 818, 1891] {
        let g = json_ok(&["strategy", "A3_B5", "--molecule", &n.to_string()]);
        let hidden = &all[n - 1].1;
        let mut seen = Observation::empty(5);
        for s in g["shots"].as_array().unwrap() {
            let q = s["position"].as_u64().unwrap() as usize;
            let puzzle = format!("A3_B5 {seen}\n");
            let out = bbx()
                .args(["suggest", "-", "--json", "--max-rays", "1"])
                .write_stdin(puzzle.as_str())
                .output()
                .unwrap();
            let v: Value = serde_json::from_slice(&out.stdout).unwrap();
            assert_eq!(
                v["rays"][0]["position"], q,
                "molecule {n}: suggest's best ray after {seen}"
            );
            seen.record(q, hidden.get(q));
            if let Outcome::Exit(k) = hidden.get(q) {
                seen.record(k, Outcome::Exit(q));
            }
        }
    }
}

#[test]
fn bad_input_is_refused() {
    for (args, says) in [
        (
            vec!["strategy", "A4_B8", "--policy", "lucky"],
            "[possible values: greedy, entropy, score, lookahead, rollout]",
        ),
        (
            vec!["strategy", "A3_B5", "--molecule", "0"],
            "expected a molecule number: a whole number, at least 1",
        ),
        (
            vec!["strategy", "A3_B5", "--molecule", "2301"],
            "out of range",
        ),
        (vec!["strategy", "A8_B16"], "up to 50000000 molecules"),
    ] {
        let out = bbx().args(&args).output().unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
        assert!(err.contains(says), "{args:?}: {err}");
    }
}

#[test]
fn the_spectra_keep_to_the_memory_bound_and_are_refused_at_once_past_it() {
    // A4_B13's 32.8 million molecules take 2.8 GB with their games, past
    // the default bound (2G): refused before anything is allocated. It ran
    // to its time limit and took 2.6 GB; asked for 100 MB, A3_B25 named the
    // bound of 4.0 GB.
    for (args, says) in [
        (
            vec!["strategy", "A4_B13", "--timeout", "60"],
            "A4_B13's 32795126 molecules, with the games played on them, take about 2.8 GB, more than the memory bound of 2.0 GB: raise it (--memory)",
        ),
        (
            vec!["strategy", "A3_B25", "--timeout", "5", "--memory", "100M"],
            "more than the memory bound of 100 MB",
        ),
    ] {
        let out = bbx()
            .args(&args)
            .timeout(std::time::Duration::from_secs(60))
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
        assert!(err.contains(says), "{args:?}: {err}");
        assert_eq!(err.lines().count(), 1, "{err}");
    }
}

#[test]
fn every_policy_stops_at_the_time_limit_inside_a_large_set() {
    // A4_B10, 3.9 million molecules: lookahead weighs every pair of rays
    // over the whole set before its first ray, which took minutes without
    // a look at the budget; the time limit came and went.
    for policy in ["lookahead", "score"] {
        let child = std::process::Command::new(assert_cmd::cargo::cargo_bin("bbx"))
            .args([
                "strategy",
                "A4_B10",
                "--policy",
                policy,
                "--timeout",
                "3",
                "--json",
            ])
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        let out = crate::common::wait(child, std::time::Duration::from_secs(60));
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(4), "{policy}: {err}");
        let message = crate::common::json_error(&out.stdout, "time_limit", 4);
        assert!(
            message.contains("before every game was played"),
            "{message}"
        );
    }
}
