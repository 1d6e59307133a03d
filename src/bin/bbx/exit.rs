//! How `bbx` ends: its exit statuses, Ctrl-C caught and turned into a
//! budget's token, the panic watch of a process among several, and the
//! faults a test injects.

use std::process::ExitCode;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, LazyLock, Once};
use std::time::Duration;

use bbx::control::{Budget, Cancel, Faults};

/// The exit statuses of `bbx`, all in one place (README lists them).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Status {
    /// The command did what was asked.
    Done = 0,
    /// The answer is no: no molecule fits (`solve`, `suggest`), enumeration and
    /// SAT disagree (`verify`).
    No = 1,
    /// Bad input: an argument or a file that cannot be used as given.
    BadInput = 2,
    /// bbx or the machine failed: the database (busy, damaged), the solver, a
    /// census's work directory or connections, a file that cannot be
    /// written, a broken invariant.
    Failure = 3,
    /// A search stopped by a limit (time, or `--memory`) before it found
    /// anything.
    Incomplete = 4,
    /// Interrupted by Ctrl-C (or, for `play`, a termination signal); what
    /// was done so far is kept or shown.
    Interrupted = 130,
}

impl From<Status> for ExitCode {
    fn from(s: Status) -> ExitCode {
        ExitCode::from(s as u8)
    }
}

/// The flag Ctrl-C sets once [`ctrl_c`] catches it.
static STOP: LazyLock<Arc<AtomicBool>> = LazyLock::new(|| Arc::new(AtomicBool::new(false)));

/// Catches Ctrl-C: the first sets the flag returned ([`interrupt`]: work
/// stops cleanly and says so), a second one exits at once with status 130.
pub fn ctrl_c() -> &'static AtomicBool {
    static CATCH: Once = Once::new();
    CATCH.call_once(|| watch_interrupts(Arc::clone(&STOP)));
    &STOP
}

/// The token the first Ctrl-C cancels once [`ctrl_c`] catches it (until
/// then Ctrl-C ends the process, for work that starts catching it part of
/// the way through).
pub fn interrupt() -> Cancel {
    Cancel::from_flag(Arc::clone(&STOP))
}

/// The budget of a command's work: until its `--timeout` from now, and
/// cancelled by Ctrl-C, caught from now on.
pub fn budget(timeout: Option<Duration>) -> Budget {
    ctrl_c();
    let budget = Budget::default().with_cancel(interrupt());
    match timeout {
        Some(t) => budget.with_timeout(t),
        None => budget,
    }
}

/// Sets `stop` on the first SIGINT; on the second, says so and exits.
#[cfg(unix)]
fn watch_interrupts(stop: Arc<AtomicBool>) {
    // Signals reach this thread through signal-hook's pipe, so that it may
    // print and exit, which a signal handler may not.
    let Ok(mut signals) = signal_hook::iterator::Signals::new([signal_hook::consts::SIGINT]) else {
        return;
    };
    std::thread::spawn(move || {
        for _ in signals.forever() {
            if stop.swap(true, Ordering::SeqCst) {
                eprintln!("\ninterrupted twice: stopping at once");
                std::process::exit(Status::Interrupted as i32);
            }
        }
    });
}

/// Sets `stop` on the first Ctrl-C; the second exits at once.
#[cfg(not(unix))]
fn watch_interrupts(stop: Arc<AtomicBool>) {
    use signal_hook::consts::SIGINT;
    let _ = signal_hook::flag::register_conditional_shutdown(
        SIGINT,
        Status::Interrupted as i32,
        Arc::clone(&stop),
    );
    let _ = signal_hook::flag::register(SIGINT, stop);
}

/// The faults a test injects, from the environment variable
/// `BBX_TEST_FAULTS` (see [`Faults`]); none when it is not set.
pub fn faults() -> bbx::Result<Faults> {
    match std::env::var("BBX_TEST_FAULTS") {
        Ok(spec) => {
            Faults::parse(&spec).map_err(|e| bbx::Error::invalid(format!("BBX_TEST_FAULTS: {e}")))
        }
        Err(_) => Ok(Faults::default()),
    }
}

/// The exit status of an error: bad input, or a failure of bbx or the machine.
pub fn status_of(error: &bbx::Error) -> Status {
    if error.is_failure() {
        Status::Failure
    } else {
        Status::BadInput
    }
}

/// What this process learns of the other processes of a census, with the
/// panic hook that tells it installed once: the hook hands every panic to
/// [`bbx::work::cluster::PeerWatch::on_panic`] first, which keeps quiet the panics
/// of timely's threads that lost a connection (the census then says which
/// process it lost), and leaves any other to the hook there was.
pub fn peer_watch() -> bbx::work::cluster::PeerWatch {
    static WATCH: std::sync::OnceLock<bbx::work::cluster::PeerWatch> = std::sync::OnceLock::new();
    WATCH
        .get_or_init(|| {
            let watch = bbx::work::cluster::PeerWatch::default();
            let hook = watch.clone();
            let previous = std::panic::take_hook();
            std::panic::set_hook(Box::new(move |info| {
                if !hook.on_panic(info) {
                    previous(info);
                }
            }));
            watch
        })
        .clone()
}
