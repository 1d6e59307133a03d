//! `bbx play`.

use std::sync::Arc;
use std::time::Duration;

use bbx::Rules;
use bbx::assistant::strategy::Policy;
use bbx::play::coach::CoachLimits;
use bbx::play::keys::Profile;
use bbx::play::middle::Options;
use bbx::play::referee::Judge;
use bbx::play::session::Session;
use bbx::play::setup::Asked;
use bbx::rules::notation::Notation;

use crate::cli::{Quiet, Seed, Workers};
use crate::exit::Status;
use crate::output::Flags;
use crate::values::{parse_max, parse_timeout};

#[derive(clap::Args)]
#[command(
    after_help = "Keys (bbx's; --keys tatham or emacs for theirs): arrows move, Enter shoots or puts an atom, space locks, g guesses, ? help, q quits.\n\nExamples:\n  bbx play\n  bbx play A5_B10 --seed 42 --unique",
    after_long_help = format!("Keys (bbx's; --keys tatham or --keys emacs for those players' habits, listed by ? in the game): arrows, h j k l or Ctrl-F B N P move (round the corners, across the box), o or Tab the opposite side, Home End either end, digits or Ctrl-U a count, Enter (or a click) shoots the ray at the cursor or puts/removes an atom, space or m (or a right click) marks empty as Tatham's lock, u undoes, U or Ctrl-R redoes, g submits the guess, r resigns, R or F5 restarts, n starts a new game, c x b p the coach (count, certain cells, best ray, chances), B goes to the best ray, d the rays your guess explains, a every molecule (after the game), s saves (a name ending in .sav: Tatham's save file), e Emacs notation, ? help, q quits.\n\nScore: {}; lower is better.\n\nA game saved with s (bbx-A4_B8-seed-42.txt, say) resumes with bbx play FILE, as does a save file of Tatham's Black Box.\n\nExamples:\n  bbx play\n  bbx play A5_B10 --seed 42 --unique\n  bbx play A5_B8x6                       (a box 8 wide and 6 high)\n  bbx play A3-6_B8                       (3 to 6 atoms: the count is not told)\n  bbx play '8x8, 3-6 balls'              (one of Tatham's presets)\n  bbx play w10h10m4M10 --seed 7          (Tatham's parameters: his game of that seed)\n  bbx play seed-pure-thought-a4-b8       (a built-in puzzle)\n  bbx play 'A2_B4 @&ab@&@?ba?@&@&@'      (a puzzle given inline)\n  bbx play tatham/a5-b8-checked-once     (resumes a game of Tatham's Black Box)\n  bbx play 'w8h8m5M5#12345'              (a game ID of Tatham's Black Box)", bbx::rules::score::RULE)
)]
pub struct Args {
    /// A configuration, Tatham's game, a puzzle or a saved game [default: A4_B8]
    ///
    /// A configuration for a random molecule (An_Bp; An_BwxH for a box w
    /// wide and h high; Am-M_Bp for m to M atoms, the count hidden);
    /// Tatham's parameters (w8h8m5M5) or the name of one of his presets
    /// ('8x8, 3-6 balls'), for the game his generator draws from the seed; a
    /// puzzle file (any format bbx solve reads) or saved game to play (bbx's,
    /// or Tatham's Black Box's); a built-in puzzle (`bbx puzzles` lists
    /// them); a game ID of Tatham's Black Box (w8h8m5M5:<hex> or
    /// w8h8m5M5#<seed>); or a puzzle in the linear form ('A2_B4 @&ab…'). A
    /// file of that name wins.
    #[arg(value_name = "CONFIG|FILE|ID")]
    game: Option<String>,
    #[command(flatten)]
    seed: Seed,
    /// Hide only molecules their full spectrum identifies
    #[arg(long)]
    unique: bool,
    /// Ray rules [default: the file's, else standard]
    ///
    /// edge-miss for seed001 files (A. Janns's rules), standard otherwise.
    #[arg(long, value_name = "RULES", value_parser = crate::values::rules(), ignore_case = true)]
    rules: Option<Rules>,
    /// Number of atoms, for a puzzle file that does not say
    ///
    /// Read as by solve and suggest; one number, since the game hides one
    /// molecule.
    #[arg(long, value_name = "N", allow_negative_numbers = true, value_parser = crate::puzzle_input::parse_atoms)]
    atoms: Option<std::ops::RangeInclusive<usize>>,
    /// The puzzle format [default: detected]
    ///
    /// For a puzzle file whose format the first lines do not tell apart.
    #[arg(long, value_name = "FORMAT", value_parser = crate::values::format(), ignore_case = true)]
    format: Option<bbx::puzzle::Format>,
    /// Borders in Emacs notation: H, R and digits
    #[arg(long)]
    emacs: bool,
    /// Whose keys: bbx's, Tatham's or Emacs's
    ///
    /// bbx: Enter shoots, space marks, u undoes, U redoes, r resigns.
    /// tatham: as Simon Tatham's Black Box (Enter fires, space locks, u
    /// undoes, r redoes, n new game, S shows the answer). emacs: as Emacs's
    /// blackbox (space shoots, Return hands in the guess, C-f C-b C-n C-p
    /// move). The help (?) lists the keys of the profile chosen.
    #[arg(long, value_name = "PROFILE", value_parser = crate::values::profile(), ignore_case = true, default_value = "bbx")]
    keys: Profile,
    /// How a guess wins
    #[arg(long, value_name = "JUDGE", value_parser = crate::values::judge(), ignore_case = true, default_value = "all-rays")]
    judge: Judge,
    /// The coach's time per question (seconds)
    ///
    /// The coach gives up on a question after this long, saying its answer is
    /// partial. From 0 to a week, fractions allowed, or a duration such as
    /// 90s, 5m or 1h 30m.
    #[arg(long, value_name = "SECONDS", default_value = "5", value_parser = parse_timeout, allow_negative_numbers = true)]
    timeout: Duration,
    /// The coach lists at most N molecules per question
    ///
    /// Its count may go beyond them; rays are then ranked on those, and it
    /// says so.
    #[arg(long, value_name = "N", default_value_t = 10_000, value_parser = parse_max, allow_negative_numbers = true)]
    max: usize,
    /// The file s offers to save the game to
    ///
    /// [default: the file the game was resumed from, or a new name such as
    /// bbx-A4_B8-seed-42.txt]
    #[arg(long, value_name = "FILE", alias = "save")]
    out: Option<String>,
    /// The coach names this policy's next ray; the verdict reviews your game against it
    ///
    /// The coach's best-ray panel (b) also names the ray this policy shoots
    /// next on the molecules that fit, as bbx suggest --policy does (under
    /// rollout, with the rays its games are expected to take from here), or
    /// why it shoots none, or why that is not known (every molecule that
    /// fits must be listed within --max and --timeout). After the game, the
    /// verdict shows what this policy (greedy when none is given) does
    /// against the same hidden molecule and on average.
    #[arg(long, value_name = "POLICY", value_parser = crate::values::policy(), ignore_case = true)]
    policy: Option<Policy>,
    /// Taken as by every command: the game shows no progress bar.
    #[command(flatten)]
    _quiet: Quiet,
    #[command(flatten)]
    workers: Workers,
}

pub fn run(args: Args) -> bbx::Result<(String, Status)> {
    args.workers.apply()?;
    let asked = Asked {
        game: args.game.unwrap_or_else(|| "A4_B8".into()),
        unique: args.unique,
        atoms: args.atoms,
        format: args.format,
        seed: args.seed.given(),
        rules: args.rules,
        judge: args.judge,
    };
    let setup = asked.setup(|game| {
        crate::samples::find(game).map(|s| (s.name.to_string(), s.text.to_string()))
    })?;
    let options = Options {
        notation: Notation::emacs_if(args.emacs),
        coach: CoachLimits {
            max: args.max,
            timeout: args.timeout,
        },
        save_path: args.out,
        policy: args.policy,
        naming: Arc::new(Flags),
        profile: args.keys,
        quits: true,
        // The coach weighs on every core in one question.
        coach_workers: 1,
    };
    // The game first, so that a bad file or option is reported even without
    // a terminal; then the terminal. Until then Ctrl-C ends the process, and
    // the start's own caps bound it.
    let started = bbx::play::setup::start(&setup, &bbx::control::Budget::default())?;
    let mut session = Session::new(setup, started, options);
    crate::terminal::play(&mut session)?;
    let played = session.played();
    let status = if played.interrupted {
        Status::Interrupted
    } else {
        Status::Done
    };
    Ok((format!("{}\n", played.summary), status))
}
