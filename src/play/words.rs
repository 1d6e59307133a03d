//! The words of the game, in one place: the messages that answer each move,
//! what the side panel, the windows and the key line say, and the lines
//! printed when the game ends. The game middle ([`crate::play::middle`])
//! says which of them to show and each front gives them their style; no
//! front writes a sentence of its own.
//!
//! ```
//! use bbx::play::words::{atoms_are, outcome_words};
//! use bbx::Outcome;
//! assert_eq!(atoms_are(1), "1 atom is");
//! assert_eq!(outcome_words(8, Outcome::Exit(12)), "out at 12 (bottom, column 4)");
//! ```

use std::ops::RangeInclusive;

use std::time::Duration;

use crate::assistant::next::PolicyRay;
use crate::assistant::strategy::{Policy, REVIEW_AVERAGE_LIMIT};
use crate::control::Ended;
use crate::error::{about, counted, grouped, quantity};
use crate::play::coach::{Answer, Panels, Ranking, ReviewState};
use crate::play::cursor::Target;
use crate::play::game::{Action, Game};
use crate::play::keys::Profile;
use crate::play::marks::arrow;
use crate::play::moves::Move;
use crate::play::referee::{Judge, Verdict};
use crate::play::save::is_tatham_save;
use crate::play::scene::{Choice, Dialog};
use crate::render::{next_ray_line, position_name};
use crate::rules::board::{Side, port};
use crate::rules::config::Shape;
use crate::rules::notation::Notation;
use crate::rules::ray::Outcome;
use crate::rules::score::{MISSED_ATOM_PENALTY, RULE, WRONG_GUESS_PENALTY};
use crate::setting::{Naming, Setting, Text};
use crate::solver::Certainty;
use crate::solver::solve_report::Known;

pub use crate::play::scene::{Lines, Tone};

/// `1 atom is`, `4 atoms are`.
pub fn atoms_are(n: usize) -> String {
    quantity(n, "atom is", "atoms are")
}

/// The atoms a game hides, as its player is told: `4 atoms are`, or `3 to
/// 6 atoms are` when the count was drawn in a range.
pub fn counts_are(counts: &RangeInclusive<usize>) -> String {
    if counts.start() == counts.end() {
        atoms_are(*counts.start())
    } else {
        format!("{} to {} atoms are", counts.start(), counts.end())
    }
}

/// A cell (linear index) of a box of `shape` (a width alone is a square):
/// `row 2, column 7`.
pub fn cell_name(shape: impl Into<Shape>, i: usize) -> String {
    let (r, c) = shape.into().row_col(i);
    format!("row {r}, column {c}")
}

/// A ray and where it enters: `ray 12 (bottom, column 4)`.
fn ray(p: Shape, q: usize) -> String {
    format!("ray {q} ({})", position_name(p, q))
}

/// An outcome in words with the exit's place, on a box of `shape` (a width
/// alone is a square): `out at 12 (bottom, column 4)`.
pub fn outcome_words(shape: impl Into<Shape>, o: Outcome) -> String {
    match o {
        Outcome::Exit(k) => format!("out at {k} ({})", position_name(shape, k)),
        Outcome::Miss => "missed the board".into(),
        other => other.words(),
    }
}

/// A file name as a shell word: as it is when it holds only safe characters,
/// else in double quotes (with `"`, `\`, `$` and `` ` `` escaped), so that
/// the command shown can be pasted as it is.
pub fn shell_word(path: &str) -> String {
    let safe = |c: char| c.is_alphanumeric() || "-_./+,:@%=".contains(c);
    if !path.is_empty() && path.chars().all(safe) {
        return path.to_string();
    }
    let mut out = String::from("\"");
    for c in path.chars() {
        if matches!(c, '"' | '\\' | '$' | '`') {
            out.push('\\');
        }
        out.push(c);
    }
    out.push('"');
    out
}

/// `text` with its first letter in capitals.
fn capital(text: &str) -> String {
    let mut c = text.chars();
    match c.next() {
        Some(f) => f.to_uppercase().chain(c).collect(),
        None => String::new(),
    }
}

/// The messages that answer the player's moves.
pub mod say {
    use super::*;

    /// The first message of a game hiding `counts` atoms (one count, or the
    /// range it was drawn in), with the keys of `profile`.
    pub fn welcome(counts: &RangeInclusive<usize>, profile: Profile) -> String {
        let (shoot, _, guess, _, _) = profile.hints();
        format!(
            "{} hidden. Click the border (or press {shoot} on it) to shoot a ray, click a cell to place an atom, then {guess} for the verdict; ? shows every key.",
            counts_are(counts)
        )
    }

    /// A move refused while a wrong guess waits.
    pub const WAITING: &str = "Your guess was judged wrong: play on (p) or end the game (e).";
    /// A guess judged wrong.
    pub const WRONG: &str = "Your guess is wrong: play on, or end the game.";
    /// Play on or end with no wrong guess waiting.
    pub const NO_WRONG_GUESS: &str = "No wrong guess waits: g hands in your guess.";
    /// The jump to the best ray, while the coach works it out.
    pub const ASKING_BEST: &str =
        "Asking the coach for the best ray: the cursor goes there once it answers.";

    /// The cursor put on the coach's best ray `q`.
    pub fn at_best(p: Shape, q: usize) -> String {
        format!("The coach's best ray: {}.", ray(p, q))
    }

    /// No best ray to jump to (`one`: one molecule fits).
    pub fn no_best(one: bool) -> &'static str {
        if one {
            "No ray is needed: one molecule fits."
        } else {
            "No ray left tells the molecules apart."
        }
    }

    /// After the game: the ray at `q` and its path, drawn.
    pub fn path_shown(p: Shape, q: usize, g: &Game) -> String {
        let o = outcome_words(p, g.spectrum().get(q));
        format!("{}: {o}; its path is drawn.", capital(&ray(p, q)))
    }

    /// A border position outside the box.
    pub fn no_position(p: Shape, q: usize) -> String {
        format!(
            "Border position {q} is not on the {p} box (1 to {}).",
            p.positions()
        )
    }

    /// A cell outside the box.
    pub fn no_cell(p: Shape, i: usize) -> String {
        format!("Cell {i} is not in the {p} box (0 to {}).", p.cells() - 1)
    }

    /// Clicks and taps marking cells, or not.
    pub fn marking(on: bool) -> &'static str {
        if on {
            "Mark empty is on: clicks and taps mark cells (on the border, a whole row or column)."
        } else {
            "Mark empty is off: clicks and taps shoot rays and place atoms."
        }
    }

    /// The policy whose next ray the coach names.
    pub fn policy(p: Option<Policy>) -> String {
        match p {
            Some(p) => format!("Coach: {p}'s next ray is named with the best ray."),
            None => "Coach: no policy's next ray.".into(),
        }
    }

    /// The game started again, `n` actions undone.
    pub fn restarted(n: usize, score: usize, profile: Profile) -> String {
        let (_, _, _, _, redo) = profile.hints();
        if n == 0 {
            return "Nothing to start again: no action yet.".into();
        }
        let actions = quantity(n, "action", "actions");
        format!(
            "Started again: {actions} undone ({redo} redoes them); rays stay paid: score {score}."
        )
    }

    /// Back from a question answered no.
    pub const BACK: &str = "Back to the game.";
    /// The save prompt closed with Esc.
    pub const NOT_SAVED: &str = "Not saved.";
    /// A key of the game pressed once the game is over.
    pub const OVER: &str = "The game is over: n starts a new one.";
    /// A coach key once the game is over.
    pub const OVER_COACH: &str = "The game is over: a lists every molecule the rays allowed.";
    /// A cell chosen once the game is over.
    pub const OVER_CELL: &str =
        "The game is over: n starts a new one, a lists every molecule the rays allowed.";
    /// `a` during the game.
    pub const NOT_YET_MOLECULES: &str = "Every molecule the rays allow is shown after the game (it would give the game away); c counts them.";
    /// `g` once the guess is judged, on a front that `quits` or not.
    pub fn judged(quits: bool) -> &'static str {
        if quits {
            "The guess has been judged: n starts a new game, q quits."
        } else {
            "The guess has been judged: n starts a new game."
        }
    }
    /// Enter on an empty file name.
    pub const NO_NAME: &str = "Type a file name, or Esc not to save.";
    /// Playing on when no ray disproves the guess.
    pub const PLAYING_ON: &str = "Playing on.";
    /// Said once when Emacs digits run out.
    const LETTERS_NOW: &str =
        " Emacs notation has digits for 9 exit pairs only: letters from now on.";

    /// A count being typed.
    pub fn count(n: usize) -> String {
        format!("count {n}")
    }

    /// The marks of the rays the guess explains, switched on or off.
    pub fn explained(on: bool) -> String {
        if on {
            "Rays your guess explains: those it does not are crossed out; d hides them.".into()
        } else {
            "Rays your guess explains: off.".into()
        }
    }

    /// A coach panel switched on or off.
    pub fn coach(what: &str, on: bool) -> String {
        format!("Coach: {what} {}.", if on { "on" } else { "off" })
    }

    /// The notation switched to `chosen`, in which the marks are written in
    /// `used`.
    pub fn notation(chosen: Notation, used: Notation) -> &'static str {
        match (chosen, used) {
            (Notation::Emacs, Notation::Emacs) => {
                "Emacs notation: H hit, R reflection, digits for exit pairs."
            }
            (Notation::Emacs, _) => {
                "Emacs notation has digits for 9 exit pairs only: this game has more, so letters stay."
            }
            _ => "J. Forget's notation: @ hit, & reflection, letters for exit pairs.",
        }
    }

    /// A new ray shot: its result, what it cost (0: paid already) and the
    /// score; `letters` adds that Emacs digits ran out.
    pub fn shot(
        p: Shape,
        q: usize,
        o: Outcome,
        cost: usize,
        score: usize,
        letters: bool,
    ) -> String {
        let paid = if cost == 0 {
            "paid already".to_string()
        } else {
            format!("+{cost}")
        };
        let (name, o) = (position_name(p, q), outcome_words(p, o));
        let told = if letters { LETTERS_NOW } else { "" };
        format!("Ray {q} ({name}): {o} ({paid}, score {score}).{told}")
    }

    /// A ray shot again (`free`: given by the puzzle).
    pub fn known(p: Shape, q: usize, o: Outcome, free: bool) -> String {
        let (name, o) = (position_name(p, q), outcome_words(p, o));
        let given = if free { ", given by the puzzle" } else { "" };
        format!("Ray {q} ({name}) is known already{given}: {o}; nothing to pay.")
    }

    /// An atom put on a cell marked empty.
    pub fn marked(p: Shape, i: usize) -> String {
        let (r, c) = p.row_col(i);
        format!("Row {r}, column {c} is marked empty: m unmarks it.")
    }

    /// An atom put on (`on`) or taken off cell `i`, `placed` now of the
    /// `counts` the player is told.
    pub fn atom(
        p: Shape,
        i: usize,
        on: bool,
        placed: usize,
        counts: &RangeInclusive<usize>,
    ) -> String {
        let where_ = cell_name(p, i);
        let (least, most) = (*counts.start(), *counts.end());
        if least != most {
            let of = format!("{placed} placed; {least} to {most} hidden");
            return match (on, counts.contains(&placed)) {
                (true, true) => {
                    format!("Atom at {where_} ({of}): g asks the referee for the verdict.")
                }
                (true, false) => format!("Atom at {where_} ({of})."),
                (false, _) => format!("Atom removed from {where_} ({of})."),
            };
        }
        let atoms = least;
        match (on, placed == atoms) {
            (true, true) => {
                format!("Atom at {where_}: all {atoms} placed. g asks the referee for the verdict.")
            }
            (true, false) => format!("Atom at {where_} ({placed} of {atoms})."),
            (false, _) => format!("Atom removed from {where_} ({placed} of {atoms})."),
        }
    }

    /// `n` cells marked empty (`marked`) or unmarked in the cell, row or
    /// column of `target`.
    pub fn marks(p: Shape, target: Target, n: usize, marked: bool) -> String {
        let what = match target {
            Target::Cell(i) => cell_name(p, i),
            Target::Border(q) => match port(p, q) {
                q if matches!(q.side, Side::Left | Side::Right) => format!("row {}", q.row),
                q => format!("column {}", q.col),
            },
        };
        let cells = quantity(n, "cell", "cells");
        match (n, marked) {
            (0, _) => format!("Nothing to mark in {what}: your atoms are never marked empty."),
            (_, true) => {
                format!("Marked {what} empty ({cells}, drawn :). m again unmarks, u undoes.")
            }
            (_, false) => format!("Unmarked {what} ({cells})."),
        }
    }

    /// `n` actions undone (`redo`: done again), `last` the last of them;
    /// `score` is told when a ray was undone.
    pub fn undid(
        p: Shape,
        redo: bool,
        n: usize,
        last: Option<&Action>,
        score: usize,
        profile: Profile,
    ) -> String {
        let Some(a) = last else {
            return format!("Nothing to {}.", if redo { "redo" } else { "undo" });
        };
        let what = match a {
            Action::Shoot(q) => ray(p, *q),
            Action::Atom(i) => format!("the atom at {}", cell_name(p, *i)),
            Action::Empty(c) => format!(
                "the marks of {}",
                quantity(c.len(), "empty cell", "empty cells")
            ),
        };
        let what = if n > 1 {
            format!("{n} actions, the last {what}")
        } else {
            what
        };
        if redo {
            return format!("Redid {what}.");
        }
        let paid = if n > 1 || matches!(a, Action::Shoot(_)) {
            format!(" Rays stay paid: score {score}.")
        } else {
            String::new()
        };
        let (_, _, _, _, again) = profile.hints();
        format!("Undid {what}; {again} redoes.{paid}")
    }

    /// Undo or redo once the game is over.
    pub fn over_undo(redo: bool) -> String {
        let what = if redo { "redo" } else { "undo" };
        format!("The game is over: nothing to {what}.")
    }

    /// Playing on after a wrong guess: ray `q`, shot for the player at
    /// `cost` (0: the player had shot it).
    pub fn playing_on(p: Shape, q: usize, o: Option<Outcome>, cost: usize, score: usize) -> String {
        let told = o.map(|o| outcome_words(p, o)).unwrap_or_default();
        let name = position_name(p, q);
        let ray_cost = cost.saturating_sub(WRONG_GUESS_PENALTY as usize);
        if ray_cost > 0 {
            format!(
                "Playing on (+{WRONG_GUESS_PENALTY} for the wrong guess): ray {q} ({name}) is shot for you, {told} (+{ray_cost}, score {score}). Fix your guess, then g."
            )
        } else {
            format!(
                "Playing on (+{WRONG_GUESS_PENALTY} for the wrong guess, score {score}): ray {q} ({name}), which you shot, is {told}; your guess does not fit it. Fix it, then g."
            )
        }
    }

    /// A guess that cannot be judged yet.
    pub fn not_yet(why: &str) -> String {
        format!("Not yet: {why}.")
    }

    /// The verdict, in the message line.
    pub fn verdict(v: &Verdict) -> String {
        let (score, paths) = (v.score, "Move along the border to see each ray's path.");
        if v.resigned {
            format!("You resigned: score {score}. {paths}")
        } else if v.won {
            format!("You win with a score of {score}. {paths}")
        } else {
            format!("Not this time: score {score}. The cursor is on the ray that tells them apart.")
        }
    }

    /// A game that cannot be written in a save file.
    pub fn cannot_save(why: &str) -> String {
        format!("Cannot save: {why}.")
    }

    /// Saved to `path`.
    pub fn saved(path: &str) -> String {
        let q = shell_word(path);
        if is_tatham_save(path) {
            return format!(
                "Saved to {path}, a save file of Tatham's Black Box: his program loads it; 'bbx play {q}' resumes it."
            );
        }
        format!("Saved to {path}: 'bbx solve {q}' lists what fits, 'bbx play {q}' resumes.")
    }

    /// A save that failed.
    pub fn save_failed(path: &str, why: &str) -> String {
        format!("Cannot save to {path}: {why}. s tries again with another name.")
    }

    /// A new game started.
    pub fn new_game(title: &str) -> String {
        format!("A new game: {title}.")
    }

    /// A new game that could not start.
    pub fn no_new_game(why: &str) -> String {
        format!("Cannot start a new game: {why}")
    }

    /// A game a link held that could not be opened; the game in hand goes
    /// on.
    pub fn not_opened(why: &str) -> String {
        format!("The link holds no game to open: {why}")
    }
}

/// One line on how a game ended: its verdict, or where it was saved.
pub fn summary(
    title: &str,
    verdict: Option<&Verdict>,
    coached: bool,
    saved: Option<&str>,
) -> String {
    match (verdict, saved) {
        (Some(v), _) => {
            let how = match (v.resigned, v.won) {
                (true, _) => "resigned (lost)",
                (false, true) => "won",
                (false, false) => "lost",
            };
            let coached = if coached { " (coached)" } else { "" };
            format!("{title}: {how} with a score of {}{coached}.", v.score)
        }
        (None, Some(path)) => {
            let q = shell_word(path);
            format!("{title}: unfinished, saved to {path} ('bbx play {q}' resumes it).")
        }
        (None, None) => format!("{title}: unfinished, not saved."),
    }
}

/// The score and atoms (or the verdict), in the board's frame when the side
/// panel has no room.
pub fn status(g: &Game) -> String {
    let (score, placed, counts) = (g.score(), g.placed(), g.counts());
    match g.verdict() {
        Some(v) => format!(
            " {} · score {} · {} hidden ",
            if v.won { "won" } else { "lost" },
            v.score,
            quantity(g.atoms(), "atom", "atoms")
        ),
        None if g.count_is_told() => format!(" score {score} · atoms {placed}/{} ", g.atoms()),
        None => format!(
            " score {score} · atoms {placed}, {}-{} hidden ",
            counts.start(),
            counts.end()
        ),
    }
}

/// The count of an answer as a sentence about `what` was observed: exact
/// (`229,246 molecules fit the rays shot`), estimated with its interval
/// (`about 94.4 billion molecules fit the rays shot (±2% at 95%)`), or, when
/// neither could be had in the coach's time, at least those found.
pub fn count_sentence(a: &Answer, what: &str) -> String {
    let t = a.elapsed().as_secs_f64();
    match (a.known, &a.estimate) {
        (Known::Exact, _) => {
            let fit = counted(a.count, "molecule fits", "molecules fit");
            let by = match &a.by_atoms {
                Some(by) if by.len() > 1 => {
                    let each: Vec<String> = by
                        .iter()
                        .map(|c| format!("{} of {}", grouped(c.molecules), c.atoms))
                        .collect();
                    format!(" ({})", each.join(", "))
                }
                _ => String::new(),
            };
            format!("{fit} {what}{by}")
        }
        (Known::Estimate, Some(e)) => {
            let half = (e.high - e.low) / 2.0 / e.value.max(1.0) * 100.0;
            format!(
                "about {} molecules fit {what} (±{half:.0}% at 95%, from a random sample)",
                about(e.value)
            )
        }
        _ => {
            let fit = counted(a.count, "molecule fits", "molecules fit");
            match a.ended {
                Ended::TimedOut => format!(
                    "at least {fit} {what} (the search stopped at its time limit, {t:.1} s)"
                ),
                _ => format!("at least {fit} {what} (the search stopped at the coach's limit)"),
            }
        }
    }
}

fn line(s: impl Into<String>) -> (String, Tone) {
    (s.into(), Tone::Info)
}

fn dim(s: impl Into<String>) -> (String, Tone) {
    (s.into(), Tone::Dim)
}

const BLANK: (String, Tone) = (String::new(), Tone::Info);

/// What the cursor is on, in words (two lines).
fn cursor(g: &Game, target: Option<Target>) -> Lines {
    let p = g.shape();
    let (what, state) = match target {
        Some(Target::Border(q)) => (
            ray(p, q),
            match g.observation().get(q) {
                None if g.is_over() => "not shot".to_string(),
                None => "not shot yet: Enter shoots it".to_string(),
                Some(o) if g.is_free(q) => format!("{} (given by the puzzle)", outcome_words(p, o)),
                Some(o) => outcome_words(p, o),
            },
        ),
        Some(Target::Cell(i)) => (
            cell_name(p, i),
            match (g.is_guessed(i), g.is_over()) {
                (true, true) => "your atom",
                (true, false) => "your atom: Enter removes it",
                (false, true) => "empty in your guess",
                (false, false) if g.is_marked_empty(i) => "marked empty: m unmarks it",
                (false, false) => "Enter puts an atom here, m marks it empty",
            }
            .to_string(),
        ),
        None => return Vec::new(),
    };
    vec![
        line(format!("cursor  {what}")),
        line(format!("        {state}")),
    ]
}

/// The side panel during the game: the score, the cursor and the coach
/// (its `answer` for the rays shot, when in; else its `progress` or its
/// `failure`), the settings its words mention named by `naming`.
#[allow(clippy::too_many_arguments)]
pub fn game_panel(
    g: &Game,
    target: Option<Target>,
    panels: Panels,
    answer: Option<&Answer>,
    progress: Option<(usize, Duration)>,
    failure: Option<&str>,
    explained: bool,
    naming: &dyn Naming,
) -> Lines {
    let mut lines = vec![("game".to_string(), Tone::Heading)];
    let (rays, score) = (g.rays_shot(), g.score());
    lines.push(line(format!("rays shot  {rays:<4} score {score}")));
    let (known, all) = (g.observation().shot_count(), g.positions());
    if known != rays {
        // What bbx solve counts: border positions with a result, both
        // ends of an exit.
        lines.push(dim(format!(
            "           {known} of {all} border marks known (exits mark two)"
        )));
    }
    let given = g.free_positions().len();
    if given > 0 {
        let given = format!("           {given} border marks given by the puzzle, free");
        lines.push(dim(given));
    }
    let placed = g.placed();
    lines.push(line(if g.count_is_told() {
        format!("atoms      {placed} of {} placed", g.atoms())
    } else {
        let c = g.counts();
        format!(
            "atoms      {placed} placed, {} to {} hidden",
            c.start(),
            c.end()
        )
    }));
    if g.wrong_guesses() > 0 {
        let wrong = quantity(g.wrong_guesses(), "wrong guess", "wrong guesses");
        let points = g.wrong_guesses() * WRONG_GUESS_PENALTY as usize;
        lines.push(line(format!("           {wrong} played on (+{points})")));
    }
    if explained {
        lines.push(explained_line(g));
    }
    lines.push(BLANK);
    lines.extend(cursor(g, target));
    lines.extend([BLANK, ("coach".to_string(), Tone::Heading)]);
    lines.extend(coach_lines(g, panels, answer, progress, failure, naming));
    lines
}

/// How many of the rays shot the guess explains, and which it does not.
fn explained_line(g: &Game) -> (String, Tone) {
    let all = g.explained();
    let not: Vec<String> = all
        .iter()
        .filter(|(_, ok)| !ok)
        .map(|(q, _)| q.to_string())
        .collect();
    let n = all.len() - not.len();
    match not.len() {
        _ if all.is_empty() => dim("explains   no ray shot yet"),
        0 => (
            format!("explains   all {} rays shot", all.len()),
            Tone::Good,
        ),
        _ => line(format!(
            "explains   {n} of {} rays; not: {}",
            all.len(),
            not.join(" ")
        )),
    }
}

/// What the coach says in the panels shown.
fn coach_lines(
    g: &Game,
    panels: Panels,
    answer: Option<&Answer>,
    progress: Option<(usize, Duration)>,
    failure: Option<&str>,
    naming: &dyn Naming,
) -> Lines {
    if !panels.any() {
        let off = "off: c counts the molecules that fit, x shows certain cells, b the best ray, p the chances";
        return vec![dim(off)];
    }
    let Some(a) = answer else {
        return vec![match failure {
            Some(why) => (format!("the coach failed: {why}"), Tone::Bad),
            None => {
                let (found, t) = progress.unwrap_or_default();
                let t = t.as_secs_f64();
                dim(format!("thinking… {found} molecules so far ({t:.1} s)"))
            }
        }];
    };
    let mut lines = Vec::new();
    if panels.count {
        lines.push(line(count_sentence(a, "the rays shot")));
    }
    if panels.certain {
        lines.extend(certain_lines(g, a));
    }
    if panels.chance {
        lines.extend(chance_lines(g, a));
    }
    if panels.best {
        lines.extend(best_lines(g.shape(), a, naming));
    }
    lines
}

/// The cells certain to hold an atom or to be empty.
fn certain_lines(g: &Game, a: &Answer) -> Lines {
    let Some(c) = &a.certainty else {
        return vec![dim(
            "certain cells: not known, the search stopped at its time limit",
        )];
    };
    let count = |what| c.iter().filter(|x| **x == what).count();
    let mut lines = vec![line(format!(
        "certain: {} (*), {} (.)",
        quantity(count(Certainty::Atom), "atom", "atoms"),
        quantity(count(Certainty::Empty), "empty cell", "empty cells")
    ))];
    let wrong = (0..c.len())
        .filter(|&i| g.is_guessed(i) && c[i] == Certainty::Empty)
        .count();
    if wrong > 0 {
        let atoms = quantity(wrong, "of your atoms is", "of your atoms are");
        lines.push((format!("{atoms} on a cell certainly empty (!)"), Tone::Bad));
    }
    lines
}

/// Each cell's chance of an atom, and the likeliest cell still open.
fn chance_lines(g: &Game, a: &Answer) -> Lines {
    let Some(ch) = &a.chances else {
        return vec![dim(
            "chances: not known, too many molecules to count in the time",
        )];
    };
    let mut lines = vec![line("chance of an atom: digits in tenths, . none, * sure")];
    let open = ch
        .iter()
        .enumerate()
        .filter(|&(i, &q)| q <= 0.9995 && !g.is_guessed(i))
        .max_by(|a, b| a.1.total_cmp(b.1).then(b.0.cmp(&a.0)));
    if let Some((i, &q)) = open.filter(|(_, q)| **q >= 0.0005) {
        let (cell, percent) = (cell_name(g.shape(), i), 100.0 * q);
        lines.push(line(format!("likeliest open cell: {cell} ({percent:.0}%)")));
    }
    lines
}

/// The best ray to shoot next, and the two after it; then the policy's
/// next ray, when the player named a policy, and why it names none.
fn best_lines(p: Shape, a: &Answer, naming: &dyn Naming) -> Lines {
    let mut lines = ranked_lines(p, a);
    if let Some(next) = &a.policy {
        lines.push(policy_line(p, next));
        if next.ray.is_none()
            && let Some(why) = &next.why
        {
            lines.push(dim(format!("  {}", why.show(naming))));
        }
    }
    lines
}

/// The best ray to shoot next, and the two after it.
fn ranked_lines(p: Shape, a: &Answer) -> Lines {
    if let (Ranking::Unranked(cut), true) = (a.ranking, a.count > 1) {
        let why = match cut {
            Some(Ended::TooLarge) => "too many molecules to rank, too few drawn fit",
            Some(Ended::TimedOut) => "the coach's time ran out",
            Some(Ended::OverMemory) => "the memory bound",
            Some(Ended::Cancelled) => "interrupted",
            _ => "the search stopped short",
        };
        return vec![dim(format!("best ray: not ranked ({why})"))];
    }
    let Some(s) = a.best() else {
        return vec![line(if a.count == 1 {
            "best ray: none needed, one molecule fits"
        } else {
            "best ray: none, no ray left tells the molecules apart"
        })];
    };
    let partial = match a.ranking {
        Ranking::Every => String::new(),
        Ranking::Sample(n) => format!(
            " (ranked on a random sample of {})",
            crate::error::grouped(n as u128)
        ),
        Ranking::Unranked(_) => String::new(),
    };
    let estimate = matches!(a.ranking, Ranking::Sample(_));
    let q = s.position;
    let left = crate::error::mean(s.expected_remaining, estimate);
    let (name, arrow) = (position_name(p, q), arrow(p, q));
    let best = format!("best ray {q} ({name}, the {arrow}): {left} molecules expected left");
    let mut lines = vec![line(best + &partial)];
    for s in a.ranked.iter().skip(1).take(2) {
        let q = s.position;
        let left = crate::error::mean(s.expected_remaining, estimate);
        lines.push(dim(format!("  then ray {q} ({left})")));
    }
    lines
}

/// The ray a policy shoots next, in one line ([`next_ray_line`]: `greedy's
/// next ray: 18 (right, row 7)`, or why there is none), drawn dim when it
/// names no ray. Each fits the side panel beside an 8-wide box in an 80×24
/// terminal (52 columns), for any policy and ray.
///
/// ```
/// use bbx::assistant::next::{PolicyRay, Stop};
/// use bbx::assistant::strategy::Policy;
/// use bbx::play::words::{Tone, policy_line};
/// let mut next = PolicyRay {
///     policy: Policy::Greedy, exact_below: None, molecules: 12, ray: Some(18),
///     stop: None, candidates: vec![], unanswered: None, why: None,
/// };
/// assert_eq!(policy_line(8, &next), ("greedy's next ray: 18 (right, row 7)".into(), Tone::Info));
/// (next.ray, next.stop) = (None, Some(Stop::Known));
/// assert_eq!(policy_line(8, &next).0, "greedy's next ray: none, the molecule is known");
/// ```
pub fn policy_line(shape: impl Into<Shape>, next: &PolicyRay) -> (String, Tone) {
    let said = next_ray_line(shape, next);
    if next.ray.is_some() {
        line(said)
    } else {
        dim(said)
    }
}

/// The side panel after the game: the verdict explained, the review, the
/// legend of the reveal and the cursor.
pub fn verdict_panel(
    g: &Game,
    target: Option<Target>,
    review: &ReviewState,
    policy: Policy,
    coached: bool,
) -> Lines {
    let Some(v) = g.verdict() else {
        return Vec::new();
    };
    let title = match (v.resigned, v.won) {
        (true, _) => "YOU RESIGNED",
        (false, true) => "YOU WIN",
        (false, false) => "NOT THIS TIME",
    };
    let (points, each) = (v.penalty, MISSED_ATOM_PENALTY);
    let mut parts = vec![format!("{} for rays", v.ray_score)];
    if v.guess_penalty > 0 {
        let wrong = quantity(v.wrong_guesses, "wrong guess", "wrong guesses");
        let gp = v.guess_penalty;
        parts.push(format!(
            "{gp} for {wrong} played on (×{WRONG_GUESS_PENALTY})"
        ));
    }
    if v.resigned {
        parts.push(format!("{points} for resigning (×{each} per atom)"));
    } else if v.penalty > 0 {
        let atoms = quantity(v.missed, "missed atom", "missed atoms");
        parts.push(format!("{points} for {atoms} (×{each})"));
    }
    let score = v.score;
    let mut lines = vec![
        (title.to_string(), Tone::Verdict(v.won)),
        line(format!("score {score}: {}", parts.join(" + "))),
        BLANK,
        line(explanation(g, v)),
        BLANK,
    ];
    lines.extend(review_lines(g, review, policy));
    if let Some(id) = g.tatham_id() {
        lines.extend([BLANK, dim(format!("Tatham's game ID: {id}"))]);
    }
    let legend = dim("O right · x wrong (X: on the path) · # missed · + path");
    lines.extend([BLANK, legend, BLANK]);
    lines.extend(cursor(g, target));
    if coached {
        lines.extend([BLANK, dim("(the coach helped in this game)")]);
    }
    lines
}

/// Why the guess won or lost.
fn explanation(g: &Game, v: &Verdict) -> String {
    let p = g.shape();
    let differ = quantity(v.wrong, "atom", "atoms");
    if v.resigned {
        "You gave up: the hidden molecule is shown, your atoms on it.".to_string()
    } else if v.exact {
        "Your molecule is the hidden one.".to_string()
    } else if v.won && g.judge() == Judge::AllRays {
        format!(
            "Your molecule differs from the hidden one by {differ}, but every ray gives the same result in both: no ray can tell them apart, so it wins."
        )
    } else if v.won {
        let would = v.evidence.map_or(String::new(), |e| {
            let q = e.position;
            format!(" (ray {q}, not shot, would have told them apart)")
        });
        format!(
            "Your molecule differs from the hidden one by {differ}, but fits every ray you shot, so it wins{would}."
        )
    } else {
        let Some(e) = v.evidence else {
            return "Your molecule is not the hidden one.".to_string();
        };
        let (q, name) = (e.position, position_name(p, e.position));
        let (hidden, yours) = (outcome_words(p, e.hidden), outcome_words(p, e.guess));
        if e.shot {
            format!("Ray {q} ({name}) was {hidden}, but in your molecule it would be {yours}.")
        } else {
            format!(
                "Your molecule fits every ray you shot, but ray {q} ({name}), not shot, tells it apart: {hidden} for the hidden molecule, {yours} for yours (shown underlined)."
            )
        }
    }
}

/// The review of the game: the policy's game against the same molecule, its
/// average over every molecule the player could have faced (every count of
/// a range), and the player's rays that told nothing new.
fn review_lines(g: &Game, review: &ReviewState, policy: Policy) -> Lines {
    match review {
        ReviewState::NotAsked => Vec::new(),
        ReviewState::Working => vec![dim(format!("the {policy} policy's game: working it out…"))],
        ReviewState::Unavailable(why) => vec![dim(format!("the {policy} policy's game: {why}"))],
        ReviewState::Ready { review, complete } => {
            let told = g.range();
            let mut lines = Vec::new();
            match &review.game {
                Ok(game) => {
                    let rays = quantity(game.rays, "ray", "rays");
                    let score = game.score;
                    lines.push(line(format!("{policy} policy: {rays}, score {score}")));
                    lines.push(match (&review.average, complete) {
                        (Some(a), _) => line(format!(
                            "on average over {told} ({} molecules): {:.2} rays, score {:.2}",
                            a.molecules, a.rays, a.score
                        )),
                        (None, false) => dim("on average: computing…"),
                        (None, true) => dim(format!(
                            "on average: not computed in play (more than {REVIEW_AVERAGE_LIMIT} molecules); bbx strategy {told} gives it"
                        )),
                    });
                }
                Err(why) => lines.push(dim(format!("the {policy} policy's game: {why}"))),
            }
            let idle: Vec<String> = review.idle.iter().map(|q| q.to_string()).collect();
            lines.push(line(match idle.len() {
                _ if g.shots().is_empty() => "you shot no ray".to_string(),
                0 => "your rays all told something new".to_string(),
                1 => format!("told nothing new: your ray {}", idle[0]),
                _ => format!("told nothing new: your rays {}", idle.join(", ")),
            }));
            lines
        }
    }
}

/// The list of every molecule the rays allowed, after the game: its first
/// line, or what stands in for the list while the coach works (`Err`).
pub fn molecules_heading(
    g: &Game,
    answer: Option<&Answer>,
    progress: Option<(usize, Duration)>,
    failure: Option<&str>,
) -> Result<String, String> {
    let Some(a) = answer else {
        return Err(match failure {
            Some(why) => format!("The coach failed: {why}"),
            None => {
                let (found, t) = progress.unwrap_or_default();
                let t = t.as_secs_f64();
                format!("Listing the molecules… {found} so far ({t:.1} s)")
            }
        });
    };
    let rays = quantity(g.observation().rays().len(), "ray shot", "rays shot");
    let fit = count_sentence(a, &format!("the {rays}"));
    Ok(fit + "; each of them gives the same results on those rays.")
}

/// The title of the `n`th board of the list, with what it is.
pub fn molecule_title(n: usize, hidden: bool, yours: bool) -> String {
    match (hidden, yours) {
        (true, true) => format!("{n}: hidden, yours"),
        (true, false) => format!("{n}: hidden"),
        (false, true) => format!("{n}: yours"),
        (false, false) => format!("{n}"),
    }
}

/// The last line of the list of molecules, when it is not whole: `shown`
/// drawn of `listed`, which are all the coach's limits let it list unless
/// `all`.
pub fn molecules_cut(shown: usize, listed: usize, all: bool) -> Option<Text> {
    let text = if shown < listed {
        let first = format!("The first {shown} of the {listed} molecules listed are shown.");
        Text::from(first)
    } else if !all {
        let limits = format!("The list stops at {listed} molecules, within the coach's limits (");
        let max = Text::from(limits).and(Setting::Max);
        max.and(", ").and(Setting::Timeout).and(").")
    } else {
        return None;
    };
    Some(text)
}

/// The title of the list of molecules.
pub const MOLECULES: &str = " every molecule the rays allowed ";

/// The key lines at the bottom, for each window that has the keys.
pub mod keys {
    use crate::play::keys::Profile;

    /// The board during the game, in `profile`'s keys.
    pub fn board(profile: Profile) -> &'static str {
        match profile {
            Profile::Bbx => {
                " ←↓↑→ move · Enter shoot/atom · space empty · u undo · g guess · ? help · q quit"
            }
            Profile::Tatham => {
                " ←↓↑→ move · Enter fire/ball · space lock · u undo · r redo · g check · ? help"
            }
            Profile::Emacs => {
                " C-f C-b C-n C-p move · SPC shoot/atom · m empty · RET guess · ? help · q quit"
            }
        }
    }
    /// The board after the game.
    pub const OVER: &str =
        " ←↓↑→ ray paths · a every molecule · n new game · s save · ? help · q quit";
    /// The help.
    pub const HELP: &str = " ↑↓ PgUp PgDn scroll · any other key closes the help";
    /// Quit?
    pub const QUIT: &str = " y quit · s save · any other key: back";
    /// Resign, a new game, restart, replace the file?
    pub const CONFIRM: &str = " y yes · any other key: back";
    /// The guess is wrong.
    pub const WRONG: &str = " p or Enter play on · e end the game";
    /// The save prompt.
    pub const SAVE: &str = " Enter save · Esc cancel";
    /// The list of molecules.
    pub const MOLECULES: &str = " ↑↓ PgUp PgDn scroll · any other key: back to the board";
}

/// A choice of a window.
fn choice(label: &str, keys: &str, m: Move) -> Choice {
    Choice {
        label: label.to_string(),
        keys: keys.to_string(),
        choice: m,
    }
}

/// A question of plain lines (`""` a blank one).
fn question(kind: &'static str, title: &str, lines: &[&str], choices: Vec<Choice>) -> Dialog {
    Dialog {
        kind,
        title: title.to_string(),
        lines: lines.iter().map(|l| line(*l)).collect(),
        field: None,
        choices,
    }
}

/// "Quit this unfinished game?"
pub fn quit_dialog(saved_to: Option<&str>) -> Dialog {
    let saved = saved_to.map_or("(not saved)".into(), |p| format!("(last saved to {p})"));
    let back = "y quits · s saves first · any other key goes back";
    question(
        "quit",
        " quit? ",
        &["The game is not finished. Quit?", &saved, "", back],
        vec![
            choice("Quit", "y", Move::Confirm),
            choice("Save first", "s", Move::Save(None)),
            choice("Back", "n", Move::Cancel),
        ],
    )
}

/// The save prompt, `input` typed so far.
pub fn save_dialog(input: &str) -> Dialog {
    let mut d = question(
        "save",
        " save the game ",
        &[
            "Save to (type a file name):",
            "",
            "Enter saves · Esc cancels",
            "bbx solve reads the file; bbx play resumes it.",
            "A name ending in .sav: a save of Tatham's Black Box.",
        ],
        vec![
            choice("Save", "Enter", Move::Confirm),
            choice("Cancel", "Esc", Move::Cancel),
        ],
    );
    d.lines[1] = (input.into(), Tone::Input);
    d.field = Some(input.to_string());
    d
}

/// "Resign?", the score standing at `score`.
pub fn resign_dialog(score: usize) -> Dialog {
    let shown = "Give up? The hidden molecule is shown and the game";
    let points = quantity(score, "point", "points");
    let lost = format!("is lost: your {points} so far + {MISSED_ATOM_PENALTY} per atom.");
    question(
        "resign",
        " resign? ",
        &[shown, &lost, "", "y resigns · any other key goes back"],
        vec![
            choice("Resign", "y", Move::Confirm),
            choice("Back", "n", Move::Cancel),
        ],
    )
}

/// "Abandon this game for a new one?"
pub fn new_dialog() -> Dialog {
    question(
        "new",
        " new game? ",
        &[
            "This game is not finished. Abandon it for a new one?",
            "It is lost unless you save it first (s).",
            "",
            "y starts a new game · any other key goes back",
        ],
        vec![
            choice("New game", "y", Move::Confirm),
            choice("Back", "n", Move::Cancel),
        ],
    )
}

/// "Start this game again?"
pub fn restart_dialog() -> Dialog {
    question(
        "restart",
        " restart? ",
        &[
            "Start this game again? Every action is undone (redo brings",
            "them back); the rays you paid for stay paid.",
            "",
            "y restarts · any other key goes back",
        ],
        vec![
            choice("Restart", "y", Move::Confirm),
            choice("Back", "n", Move::Cancel),
        ],
    )
}

/// The guess `v` is wrong: play on, or end the game? Nothing in it tells how
/// many atoms are wrong: playing on and ending cost what the rules say.
pub fn wrong_dialog(p: Shape, v: &Verdict) -> Dialog {
    let mut lines = vec![("Your guess is wrong.".to_string(), Tone::Bad), BLANK];
    let each = WRONG_GUESS_PENALTY;
    lines.extend(match v.evidence.map(|e| (ray(p, e.position), e.shot)) {
        Some((ray, true)) => vec![
            line(format!("{}, which you shot, does not fit it.", capital(&ray))),
            line(format!("p or Enter plays on: +{each} for the wrong guess.")),
        ],
        Some((ray, false)) => vec![
            line(format!("{}, not shot yet, tells it apart.", capital(&ray))),
            line(format!(
                "p or Enter plays on: +{each} for the wrong guess, and the ray is shot for you and paid."
            )),
        ],
        None => vec![line(format!("p or Enter plays on: +{each} for the wrong guess."))],
    });
    lines.push(line(format!(
        "e ends the game: the answer is shown, +{MISSED_ATOM_PENALTY} per hidden atom missed."
    )));
    Dialog {
        kind: "wrong",
        title: " wrong ".into(),
        lines,
        field: None,
        choices: vec![
            choice("Play on", "p Enter", Move::PlayOn),
            choice("End the game", "e", Move::EndGame),
        ],
    }
}

/// "Replace this file?"
pub fn replace_dialog(path: &str) -> Dialog {
    let exists = format!("{path} exists. Replace it?");
    question(
        "replace",
        " replace? ",
        &[&exists, "", "y replaces · any other key goes back"],
        vec![
            choice("Replace", "y", Move::Confirm),
            choice("Back", "n", Move::Cancel),
        ],
    )
}

/// The help's lines above and below the table of `profile`'s keys
/// ([`crate::play::keys::help`]).
pub fn help(g: &Game, profile: Profile) -> (Lines, Lines) {
    let (atoms, p) = (counts_are(&g.counts()), g.shape());
    let (shoot, mark, guess, _, _) = profile.hints();
    let above = vec![
        line(format!(
            "{atoms} hidden in the {p} box. Shoot rays in from the border:"
        )),
        line("@ (H) absorbed, & (R) reflected, a letter (digit) at both ends of an exit."),
        line(format!(
            "Place atoms where you think they are, then press {guess} for the verdict."
        )),
        dim(format!(
            "Keys: {} ({shoot} shoots or places, {mark} marks empty).",
            profile.about()
        )),
    ];
    let below = vec![
        BLANK,
        line(format!("Score: {RULE}.")),
        line(match g.judge() {
            Judge::AllRays => {
                "A guess wins if no ray can tell it from the hidden molecule (Tatham's rule)."
            }
            Judge::RaysShot => {
                "A guess wins when it fits every ray you shot (none shot: every ray)."
            }
        }),
        line(format!(
            "Undone rays stay paid. Wrong guess: p plays on (+{WRONG_GUESS_PENALTY}, its ray paid), e ends."
        )),
        line("Box: O your atom, : marked empty; coach * atom . empty ! your atom wrong"),
    ];
    (above, below)
}

/// What the coach's switches say of it: off until asked, on, or over with
/// the game.
pub fn coach_legend(on: bool, over: bool) -> String {
    match (over, on) {
        (true, _) => "the game is over: every molecule the rays allowed is listed".into(),
        (false, true) => "on: it answers for the rays shot".into(),
        (false, false) => "off until asked".into(),
    }
}

/// The error when the terminal went away while the game waited for it.
pub const GONE: &str = "the terminal went away: the game is over (s saves a game to resume it)";

/// The error when the terminal went away while the game read it.
pub const GONE_UNSAVED: &str = "the terminal went away: the game is over (save with s next time)";

/// The message when the terminal is smaller than the board of a box of
/// `shape` needs (`w`×`h`).
pub fn too_small(shape: Shape, (w, h): (u16, u16), (x, y): (u16, u16)) -> String {
    format!(
        "The {shape} board needs a terminal of at least {w}×{h}; this one is {x}×{y}. Enlarge it, or press q to quit."
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::assistant::next::{Candidate, NEXT_RAY_LIMIT, Stop, Unanswered};

    /// A ranking cut short is said as such, never as "no ray left tells
    /// the molecules apart", and no ranking on the first found is shown.
    #[test]
    fn a_best_ray_not_ranked_says_why() {
        use crate::play::coach::{CoachLimits, Question, answer_with};
        use crate::{Observation, Rules};
        let q = Question {
            observation: Observation::parse("@&??????????????", "t").unwrap(),
            rules: Rules::Standard,
            atoms: 2..=2,
            policy: None,
            limits: CoachLimits::default(),
            prior: Default::default(),
            part: Default::default(),
        };
        let a = answer_with(&q, &crate::control::Budget::default(), |_| {}).unwrap();
        assert_eq!(a.ranking, Ranking::Every);
        assert!(ranked_lines(a.shape(), &a)[0].0.starts_with("best ray "));
        let mut v = serde_json::to_value(&a).unwrap();
        v["ranked"] = serde_json::json!([]);
        for (cut, why) in [
            ("timed_out", "the coach's time ran out"),
            ("too_large", "too many molecules to rank"),
        ] {
            v["ranking"] = serde_json::json!({ "unranked": cut });
            let cut: Answer = serde_json::from_value(v.clone()).unwrap();
            let lines = ranked_lines(cut.shape(), &cut);
            assert!(
                lines[0].0.starts_with("best ray: not ranked ("),
                "{lines:?}"
            );
            assert!(lines[0].0.contains(why), "{lines:?}");
        }
    }

    /// Every line a policy's next ray can take fits the 52 columns of the
    /// side panel beside an 8-wide box at 80×24, and says what it means.
    #[test]
    fn every_policy_line_fits_the_panel_at_80_by_24() {
        let blank = |policy| PolicyRay {
            policy,
            exact_below: None,
            molecules: 10,
            ray: None,
            stop: None,
            candidates: Vec::new(),
            unanswered: None,
            why: None,
        };
        let mut said = Vec::new();
        for policy in Policy::ALL {
            for q in 1..=32 {
                // Only rollout says what it weighed: at A4_B8, fewer than
                // 10 rays expected from anywhere (6.7 from the opening).
                let candidates = (policy == Policy::Rollout)
                    .then_some(Candidate {
                        ray: q,
                        expected_rays: 9.94,
                        rays_total: 994,
                    })
                    .into_iter()
                    .collect();
                let next = PolicyRay {
                    ray: Some(q),
                    candidates,
                    ..blank(policy)
                };
                let (text, tone) = policy_line(8, &next);
                assert_eq!(tone, Tone::Info);
                let mut expected = format!("{policy}'s next ray: {q} ({})", position_name(8, q));
                if policy == Policy::Rollout {
                    expected.push_str(", 9.9 rays");
                }
                assert_eq!(text, expected);
                said.push(text);
            }
            for stop in [
                Stop::NothingFits,
                Stop::Known,
                Stop::NoRaySplits,
                Stop::PlaceAtoms,
            ] {
                let next = PolicyRay {
                    stop: Some(stop),
                    ..blank(policy)
                };
                said.push(policy_line(8, &next).0);
            }
            for why in [
                Unanswered::NotListed,
                Unanswered::TooLarge,
                Unanswered::AtomRange,
                Unanswered::TimedOut,
                Unanswered::Cancelled,
                Unanswered::OverMemory,
            ] {
                let next = PolicyRay {
                    unanswered: Some(why),
                    ..blank(policy)
                };
                let (text, tone) = policy_line(8, &next);
                assert!(
                    text.starts_with(&format!("{policy}'s next ray: unknown")),
                    "{text}"
                );
                assert_eq!(tone, Tone::Dim);
                said.push(text);
            }
        }
        let too_many = PolicyRay {
            unanswered: Some(Unanswered::TooLarge),
            molecules: NEXT_RAY_LIMIT + 1,
            ..blank(Policy::Lookahead)
        };
        let too_many = policy_line(8, &too_many).0;
        assert_eq!(
            too_many,
            "lookahead's next ray: unknown, too many molecules"
        );
        said.push(too_many);
        for s in said {
            assert!(
                s.chars().count() <= 52,
                "{s}: {} columns",
                s.chars().count()
            );
        }
    }
}
