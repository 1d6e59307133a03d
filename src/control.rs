//! Stopping long work: one budget, one cancellation token, one account of
//! how the work ended.
//!
//! Every long operation of bbx — a solve, the forward walk, an exploration,
//! the census, a verify, a strategy, the optimum and its bound, a plan, a
//! generated puzzle, the coach's questions — takes a [`Budget`] and answers
//! with a [`Finished`] value: what it found, and [`Ended`], how it ended.
//! A caller that only wants the value reads `finished.value`; one that must
//! say why an answer is partial matches on `finished.ended`. Nothing else
//! means "stopped": no `Option` that is `None` when time ran out, no flag
//! the caller has to read afterwards to guess why.
//!
//! A [`Cancel`] token is owned and cheap to clone. Cancelling it stops every
//! piece of work that holds it or a [`child`](Cancel::child) of it; a child
//! can also be cancelled alone, which is how a question that has been
//! superseded stops its own threads without touching the others.
//!
//! Long loops ask [`Budget::check`] (or, in a hot loop, a [`Ticker`], which
//! asks every so many steps and remembers the answer) and stop at a point
//! where what is done is kept. A loop that can also fail answers, inside
//! the library, with a [`Halt`]: cut by the budget, or failed.
//!
//! ```
//! use std::time::Duration;
//! use bbx::control::{Budget, Cancel, Cut, Ended};
//!
//! let cancel = Cancel::new();
//! let budget = Budget::default()
//!     .with_timeout(Duration::from_secs(60))
//!     .with_cancel(cancel.clone());
//! assert_eq!(budget.check(), Ok(()));
//!
//! // The question is superseded: its own token is cancelled, not the
//! // caller's.
//! let question = budget.child();
//! question.cancel.cancel();
//! assert_eq!(question.check(), Err(Cut::Cancelled));
//! assert_eq!(budget.check(), Ok(()));
//!
//! // Ctrl-C: the caller's token stops everything below it.
//! let other = budget.child();
//! cancel.cancel();
//! assert_eq!(other.check(), Err(Cut::Cancelled));
//! assert_eq!(Ended::from(Cut::Cancelled), Ended::Cancelled);
//! ```

use std::fmt;

use crate::error::{field, quote};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

/// The clock of every deadline: the standard library's on native targets,
/// the browser's on WebAssembly (where `std::time::Instant` panics).
pub use web_time::Instant;

/// A cancellation token: owned, cheap to clone, and never `'static`.
///
/// Clones share one flag. A [`child`](Cancel::child) has a flag of its own
/// and is also cancelled whenever its parent is.
#[derive(Clone, Default)]
pub struct Cancel {
    node: Arc<Node>,
}

#[derive(Default)]
struct Node {
    flag: Arc<AtomicBool>,
    parent: Option<Arc<Node>>,
}

impl Cancel {
    /// A token nobody has cancelled.
    pub fn new() -> Cancel {
        Cancel::default()
    }

    /// A token that is cancelled when `flag` is set: for a signal handler
    /// that can only set a flag (the binary's Ctrl-C).
    pub fn from_flag(flag: Arc<AtomicBool>) -> Cancel {
        Cancel {
            node: Arc::new(Node { flag, parent: None }),
        }
    }

    /// Cancels this token, its clones and its children.
    pub fn cancel(&self) {
        self.node.flag.store(true, Ordering::SeqCst);
    }

    /// Whether this token or one of its ancestors was cancelled.
    pub fn is_cancelled(&self) -> bool {
        let mut node = Some(&self.node);
        while let Some(n) = node {
            if n.flag.load(Ordering::Relaxed) {
                return true;
            }
            node = n.parent.as_ref();
        }
        false
    }

    /// A new token, cancelled with this one or on its own.
    pub fn child(&self) -> Cancel {
        Cancel {
            node: Arc::new(Node {
                flag: Arc::default(),
                parent: Some(Arc::clone(&self.node)),
            }),
        }
    }
}

impl fmt::Debug for Cancel {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Cancel")
            .field("cancelled", &self.is_cancelled())
            .finish()
    }
}

/// What a piece of work may take: until when, how much memory, and the
/// token that stops it; and, in a test, the cuts and failures it makes on
/// purpose ([`Faults`]).
///
/// The default has no deadline and no memory bound (an operation with a
/// bound of its own, such as the solver's, uses that one), a fresh token
/// and no fault. Each operation documents what it counts against
/// [`memory`](Budget::memory), and which faults it obeys.
#[derive(Debug, Clone, Default)]
pub struct Budget {
    /// Stop at this instant.
    pub deadline: Option<Instant>,
    /// The most memory, in bytes, the work may take (as the operation
    /// estimates it); `None`: the operation's own default.
    pub memory: Option<u64>,
    /// Stop when this is cancelled.
    pub cancel: Cancel,
    /// The faults a test injects (none by default).
    pub faults: Faults,
}

impl Budget {
    /// The same budget, stopping `timeout` from now.
    pub fn with_timeout(self, timeout: Duration) -> Budget {
        self.with_deadline(Instant::now().checked_add(timeout))
    }

    /// The same budget, stopping at `deadline` (`None`: no deadline).
    pub fn with_deadline(self, deadline: Option<Instant>) -> Budget {
        Budget { deadline, ..self }
    }

    /// The same budget, with a memory bound of `bytes` (`None`: the
    /// operation's default).
    pub fn with_memory(self, bytes: Option<u64>) -> Budget {
        Budget {
            memory: bytes,
            ..self
        }
    }

    /// The same budget, stopped by `cancel`.
    pub fn with_cancel(self, cancel: Cancel) -> Budget {
        Budget { cancel, ..self }
    }

    /// The same budget, with the faults a test injects.
    pub fn with_faults(self, faults: Faults) -> Budget {
        Budget { faults, ..self }
    }

    /// The same limits with a token of its own, a [`child`](Cancel::child)
    /// of this one: cancelling it stops this piece of work alone.
    pub fn child(&self) -> Budget {
        Budget {
            cancel: self.cancel.child(),
            ..self.clone()
        }
    }

    /// The memory bound, or `default` when none was given.
    pub fn memory_or(&self, default: u64) -> u64 {
        self.memory.unwrap_or(default)
    }

    /// `Err` once the token is cancelled or the deadline has passed
    /// (cancellation first).
    pub fn check(&self) -> Result<(), Cut> {
        if self.cancel.is_cancelled() {
            Err(Cut::Cancelled)
        } else if self.deadline.is_some_and(|d| Instant::now() >= d) {
            Err(Cut::TimedOut)
        } else {
            Ok(())
        }
    }

    /// The time left before the deadline (`None`: no deadline; zero once
    /// it has passed).
    pub fn remaining(&self) -> Option<Duration> {
        self.deadline
            .map(|d| d.saturating_duration_since(Instant::now()))
    }

    /// The same budget, stopping `cap` from now at the latest (an earlier
    /// deadline stays): a limit of the work's own inside the caller's.
    pub fn at_most(&self, cap: Duration) -> Budget {
        let cap = Instant::now().checked_add(cap);
        let deadline = match (self.deadline, cap) {
            (Some(d), Some(c)) => Some(d.min(c)),
            (d, c) => d.or(c),
        };
        self.clone().with_deadline(deadline)
    }

    /// The same budget, with its deadline brought forward to the fraction
    /// `share` of the time left: a first try that leaves time for a second.
    /// Without a deadline, the same budget.
    pub fn share(&self, share: f64) -> Budget {
        match self.remaining() {
            Some(left) => self
                .clone()
                .with_timeout(left.mul_f64(share.clamp(0.0, 1.0))),
            None => self.clone(),
        }
    }

    /// A [`Ticker`] that checks this budget every `every` steps.
    pub fn ticker(&self, every: u32) -> Ticker<'_> {
        Ticker {
            budget: self,
            every: every.max(1),
            count: 0,
            cut: None,
        }
    }
}

/// A budget checked every so many steps of a hot loop, where reading the
/// clock at each step would cost more than the step. Once a check fails,
/// every later one fails the same way.
#[derive(Debug)]
pub struct Ticker<'a> {
    budget: &'a Budget,
    every: u32,
    count: u32,
    cut: Option<Cut>,
}

impl Ticker<'_> {
    /// Counts one step; every `every` steps, checks the budget.
    #[inline]
    pub fn tick(&mut self) -> Result<(), Cut> {
        if let Some(cut) = self.cut {
            return Err(cut);
        }
        self.count += 1;
        if self.count >= self.every {
            self.count = 0;
            self.check()?;
        }
        Ok(())
    }

    /// Checks the budget now.
    pub fn check(&mut self) -> Result<(), Cut> {
        if let Some(cut) = self.cut {
            return Err(cut);
        }
        self.budget.check().inspect_err(|&c| self.cut = Some(c))
    }

    /// Records a cut found some other way (a memory bound the caller
    /// measures), so that every later check fails with it.
    pub fn stop(&mut self, cut: Cut) {
        self.cut.get_or_insert(cut);
    }

    /// What stopped the work, once something has.
    pub fn cut(&self) -> Option<Cut> {
        self.cut
    }
}

/// What cut a piece of work short.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Cut {
    /// Its deadline passed.
    TimedOut,
    /// Its token was cancelled (Ctrl-C, or a question no longer needed).
    Cancelled,
    /// It would have taken more memory than its bound.
    OverMemory,
}

/// Why a long loop stopped before its end: a limit of its [`Budget`], or a
/// failure of its own, `E` (a text that is not what it should be, a
/// contradiction, an [`Error`](crate::Error) by default). Inside the
/// library only: an operation answers with a [`Finished`] value or its
/// error, never a `Halt`.
#[derive(Debug)]
pub enum Halt<E = crate::Error> {
    /// A limit of the budget cut it short: what is done is kept.
    Cut(Cut),
    /// It failed.
    Failed(E),
}

impl<E> From<Cut> for Halt<E> {
    fn from(cut: Cut) -> Halt<E> {
        Halt::Cut(cut)
    }
}

impl From<crate::Error> for Halt {
    fn from(e: crate::Error) -> Halt {
        Halt::Failed(e)
    }
}

impl<E> Halt<E> {
    /// The same halt, with its failure changed by `f`.
    pub fn map<F>(self, f: impl FnOnce(E) -> F) -> Halt<F> {
        match self {
            Halt::Failed(e) => Halt::Failed(f(e)),
            Halt::Cut(cut) => Halt::Cut(cut),
        }
    }
}

/// How a piece of work ended.
///
/// In JSON it is a snake-case string: `"complete"`, `"reached_max"`,
/// `"timed_out"`, `"cancelled"`, `"over_memory"`, `"too_large"`.
///
/// ```
/// use bbx::control::{Cut, Ended};
/// assert!(Ended::Complete.is_complete());
/// assert_eq!(Ended::from(Cut::TimedOut), Ended::TimedOut);
/// assert_eq!(Ended::ReachedMax.cut(), None);
/// assert_eq!(Ended::Complete.and(Ended::TimedOut), Ended::TimedOut);
/// ```
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Hash, Default, serde::Serialize, serde::Deserialize,
)]
#[serde(rename_all = "snake_case")]
pub enum Ended {
    /// It did all it was asked.
    #[default]
    Complete,
    /// It found as many answers as it was allowed to list; there may be
    /// more.
    ReachedMax,
    /// Its deadline passed.
    TimedOut,
    /// Its token was cancelled.
    Cancelled,
    /// It reached its memory bound.
    OverMemory,
    /// It was too large to try within bbx's fixed limits, and was not
    /// started.
    TooLarge,
}

/// Nothing to report: the time limit or an interruption (`ended`) came
/// before `what` ("every game was played").
pub fn nothing_before(ended: Ended, what: &str) -> crate::setting::Text {
    if ended == Ended::Cancelled {
        crate::setting::Text::from(format!("interrupted before {what}: nothing to report"))
    } else {
        crate::text![
            format!("the time limit passed before {what}: nothing to report ("),
            crate::setting::Setting::Timeout,
            " raises it)"
        ]
    }
}

impl Ended {
    /// Whether the work was done whole.
    pub fn is_complete(self) -> bool {
        self == Ended::Complete
    }

    /// The limit of a [`Budget`] that cut the work short, if one did.
    pub fn cut(self) -> Option<Cut> {
        match self {
            Ended::TimedOut => Some(Cut::TimedOut),
            Ended::Cancelled => Some(Cut::Cancelled),
            Ended::OverMemory => Some(Cut::OverMemory),
            Ended::Complete | Ended::ReachedMax | Ended::TooLarge => None,
        }
    }

    /// How two parts of one piece of work ended together: the first that
    /// is not complete.
    pub fn and(self, other: Ended) -> Ended {
        if self.is_complete() { other } else { self }
    }
}

impl From<Cut> for Ended {
    fn from(cut: Cut) -> Ended {
        match cut {
            Cut::TimedOut => Ended::TimedOut,
            Cut::Cancelled => Ended::Cancelled,
            Cut::OverMemory => Ended::OverMemory,
        }
    }
}

/// A value and how the work that made it ended: whole when
/// [`ended`](Finished::ended) is [`Ended::Complete`], as far as the work got
/// otherwise (each operation documents what a partial value holds).
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct Finished<T> {
    /// What the work found.
    pub value: T,
    /// How it ended.
    pub ended: Ended,
}

impl<T> Finished<T> {
    /// A value of work done whole.
    pub fn complete(value: T) -> Finished<T> {
        Finished {
            value,
            ended: Ended::Complete,
        }
    }

    /// A value of work that ended as `ended`.
    pub fn new(value: T, ended: Ended) -> Finished<T> {
        Finished { value, ended }
    }

    /// Whether the work was done whole.
    pub fn is_complete(&self) -> bool {
        self.ended.is_complete()
    }

    /// The same ending, with the value changed by `f`.
    pub fn map<U>(self, f: impl FnOnce(T) -> U) -> Finished<U> {
        Finished {
            value: f(self.value),
            ended: self.ended,
        }
    }

    /// The value when the work was done whole, else how it ended.
    pub fn whole(self) -> Result<T, Ended> {
        if self.ended.is_complete() {
            Ok(self.value)
        } else {
            Err(self.ended)
        }
    }
}

/// Faults to inject, for tests that check what bbx does when work is cut
/// short or a write fails at a chosen point (a full disk, Ctrl-C in the
/// middle of a round).
///
/// They travel in the caller's [`Budget`] (see [`Budget::with_faults`]),
/// as one `Faults` value, never its parts; a program builds it with
/// [`Faults::parse`] from a specification such as
/// `stop-after=3,fail-writes-after=4096`. The default injects nothing.
///
/// | fault | what it does |
/// |-------|--------------|
/// | `stop-after=N` | stop after N units of work (rounds, transactions, sets, classes), as Ctrl-C or the time limit would |
/// | `stop-grouping-after=N` | stop a census's grouping after N partitions a worker, as Ctrl-C would |
/// | `stop-storing-after=N` | stop storing a census's groups after N classes, as Ctrl-C would |
/// | `fail-writes-after=BYTES` | writes to a work directory fail as on a full disk after BYTES |
/// | `unit-size=N` | molecule numbers per unit of work (explore's transactions, the census's units) |
/// | `busy-timeout-ms=MS` | how long to wait for another program to let go of a catalogue |
/// | `crossed-rules` | the SAT side of a verify uses the other ray rules, so that the check fails |
///
/// ```
/// use bbx::control::Faults;
/// let f = Faults::parse("stop-after=3,crossed-rules").unwrap();
/// assert_ne!(f, Faults::default());
/// assert!(Faults::parse("stop-after=x").is_err());
/// assert!(Faults::parse("disk=full").is_err());
/// ```
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Faults {
    pub(crate) stop_after: Option<u64>,
    pub(crate) stop_grouping_after: Option<u64>,
    pub(crate) stop_storing_after: Option<u64>,
    pub(crate) fail_writes_after: Option<u64>,
    pub(crate) unit_size: Option<u64>,
    pub(crate) busy_timeout_ms: Option<u64>,
    pub(crate) crossed_rules: bool,
}

impl Faults {
    /// Reads a specification: comma-separated `NAME=VALUE` (or `NAME` for
    /// a switch), with the names of the table above.
    pub fn parse(spec: &str) -> Result<Faults, String> {
        let mut faults = Faults::default();
        for item in spec.split(',').map(str::trim).filter(|s| !s.is_empty()) {
            let (name, value) = match item.split_once('=') {
                Some((n, v)) => (n.trim(), Some(v.trim())),
                None => (item, None),
            };
            let number = || -> Result<Option<u64>, String> {
                value
                    .ok_or_else(|| {
                        format!("fault {} needs a value: {}=N", quote(name), field(name))
                    })?
                    .parse()
                    .map(Some)
                    .map_err(|_| {
                        format!(
                            "fault {}: {} is not a whole number",
                            quote(name),
                            quote(value.unwrap_or_default())
                        )
                    })
            };
            match name {
                "stop-after" => faults.stop_after = number()?,
                "stop-grouping-after" => faults.stop_grouping_after = number()?,
                "stop-storing-after" => faults.stop_storing_after = number()?,
                "fail-writes-after" => faults.fail_writes_after = number()?,
                "unit-size" => faults.unit_size = number()?,
                "busy-timeout-ms" => faults.busy_timeout_ms = number()?,
                "crossed-rules" if value.is_none() => faults.crossed_rules = true,
                _ => {
                    return Err(format!(
                        "unknown fault {}: expected stop-after=N, stop-grouping-after=N, stop-storing-after=N, fail-writes-after=BYTES, unit-size=N, busy-timeout-ms=MS or crossed-rules",
                        quote(item)
                    ));
                }
            }
        }
        Ok(faults)
    }

    /// Whether nothing is injected.
    pub fn is_none(&self) -> bool {
        *self == Faults::default()
    }
}

/// `Err(Cut::Cancelled)` once `done` units of work reach `limit`, one of
/// the `stop-…-after` [`Faults`]: such a fault stops work where Ctrl-C
/// would, and is told apart from it by nobody.
#[cfg(feature = "catalogue")]
pub(crate) fn stop_after(limit: Option<u64>, done: u64) -> Result<(), Cut> {
    match limit {
        Some(n) if done >= n => Err(Cut::Cancelled),
        _ => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_cap_brings_a_deadline_forward_but_never_puts_it_off() {
        let open = Budget::default();
        let capped = open.at_most(Duration::from_secs(60));
        assert!(
            capped
                .remaining()
                .is_some_and(|r| r <= Duration::from_secs(60))
        );
        let near = Budget::default().with_timeout(Duration::from_secs(1));
        let kept = near.at_most(Duration::from_secs(3600));
        assert_eq!(kept.deadline, near.deadline);
        assert!(near.at_most(Duration::ZERO).check().is_err());
    }

    #[test]
    fn a_child_is_cancelled_with_its_parent_but_not_the_other_way() {
        let root = Cancel::new();
        let child = root.child();
        let grandchild = child.child();
        child.cancel();
        assert!(child.is_cancelled() && grandchild.is_cancelled());
        assert!(!root.is_cancelled());
        let other = root.child();
        assert!(!other.is_cancelled());
        root.cancel();
        assert!(other.is_cancelled());
    }

    #[test]
    fn a_token_from_a_flag_is_cancelled_when_the_flag_is_set() {
        let flag = Arc::new(AtomicBool::new(false));
        let token = Cancel::from_flag(Arc::clone(&flag));
        let child = token.child();
        assert!(!child.is_cancelled());
        flag.store(true, Ordering::SeqCst);
        assert!(token.is_cancelled() && child.is_cancelled());
    }

    #[test]
    fn a_past_deadline_times_out_and_cancellation_comes_first() {
        let budget = Budget::default().with_deadline(Some(Instant::now()));
        assert_eq!(budget.check(), Err(Cut::TimedOut));
        assert_eq!(budget.remaining(), Some(Duration::ZERO));
        budget.cancel.cancel();
        assert_eq!(budget.check(), Err(Cut::Cancelled));
        assert_eq!(Budget::default().check(), Ok(()));
        assert_eq!(Budget::default().remaining(), None);
    }

    #[test]
    fn a_ticker_checks_every_so_often_and_stays_cut() {
        let budget = Budget::default();
        let mut ticker = budget.ticker(4);
        for _ in 0..10 {
            assert_eq!(ticker.tick(), Ok(()));
        }
        budget.cancel.cancel();
        // Up to `every` steps pass before the cut is seen.
        let seen = (0..4).position(|_| ticker.tick().is_err());
        assert!(seen.is_some(), "the ticker never looked");
        assert_eq!(ticker.cut(), Some(Cut::Cancelled));
        assert_eq!(ticker.tick(), Err(Cut::Cancelled));
        let fresh = Budget::default();
        let mut t = fresh.ticker(1000);
        t.stop(Cut::OverMemory);
        assert_eq!(t.tick(), Err(Cut::OverMemory));
    }

    #[test]
    fn endings_combine_and_serialise_in_snake_case() {
        assert_eq!(Ended::Complete.and(Ended::Complete), Ended::Complete);
        assert_eq!(Ended::TimedOut.and(Ended::Cancelled), Ended::TimedOut);
        assert_eq!(
            serde_json::to_string(&Ended::OverMemory).unwrap(),
            "\"over_memory\""
        );
        let f = Finished::new(3, Ended::ReachedMax).map(|x| x * 2);
        assert_eq!(f.value, 6);
        assert_eq!(f.clone().whole(), Err(Ended::ReachedMax));
        assert_eq!(Finished::complete(1).whole(), Ok(1));
    }

    #[test]
    fn faults_are_read_whole_or_refused() {
        let f = Faults::parse("stop-after=3, fail-writes-after=4096,unit-size=64").unwrap();
        assert_eq!(f.stop_after, Some(3));
        assert_eq!(f.fail_writes_after, Some(4096));
        assert_eq!(f.unit_size, Some(64));
        assert!(Faults::parse("").unwrap().is_none());
        for bad in ["stop-after", "stop-after=-1", "crossed-rules=1", "nope=3"] {
            assert!(Faults::parse(bad).is_err(), "{bad}");
        }
    }
}
