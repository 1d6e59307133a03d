//! The values options take. Those that choose from a set (`--rules`,
//! `--format`, `--policy`, `--judge`) are declared to clap with a line about
//! each: `--help` lists them, the shells' completions offer them, and a wrong
//! one is refused with the list. Each parses into the library's own type,
//! through its `FromStr`, so that the library stays the one place that names
//! them. Numbers are read by [`whole`], which says in one style what it
//! expected: `expected a number of rays: a whole number, at least 1`.

use std::str::FromStr;

use bbx::Rules;
use bbx::assistant::strategy::Policy;
use bbx::play::keys::Profile;
use bbx::play::referee::Judge;
use bbx::puzzle::Format;
use clap::builder::{PossibleValue, PossibleValuesParser, TypedValueParser};

/// A parser of one of `values` (names, with their help and hidden aliases)
/// into `T`.
fn choice<T>(values: impl IntoIterator<Item = PossibleValue>) -> impl TypedValueParser<Value = T>
where
    T: FromStr<Err = String> + Clone + Send + Sync + 'static,
{
    PossibleValuesParser::new(values).try_map(|name| name.parse::<T>())
}

/// The rule sets, each with what it means.
const RULES: [Rules; 2] = [Rules::Standard, Rules::EdgeMiss];

/// What a rule set means, in `--help`.
fn rules_help(rules: Rules) -> &'static str {
    match rules {
        Rules::Standard => {
            "Emacs's blackbox.el and Tatham's: an atom beside the entry reflects the ray"
        }
        Rules::EdgeMiss => "A. Janns's: an atom beside the entry makes the ray miss the board",
    }
}

/// `--rules`: `standard` or `edge-miss`.
pub fn rules() -> impl TypedValueParser<Value = Rules> {
    choice(RULES.map(|r| {
        let value = PossibleValue::new(<&'static str>::from(r)).help(rules_help(r));
        match r {
            Rules::EdgeMiss => value.aliases(["edgemiss", "edge_miss"]),
            Rules::Standard => value,
        }
    }))
}

/// What a puzzle format is, in `--help`.
fn format_help(format: Format) -> &'static str {
    match format {
        Format::Display => "J. Forget's board with its border marks (letters or Emacs notation)",
        Format::Linear => "one line: the configuration and the spectrum, ? for rays not shot",
        Format::Janns => "A. Janns's 'P K', then one ray per line in its own numbering",
        Format::Tatham => "a save file or game ID of Simon Tatham's Black Box",
    }
}

/// `--format`: `display`, `linear`, `seed001` or `tatham`.
pub fn format() -> impl TypedValueParser<Value = Format> {
    choice(Format::ALL.map(|f| {
        let value = PossibleValue::new(f.name()).help(format_help(f));
        match f {
            Format::Janns => value.aliases(["seed-001", "seed_001"]),
            _ => value,
        }
    }))
}

/// What a policy does, in `--help`.
fn policy_help(policy: Policy) -> &'static str {
    match policy {
        Policy::Greedy => "the ray that leaves the fewest molecules expected",
        Policy::Entropy => "the ray whose result tells the most, in bits",
        Policy::Score => {
            "the cheapest expected score one ray ahead, stopping when placing is cheaper"
        }
        Policy::Lookahead => "the fewest molecules expected left two rays ahead",
        Policy::Rollout => "the ray whose outcomes, each played on by greedy, take the fewest rays",
    }
}

/// `--policy`: `greedy`, `entropy`, `score`, `lookahead` or `rollout`.
pub fn policy() -> impl TypedValueParser<Value = Policy> {
    choice(Policy::ALL.map(|p| PossibleValue::new(p.name()).help(policy_help(p))))
}

/// The ways of judging a guess.
const JUDGES: [Judge; 2] = [Judge::AllRays, Judge::RaysShot];

/// How a judge decides, in `--help`.
fn judge_help(judge: Judge) -> &'static str {
    match judge {
        Judge::AllRays => {
            "Tatham's rule: every ray gives what the hidden molecule gives, shot or not"
        }
        Judge::RaysShot => "the guess fits every ray shot",
    }
}

/// `--judge`: `all-rays` or `rays-shot`.
pub fn judge() -> impl TypedValueParser<Value = Judge> {
    choice(JUDGES.map(|j| {
        let value = PossibleValue::new(j.name()).help(judge_help(j));
        match j {
            Judge::AllRays => value.aliases(["all", "tatham"]),
            Judge::RaysShot => value.alias("shot"),
        }
    }))
}

/// `--keys`: whose keys the game reads (`bbx`, `tatham`, `emacs`).
pub fn profile() -> impl TypedValueParser<Value = Profile> {
    choice(Profile::ALL.map(|p| PossibleValue::new(p.name()).help(p.about())))
}

/// A parser of whole numbers from `min` to `max` (`None`: no bound),
/// counting `what` ("a number of rays"); what it refuses (a word, a sign, a
/// fraction, a number out of range) gets one message naming the range.
pub fn whole<T>(
    what: &'static str,
    min: u64,
    max: Option<u64>,
) -> impl Fn(&str) -> Result<T, String> + Clone + Send + Sync + 'static
where
    T: TryFrom<u64>,
{
    move |s: &str| {
        let range = match max {
            Some(max) => format!("a whole number from {min} to {max}"),
            None if min == 0 => "a whole number, 0 or more".to_string(),
            None => format!("a whole number, at least {min}"),
        };
        let t = s.trim();
        let n = (!t.is_empty() && t.bytes().all(|b| b.is_ascii_digit()))
            .then(|| t.parse::<u64>().ok())
            .flatten()
            .filter(|&n| n >= min && max.is_none_or(|max| n <= max))
            .and_then(|n| T::try_from(n).ok());
        n.ok_or_else(|| format!("expected {what}: {range}"))
    }
}

/// Parses a fraction from 0 to 1 (`--partial`).
pub fn fraction(s: &str) -> Result<f64, String> {
    match s.trim().parse::<f64>() {
        Ok(f) if (0.0..=1.0).contains(&f) => Ok(f),
        _ => Err("expected a fraction: a number from 0 to 1, such as 0.5".to_string()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Parses `value` with `parser` as clap would for an option.
    fn parse<T: Send + Sync + Clone + 'static>(
        parser: &impl TypedValueParser<Value = T>,
        value: &str,
    ) -> Result<T, clap::Error> {
        let cmd = clap::Command::new("bbx");
        parser.parse_ref(&cmd, None, std::ffi::OsStr::new(value))
    }

    #[test]
    fn every_value_the_library_names_is_declared_and_parses_back() {
        for r in RULES {
            assert_eq!(parse(&rules(), &r.to_string()).unwrap(), r);
        }
        for f in Format::ALL {
            assert_eq!(parse(&format(), f.name()).unwrap(), f);
        }
        for p in Policy::ALL {
            assert_eq!(parse(&policy(), p.name()).unwrap(), p);
        }
        for j in JUDGES {
            assert_eq!(parse(&judge(), j.name()).unwrap(), j);
        }
        // The spellings the library also reads still work.
        assert_eq!(parse(&rules(), "edgemiss").unwrap(), Rules::EdgeMiss);
        assert_eq!(parse(&format(), "seed-001").unwrap(), Format::Janns);
        assert_eq!(parse(&judge(), "tatham").unwrap(), Judge::AllRays);
        assert!(parse(&rules(), "strict").is_err());
    }

    #[test]
    fn whole_numbers_in_one_style() {
        let rays = whole::<usize>("a number of rays", 1, None);
        assert_eq!(rays("3"), Ok(3));
        assert_eq!(rays(" 12 "), Ok(12));
        for bad in ["0", "-1", "x", "", "1.5", "+2", "99999999999999999999999"] {
            assert_eq!(
                rays(bad),
                Err("expected a number of rays: a whole number, at least 1".into()),
                "{bad}"
            );
        }
        let workers = whole::<usize>("a number of threads", 1, Some(256));
        assert_eq!(workers("256"), Ok(256));
        assert_eq!(
            workers("257"),
            Err("expected a number of threads: a whole number from 1 to 256".into())
        );
        let boards = whole::<usize>("a number of boards", 0, None);
        assert_eq!(boards("0"), Ok(0));
        assert_eq!(
            boards("-1"),
            Err("expected a number of boards: a whole number, 0 or more".into())
        );
        // A number the type cannot hold is refused the same way.
        let small = whole::<u8>("a count", 0, None);
        assert_eq!(
            small("300"),
            Err("expected a count: a whole number, 0 or more".into())
        );
        assert_eq!(fraction("0.5"), Ok(0.5));
        for bad in ["-0.1", "1.5", "NaN", "half"] {
            assert!(
                fraction(bad)
                    .unwrap_err()
                    .starts_with("expected a fraction")
            );
        }
    }
}
