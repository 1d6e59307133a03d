//! `bbx strategy`: a policy's games against a whole configuration, as text.

use itertools::Itertools as _;
use std::fmt::Write as _;

use crate::assistant::certificate::TreeCheck;
use crate::assistant::optimal::{LowerBound, Optimum};
use crate::assistant::strategy::{PolicyGame, StrategyReport};
use crate::control::Ended;
use crate::setting::{Naming, Setting};

/// The widest bar of a histogram, in characters.
const BAR: usize = 40;

/// A histogram drawn in the terminal: one line per value that occurs, with
/// its count, its share and a bar.
fn histogram(out: &mut String, what: &str, counts: &[u64], total: u64) {
    let most = counts.iter().copied().max().unwrap_or(0).max(1);
    let _ = writeln!(out, "\n{what}:");
    for (value, &n) in counts.iter().enumerate() {
        if n == 0 {
            continue;
        }
        let bar = ((n as f64 / most as f64) * BAR as f64).round() as usize;
        let _ = writeln!(
            out,
            "  {value:>4}  {n:>10}  {:>6.2}%  {}",
            100.0 * n as f64 / total.max(1) as f64,
            "#".repeat(bar.max(1))
        );
    }
}

/// The standard deviation and the 10th, 50th and 90th percentiles of the
/// values a histogram counts (`h[k]`: how many took value k).
fn spread(h: &[u64]) -> (f64, [usize; 3]) {
    let n: u64 = h.iter().sum();
    if n == 0 {
        return (0.0, [0; 3]);
    }
    let mean = h
        .iter()
        .enumerate()
        .map(|(k, &c)| k as f64 * c as f64)
        .sum::<f64>()
        / n as f64;
    let var = h
        .iter()
        .enumerate()
        .map(|(k, &c)| (k as f64 - mean).powi(2) * c as f64)
        .sum::<f64>()
        / n as f64;
    let at = |share: f64| {
        let want = (share * n as f64).ceil().max(1.0) as u64;
        let mut seen = 0;
        h.iter()
            .position(|&c| {
                seen += c;
                seen >= want
            })
            .unwrap_or(0)
    };
    (var.sqrt(), [at(0.1), at(0.5), at(0.9)])
}

/// `sd X, 10/50/90% a/b/c` for a histogram.
fn spread_text(h: &[u64]) -> String {
    let (sd, [p10, p50, p90]) = spread(h);
    format!("sd {sd:.4}, 10/50/90% {p10}/{p50}/{p90}")
}

/// One game in a line or two.
pub fn game_text(g: &PolicyGame) -> String {
    let shots: Vec<String> = (g.shots.iter())
        .map(|(q, o)| format!("ray {q} {}", o.words()))
        .collect();
    let mut out = format!(
        "molecule {} ({}): {} ray{}, score {}{}\n",
        g.number,
        g.molecule,
        g.shots.len(),
        if g.shots.len() == 1 { "" } else { "s" },
        g.score,
        if g.score_tatham != g.score {
            format!(" ({} by Tatham's rule)", g.score_tatham)
        } else {
            String::new()
        }
    );
    let _ = writeln!(out, "  {}", shots.join(", "));
    if g.left > 1 {
        let _ = writeln!(
            out,
            "  then {} molecules share every result; atoms placed at {}: {} missed",
            g.left, g.placed, g.missed
        );
    } else {
        let _ = writeln!(out, "  then the molecule is known");
    }
    out
}

/// A tree file's replay (`origin`: the file as shown) in a line a tree.
pub fn tree_check_text(c: &TreeCheck, origin: &str) -> String {
    let mut out = format!(
        "{origin}: the trees of {} replayed against its {} molecules, rays traced apart from the search ({:.1} s)\n",
        c.config, c.molecules, c.seconds
    );
    let mean = |total: u64| total as f64 / c.molecules.max(1) as f64;
    if let (Some(total), Some(longest), Some(stops)) = (c.rays_total, c.rays_longest, c.rays_stops)
    {
        let _ = writeln!(
            out,
            "rays   total {total} (mean {:.4}), as the file says; longest game {longest}; every one of the {stops} stops holds molecules no ray tells apart",
            mean(total)
        );
    }
    if let Some(total) = c.score_total {
        let _ = writeln!(
            out,
            "score  total {total} (mean {:.4}), as the file says",
            mean(total)
        );
    }
    out
}

/// The whole report; `naming` names the settings it mentions.
pub fn strategy_text(r: &StrategyReport, naming: &dyn Naming) -> String {
    let mut out = format!(
        "{} under {} rules, the {} policy against every molecule ({} games, {:.1} s)\n\n",
        r.config, r.rules, r.policy, r.molecules, r.seconds
    );
    let _ = writeln!(
        out,
        "rays   mean {:.4} ({} / {}), worst {}",
        r.rays_mean, r.rays_total, r.molecules, r.rays_worst
    );
    let _ = writeln!(
        out,
        "score  mean {:.4} ({} / {}), worst {}",
        r.score_mean, r.score_total, r.molecules, r.score_worst
    );
    let _ = writeln!(
        out,
        "       by Tatham's rule (a guess giving every result wins) {:.4} ({} / {})",
        r.score_tatham_mean, r.score_tatham_total, r.molecules
    );
    let _ = writeln!(
        out,
        "spread rays {}; score {}",
        spread_text(&r.rays_histogram),
        spread_text(&r.score_histogram)
    );
    let _ = writeln!(
        out,
        "luck   {} games ({:.2}%) end with molecules no ray tells apart; their misplaced atoms cost {} points, {:.4} a game on average ({:.2}% of the score)",
        r.undecided_games,
        100.0 * r.undecided_games as f64 / r.molecules.max(1) as f64,
        r.penalty_total,
        r.penalty_total as f64 / r.molecules.max(1) as f64,
        100.0 * r.penalty_total as f64 / r.score_total.max(1) as f64
    );
    if !r.first_rays.is_empty() {
        let steps = r.first_rays.iter().map(|(q, o, share)| {
            format!("ray {q} (most often {}, {:.1}%)", o.words(), 100.0 * share)
        });
        let _ = writeln!(out, "first  {}", steps.format(", then "));
    }
    if let Some(o) = &r.optimal {
        out.push_str(&optimum_text(o, naming));
    }
    if let Some(b) = &r.bound {
        out.push_str(&bound_text(b));
    }
    histogram(&mut out, "rays per game", &r.rays_histogram, r.molecules);
    histogram(&mut out, "score per game", &r.score_histogram, r.molecules);
    if !r.hardest.is_empty() {
        let _ = writeln!(out, "\nhardest games:");
        for g in &r.hardest {
            out.push_str(&game_text(g));
        }
    }
    out
}

/// The best strategy's values: a few lines, or what stopped the search;
/// `naming` names the settings it mentions.
pub fn optimum_text(o: &Optimum, naming: &dyn Naming) -> String {
    let mut out = String::new();
    let n = o.molecules.max(1) as f64;
    let measures = [
        (
            "best   rays ",
            o.rays_total,
            o.rays_first,
            "no ray needed",
            "",
        ),
        (
            "       score",
            o.score_total,
            o.score_first,
            "placing the atoms at once",
            " (stopping at any moment)",
        ),
    ];
    for (name, total, first, none, how) in measures {
        let _ = match total {
            Some(total) => writeln!(
                out,
                "{name} mean {:.4} ({total} / {}), {}{how}",
                total as f64 / n,
                o.molecules,
                first.map_or(none.to_string(), |q| format!("first ray {q}"))
            ),
            None => writeln!(out, "{name} not reached"),
        };
    }
    let _ = writeln!(
        out,
        "       exhaustive search: {} sets searched, {} remembered{}, {:.1} s",
        o.sets_searched,
        o.sets_remembered,
        if o.sets_forgotten > 0 {
            format!(
                ", {} forgotten (memory bound: {} raises it)",
                o.sets_forgotten,
                naming.name(Setting::Memory)
            )
        } else {
            String::new()
        },
        o.seconds
    );
    if let Some(m) = o.minimax {
        let longest = o
            .rays_games
            .as_ref()
            .map_or(0, |g| g.rays_histogram.len().max(1) - 1);
        let _ = writeln!(
            out,
            "       worst game: {m} rays always suffice and fewer do not (minimax); the longest game of the best-rays strategy: {longest}"
        );
    }
    for (name, games) in [("rays", &o.rays_games), ("score", &o.score_games)] {
        let Some(g) = games else { continue };
        let _ = writeln!(
            out,
            "       best-{name} games: rays {}; score mean {:.4}, {}; misplaced atoms {:.2}% of the score",
            spread_text(&g.rays_histogram),
            g.score_total as f64 / n,
            spread_text(&g.score_histogram),
            100.0 * g.penalty_total as f64 / g.score_total.max(1) as f64
        );
    }
    if let Some(g) = &o.rays_games
        && !g.first_answers.is_empty()
    {
        let answers = g.first_answers.iter().map(|(o, games, rays, _)| {
            format!(
                "{} {:.1}% then {rays:.2}",
                o.words(),
                100.0 * *games as f64 / n
            )
        });
        let _ = writeln!(
            out,
            "       first answer, best rays (share, mean rays after it): {}",
            answers.format(", ")
        );
    }
    if !o.ended.is_complete() {
        let why = match o.ended {
            Ended::Cancelled => "interrupted".to_string(),
            _ => format!(
                "the time limit passed ({} raises it)",
                naming.name(Setting::Timeout)
            ),
        };
        let _ = writeln!(
            out,
            "       stopped short: {why}; the values not reached are unknown"
        );
    }
    out
}

/// The lower bound of the fewest rays, in two lines.
pub fn bound_text(b: &LowerBound) -> String {
    let n = b.molecules.max(1) as f64;
    let search = if b.depth > 0 {
        let units = match (b.units, b.units_resumed) {
            (0, _) => String::new(),
            (u, 0) => format!(" in {u} units"),
            (u, r) => format!(" in {u} units, {r} of them done by an earlier run"),
        };
        format!(
            "       every strategy's first {} rays searched (sets of at most {} molecules to the end): {:.4}, {} sets{units}\n",
            b.depth,
            b.small,
            b.search_total as f64 / n,
            b.sets_searched
        )
    } else {
        String::new()
    };
    let head = format!(
        "bound  rays  mean at least {:.4} ({} / {}), worst game at least {} ({:.1} s)\n       \
         each molecule told from those one atom move away: {:.4}; Huffman over the spectra: {:.4}\n",
        b.rays_mean,
        b.rays_total,
        b.molecules,
        b.rays_worst,
        b.seconds,
        b.hitting_total as f64 / n,
        b.huffman_total as f64 / n
    );
    head + &search
}
