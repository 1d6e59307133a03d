//! The limits a search keeps to — a [`Budget`] (deadline, cancellation
//! token, memory bound) and a most molecules to list — checked inside every
//! long loop (inference, encoding, counters, between solver calls).

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use crate::control::{Budget, Cancel, Cut};

/// The memory bound of a search when its budget gives none: 2 GB.
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
///
/// The budget's deadline is checked inside every long loop (a single
/// solver call past it is waited for at most a moment on large boxes); its
/// token stops the search, which answers with what it found; its memory
/// bound ([`DEFAULT_MEMORY`] when it gives none) is the most the SAT models
/// of the search may take together, as estimated from their variables and
/// clauses.
#[derive(Debug, Clone, Default)]
pub struct Limits {
    /// Stop once this many molecules are found (and list no more).
    pub max: Option<usize>,
    /// The deadline, the token and the memory bound.
    pub budget: Budget,
}

/// Memory shared by the models of one search: each model adds what it takes
/// (in steps of a megabyte) and gives it back when dropped.
#[derive(Debug)]
pub(crate) struct Pool {
    limit: u64,
    used: AtomicU64,
}

impl Pool {
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

/// The limits one model or loop keeps to: the budget's deadline and token,
/// and the memory pool it shares with the other models of the search. The
/// default keeps to nothing.
#[derive(Debug, Clone, Default)]
pub(crate) struct Guard {
    pub(crate) budget: Budget,
    pub(crate) memory: Option<Arc<Pool>>,
}

impl Guard {
    /// The guard of a search within `budget`, with a memory pool of its own
    /// ([`DEFAULT_MEMORY`] when the budget gives no bound).
    pub(crate) fn new(budget: &Budget) -> Guard {
        Guard {
            budget: budget.clone(),
            memory: Some(Arc::new(Pool {
                limit: budget.memory_or(DEFAULT_MEMORY),
                used: AtomicU64::new(0),
            })),
        }
    }

    /// The same limits and pool with a token of its own: cancelling it
    /// stops this part of the search alone.
    pub(crate) fn child(&self) -> Guard {
        Guard {
            budget: self.budget.child(),
            memory: self.memory.clone(),
        }
    }

    /// The same limits and pool, stopped by `cancel` instead of the
    /// budget's token.
    pub(crate) fn with_cancel(&self, cancel: Cancel) -> Guard {
        Guard {
            budget: self.budget.clone().with_cancel(cancel),
            memory: self.memory.clone(),
        }
    }

    /// `Err` when the deadline has passed or the token is cancelled.
    pub(crate) fn check(&self) -> Result<(), Cut> {
        self.budget.check()
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
