//! The referee: is the guess right, what does it score, and which ray shows a
//! wrong guess wrong.
//!
//! Simon Tatham's Puzzles judge a guess by its rays, not its atoms: "the game
//! will check that your solution produces the same results as the computer's,
//! rather than that your solution is identical". A guess whose every ray
//! gives what the hidden molecule gives wins even where its atoms differ,
//! since no ray could tell the two apart ([`Judge::AllRays`], the default).
//! [`Judge::RaysShot`] is more lenient: a guess that fits every ray the player
//! shot wins.
//!
//! The score is the original game's ([`crate::rules::score`]): what the rays
//! cost, and a penalty for each hidden atom a losing guess misses.
//!
//! ```
//! use bbx::play::referee::{judge, Judge};
//! use bbx::{Molecule, Observation, Rules};
//! let hidden: Molecule = "O-O-------------".parse().unwrap();
//! let guess: Molecule = "O----O----------".parse().unwrap();
//! let seen = Observation::empty(4);
//! let v = judge(&hidden, &guess, &seen, Rules::Standard, Judge::AllRays, 0);
//! assert!(!v.won && v.wrong == 1 && v.score == 5);
//! let e = v.evidence.unwrap();
//! assert!(!e.shot); // no ray was shot: the referee names one that tells them apart
//! ```

use std::fmt;
use std::ops::RangeInclusive;
use std::str::FromStr;

use crate::rules::board::Molecule;
use crate::rules::ray::{Outcome, Rules};
use crate::rules::score::score;
use crate::rules::spectrum::{Observation, Spectrum};

/// How a guess is judged.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Default, Hash, serde::Serialize, serde::Deserialize,
)]
#[serde(rename_all = "kebab-case")]
pub enum Judge {
    /// As Tatham's Puzzles: the guess wins when every ray, shot or not, gives
    /// what the hidden molecule gives.
    #[default]
    AllRays,
    /// The guess wins when it fits every ray shot.
    RaysShot,
}

impl Judge {
    /// `all-rays` or `rays-shot`.
    pub fn name(self) -> &'static str {
        match self {
            Judge::AllRays => "all-rays",
            Judge::RaysShot => "rays-shot",
        }
    }
}

impl fmt::Display for Judge {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Judge {
    type Err = String;
    fn from_str(s: &str) -> Result<Judge, String> {
        match s.to_ascii_lowercase().as_str() {
            "all-rays" | "all" | "tatham" => Ok(Judge::AllRays),
            "rays-shot" | "shot" => Ok(Judge::RaysShot),
            _ => Err(format!(
                "unknown judge {} (expected 'all-rays' or 'rays-shot')",
                crate::error::quote(s)
            )),
        }
    }
}

/// A ray on which the guess and the hidden molecule disagree.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Evidence {
    /// Border position.
    pub position: usize,
    /// Whether the player shot it (then the guess contradicts what was seen);
    /// otherwise it is a ray the player did not shoot that would have told.
    pub shot: bool,
    /// What the hidden molecule gives.
    pub hidden: Outcome,
    /// What the guess gives.
    pub guess: Outcome,
}

/// The referee's decision.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Verdict {
    /// The guess judged.
    pub guess: Molecule,
    /// Whether it wins.
    pub won: bool,
    /// Whether it is the hidden molecule itself.
    pub exact: bool,
    /// Atoms of the guess where none is hidden.
    pub wrong: usize,
    /// Hidden atoms the guess left out.
    pub missed: usize,
    /// A ray that tells the guess from the hidden molecule: one the player shot
    /// if the guess contradicts it, else (when the guess loses, or wins only
    /// under [`Judge::RaysShot`]) one not shot.
    pub evidence: Option<Evidence>,
    /// The rays' points.
    pub ray_score: usize,
    /// Points for the hidden atoms the guess missed (0 when it wins).
    pub penalty: usize,
    /// Points for the wrong guesses played on before
    /// ([`WRONG_GUESS_PENALTY`](crate::rules::score::WRONG_GUESS_PENALTY)
    /// each).
    pub guess_penalty: usize,
    /// The total: ray points, penalty and the wrong guesses' points.
    pub score: usize,
    /// The player gave up: the answer is shown and the game lost.
    pub resigned: bool,
    /// Wrong guesses the player played on after (each disproved by a ray,
    /// shot and counted then).
    pub wrong_guesses: usize,
}

impl Verdict {
    /// The same verdict after `wrong` wrong guesses played on, each charged
    /// [`WRONG_GUESS_PENALTY`](crate::rules::score::WRONG_GUESS_PENALTY).
    pub fn after_wrong_guesses(mut self, wrong: usize) -> Verdict {
        self.wrong_guesses = wrong;
        self.guess_penalty = wrong * crate::rules::score::WRONG_GUESS_PENALTY as usize;
        self.score = self.ray_score + self.penalty + self.guess_penalty;
        self
    }
}

/// Judges `guess` against `hidden` given the rays `observed`; `ray_score` is
/// what the rays cost. The guess must have as many atoms as are hidden.
pub fn judge(
    hidden: &Molecule,
    guess: &Molecule,
    observed: &Observation,
    rules: Rules,
    how: Judge,
    ray_score: usize,
) -> Verdict {
    let n = hidden.atoms().len();
    judge_counting(hidden, guess, &(n..=n), observed, rules, how, ray_score)
}

/// [`judge`] in a game whose player is told only that the count is one of
/// `counts` (Tatham's `w8h8m3M6`): as Tatham's check, a guess of any count
/// in the range wins when its rays say what the hidden molecule's say, even
/// with another number of atoms.
pub fn judge_counting(
    hidden: &Molecule,
    guess: &Molecule,
    counts: &RangeInclusive<usize>,
    observed: &Observation,
    rules: Rules,
    how: Judge,
    ray_score: usize,
) -> Verdict {
    let hs = Spectrum::of(hidden, rules);
    let gs = Spectrum::of(guess, rules);
    let against_shot = observed.first_difference(&gs).map(|q| Evidence {
        position: q,
        shot: true,
        hidden: hs.get(q),
        guess: gs.get(q),
    });
    let against_unshot = (1..=hidden.shape().positions())
        .find(|&q| observed.get(q).is_none() && hs.get(q) != gs.get(q))
        .map(|q| Evidence {
            position: q,
            shot: false,
            hidden: hs.get(q),
            guess: gs.get(q),
        });
    let count_ok = counts.contains(&guess.atoms().len());
    // A guess made before any ray is judged by every ray, whatever the
    // judge: under rays-shot it would otherwise win with nothing shot.
    let how = if observed.shot_count() == 0 {
        Judge::AllRays
    } else {
        how
    };
    let won = count_ok
        && match how {
            Judge::AllRays => hs == gs,
            Judge::RaysShot => against_shot.is_none(),
        };
    let mut v = scored(hidden, guess, ray_score, won.then_some(0));
    v.won = won;
    v.exact = guess == hidden;
    v.evidence = against_shot.or(against_unshot);
    v
}

/// For each ray shot, whether `guess` explains it: the ray from that
/// position gives, in the guess, what was seen. One entry per ray (an exit
/// pair once, at its lower end), in position order: what Tatham's players
/// ask to mark by hand ("this laser is done"), worked out.
///
/// ```
/// use bbx::play::referee::explained;
/// use bbx::{Molecule, Observation, Rules, Spectrum};
/// let hidden: Molecule = "O-O-------------".parse().unwrap();
/// let seen = Observation::full(&Spectrum::of(&hidden, Rules::Standard));
/// let guess: Molecule = "O---------------".parse().unwrap();
/// let e = explained(&guess, &seen, Rules::Standard);
/// assert_eq!(e[0], (1, true)); // ray 1 is absorbed by either
/// assert!(e.iter().any(|&(_, ok)| !ok));
/// ```
pub fn explained(guess: &Molecule, observed: &Observation, rules: Rules) -> Vec<(usize, bool)> {
    let gs = Spectrum::of(guess, rules);
    observed
        .rays()
        .into_iter()
        .map(|(q, o)| (q, gs.get(q) == o))
        .collect()
}

/// The verdict on `guess`, not won, its penalty for `missed` atoms (`None`:
/// those it missed).
fn scored(hidden: &Molecule, guess: &Molecule, ray_score: usize, missed: Option<usize>) -> Verdict {
    let h = hidden.cells();
    let g = guess.cells();
    let wrong = (0..g.len()).filter(|&i| g[i] && !h[i]).count();
    let left_out = (0..h.len()).filter(|&i| h[i] && !g[i]).count();
    let total = score(ray_score as u64, missed.unwrap_or(left_out) as u64) as usize;
    Verdict {
        guess: guess.clone(),
        won: false,
        exact: false,
        wrong,
        missed: left_out,
        evidence: None,
        ray_score,
        penalty: total - ray_score,
        guess_penalty: 0,
        score: total,
        resigned: false,
        wrong_guesses: 0,
    }
}

/// The verdict on a player who gives up: the game is lost, and scored as a
/// guess that missed every hidden atom. `guess` is what the player had
/// placed, for the reveal.
pub fn resign(hidden: &Molecule, guess: &Molecule, ray_score: usize) -> Verdict {
    let mut v = scored(hidden, guess, ray_score, Some(hidden.atoms().len()));
    v.resigned = true;
    v
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_range_judges_by_the_rays_whatever_the_count() {
        // 9 atoms in 4×4, the middle one of a 3×3 block where no ray can see
        // it: a guess without it gives the same spectrum.
        let hidden: Molecule = "OOO-OOO-OOO-----".parse().unwrap();
        let guess: Molecule = "OOO-O-O-OOO-----".parse().unwrap();
        let hs = Spectrum::of(&hidden, Rules::Standard);
        assert_eq!(
            hs,
            Spectrum::of(&guess, Rules::Standard),
            "the middle atom is hidden"
        );
        let none = Observation::empty(4);
        let exact = judge(&hidden, &guess, &none, Rules::Standard, Judge::AllRays, 0);
        assert!(!exact.won, "a count told is a count to match");
        let v = judge_counting(
            &hidden,
            &guess,
            &(8..=9),
            &none,
            Rules::Standard,
            Judge::AllRays,
            0,
        );
        assert!(v.won && !v.exact);
        let v = judge_counting(
            &hidden,
            &guess,
            &(9..=10),
            &none,
            Rules::Standard,
            Judge::AllRays,
            0,
        );
        assert!(!v.won, "a count outside the range never wins");
    }

    #[test]
    fn equivalent_molecules_win_under_tatham() {
        // A4_B6 molecules 868 and 15993 share their spectrum.
        let a: Molecule = "O-O-----------O---------O-----------".parse().unwrap();
        let b: Molecule = "--O---------O-O---------O-----------".parse().unwrap();
        let all = Observation::full(&Spectrum::of(&a, Rules::Standard));
        let v = judge(&a, &b, &all, Rules::Standard, Judge::AllRays, 30);
        assert!(v.won && !v.exact && v.wrong == 1 && v.penalty == 0 && v.score == 30);
        assert_eq!(v.evidence, None);
        // With no ray shot they still cannot be told apart.
        let none = Observation::empty(6);
        assert!(judge(&a, &b, &none, Rules::Standard, Judge::AllRays, 0).won);
    }

    #[test]
    fn a_guess_that_fits_the_rays_shot_loses_if_another_ray_tells() {
        let hidden: Molecule = "O-O-------------".parse().unwrap();
        let guess: Molecule = "O--O------------".parse().unwrap();
        let mut seen = Observation::empty(4);
        seen.record(1, Outcome::Absorbed);
        let all = judge(&hidden, &guess, &seen, Rules::Standard, Judge::AllRays, 1);
        assert!(!all.won && all.score == 6);
        let e = all.evidence.unwrap();
        assert!(!e.shot && e.hidden != e.guess);
        let lenient = judge(&hidden, &guess, &seen, Rules::Standard, Judge::RaysShot, 1);
        assert!(lenient.won && lenient.score == 1);
    }

    #[test]
    fn a_guess_before_any_ray_is_judged_by_every_ray() {
        let hidden: Molecule = "O-O-------------".parse().unwrap();
        let guess: Molecule = "O--O------------".parse().unwrap();
        let none = Observation::empty(4);
        let v = judge(&hidden, &guess, &none, Rules::Standard, Judge::RaysShot, 0);
        assert!(!v.won && v.score == 5, "{v:?}");
    }

    #[test]
    fn resigning_loses_with_every_atom_counted() {
        let hidden: Molecule = "O-O-------------".parse().unwrap();
        let guess: Molecule = "O---------------".parse().unwrap();
        let v = resign(&hidden, &guess, 3);
        assert!(!v.won && v.resigned && v.score == 3 + 2 * 5);
        assert_eq!((v.wrong, v.missed), (0, 1));
    }

    #[test]
    fn a_contradicted_guess_names_the_ray_shot() {
        let hidden: Molecule = "O-O-------------".parse().unwrap();
        let guess: Molecule = "-O-O------------".parse().unwrap();
        let seen = Observation::full(&Spectrum::of(&hidden, Rules::Standard));
        let v = judge(&hidden, &guess, &seen, Rules::Standard, Judge::RaysShot, 16);
        let e = v.evidence.unwrap();
        assert!(!v.won && e.shot && v.wrong == 2 && v.missed == 2 && v.score == 26);
        assert_eq!(seen.get(e.position), Some(e.hidden));
    }
}
