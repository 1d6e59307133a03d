//! The values options take. Those that choose from a set (`--rules`,
//! `--format`, `--policy`, `--judge`) are declared to clap with a line about
//! each: `--help` lists them, the shells' completions offer them, and a wrong
//! one is refused with the list. Each parses into the library's own type,
//! through its `FromStr`, so that the library stays the one place that names
//! them. Numbers are read by [`whole`], which says in one style what it
//! expected: `expected a number of rays: a whole number, at least 1`.

use std::str::FromStr;
use std::time::Duration;

use bbx::Rules;
use bbx::assistant::generate::MAX_SEED;
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

/// Parses `--seed SEED`: a whole number from 0 to [`MAX_SEED`] (2^53 - 1,
/// the largest that JSON readers keep exact).
pub fn parse_seed(s: &str) -> Result<u64, String> {
    whole("a seed", 0, Some(MAX_SEED))(s)
        .map_err(|e| format!("{e} (2^53 - 1, the largest number every JSON reader keeps exact)"))
}

/// Parses `--max N`: a whole number of molecules, at least 1.
pub fn parse_max(s: &str) -> Result<usize, String> {
    whole("a number of molecules", 1, None)(s)
}

/// The longest `--timeout` taken: a week.
const MAX_TIMEOUT: f64 = 7.0 * 24.0 * 3600.0;

/// Parses `--timeout SECONDS`: a number of seconds from 0 (give up at the
/// first check) to a week, fractions allowed.
pub fn parse_timeout(s: &str) -> Result<Duration, String> {
    let bad = || {
        format!(
            "expected a time: a number of seconds from 0 to {MAX_TIMEOUT} (a week), such as 10 or 2.5, or a duration such as 90s, 5m or 1h 30m"
        )
    };
    let t = s.trim();
    let secs: f64 = match t.parse() {
        Ok(secs) => secs,
        Err(_) => humantime::parse_duration(t)
            .map_err(|_| bad())?
            .as_secs_f64(),
    };
    if !secs.is_finite() || !(0.0..=MAX_TIMEOUT).contains(&secs) {
        return Err(bad());
    }
    Ok(Duration::from_secs_f64(secs))
}

/// Parses a size in bytes with the `bytesize` crate: `2G`, `500M`, `64K`,
/// `1.5GB`, `512MiB`, `1TiB` or a plain number of bytes (`G` and `GB` are
/// powers of 1000, `GiB` of 1024).
pub fn parse_size(s: &str) -> Result<u64, String> {
    let bad =
        || "expected a size: at least 1M, such as 2G, 500M, 1TiB or 1048576 (bytes)".to_string();
    let bytes = s
        .trim()
        .parse::<bytesize::ByteSize>()
        .map_err(|_| bad())?
        .as_u64();
    if bytes < 1_000_000 {
        return Err(bad());
    }
    Ok(bytes)
}

/// Parses `--sample N`: a whole number of spectra, at least 1 (a sample of
/// none would check nothing and still report agreement).
pub fn parse_sample(s: &str) -> Result<usize, String> {
    whole("a number of spectra", 1, None)(s)
        .map_err(|e| format!("{e} (--ambiguous checks the shared spectra alone)"))
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

    #[test]
    fn timeouts_from_zero_to_a_week() {
        assert_eq!(parse_timeout("0"), Ok(Duration::ZERO));
        assert_eq!(parse_timeout("2.5"), Ok(Duration::from_millis(2500)));
        assert_eq!(parse_timeout(" 10 "), Ok(Duration::from_secs(10)));
        assert_eq!(parse_timeout("604800"), Ok(Duration::from_secs(604_800)));
        assert_eq!(parse_timeout("90s"), Ok(Duration::from_secs(90)));
        assert_eq!(parse_timeout("5m"), Ok(Duration::from_secs(300)));
        assert_eq!(parse_timeout("1h 30m"), Ok(Duration::from_secs(5400)));
        assert_eq!(parse_timeout("250ms"), Ok(Duration::from_millis(250)));
        assert_eq!(parse_timeout("7days"), Ok(Duration::from_secs(604_800)));
        for bad in [
            "-1",
            "-0.5",
            "NaN",
            "inf",
            "-inf",
            "604801",
            "1e300",
            "",
            "ten",
            "8d",
            "-5m",
            "5 parsecs",
        ] {
            let e = parse_timeout(bad).unwrap_err();
            assert!(e.contains("from 0 to 604800"), "{bad}: {e}");
        }
    }

    #[test]
    fn seeds_fit_in_53_bits() {
        assert_eq!(parse_seed("0"), Ok(0));
        assert_eq!(parse_seed("42"), Ok(42));
        assert_eq!(parse_seed("9007199254740991"), Ok(MAX_SEED));
        for bad in [
            "9007199254740992",
            "18446744073709551615",
            "99999999999999999999",
            "-1",
            "",
            "x",
            "1.5",
        ] {
            let e = parse_seed(bad).unwrap_err();
            assert!(
                e.starts_with(
                    "expected a seed: a whole number from 0 to 9007199254740991 (2^53 - 1"
                ),
                "{bad}: {e}"
            );
        }
    }

    #[test]
    fn sizes_in_every_unit() {
        assert_eq!(parse_size("2G"), Ok(2_000_000_000));
        assert_eq!(parse_size("2GB"), Ok(2_000_000_000));
        assert_eq!(parse_size("2GiB"), Ok(2 << 30));
        assert_eq!(parse_size("1TiB"), Ok(1 << 40));
        assert_eq!(parse_size("1T"), Ok(1_000_000_000_000));
        assert_eq!(parse_size("1.5GB"), Ok(1_500_000_000));
        assert_eq!(parse_size("512MiB"), Ok(512 << 20));
        assert_eq!(parse_size(" 64m "), Ok(64_000_000));
        assert_eq!(parse_size("1048576"), Ok(1_048_576));
        for bad in ["1K", "999999", "0", "", "lots", "2 parsecs", "-1G", "G"] {
            assert!(
                parse_size(bad).unwrap_err().contains("expected a size"),
                "{bad}"
            );
        }
    }

    #[test]
    fn max_is_a_positive_count() {
        assert_eq!(parse_max("1"), Ok(1));
        assert_eq!(parse_max("100000"), Ok(100_000));
        assert_eq!(
            parse_max("0"),
            Err("expected a number of molecules: a whole number, at least 1".into())
        );
        assert!(parse_max("-3").is_err());
        assert!(parse_max("many").is_err());
    }
}
