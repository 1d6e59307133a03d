//! A puzzle made (`assistant::generate`): its picture, its JSON and the
//! line that sums it up.

use crate::assistant::generate::Made;
use crate::error::{Error, quantity};
use crate::rules::notation::Notation;
use crate::rules::ray::Rules;

use super::diagram::{balls_range_line, grid, marks_in, observed_marks};

/// A puzzle made, as its JSON shows it, with its picture (J. Forget's
/// display).
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct PuzzleReport {
    /// The configuration (or range).
    pub config: String,
    /// The box's width.
    pub width: usize,
    /// The box's height.
    pub height: usize,
    /// The ray rules.
    pub rules: Rules,
    /// The seed of every random choice.
    pub seed: u64,
    /// The hidden molecule.
    pub molecule: String,
    /// Molecules drawn.
    pub draws: usize,
    /// Whether the answer is unique.
    pub unique: bool,
    /// With `minimal`: whether every ray left is needed.
    pub minimal: Option<bool>,
    /// Rays shown, an exit pair once.
    pub rays_shot: usize,
    /// Border marks shown: both ends of an exit pair.
    pub marks_known: usize,
    /// The rays shown (linear form).
    pub observation: String,
    /// The picture of the puzzle.
    pub puzzle: String,
    /// The game ID in Tatham's Black Box, when his program can play it.
    pub tatham_id: Option<String>,
    /// Seconds taken, to the millisecond.
    pub seconds: f64,
    /// Whether Emacs notation was asked for and could not write the border
    /// (more than 9 exit pairs), which is in letters instead.
    #[serde(skip)]
    pub in_letters: bool,
}

impl PuzzleReport {
    /// The report of `made`, its border in Emacs notation when `emacs` (and
    /// it has at most 9 exit pairs).
    pub fn new(made: &Made, emacs: bool) -> Result<PuzzleReport, Error> {
        let (o, config) = (&made.options, made.options.config);
        let letters = observed_marks(&made.observation)
            .ok_or_else(|| Error::invalid("more than 52 exit pairs: this puzzle has no display"))?;
        let in_emacs = emacs.then(|| marks_in(&letters, Notation::Emacs)).flatten();
        let marks = in_emacs.as_deref().unwrap_or(&letters);
        Ok(PuzzleReport {
            config: config.to_string(),
            width: config.shape.width,
            height: config.shape.height,
            rules: o.rules,
            seed: o.seed,
            molecule: made.molecule.to_string(),
            draws: made.draws,
            unique: o.unique || o.minimal,
            minimal: made.minimal,
            rays_shot: made.observation.ray_count(),
            marks_known: made.observation.shot_count(),
            observation: made.observation.to_string(),
            puzzle: format!(
                "{}\n{}\n",
                grid(config.shape, |_| '-', marks),
                balls_range_line(config.min_atoms, config.max_atoms)
            ),
            tatham_id: made.tatham_id.clone(),
            seconds: (made.seconds * 1000.0).round() / 1000.0,
            in_letters: emacs && in_emacs.is_none(),
        })
    }
}

/// What sums up a puzzle made: the rays shown, how unique, the draws and
/// the time, Tatham's game ID, and with `answer` the hidden molecule.
pub fn generated_text(made: &Made, answer: bool) -> String {
    let (o, config) = (&made.options, made.options.config);
    let mut summary = format!(
        "{config}, seed {}: {} shown ({} of {} border marks){}; {} in {:.2} s\n",
        o.seed,
        crate::error::quantity(made.observation.ray_count(), "ray", "rays"),
        made.observation.shot_count(),
        config.shape.positions(),
        match made.minimal {
            Some(true) => ", each one needed for the unique answer",
            Some(false) =>
                ", one answer (the time limit stopped the removal of rays: some may not be needed)",
            None if o.unique => ", one answer",
            None => "",
        },
        quantity(made.draws, "draw", "draws"),
        made.seconds
    );
    if let Some(id) = &made.tatham_id {
        summary.push_str(&format!("Tatham's game ID: {id}\n"));
    }
    if answer {
        summary.push_str(&format!("answer: {}\n", made.molecule));
    }
    summary
}
