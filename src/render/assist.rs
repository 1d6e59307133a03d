//! `bbx suggest`: the rays worth shooting next and the best strategy.

use crate::assistant::next::{NEXT_RAY_LIMIT, PolicyRay, Stop, Unanswered};
use crate::assistant::plan::Node;
use crate::assistant::suggest::Suggestion;
use crate::error::{grouped, mean};
use crate::render::diagram::position_name;
use crate::render::solve::{limit_raised, puzzle_line, verdict};
use crate::rules::config::Shape;
use crate::setting::{Naming, Setting};
use crate::solver::solve_report::Known;

/// How many of the best ray's outcomes the suggestion names one by one.
const SPLIT_CLASSES_NAMED: usize = 12;

/// The text of a suggestion, listing the `top` best rays; `naming` names
/// the settings it mentions.
pub fn suggest_text(suggestion: &Suggestion, top: usize, naming: &dyn Naming) -> String {
    let report = &suggestion.report;
    let p = report.solution().observation.shape();
    let mut out = format!(
        "{}observed  {}\n\n",
        puzzle_line(report),
        report.observation
    );
    let cut = report.ended.cut();
    let (max, fits) = (
        naming.name(Setting::Max),
        if report.count == 1 { "fits" } else { "fit" },
    );
    let molecules = crate::error::counted(report.count, "molecule", "molecules");
    let counted = report.known != Known::AtLeast;
    if counted || report.ended.is_complete() || (cut.is_some() && report.count == 0) {
        out.push_str(&format!("{}\n", verdict(report, naming)));
    } else if let Some(cut) = cut {
        out.push_str(&format!(
            "At least {molecules} {fits}: the {} stopped the search.\n",
            limit_raised(cut, naming),
        ));
    } else {
        out.push_str(&format!(
            "More than {molecules} {fits}: the search stopped at {max}.\n"
        ));
    }
    let known = (report.known == Known::Exact && report.count == 1)
        .then(|| report.found.first())
        .flatten();
    if let Some(found) = known {
        out.push_str(&format!("The molecule is known: {}\n", found.molecule));
    } else if report.listed < 2 && report.splits.is_empty() {
        out.push_str(&format!(
            "Too few molecules found to rank the rays: raise {max} or {}.\n",
            naming.name(Setting::Timeout)
        ));
    } else if let (true, false, None, Some(caveat)) = (
        report.splits.is_empty(),
        report.splits_exact,
        &report.sample,
        report.ranking_caveat(),
    ) {
        // Not ranked: the first molecules found are no sample to rank on.
        out.push_str(&format!("{}\n", caveat.show(naming)));
    } else if report.splits.is_empty() {
        out.push_str(
            "No ray left to shoot can tell them apart: they share every result, and the game is decided by luck.\n",
        );
    } else {
        if let Some(caveat) = report.ranking_caveat() {
            out.push_str(&format!("{}\n", caveat.show(naming)));
        }
        out.push_str("\nrays to shoot next, best first:\n");
        let rows: Vec<_> = (report.splits.iter().take(top))
            .map(|s| (s, mean(s.expected_remaining, report.sample.is_some())))
            .collect();
        // The column of the molecules expected left as wide as its widest.
        let width = (rows.iter().map(|(_, left)| left.chars().count()))
            .max()
            .unwrap_or(0)
            .max("expected left".len());
        out.push_str(&format!(
            "   ray  position          outcomes  {:>width$}  bits\n",
            "expected left"
        ));
        for (s, left) in rows {
            out.push_str(&format!(
                "{:>6}  {:<18}{:>8}  {left:>width$}{:>6.2}\n",
                s.position,
                position_name(p, s.position),
                s.classes.len(),
                s.entropy
            ));
        }
        if let Some(best) = report.splits.first() {
            // The largest outcomes by name; past a dozen, the rest in one
            // sum, so a ray that scatters the molecules stays one line.
            let named = best.classes.len().min(SPLIT_CLASSES_NAMED);
            let mut classes: Vec<String> = (best.classes[..named].iter())
                .map(|c| format!("{}: {}", c.outcome.words(), grouped(c.count as u128)))
                .collect();
            let rest = &best.classes[named..];
            if !rest.is_empty() {
                let molecules: usize = rest.iter().map(|c| c.count).sum();
                classes.push(format!(
                    "and {} more outcomes of {} molecules in all",
                    grouped(rest.len() as u128),
                    grouped(molecules as u128)
                ));
            }
            let them = match &report.sample {
                Some(sm) => format!("the sample of {}", grouped(sm.molecules)),
                None => "them".to_string(),
            };
            out.push_str(&format!(
                "\nray {} would split {them} as {}.\n",
                best.position,
                classes.join(", ")
            ));
        }
    }
    if let Some(next) = &suggestion.policy {
        out.push('\n');
        out.push_str(&policy_text(next, p, naming));
    }
    if let Some(p) = &suggestion.plan {
        out.push_str(&format!(
            "\nbest strategy: {:.2} more rays on average until the molecule is known\n",
            p.expected_rays
        ));
        plan_text(&p.tree, 2, &mut out);
    }
    out
}

/// The ray a policy shoots next ([`PolicyRay`]) in a box of `shape`, in
/// one line, as `bbx play`'s coach ends its best-ray panel with it and the
/// web page's coach shows it: `greedy's next ray: 18 (right, row 7)`; under
/// rollout with the rays its games are expected to take from here, this one
/// included (`rollout's next ray: 18 (right, row 7), 5.2 rays`); else in a
/// few words why there is none, or why it is not known (the full reason is
/// [`PolicyRay::why`]).
///
/// ```
/// use bbx::assistant::next::{PolicyRay, Stop};
/// use bbx::assistant::strategy::Policy;
/// use bbx::render::next_ray_line;
/// let mut next = PolicyRay {
///     policy: Policy::Greedy, exact_below: None, molecules: 12, ray: Some(18),
///     stop: None, candidates: vec![], unanswered: None, why: None,
/// };
/// assert_eq!(next_ray_line(8, &next), "greedy's next ray: 18 (right, row 7)");
/// (next.ray, next.stop) = (None, Some(Stop::Known));
/// assert_eq!(next_ray_line(8, &next), "greedy's next ray: none, the molecule is known");
/// ```
pub fn next_ray_line(shape: impl Into<Shape>, next: &PolicyRay) -> String {
    let p = shape.into();
    let name = next.policy;
    let none = match (next.ray, next.stop, next.unanswered) {
        (Some(q), _, _) => {
            let mut said = format!("{name}'s next ray: {q} ({})", position_name(p, q));
            if let Some(c) = next.candidates.first().filter(|c| c.ray == q) {
                said.push_str(&format!(", {:.1} rays", c.expected_rays));
            }
            return said;
        }
        (None, _, Some(why)) => match why {
            Unanswered::NotListed => "unknown until all are listed",
            Unanswered::TooLarge if next.molecules > NEXT_RAY_LIMIT => {
                "unknown, too many molecules"
            }
            Unanswered::TooLarge => "unknown, the box is too wide",
            Unanswered::AtomRange => "unknown, atom counts differ",
            Unanswered::TimedOut => "unknown, the time ran out",
            Unanswered::Cancelled => "unknown, interrupted",
            Unanswered::OverMemory => "unknown, over the memory bound",
        },
        (None, Some(stop), None) => match stop {
            Stop::NothingFits => "none, no molecule fits",
            Stop::Known => "none, the molecule is known",
            Stop::NoRaySplits => "none, no ray tells them apart",
            Stop::PlaceAtoms => "none, placing atoms costs less",
        },
        (None, None, None) => "none",
    };
    format!("{name}'s next ray: {none}")
}

/// What a policy shoots next ([`PolicyRay`]) in a box of `shape`, as
/// lines: its ray, or why it shoots none, or why that is not known; under
/// rollout, the rays it weighed with the rays expected from here.
pub fn policy_text(next: &PolicyRay, shape: impl Into<Shape>, naming: &dyn Naming) -> String {
    let shape = shape.into();
    let name = match next.exact_below {
        Some(k) => format!("the {} policy (exact below {k})", next.policy),
        None => format!("the {} policy", next.policy),
    };
    let mut out = match (next.ray, next.stop, &next.why) {
        (Some(ray), _, _) => format!(
            "{name} shoots ray {ray} next ({})\n",
            position_name(shape, ray)
        ),
        (None, _, Some(why)) => format!("{name}: no next ray, as {}.\n", why.show(naming)),
        (None, Some(stop), None) => format!(
            "{name} shoots no more rays: {}.\n",
            match stop {
                Stop::NothingFits => "no molecule fits",
                Stop::Known => "the molecule is known",
                Stop::NoRaySplits => "no ray left tells the molecules apart",
                Stop::PlaceAtoms => "placing the atoms now costs less on average than shooting on",
            }
        ),
        (None, None, None) => format!("{name} shoots no more rays.\n"),
    };
    if !next.candidates.is_empty() {
        out.push_str(&format!(
            "rays it weighed, best first, on the {} molecules:\n",
            grouped(next.molecules as u128)
        ));
        out.push_str("   ray  position          rays expected from here\n");
        for c in &next.candidates {
            out.push_str(&format!(
                "{:>6}  {:<18}{:>8.3}  ({} in all)\n",
                c.ray,
                position_name(shape, c.ray),
                c.expected_rays,
                grouped(c.rays_total)
            ));
        }
    }
    out
}

/// A plan's decision tree as indented text, appended to `out`.
pub fn plan_text(node: &Node, indent: usize, out: &mut String) {
    let pad = " ".repeat(indent);
    match node {
        Node::Known(m) => out.push_str(&format!("{pad}known: {m}\n")),
        Node::Undecidable(ms) => out.push_str(&format!(
            "{pad}no ray tells these {} apart: {}\n",
            ms.len(),
            ms.join(" ")
        )),
        Node::Shoot {
            ray,
            expected_rays,
            branches,
        } => {
            out.push_str(&format!(
                "{pad}shoot ray {ray} ({expected_rays:.2} rays expected from here)\n"
            ));
            for (o, child) in branches {
                out.push_str(&format!("{pad}  if {}:\n", o.words()));
                plan_text(child, indent + 4, out);
            }
        }
    }
}
