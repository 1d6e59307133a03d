//! Progress bars and spinners on standard error.

use std::io::IsTerminal;
use std::time::Duration;

/// A rate for people: three significant figures at most, with k or M for
/// thousands and millions (`845/s`, `12.3k/s`, `2.45M/s`).
pub fn human_rate(per_sec: f64) -> String {
    if !per_sec.is_finite() || per_sec <= 0.0 {
        return "0/s".into();
    }
    let (value, suffix) = if per_sec >= 999_500.0 {
        (per_sec / 1e6, "M")
    } else if per_sec >= 999.5 {
        (per_sec / 1e3, "k")
    } else {
        (per_sec, "")
    };
    // Three significant figures with a suffix; whole numbers below a thousand.
    let digits = match (suffix, value) {
        ("", v) if v >= 9.95 => 0,
        ("", _) => 1,
        (_, v) if v >= 99.95 => 0,
        (_, v) if v >= 9.995 => 1,
        _ => 2,
    };
    format!("{value:.digits$}{suffix}/s")
}

/// A progress bar on standard error counting `unit`, hidden with `--quiet` or
/// when standard error is not a terminal. It fills the terminal's width;
/// until the amount of work is known (its length set) it shows the message
/// alone, then the count (without thousands separators, as bbx's messages
/// write numbers), the rate and, once work is done, the time left.
pub fn progress_bar(quiet: bool, unit: &str, message: String) -> indicatif::ProgressBar {
    if quiet || !std::io::stderr().is_terminal() {
        return indicatif::ProgressBar::hidden();
    }
    let bar = indicatif::ProgressBar::new(0);
    let unit = unit.to_string();
    bar.set_style(
        indicatif::ProgressStyle::with_template("{msg} [{wide_bar}] {tail}")
            .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar())
            .with_key(
                "tail",
                move |state: &indicatif::ProgressState, w: &mut dyn std::fmt::Write| {
                    let _ = w.write_str(&progress_tail(state, &unit));
                },
            )
            .progress_chars("=> "),
    );
    bar.set_message(message);
    bar
}

/// What a progress bar says after the bar: `3 of 10 games, 1.2k/s, 5s
/// left`; nothing while the length is unknown, and no time left before the
/// first unit is done.
fn progress_tail(state: &indicatif::ProgressState, unit: &str) -> String {
    let (pos, len) = (state.pos(), state.len().unwrap_or(0));
    tail_text(pos, len, state.per_sec(), state.eta(), unit)
}

/// [`progress_tail`] of `pos` units done of `len`, at `per_sec`, `eta` left.
fn tail_text(pos: u64, len: u64, per_sec: f64, eta: Duration, unit: &str) -> String {
    if len == 0 {
        return String::new();
    }
    let mut tail = format!("{pos}/{len} {unit}, {}", human_rate(per_sec));
    if pos > 0 && pos < len {
        tail.push_str(&format!(", {} left", indicatif::HumanDuration(eta)));
    }
    tail
}

/// A spinner for work whose length is not known, on a terminal only.
pub fn spinner(quiet: bool, message: String) -> indicatif::ProgressBar {
    if quiet || !std::io::stderr().is_terminal() {
        return indicatif::ProgressBar::hidden();
    }
    let s = indicatif::ProgressBar::new_spinner().with_message(message);
    s.enable_steady_tick(std::time::Duration::from_millis(120));
    s
}

/// Progress bars of work in stages: a bar a stage, a new one when the
/// stage changes, the last cleared when dropped.
pub struct Stages {
    quiet: bool,
    stage: usize,
    bar: indicatif::ProgressBar,
}

impl Stages {
    /// No bar yet; none at all with `--quiet`.
    pub fn new(quiet: bool) -> Stages {
        let bar = indicatif::ProgressBar::hidden();
        Stages {
            quiet,
            stage: usize::MAX,
            bar,
        }
    }

    /// Shows `done` of `len` `unit` of stage `stage`, saying `message`.
    pub fn show(&mut self, stage: usize, unit: &str, message: String, (done, len): (u64, u64)) {
        if stage != self.stage {
            self.bar.finish_and_clear();
            self.stage = stage;
            self.bar = progress_bar(self.quiet, unit, message.clone());
        }
        self.bar.set_message(message);
        self.bar.set_length(len);
        self.bar.set_position(done);
    }
}

impl Drop for Stages {
    fn drop(&mut self) {
        self.bar.finish_and_clear();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_bar_says_nothing_it_does_not_know() {
        let eta = Duration::from_secs(90);
        // The amount of work not yet known: no 0/0, no time left.
        assert_eq!(tail_text(0, 0, 0.0, eta, "games"), "");
        // Nothing done yet: no time left either.
        assert_eq!(tail_text(0, 2300, 0.0, eta, "games"), "0/2300 games, 0/s");
        // Then the count, as messages write numbers, the rate, the time.
        assert_eq!(
            tail_text(1200, 7624512, 154_000.0, eta, "games"),
            "1200/7624512 games, 154k/s, 2 minutes left"
        );
        assert_eq!(tail_text(5, 5, 10.0, eta, "games"), "5/5 games, 10/s");
    }

    #[test]
    fn rates_are_rounded_for_people() {
        for (rate, text) in [
            (0.0, "0/s"),
            (f64::NAN, "0/s"),
            (3.04, "3.0/s"),
            (9.99, "10/s"),
            (845.4, "845/s"),
            (999.4, "999/s"),
            (999.6, "1.00k/s"),
            (12_345.6, "12.3k/s"),
            (242_012.0, "242k/s"),
            (2_450_123.0, "2.45M/s"),
            (12_600_000.0, "12.6M/s"),
        ] {
            assert_eq!(human_rate(rate), text, "{rate}");
        }
    }
}
