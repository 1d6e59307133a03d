//! The machinery of long work shared out and resumed: a census, a verify
//! streamed from a census, a lower bound or an optimum searched in units.
//!
//! - [`own`]: a directory of bbx's own, which no one else can steer;
//! - [`dir`]: the work directory made of one, with a manifest of the
//!   settings that decide the work and logs of the work done (a run of
//!   other settings is refused, a killed run resumes from its logs);
//! - [`disk`]: where its files are written (the real disk, or one that
//!   fills up, for tests);
//! - [`cluster`]: threads and processes on several machines (timely), the
//!   settings every process must agree on, what the program's panic hook
//!   tells of a lost process ([`cluster::PeerWatch`]), and the wait for a
//!   process's workers;
//! - [`gather`]: what every worker offers, brought to worker 0;
//! - [`units`]: work cut into units, shared out among the workers of every
//!   process, each unit committed to the log as it is done, the values
//!   gathered at process 0.
//!
//! Nothing here knows of Black Box: a work names itself and its settings.

pub mod cluster;
pub mod dir;
pub mod disk;
pub mod gather;
pub mod own;
pub mod units;
