//! The limits a search keeps to — a deadline, stop flags and a memory bound —
//! checked inside every long loop (inference, encoding, counters, between
//! solver calls), and what stopped it when one was reached.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::Instant;

use crate::error::Error;

/// The memory bound of a search when none is given: 2 GB.
pub const DEFAULT_MEMORY: u64 = 2_000_000_000;

/// Bytes a SAT variable takes (the solver's own arrays, measured on varisat
/// 0.2 with a few million of them, growth of its vectors included).
pub(crate) const VAR_BYTES: u64 = 64;

/// Bytes a clause takes: its literals, header and watches in the solver,
/// and the copy [`RayModel`](crate::solver::RayModel) keeps of ray clauses
/// (measured as for [`VAR_BYTES`]; clauses of two to six literals).
pub(crate) const CLAUSE_BYTES: u64 = 100;

/// Bytes per cell of the scratch a model keeps to encode rays (a state per
/// cell and heading).
pub(crate) const CELL_BYTES: u64 = 32;

/// Limits for [`solve`](crate::solver::solve).
#[derive(Debug, Clone)]
pub struct Limits {
    /// Stop once this many molecules are found (and list no more).
    pub max: Option<usize>,
    /// Stop at this instant (checked inside every long loop; a single
    /// solver call past it is waited for at most a moment on large boxes).
    pub deadline: Option<Instant>,
    /// Stop when this is set (Ctrl-C), answering with what was found.
    pub stop: Option<&'static AtomicBool>,
    /// The most memory, in bytes, that the SAT models of the search may take
    /// together, as estimated from their variables and clauses; a search that
    /// would need more stops with what it found. `None`: no bound. The default
    /// is [`DEFAULT_MEMORY`].
    pub memory: Option<u64>,
}

impl Default for Limits {
    fn default() -> Limits {
        Limits {
            max: None,
            deadline: None,
            stop: None,
            memory: Some(DEFAULT_MEMORY),
        }
    }
}

/// What stopped a search before it was complete.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Cut {
    /// Its deadline passed.
    Time,
    /// It was asked to stop (Ctrl-C, or a search that is no longer needed).
    Stop,
    /// It would have taken more memory than its bound.
    Memory,
}

/// How a search ended: complete, or what stopped it first.
///
/// ```
/// use bbx::solver::{Cut, Ended};
/// assert!(Ended::Complete.is_complete());
/// assert_eq!(Ended::from(Cut::Time), Ended::TimedOut);
/// assert_eq!(Ended::ReachedMax.cut(), None);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Ended {
    /// It proved there are no other molecules.
    Complete,
    /// It found as many molecules as it was asked for ([`Limits::max`]);
    /// others may fit.
    ReachedMax,
    /// Its deadline passed ([`Limits::deadline`]).
    TimedOut,
    /// It was asked to stop ([`Limits::stop`], Ctrl-C).
    Interrupted,
    /// It reached its memory bound ([`Limits::memory`]).
    OverMemory,
}

impl Ended {
    /// Whether the search proved there are no other molecules.
    pub fn is_complete(self) -> bool {
        self == Ended::Complete
    }

    /// The limit that cut the search short, if one did (not `--max`).
    pub fn cut(self) -> Option<Cut> {
        match self {
            Ended::TimedOut => Some(Cut::Time),
            Ended::Interrupted => Some(Cut::Stop),
            Ended::OverMemory => Some(Cut::Memory),
            Ended::Complete | Ended::ReachedMax => None,
        }
    }
}

impl From<Cut> for Ended {
    fn from(cut: Cut) -> Ended {
        match cut {
            Cut::Time => Ended::TimedOut,
            Cut::Stop => Ended::Interrupted,
            Cut::Memory => Ended::OverMemory,
        }
    }
}

/// Memory shared by the models of one search: each model adds what it takes
/// (in steps of a megabyte) and gives it back when dropped.
#[derive(Debug)]
pub(crate) struct Budget {
    limit: u64,
    used: AtomicU64,
}

impl Budget {
    /// A budget of `limit` bytes.
    pub(crate) fn new(limit: u64) -> Budget {
        Budget {
            limit,
            used: AtomicU64::new(0),
        }
    }

    /// Takes `bytes` more; false when that passes the bound (they are taken
    /// all the same, and given back by [`release`](Self::release)).
    pub(crate) fn take(&self, bytes: u64) -> bool {
        self.used.fetch_add(bytes, Ordering::SeqCst) + bytes <= self.limit
    }

    /// Gives back `bytes` taken earlier.
    pub(crate) fn release(&self, bytes: u64) {
        self.used.fetch_sub(bytes, Ordering::SeqCst);
    }

    /// Whether `bytes` more would fit now.
    pub(crate) fn fits(&self, bytes: u64) -> bool {
        self.used.load(Ordering::SeqCst).saturating_add(bytes) <= self.limit
    }
}

/// The limits one model or loop keeps to: a deadline, the caller's stop
/// flag, a flag of its own (set when its search is no longer needed), and
/// the memory budget it shares with the other models of the search.
#[derive(Debug, Clone, Default)]
pub(crate) struct Guard {
    pub(crate) deadline: Option<Instant>,
    pub(crate) stop: Option<&'static AtomicBool>,
    pub(crate) cancel: Option<Arc<AtomicBool>>,
    pub(crate) memory: Option<Arc<Budget>>,
}

impl Guard {
    /// The guard of a search under `limits`, with a budget of its own.
    pub(crate) fn new(limits: &Limits) -> Guard {
        Guard {
            deadline: limits.deadline,
            stop: limits.stop,
            cancel: None,
            memory: limits.memory.map(|m| Arc::new(Budget::new(m))),
        }
    }

    /// The same guard, also stopped by `cancel`.
    pub(crate) fn with_cancel(&self, cancel: Arc<AtomicBool>) -> Guard {
        Guard {
            cancel: Some(cancel),
            ..self.clone()
        }
    }

    /// `Err` when the deadline has passed or a stop flag is set.
    pub(crate) fn check(&self) -> Result<(), Cut> {
        if self.stop.is_some_and(|s| s.load(Ordering::SeqCst))
            || self
                .cancel
                .as_ref()
                .is_some_and(|c| c.load(Ordering::SeqCst))
        {
            return Err(Cut::Stop);
        }
        if self.deadline.is_some_and(|d| Instant::now() >= d) {
            return Err(Cut::Time);
        }
        Ok(())
    }
}

/// Why a model stopped answering: a limit was reached, or something failed.
#[derive(Debug)]
pub(crate) enum Halt {
    /// A limit stopped it (see [`Cut`]).
    Cut(Cut),
    /// The solver failed.
    Failed(Error),
}

impl From<Error> for Halt {
    fn from(e: Error) -> Halt {
        Halt::Failed(e)
    }
}

impl From<Cut> for Halt {
    fn from(c: Cut) -> Halt {
        Halt::Cut(c)
    }
}

/// Estimated bytes of a model with `variables` variables and `clauses`
/// clauses on a box of `cells` cells.
pub(crate) fn model_bytes(cells: usize, variables: usize, clauses: usize) -> u64 {
    cells as u64 * CELL_BYTES + variables as u64 * VAR_BYTES + clauses as u64 * CLAUSE_BYTES
}

/// A size for people: `2.9 GB`, `640 MB`.
pub(crate) fn human_bytes(bytes: u64) -> String {
    if bytes >= 1_000_000_000 {
        format!("{:.1} GB", bytes as f64 / 1e9)
    } else {
        format!("{} MB", bytes.div_ceil(1_000_000))
    }
}
