//! The real `bbx play` on a real terminal: a tmux pseudo-terminal (on a
//! private tmux server, so no user session is touched). Start-up, one shot and
//! quitting work, and the terminal is left as it was — line settings, main
//! screen, cursor, mouse — after a quit, after Ctrl-C and after a panic.
//!
//! Without tmux the test prints why and passes (`.ci/run` installs tmux where
//! it can).

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

const WAIT: Duration = Duration::from_secs(30);

struct Tmux {
    socket: String,
    session: String,
    dir: PathBuf,
}

impl Tmux {
    fn run(&self, args: &[&str]) -> String {
        let out = Command::new("tmux")
            .args(["-L", &self.socket, "-f", "/dev/null"])
            .args(args)
            .output()
            .expect("tmux runs");
        String::from_utf8_lossy(&out.stdout).into_owned()
    }

    fn start(name: &str) -> Option<Tmux> {
        let ok = Command::new("tmux")
            .arg("-V")
            .output()
            .is_ok_and(|o| o.status.success());
        if !ok {
            return None;
        }
        let dir = std::env::temp_dir().join(format!("bbx-play-tty-{}-{name}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).expect("temporary directory");
        let t = Tmux {
            socket: format!("bbx-test-{}-{name}", std::process::id()),
            session: "play".into(),
            dir,
        };
        let dir = t.dir.to_string_lossy().into_owned();
        t.run(&[
            "new-session",
            "-d",
            "-s",
            &t.session,
            "-x",
            "100",
            "-y",
            "30",
            "-c",
            &dir,
            "env",
            "PS1=$ ",
            "TERM=xterm-256color",
            "sh",
        ]);
        Some(t)
    }

    /// Types a command line into the shell.
    fn line(&self, text: &str) {
        self.run(&["send-keys", "-t", &self.session, "-l", text]);
        self.run(&["send-keys", "-t", &self.session, "Enter"]);
    }

    fn keys(&self, keys: &[&str]) {
        let mut args = vec!["send-keys", "-t", &self.session];
        args.extend_from_slice(keys);
        self.run(&args);
    }

    fn screen(&self) -> String {
        self.run(&["capture-pane", "-p", "-t", &self.session])
    }

    /// Waits until the screen shows `text`; panics with the screen after `WAIT`.
    fn wait_for(&self, text: &str) -> String {
        let end = Instant::now() + WAIT;
        loop {
            let s = self.screen();
            if s.contains(text) {
                return s;
            }
            assert!(
                Instant::now() < end,
                "waited {WAIT:?} for {text:?}; the screen:\n{s}"
            );
            std::thread::sleep(Duration::from_millis(100));
        }
    }

    /// tmux's view of the pane: alternate screen, cursor shown, mouse reports.
    fn pane_flags(&self) -> String {
        self.run(&[
            "display-message",
            "-p",
            "-t",
            &self.session,
            "#{alternate_on} #{cursor_flag} #{mouse_any_flag}",
        ])
        .trim()
        .to_string()
    }

    /// The process the pane's shell is running (the game), if /proc shows it.
    fn game_pid(&self) -> Option<String> {
        let shell: u32 = self
            .run(&["display-message", "-p", "-t", &self.session, "#{pane_pid}"])
            .trim()
            .parse()
            .ok()?;
        let children = std::fs::read_to_string(format!("/proc/{shell}/task/{shell}/children"))
            .unwrap_or_default();
        if let Some(child) = children.split_whitespace().next() {
            return Some(child.to_string());
        }
        // Kernels without the `children` file: the process whose parent
        // (the fourth field of `stat`, after the name in parentheses) is the shell.
        std::fs::read_dir("/proc")
            .ok()?
            .flatten()
            .find_map(|entry| {
                let pid = entry.file_name().to_str()?.parse::<u32>().ok()?;
                let stat = std::fs::read_to_string(entry.path().join("stat")).ok()?;
                let parent: u32 = stat
                    .rsplit_once(')')?
                    .1
                    .split_whitespace()
                    .nth(1)?
                    .parse()
                    .ok()?;
                (parent == shell).then(|| pid.to_string())
            })
    }

    fn file(&self, name: &str) -> String {
        std::fs::read_to_string(self.dir.join(name)).unwrap_or_default()
    }
}

impl Drop for Tmux {
    fn drop(&mut self) {
        self.run(&["kill-server"]);
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

fn bin() -> &'static Path {
    Path::new(env!("CARGO_BIN_EXE_bbx"))
}

#[test]
fn start_shoot_and_quit_on_a_real_terminal() {
    let Some(t) = Tmux::start("quit") else {
        crate::common::skip(
            "tmux is not installed, so there is no pseudo-terminal to run bbx play in (apt-get install tmux)",
        );
        return;
    };
    let bbx = bin().display();
    t.line("stty -g > before");
    t.line(&format!(
        "{bbx} play A4_B8 --seed 42 --policy greedy; echo \"exit=$?\"; stty -g > after; echo ALL\"\"DONE"
    ));
    let s = t.wait_for("bbx play · A4_B8, standard rules, seed 42");
    assert!(s.contains("cursor  ray 1 (left, row 1)"), "{s}");
    assert_eq!(
        t.pane_flags(),
        "1 0 1",
        "alternate screen, cursor hidden, mouse on"
    );

    t.keys(&["Enter"]);
    let s = t.wait_for("rays shot  1");
    assert!(s.contains("Ray 1 (left, row 1):"), "{s}");

    // The coach's best ray, and greedy's next ray (--policy): after one
    // ray, more molecules fit than the coach lists; greedy weighs them all,
    // listed from the count, and names its ray.
    t.keys(&["b"]);
    let s = t.wait_for("greedy's next ray: ");
    assert!(s.contains("best ray "), "{s}");
    let said = s.split("greedy's next ray: ").nth(1).unwrap_or_default();
    assert!(said.starts_with(|c: char| c.is_ascii_digit()), "{s}");

    t.keys(&["q"]);
    t.wait_for("The game is not finished. Quit?");
    t.keys(&["y"]);
    let s = t.wait_for("ALLDONE");
    assert!(s.contains("exit=0"), "{s}");
    assert!(
        s.contains("A4_B8, standard rules, seed 42: unfinished, not saved."),
        "the summary is printed on the restored terminal: {s}"
    );
    assert_eq!(t.file("before"), t.file("after"), "line settings restored");
    assert_eq!(
        t.pane_flags(),
        "0 1 0",
        "main screen, cursor shown, mouse off"
    );
}

#[test]
fn ctrl_c_and_panics_leave_the_terminal_intact() {
    let Some(t) = Tmux::start("panic") else {
        crate::common::skip(
            "tmux is not installed, so there is no pseudo-terminal to run bbx play in",
        );
        return;
    };
    let bbx = bin().display();
    t.line("stty -g > before");
    t.line(&format!(
        "{bbx} play --seed 1; echo \"first=$?\"; stty -g > after1; echo ONE\"\"DONE"
    ));
    t.wait_for("bbx play · A4_B8, standard rules, seed 1 ");
    t.keys(&["C-c"]);
    let s = t.wait_for("ONEDONE");
    assert!(s.contains("first=130"), "Ctrl-C is an interruption: {s}");
    assert_eq!(t.file("before"), t.file("after1"));

    // SIGTERM: the same, exit status 130 and the terminal restored.
    t.line(&format!(
        "{bbx} play --seed 2; echo \"term=$?\"; stty -g > after3; echo TERM\"\"DONE"
    ));
    t.wait_for("bbx play · A4_B8, standard rules, seed 2 ");
    let game = t.game_pid().expect("the game's process, through /proc");
    let killed = Command::new("kill")
        .args(["-TERM", &game])
        .status()
        .expect("kill runs");
    assert!(killed.success());
    let s = t.wait_for("TERMDONE");
    assert!(s.contains("term=130"), "SIGTERM is an interruption: {s}");
    assert_eq!(t.file("before"), t.file("after3"));

    t.line(&format!(
        "BBX_PLAY_TEST_PANIC=1 {bbx} play --seed 1; echo \"second=$?\"; stty -g > after2; echo ALL\"\"DONE"
    ));
    let s = t.wait_for("ALLDONE");
    assert!(s.contains("second=101"), "{s}");
    let (panic, after) = (s.find("panicked at"), s.find("second=101"));
    assert!(
        panic.is_some_and(|p| after.is_some_and(|a| p < a)),
        "the panic message shows, above what follows it: {s}"
    );
    assert_eq!(t.file("before"), t.file("after2"));
    assert_eq!(t.pane_flags(), "0 1 0");
}

#[test]
fn a_closed_terminal_ends_the_game() {
    let Some(t) = Tmux::start("closed") else {
        crate::common::skip("tmux is not installed");
        return;
    };
    t.line(&format!("{} play --seed 5", bin().display()));
    // The game's title, not the command line typed (which also says "bbx
    // play"): by then the shell has started the game.
    t.wait_for("bbx play · A4_B8, standard rules, seed 5 ");
    let Some(game) = t.game_pid() else {
        crate::common::skip("the game's process cannot be found through /proc");
        return;
    };
    // Close the window: the game must end, not poll a dead line forever.
    t.run(&["kill-server"]);
    let end = Instant::now() + WAIT;
    while Path::new(&format!("/proc/{game}")).exists()
        && !std::fs::read_to_string(format!("/proc/{game}/stat"))
            .unwrap_or_default()
            .contains(") Z ")
    {
        assert!(
            Instant::now() < end,
            "the game still runs {WAIT:?} after its terminal closed"
        );
        std::thread::sleep(Duration::from_millis(100));
    }
}

#[test]
fn a_game_without_a_seed_draws_one_of_53_bits() {
    let Some(t) = Tmux::start("seed") else {
        crate::common::skip(
            "tmux is not installed, so there is no pseudo-terminal to run bbx play in (apt-get install tmux)",
        );
        return;
    };
    t.line(&format!("{} play A3_B5; echo ALL\"\"DONE", bin().display()));
    t.wait_for("bbx play · A3_B5, standard rules, seed ");
    t.keys(&["q"]);
    t.wait_for("Quit?");
    t.keys(&["y"]);
    let s = t.wait_for("ALLDONE");
    // The summary names the seed drawn: at most 2^53 - 1, so that every JSON
    // reader keeps it exact and `--seed` takes it back.
    let seed: u64 = s
        .split("A3_B5, standard rules, seed ")
        .nth(1)
        .and_then(|rest| rest.split(':').next())
        .and_then(|n| n.trim().parse().ok())
        .unwrap_or_else(|| panic!("no seed in the summary: {s}"));
    assert!(seed < 1 << 53, "seed {seed} is past 2^53 - 1");
}

/// Without colour (`NO_COLOR`, which takes every style away in crossterm)
/// the cursor still shows, between brackets, on an empty cell and on a ray
/// shot, and a ray the guess does not explain is still crossed out (`/`).
#[test]
fn the_cursor_and_cross_outs_read_without_colour() {
    let Some(t) = Tmux::start("nocolor") else {
        crate::common::skip(
            "tmux is not installed, so there is no pseudo-terminal to run bbx play in",
        );
        return;
    };
    let bbx = bin().display();
    t.line(&format!("NO_COLOR=1 {bbx} play --seed 3; echo ALL\"\"DONE"));
    t.wait_for("bbx play · A4_B8, standard rules, seed 3 ");
    // Ray 1 is shot where the cursor starts: the cursor stands on its mark.
    t.keys(&["Enter"]);
    let s = t.wait_for("rays shot  1");
    let row = |s: &str, n: usize| s.lines().nth(n).unwrap_or("").to_string();
    let ray_row = row(&s, 3);
    assert!(
        ray_row.contains("[@]") || ray_row.contains("[&]"),
        "the cursor on the ray shot: {s}"
    );
    // On an empty cell of the box.
    t.keys(&["Right"]);
    let s = t.wait_for("row 1, column 1");
    assert!(
        row(&s, 3).contains("[-]"),
        "the cursor on an empty cell: {s}"
    );
    // d: the guess (no atom) does not explain ray 1: crossed out.
    t.keys(&["d"]);
    let s = t.wait_for("explains");
    assert!(
        row(&s, 3).contains("/@") || row(&s, 3).contains("/&"),
        "{s}"
    );
    t.keys(&["q", "y"]);
    t.wait_for("ALLDONE");
}

/// At 60×20 the help keeps every key: in one column, scrolled with the
/// arrows; the keys of the profile chosen (Tatham's here: r redoes).
#[test]
fn the_help_scrolls_on_a_small_terminal_and_follows_the_profile() {
    let Some(t) = Tmux::start("small") else {
        crate::common::skip(
            "tmux is not installed, so there is no pseudo-terminal to run bbx play in",
        );
        return;
    };
    let bbx = bin().display();
    t.run(&["resize-window", "-t", &t.session, "-x", "60", "-y", "20"]);
    t.line(&format!(
        "{bbx} play --seed 5 --keys tatham; echo ALL\"\"DONE"
    ));
    t.wait_for("seed 5");
    t.keys(&["?"]);
    let mut seen = t.wait_for("(↑↓ scroll)");
    for _ in 0..30 {
        t.keys(&["Down"]);
        std::thread::sleep(Duration::from_millis(30));
        seen.push_str(&t.screen());
    }
    for (k, what) in bbx::play::keys::help(bbx::play::keys::Profile::Tatham) {
        assert!(
            seen.contains(&format!("{k} {what}")),
            "{k} {what} is reached by scrolling: {seen}"
        );
    }
    assert!(seen.contains("Score: "), "{seen}");
    t.keys(&["Escape"]);
    // Tatham's keys: Enter fires, u undoes, r redoes.
    t.keys(&["Enter"]);
    t.wait_for("Ray 1 (left, row 1)");
    t.keys(&["u"]);
    t.wait_for("Undid ray 1");
    t.keys(&["r"]);
    t.wait_for("Redid ray 1");
    t.keys(&["q", "y"]);
    t.wait_for("ALLDONE");
}
