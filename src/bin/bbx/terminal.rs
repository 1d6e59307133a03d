//! The real terminal for `bbx play`: raw mode, the alternate screen and
//! mouse reports while the game runs, and the terminal given back as it was
//! afterwards — on a normal quit, on an error, on a panic (a panic hook
//! restores it before the message is printed) and on SIGINT, SIGTERM or
//! SIGHUP (the game's loop notices within a quarter of a second). In raw mode
//! Ctrl-C arrives as a key, which quits at once.
//!
//! A watchdog thread ends the process when its terminal goes away (the
//! window closed, the shell that started it gone): crossterm 0.29 then reads
//! the dead line in an endless loop that never returns to the game's loop.

use std::io::{self, IsTerminal};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Once};
use std::time::Duration;

use bbx::control::Cancel;
use bbx::play::session::{Session, run};
use crossterm::event::{self, DisableMouseCapture, EnableMouseCapture};
use crossterm::terminal::{self, EnterAlternateScreen, LeaveAlternateScreen};
use crossterm::{cursor, execute};
use ratatui::Terminal;
use ratatui::backend::CrosstermBackend;

/// Environment variable that makes the game panic after its first frame, so
/// that a test can check the terminal is restored on a panic.
const PANIC_TEST_VARIABLE: &str = "BBX_PLAY_TEST_PANIC";

/// Whether the game holds the terminal (raw mode, alternate screen).
static HELD: AtomicBool = AtomicBool::new(false);

/// Gives the terminal back: raw mode off, mouse reports off, main screen,
/// cursor shown. Does nothing when the game does not hold the terminal, so
/// that a second call (the panic hook, then the unwinding) does not move the
/// cursor back to where the game started.
fn restore() {
    if !HELD.swap(false, Ordering::SeqCst) {
        return;
    }
    let _ = terminal::disable_raw_mode();
    let _ = execute!(
        io::stdout(),
        DisableMouseCapture,
        LeaveAlternateScreen,
        cursor::Show
    );
}

fn install_panic_hook() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        let previous = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            restore();
            previous(info);
        }));
    });
}

fn tty(e: io::Error) -> bbx::Error {
    bbx::Error::Io {
        path: "the terminal".into(),
        source: e,
    }
}

/// The terminal while the game holds it: given back when dropped, whatever
/// the way out. Meanwhile a watchdog thread ends the process when the
/// terminal goes away while the game's loop is stuck where it cannot notice:
/// a hang-up or termination signal (`stop`) not acted on within a second,
/// the parent process gone, or a terminal that no longer answers.
struct Held {
    done: Arc<AtomicBool>,
}

impl Held {
    fn take(stop: Arc<AtomicBool>) -> io::Result<Held> {
        terminal::enable_raw_mode()?;
        HELD.store(true, Ordering::SeqCst);
        let done = Arc::new(AtomicBool::new(false));
        let held = Held {
            done: Arc::clone(&done),
        };
        #[cfg(unix)]
        let parent = std::os::unix::process::parent_id();
        let _ = std::thread::Builder::new()
            .name("bbx-play-watchdog".into())
            .spawn(move || {
                let mut signalled = 0;
                loop {
                    std::thread::sleep(Duration::from_millis(200));
                    if done.load(Ordering::SeqCst) {
                        return;
                    }
                    signalled = if stop.load(Ordering::SeqCst) {
                        signalled + 1
                    } else {
                        0
                    };
                    #[cfg(unix)]
                    let orphaned = std::os::unix::process::parent_id() != parent;
                    #[cfg(not(unix))]
                    let orphaned = false;
                    if signalled > 5 || orphaned || terminal::size().is_err() {
                        restore();
                        std::process::exit(129);
                    }
                }
            });
        let mut out = io::stdout();
        execute!(out, EnterAlternateScreen, EnableMouseCapture, cursor::Hide)?;
        Ok(held)
    }
}

impl Drop for Held {
    fn drop(&mut self) {
        self.done.store(true, Ordering::SeqCst);
        restore();
    }
}

/// Plays `session` on the terminal until the player quits or a signal
/// interrupts it. Fails without touching the terminal when standard input or
/// output is not a terminal.
pub fn play(session: &mut Session) -> bbx::Result<()> {
    if !io::stdin().is_terminal() || !io::stdout().is_terminal() {
        return Err(bbx::Error::invalid(
            "bbx play needs a terminal: run it in a terminal window, with neither its input nor its output redirected",
        ));
    }
    install_panic_hook();
    let stop = Arc::new(AtomicBool::new(false));
    for signal in [
        signal_hook::consts::SIGINT,
        signal_hook::consts::SIGTERM,
        signal_hook::consts::SIGHUP,
    ] {
        // Without the flag a signal still ends the game, only less tidily.
        let _ = signal_hook::flag::register(signal, Arc::clone(&stop));
    }
    let panic_test = std::env::var_os(PANIC_TEST_VARIABLE).is_some();

    let _held = Held::take(Arc::clone(&stop)).map_err(tty)?;
    let mut term = Terminal::new(CrosstermBackend::new(io::stdout())).map_err(tty)?;
    term.clear().map_err(tty)?;
    // The loop asks for events once the first frame is drawn.
    let mut next = |timeout| {
        if panic_test {
            panic!("{PANIC_TEST_VARIABLE} is set: panicking to test that the terminal is restored");
        }
        if event::poll(timeout)? {
            event::read().map(Some)
        } else {
            Ok(None)
        }
    };
    run(session, &mut term, &mut next, &Cancel::from_flag(stop))
}
