//! `bbx strategy --optimal` against a brute-force search written here, from
//! the ray engine alone: the expectation recursion over sets of molecules,
//! every ray tried at every set, every placement of the atoms tried when
//! stopping. Nothing is shared with the library's search (no bounds, no
//! symmetries, no greedy order, no "most frequent cells" placement).

use std::collections::HashMap;

use bbx::assistant::optimal::{OptimalOptions, lower_bound, optimum};
use bbx::assistant::strategy::{Policy, StrategyOptions, play_all};
use bbx::{Config, Outcome, Rules, Tracer};
use proptest::prelude::*;

use crate::common::{bbx, json_ok, proptest_config, rules, temp_dir};

/// Every `atoms`-subset of `cells` cells, in any order.
fn subsets(cells: usize, atoms: usize) -> Vec<Vec<usize>> {
    fn go(
        start: usize,
        cells: usize,
        left: usize,
        cur: &mut Vec<usize>,
        out: &mut Vec<Vec<usize>>,
    ) {
        if left == 0 {
            out.push(cur.clone());
            return;
        }
        for c in start..cells {
            cur.push(c);
            go(c + 1, cells, left - 1, cur, out);
            cur.pop();
        }
    }
    let mut out = Vec::new();
    go(0, cells, atoms, &mut Vec::new(), &mut out);
    out
}

/// A configuration's molecules with their outcomes, traced here.
pub struct Board {
    pub atoms: Vec<Vec<usize>>,
    pub outcomes: Vec<Vec<Outcome>>,
    pub rays: usize,
    pub placements: Vec<Vec<usize>>,
}

impl Board {
    pub fn new(atoms: usize, width: usize, rules: Rules) -> Board {
        let molecules = subsets(width * width, atoms);
        let mut tracer = Tracer::new(width, rules);
        let outcomes = molecules
            .iter()
            .map(|m| {
                tracer.update_cells(m);
                (1..=4 * width).map(|q| tracer.trace(q).outcome).collect()
            })
            .collect();
        Board {
            placements: molecules.clone(),
            atoms: molecules,
            outcomes,
            rays: 4 * width,
        }
    }

    /// The sets of `set` that ray `q` leaves, one per outcome.
    fn split(&self, set: &[usize], q: usize) -> Vec<(Outcome, Vec<usize>)> {
        let mut parts: Vec<(Outcome, Vec<usize>)> = Vec::new();
        for &m in set {
            let o = self.outcomes[m][q];
            match parts.iter_mut().find(|p| p.0 == o) {
                Some(p) => p.1.push(m),
                None => parts.push((o, vec![m])),
            }
        }
        parts
    }

    /// The least penalty of stopping now, over every placement of the atoms.
    fn stop(&self, set: &[usize]) -> u64 {
        self.placements
            .iter()
            .map(|p| {
                set.iter()
                    .map(|&m| 5 * self.atoms[m].iter().filter(|a| !p.contains(a)).count() as u64)
                    .sum::<u64>()
            })
            .min()
            .unwrap_or(0)
    }

    /// The fewest rays (`score` false) or the lowest score (`score` true),
    /// all molecules of `set` together.
    pub fn best(&self, set: &[usize], score: bool, memo: &mut HashMap<Vec<usize>, u64>) -> u64 {
        if let Some(&v) = memo.get(set) {
            return v;
        }
        let mut best = if score { Some(self.stop(set)) } else { None };
        for q in 0..self.rays {
            let parts = self.split(set, q);
            if parts.len() < 2 {
                continue;
            }
            let mut total = 0;
            for (o, part) in &parts {
                let cost = if score {
                    if matches!(o, Outcome::Exit(_)) { 2 } else { 1 }
                } else {
                    1
                };
                total += cost * part.len() as u64 + self.best(part, score, memo);
            }
            best = Some(best.map_or(total, |b: u64| b.min(total)));
        }
        // No ray splits the set: the game ends (the rays measure), or the
        // atoms are placed (the score).
        let v = best.unwrap_or(0);
        memo.insert(set.to_vec(), v);
        v
    }

    /// The fewest rays that always suffice to tell the molecules of `set`
    /// apart: every ray tried at every set, the worst outcome counted.
    pub fn minimax(&self, set: &[usize], memo: &mut HashMap<Vec<usize>, u64>) -> u64 {
        if let Some(&v) = memo.get(set) {
            return v;
        }
        let mut best: Option<u64> = None;
        for q in 0..self.rays {
            let parts = self.split(set, q);
            if parts.len() < 2 {
                continue;
            }
            let worst = parts
                .iter()
                .map(|(_, part)| 1 + self.minimax(part, memo))
                .max()
                .unwrap_or(0);
            best = Some(best.map_or(worst, |b: u64| b.min(worst)));
        }
        let v = best.unwrap_or(0);
        memo.insert(set.to_vec(), v);
        v
    }
}

#[test]
fn the_optimum_is_what_a_brute_force_search_finds() {
    for (atoms, width, rules) in [
        (1, 3, Rules::Standard),
        (2, 3, Rules::Standard),
        (1, 4, Rules::Standard),
        (2, 4, Rules::Standard),
        (3, 3, Rules::Standard),
        (2, 3, Rules::EdgeMiss),
        (2, 4, Rules::EdgeMiss),
    ] {
        let config = format!("A{atoms}_B{width}");
        let board = Board::new(atoms, width, rules);
        let all: Vec<usize> = (0..board.atoms.len()).collect();
        let rays = board.best(&all, false, &mut HashMap::new());
        let score = board.best(&all, true, &mut HashMap::new());
        let worst = board.minimax(&all, &mut HashMap::new());
        let work = temp_dir("optimal-brute");
        let v = json_ok(&[
            "strategy",
            &config,
            "--optimal",
            "--rules",
            &rules.to_string(),
            "-q",
            "--work-dir",
            work.to_str().unwrap(),
        ]);
        let o = &v["optimal"];
        assert_eq!(o["molecules"], all.len(), "{config} {rules}");
        assert_eq!(o["rays_total"], rays, "{config} {rules}: rays");
        assert_eq!(o["score_total"], score, "{config} {rules}: score");
        assert_eq!(o["minimax"], worst, "{config} {rules}: minimax");
        assert_eq!(o["stopped"], serde_json::Value::Null);
        // No policy beats it.
        for policy in ["greedy", "entropy", "score", "lookahead"] {
            let p = json_ok(&[
                "strategy",
                &config,
                "--policy",
                policy,
                "--rules",
                &rules.to_string(),
                "-q",
            ]);
            assert!(
                p["score_total"].as_u64().unwrap() >= score,
                "{config} {policy}"
            );
            if policy != "score" {
                assert!(
                    p["rays_total"].as_u64().unwrap() >= rays,
                    "{config} {policy}"
                );
            }
        }
    }
}

#[test]
fn a_small_memory_bound_forgets_sets_but_not_the_answer() {
    let work = temp_dir("optimal-memory");
    let work = work.to_str().unwrap();
    let full = json_ok(&["strategy", "A3_B4", "--optimal", "-q", "--work-dir", work]);
    let small = json_ok(&[
        "strategy",
        "A3_B4",
        "--optimal",
        "--memory",
        "1M",
        "-q",
        "--work-dir",
        work,
    ]);
    assert_eq!(
        full["optimal"]["rays_total"],
        small["optimal"]["rays_total"]
    );
    assert_eq!(
        full["optimal"]["score_total"],
        small["optimal"]["score_total"]
    );
    assert_eq!(full["optimal"]["sets_forgotten"], 0);
    assert!(small["optimal"]["sets_forgotten"].as_u64().unwrap() > 0);
    let text = String::from_utf8(
        bbx()
            .args(["strategy", "A3_B4", "--optimal", "--memory", "1M", "-q"])
            .args(["--work-dir", work])
            .output()
            .unwrap()
            .stdout,
    )
    .unwrap();
    assert!(text.contains("forgotten (memory bound"), "{text}");
}

#[test]
fn a_search_stopped_short_says_so_and_keeps_the_report() {
    let work = temp_dir("optimal-stopped");
    let stopped = || {
        let mut c = bbx();
        c.env("BBX_TEST_FAULTS", "stop-after=100");
        c.args(["strategy", "A3_B4", "--optimal", "-q", "--work-dir"]);
        c.arg(&*work);
        c
    };
    let out = stopped().arg("--json").output().unwrap();
    let (v, code): (serde_json::Value, _) = (
        serde_json::from_slice(&out.stdout).unwrap(),
        out.status.code().unwrap(),
    );
    // The games were played: not exit status 4, which is for nothing found.
    assert_eq!(code, 0);
    assert_eq!(v["optimal"]["rays_total"], serde_json::Value::Null);
    assert_eq!(v["optimal"]["stopped"], "time_limit");
    // The policy's own report is still there.
    assert_eq!(v["molecules"], 560);
    let out = stopped().output().unwrap();
    assert_eq!(out.status.code(), Some(0));
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("best   rays  not reached"), "{text}");
    assert!(text.contains("stopped short"), "{text}");
    assert!(String::from_utf8_lossy(&out.stderr).contains("--timeout raises it"));
}

proptest! {
    #![proptest_config(proptest_config(8))]

    /// No policy beats the optimum (the rays: the policies that shoot until
    /// no ray splits; the score: all of them), and the lower bound never
    /// exceeds it, on average or in the longest game.
    #[test]
    fn no_policy_beats_the_optimum_and_the_bound_stays_below(
        (atoms, width) in prop_oneof![Just((1, 3)), Just((2, 3)), Just((3, 3)), Just((1, 4)), Just((2, 4)), Just((3, 4)), Just((1, 5)), Just((2, 5))],
        rules in rules(),
    ) {
        let config = Config::new(atoms, width).unwrap();
        let options = OptimalOptions { rules, ..OptimalOptions::default() };
        let o = optimum(config, &options).unwrap();
        let rays = o.rays_total.unwrap();
        let score = o.score_total.unwrap();
        let b = lower_bound(config, &options).unwrap().value.unwrap();
        prop_assert!(b.rays_total <= rays, "{config} {rules}: bound {} optimum {rays}", b.rays_total);
        prop_assert!(b.hitting_total <= b.rays_total && b.huffman_total <= b.rays_total);
        for depth in [1, 2, 3] {
            let deep = OptimalOptions { depth, small: 4, ..options.clone() };
            let d = lower_bound(config, &deep).unwrap().value.unwrap();
            prop_assert!(d.search_total <= rays, "{config} {rules}: depth {depth} bound {} optimum {rays}", d.search_total);
            prop_assert!(d.rays_total >= b.rays_total);
        }
        let worst = o.minimax.unwrap();
        prop_assert!(worst >= b.rays_worst, "{config} {rules}: minimax {worst} bound {}", b.rays_worst);
        let mut greedy = u64::MAX;
        for policy in [Policy::Greedy, Policy::Entropy, Policy::Score, Policy::Lookahead, Policy::Rollout] {
            let p = play_all(config, &StrategyOptions { rules, ..StrategyOptions::new(policy) })
                .unwrap()
                .value
                .unwrap();
            prop_assert!(p.score_total >= score, "{config} {rules} {policy}");
            if policy != Policy::Score {
                prop_assert!(p.rays_total >= rays, "{config} {rules} {policy}");
                prop_assert!(p.rays_worst >= b.rays_worst, "{config} {rules} {policy}");
                prop_assert!(p.rays_worst >= worst, "{config} {rules} {policy}: minimax {worst}");
            }
            if policy == Policy::Greedy {
                greedy = p.rays_total;
            }
            if policy == Policy::Rollout {
                prop_assert!(p.rays_total <= greedy, "{config} {rules}: rollout above greedy");
            }
        }
    }
}

#[test]
fn the_bound_is_in_the_report() {
    let work = temp_dir("optimal-bound");
    let v = json_ok(&[
        "strategy",
        "A3_B5",
        "--bound",
        "--optimal",
        "-q",
        "--work-dir",
        work.to_str().unwrap(),
    ]);
    let b = &v["bound"];
    assert_eq!(b["molecules"], 2300);
    let total = b["rays_total"].as_u64().unwrap();
    assert!(total <= v["optimal"]["rays_total"].as_u64().unwrap());
    assert_eq!(
        total,
        b["hitting_total"]
            .as_u64()
            .unwrap()
            .max(b["huffman_total"].as_u64().unwrap())
    );
    let text = String::from_utf8(
        bbx()
            .args(["strategy", "A3_B5", "--bound", "-q"])
            .output()
            .unwrap()
            .stdout,
    )
    .unwrap();
    assert!(
        text.contains(&format!(
            "bound  rays  mean at least {:.4} ({total} / 2300)",
            total as f64 / 2300.0
        )),
        "{text}"
    );
}

/// Replays every molecule of `config` through the trees `bbx strategy
/// --optimal --tree` wrote, with the outcomes traced here: each game must
/// end at a stop where no ray tells the molecules apart (the rays tree),
/// and the rays and scores of all the games must add up to the totals the
/// search claims.
fn check_trees(atoms: usize, width: usize) {
    let config = format!("A{atoms}_B{width}");
    let dir = temp_dir("tree");
    let path = dir.join("trees.json");
    let v = json_ok(&[
        "strategy",
        &config,
        "--optimal",
        "--tree",
        path.to_str().unwrap(),
        "-q",
        "--work-dir",
        dir.to_str().unwrap(),
    ]);
    let trees: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    assert_eq!(trees["config"], config.as_str());
    let board = Board::new(atoms, width, Rules::Standard);
    let n = board.atoms.len();
    assert_eq!(trees["molecules"], n);
    // Per molecule: rays, score, the stop it reached.
    let replay = |tree: &serde_json::Value| -> Vec<(u64, u64, String)> {
        (0..n)
            .map(|m| {
                let (mut node, mut rays, mut cost, mut path) = (tree, 0u64, 0u64, String::new());
                loop {
                    if let Some(stop) = node.get("stop") {
                        let place: Vec<usize> = stop["place"]
                            .as_array()
                            .unwrap()
                            .iter()
                            .map(|c| c.as_u64().unwrap() as usize)
                            .collect();
                        assert_eq!(place.len(), atoms, "{config}: placement {place:?}");
                        let missed = board.atoms[m].iter().filter(|a| !place.contains(a)).count();
                        return (rays, cost + 5 * missed as u64, path);
                    }
                    let shoot = &node["shoot"];
                    let q = shoot["position"].as_u64().unwrap() as usize;
                    assert!((1..=4 * width).contains(&q), "{config}: ray {q}");
                    let o = board.outcomes[m][q - 1];
                    let want = serde_json::to_value(o).unwrap();
                    let branch = shoot["branches"]
                        .as_array()
                        .unwrap()
                        .iter()
                        .find(|b| b[0] == want)
                        .unwrap_or_else(|| {
                            panic!("{config}: molecule {m}, ray {q}: no branch for {want}")
                        });
                    rays += 1;
                    cost += if matches!(o, Outcome::Exit(_)) { 2 } else { 1 };
                    path.push_str(&format!("{q}:{want} "));
                    node = &branch[1];
                }
            })
            .collect()
    };
    let rays_games = replay(&trees["rays"]);
    let rays_total: u64 = rays_games.iter().map(|g| g.0).sum();
    assert_eq!(
        trees["rays_total"], rays_total,
        "{config}: the rays tree's total"
    );
    assert_eq!(v["optimal"]["rays_total"], rays_total);
    // Each stop of the rays tree: one spectrum (no ray tells them apart).
    let mut stops: HashMap<&str, usize> = HashMap::new();
    for (m, g) in rays_games.iter().enumerate() {
        let first = *stops.entry(g.2.as_str()).or_insert(m);
        assert_eq!(
            board.outcomes[first], board.outcomes[m],
            "{config}: molecules {first} and {m} end together but differ"
        );
    }
    let longest = rays_games.iter().map(|g| g.0).max().unwrap();
    let histogram = &v["optimal"]["rays_games"]["rays_histogram"];
    assert_eq!(histogram.as_array().unwrap().len() as u64, longest + 1);
    let score_games = replay(&trees["score"]);
    let score_total: u64 = score_games.iter().map(|g| g.1).sum();
    assert_eq!(
        trees["score_total"], score_total,
        "{config}: the score tree's total"
    );
    assert_eq!(v["optimal"]["score_total"], score_total);
    assert!(v["optimal"]["minimax"].as_u64().unwrap() <= longest);
}

#[test]
fn the_best_strategies_written_add_up_when_replayed() {
    check_trees(3, 4);
    check_trees(3, 5);
    check_trees(4, 4);
}

/// A4_B5 (12,650 molecules; a minute or two): run with
/// `cargo test --release --test integration optimal::a4_b5 -- --ignored`.
#[test]
#[ignore]
fn a4_b5_the_best_strategies_written_add_up_when_replayed() {
    check_trees(4, 5);
}
