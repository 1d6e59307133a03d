//! The web page (`web/dist/index.html`, built by `web/build`) in a real
//! headless Chromium, opened from the local folder (`file://`) as a player
//! would, driven through WebDriver (`chromedriver` on a free loopback port).
//!
//! The page is a front on the library's game middle, so these tests check
//! its drawing and wiring: each click, tap and key is made on the page and
//! on a twin [`Middle`] in the test, and the board and status drawn must be
//! the twin's scene; the coach's and the solver's answers are checked
//! against `bbx suggest --json` and `bbx solve --json`; links, game IDs and
//! files travel; and each defect the page once had (issue 38) has its test.
//! The move sequences themselves are the library's tests.
//!
//! Without `chromium` and `chromedriver`, or without a built page, the test
//! prints why and passes (`.ci/run` installs both and builds the page
//! first); a page older than the sources it is built from fails, saying to
//! run `web/build`. The timings of docs/performance.md and the screenshots
//! of docs/web.md come from the ignored tests at the end:
//! `cargo test --release --test integration web:: -- --ignored --nocapture`.

use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

use bbx::Molecule;
use bbx::control::Budget;
use bbx::play::cursor::Target;
use bbx::play::keys::Key;
use bbx::play::middle::{Middle, Options};
use bbx::play::moves::{Form, Move};
use bbx::play::scene::Scene;
use bbx::play::setup::{Setup, Start, start};
use bbx::puzzle::{TathamParams, game_id, parse_tatham};
use bbx::rules::config::Shape;
use serde_json::{Value, json};

use crate::common::webdriver::{Browser, Screen, installed};
use crate::common::{json_ok, puzzle, temp_dir};

/// Long enough for any answer of the page on a loaded two-core machine.
const WAIT: Duration = Duration::from_secs(60);

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// The newest modification time of the files under `path`.
fn newest(path: &Path) -> Option<(SystemTime, PathBuf)> {
    let meta = std::fs::metadata(path).ok()?;
    if meta.is_file() {
        return Some((meta.modified().ok()?, path.to_path_buf()));
    }
    std::fs::read_dir(path)
        .ok()?
        .filter_map(|e| newest(&e.ok()?.path()))
        .max()
}

/// The built page's `file://` address, or why the test cannot run.
fn page() -> Result<String, String> {
    installed()?;
    let page = root().join("web/dist/index.html");
    let built = std::fs::metadata(&page)
        .and_then(|m| m.modified())
        .map_err(|_| "the page is not built (web/build builds it)".to_string())?;
    let sources = [
        "src",
        "web/src",
        "web/static",
        "web/build",
        "web/Cargo.toml",
        "web/Cargo.lock",
    ];
    let source = sources.iter().filter_map(|s| newest(&root().join(s))).max();
    if let Some((changed, file)) = source
        && changed > built
    {
        panic!(
            "web/dist/index.html is older than {}: run web/build to test the page as the sources make it",
            file.display()
        );
    }
    let path = page.canonicalize().expect("the page's path");
    Ok(format!("file://{}", path.display()).replace(' ', "%20"))
}

/// The page to test, or `None` after saying why the test is skipped.
fn page_or_skip() -> Option<String> {
    match page() {
        Ok(url) => Some(url),
        Err(why) => {
            crate::common::skip(&why);
            None
        }
    }
}

/// Opens `url` and waits until the page has started its game.
fn open(b: &Browser, url: &str) {
    b.open(url);
    b.wait_for("document.body.dataset.ready", "the page starts", WAIT);
}

/// Opens `url` afresh (not as a change of the address's `#` part).
fn reopen(b: &Browser, url: &str) {
    b.open("about:blank");
    open(b, url);
}

/// What the board shows: its box, the marks of the rays shot, the atoms,
/// the cells marked empty, whether the game is over.
fn board(b: &Browser) -> Value {
    b.eval("Object.assign({}, document.getElementById('board').dataset)")
}

/// What the board of `scene` shows, as [`board`] reads it.
fn shown(scene: &Scene) -> Value {
    let b = &scene.board;
    let cells = |f: &dyn Fn(&bbx::play::marks::Cell) -> bool| {
        let i = (b.cells.iter().enumerate()).filter(|(_, c)| f(c));
        i.map(|(i, _)| i.to_string()).collect::<Vec<_>>().join(",")
    };
    let marks: String = (b.slots.iter())
        .map(|s| if s.outcome.is_some() { s.mark.ch } else { ' ' })
        .collect();
    json!({
        "width": b.width.to_string(),
        "height": b.height.to_string(),
        "over": scene.over.to_string(),
        "atoms": cells(&|c| c.atom),
        "locked": cells(&|c| c.locked),
        "marks": marks,
    })
}

/// The visible text of the element `id` (nothing of a hidden one).
fn text(b: &Browser, id: &str) -> String {
    b.eval(&format!("document.getElementById('{id}').innerText"))
        .as_str()
        .unwrap_or_default()
        .to_string()
}

/// Everything the page shows (`innerText` leaves out hidden tabs).
fn visible(b: &Browser) -> String {
    text(b, "page-play") + &b.eval("document.body.innerText").to_string()
}

/// Presses `key` on the board, as a player's keyboard does.
fn press(b: &Browser, key: &str) {
    b.eval(&format!(
        "document.getElementById('board').dispatchEvent(new KeyboardEvent('keydown', {{ key: {}, bubbles: true }})) || true",
        json!(key)
    ));
}

/// The game on the page and its twin, the library's game middle, which
/// gets every move the page gets.
struct Twin(Middle);

impl Twin {
    /// The game `setup` starts.
    fn of(setup: &Setup) -> Twin {
        let started = start(setup, &Budget::default()).expect("the twin's game");
        Twin(Middle::new(setup.clone(), started, Options::default()).0)
    }

    /// The game of a Tatham game ID, as the page opens it from its address.
    fn tatham(id: &str) -> Twin {
        let setup = Setup {
            start: Start::Text {
                text: id.into(),
                origin: "the link".into(),
            },
            ..Setup::default()
        };
        Twin::of(&setup)
    }

    fn game(&self) -> &bbx::play::game::Game {
        self.0.game()
    }

    /// A click at `at` on the page's board.
    fn click(&mut self, b: &Browser, at: Target) {
        b.click(&match at {
            Target::Border(q) => format!("#board [data-pos=\"{q}\"]"),
            Target::Cell(i) => format!("#board [data-cell=\"{i}\"]"),
        });
        self.0.apply(Move::Press {
            at,
            secondary: false,
        });
    }

    /// A right click at the cell or border position `at`.
    fn right_click(&mut self, b: &Browser, at: Target) {
        b.right_click(&match at {
            Target::Border(q) => format!("#board [data-pos=\"{q}\"]"),
            Target::Cell(i) => format!("#board [data-cell=\"{i}\"]"),
        });
        self.0.apply(Move::Press {
            at,
            secondary: true,
        });
    }

    /// A click on the button `css` (a tool or a dialog's choice), which
    /// makes `m`.
    fn button(&mut self, b: &Browser, css: &str, m: Move) {
        b.click(css);
        self.0.apply(m);
    }

    /// A key pressed on the board.
    fn key(&mut self, b: &Browser, key: &str) {
        press(b, key);
        self.0.key(key.parse::<Key>().unwrap());
    }

    /// The page draws the twin's board and status.
    fn check(&self, b: &Browser, what: &str) {
        let scene = self.0.scene();
        assert_eq!(board(b), shown(scene), "{what}");
        assert_eq!(text(b, "status"), scene.status.trim(), "{what}");
    }
}

/// `expr` (a link or game ID the page writes), once the page has written
/// them for the game as it stands: they follow a compression that takes a
/// moment after each change.
fn linked(b: &Browser, expr: &str) -> String {
    let ready = format!("document.documentElement.dataset.link === 'ready' && ({expr})");
    let v = b.wait_for(&ready, "the link of the game as it stands", WAIT);
    v.as_str().unwrap_or_default().to_string()
}

/// Starts a game from the New game form, as a player types it, with a
/// minute for each coach question; waits for it to be drawn, and returns
/// its twin.
fn new_game(b: &Browser, game: &str, seed: u64) -> Twin {
    b.click("#tab-game");
    b.type_into("#timeout", "60");
    b.type_into("#config", game);
    b.type_into("#seed", &seed.to_string());
    b.click("#new-form button[type=submit]");
    let form = Form {
        game: game.into(),
        seed: seed.to_string(),
        rules: "standard".into(),
        judge: "all-rays".into(),
        unique: false,
    };
    let twin = Twin::of(&Setup::from_form(&form).unwrap());
    let title = twin.0.scene().title.clone();
    b.wait_for(
        &format!(
            "document.getElementById('title').innerText === {}",
            json!(title)
        ),
        "the new game",
        WAIT,
    );
    twin
}

/// The coach's count on the rays on the board, once it is in (grouped in
/// thousands on the page): `(count, complete)`, complete when neither at
/// least nor about.
fn coach_count(b: &Browser) -> (u64, bool) {
    let count = "(m => m && [m[2].replace(/,/g, ''), !m[1]])(/(at least |about )?([\\d,]+) molecules? fits? the rays shot/.exec(document.getElementById('side').innerText))";
    let deadline = std::time::Instant::now() + WAIT;
    let v = loop {
        let v = b.eval(count);
        if !v.is_null() {
            break v;
        }
        assert!(
            std::time::Instant::now() < deadline,
            "no count from the coach within {WAIT:?}: {}",
            text(b, "side")
        );
        std::thread::sleep(Duration::from_millis(50));
    };
    (v[0].as_str().unwrap().parse().unwrap(), v[1] == json!(true))
}

/// The cells the board marks certain to be `what` (`atom`, `empty`).
fn certain(b: &Browser, what: &str) -> Vec<u64> {
    let v = b.eval(&format!(
        "[...document.querySelectorAll('#board [data-certain={what}]')].map(c => +c.dataset.cell)"
    ));
    let mut v: Vec<u64> = serde_json::from_value(v).unwrap();
    v.sort_unstable();
    v
}

/// The best ray the board marks, once the coach has answered.
fn best_ray(b: &Browser) -> u64 {
    let v = b.wait_for(
        "(s => s && s.dataset.pos)(document.querySelector('#board .slot.hot'))",
        "the best ray",
        WAIT,
    );
    v.as_str().unwrap().parse().unwrap()
}

fn sorted(v: &Value, key: &str) -> Vec<u64> {
    let mut c: Vec<u64> = serde_json::from_value(v[key].clone()).unwrap();
    c.sort_unstable();
    c
}

fn numbers(v: &Value) -> Vec<u64> {
    let s = v.as_str().unwrap_or_default();
    s.split(',')
        .filter(|x| !x.is_empty())
        .map(|x| x.parse().expect("a number"))
        .collect()
}

/// Places the hidden atoms on the page and its twin (the atoms of the
/// guess taken away first), hands in the guess and checks that the page
/// shows the win the library's referee gives.
fn guess_right(b: &Browser, twin: &mut Twin) {
    let hidden = twin.game().hidden().clone();
    for i in twin.game().guess().atoms().to_vec() {
        if !hidden.atoms().contains(&i) {
            twin.click(b, Target::Cell(i));
        }
    }
    for &i in hidden.atoms() {
        if !twin.game().is_guessed(i) {
            twin.click(b, Target::Cell(i));
        }
    }
    twin.button(b, "#guess", Move::Guess);
    let v = twin.game().verdict().expect("the verdict").clone();
    assert!(v.won, "the library's referee: {v:?}");
    b.wait_for(
        "document.getElementById('board').dataset.over === 'true'",
        "the verdict",
        WAIT,
    );
    twin.check(b, "the verdict");
    let said = text(b, "side");
    assert!(said.contains("YOU WIN"), "{said}");
    assert!(said.contains(&format!("score {}", v.score)), "{said}");
}

#[test]
fn the_page_plays_coaches_solves_and_shares_in_headless_chromium() {
    let Some(url) = page_or_skip() else {
        return;
    };
    let b = Browser::start(Screen::Desktop(1280, 900));

    // A game of Tatham's 5×5 with 3 balls, from its game ID in the address,
    // played by clicks beside the library's own game.
    let id = "w5h5m3M3:a8048f3fbbd74cba";
    let mut twin = Twin::tatham(id);
    open(&b, &format!("{url}#{id}"));
    assert_eq!(text(&b, "title"), twin.0.scene().title);
    twin.check(&b, "the start");
    for q in [1, 7, 12, 18, 3, 7] {
        twin.click(&b, Target::Border(q));
        twin.check(&b, &format!("after ray {q}"));
    }
    assert!(text(&b, "announce").contains("Ray 7"), "the shot is said");
    // Marks: the Mark empty tool, a right click; undo takes the last back.
    twin.button(&b, "#mark", Move::Marking);
    twin.click(&b, Target::Cell(6));
    twin.button(&b, "#mark", Move::Marking);
    twin.right_click(&b, Target::Cell(11));
    twin.check(&b, "the marks");
    twin.button(&b, "#undo", Move::Undo);
    twin.check(&b, "undone");
    // A wrong guess: three atoms off the hidden ones.
    let hidden = twin.game().hidden().clone();
    let wrong: Vec<usize> = (0..25)
        .filter(|i| !hidden.atoms().contains(i) && *i != 6)
        .take(3)
        .collect();
    for &i in &wrong {
        twin.click(&b, Target::Cell(i));
    }
    twin.check(&b, "the wrong atoms");

    // The link, opened in a fresh browser, restores the game as it stands,
    // undo included.
    let link = linked(&b, "location.href");
    assert!(link.contains("#bbx2."), "{link}");
    {
        let fresh = Browser::start(Screen::Desktop(1024, 768));
        open(&fresh, &link);
        twin.check(&fresh, "the link restored");
        let mut undone = Twin(
            Middle::new(
                Setup::default(),
                bbx::play::setup::Started::carried(
                    &twin.0.scene().share.link.clone().unwrap(),
                    Default::default(),
                )
                .unwrap(),
                Options::default(),
            )
            .0,
        );
        undone.button(&fresh, "#undo", Move::Undo);
        undone.check(&fresh, "undone after the link");
    }

    // The guess is wrong: the dialog, then play on (the ray shot and paid,
    // the wrong guess charged).
    twin.button(&b, "#guess", Move::Guess);
    b.wait_for(
        "!document.getElementById('dialog').hidden",
        "the wrong guess",
        WAIT,
    );
    assert!(text(&b, "dialog").contains("Your guess is wrong"));
    twin.button(&b, "#play-on", Move::PlayOn);
    twin.check(&b, "played on");
    guess_right(&b, &mut twin);
    assert_eq!(twin.game().verdict().unwrap().wrong_guesses, 1);

    // The molecules the rays allowed, drawn after the game, as bbx solve lists them.
    let dir = temp_dir("web");
    let game_file = dir.join("game.txt");
    std::fs::write(&game_file, format!("A3_B5 {}\n", twin.game().observation())).unwrap();
    let solved = json_ok(&["solve", game_file.to_str().unwrap(), "--max", "10000"]);
    let n = solved["molecules"].as_u64().unwrap();
    let fit = bbx::error::counted(n, "molecule fits", "molecules fit");
    let listed = b.wait_for(
        &format!(
            "(t => t.includes({}) && t)(document.getElementById('also').innerText)",
            json!(fit)
        ),
        "the molecules the rays allowed",
        WAIT,
    );
    let drawn = b.eval("document.querySelectorAll('#also figure').length");
    assert_eq!(drawn, json!(n.min(500)), "{listed}");

    // The coach on the standard game, started from the New game form:
    // count, certain cells and best ray as bbx suggest and bbx solve give them.
    let mut twin = new_game(&b, "A4_B8", 42);
    assert!(text(&b, "title").contains("A4_B8, standard rules, seed 42"));
    for q in [2, 11, 20, 29] {
        twin.click(&b, Target::Border(q));
    }
    for part in ["count", "certain", "best"] {
        b.click(&format!("#c-{part}"));
    }
    let position = dir.join("position.txt");
    std::fs::write(&position, format!("A4_B8 {}\n", twin.game().observation())).unwrap();
    let file = position.to_str().unwrap();
    let suggested = json_ok(&["suggest", file, "--max", "10000"]);
    let solved = json_ok(&["solve", file, "--max", "10000"]);
    let (count, complete) = coach_count(&b);
    assert_eq!(json!(count), suggested["molecules"]);
    assert_eq!(json!(complete), suggested["complete"]);
    assert_eq!(json!(best_ray(&b)), suggested["rays"][0]["position"]);
    b.wait_for(
        "document.querySelector('#board [data-certain=empty]')",
        "the certain cells",
        WAIT,
    );
    assert_eq!(certain(&b, "atom"), sorted(&solved, "certain_atoms"));
    assert_eq!(certain(&b, "empty"), sorted(&solved, "certain_empty"));
    let side = text(&b, "side");
    assert!(
        side.contains(&format!("best ray {} (", suggested["rays"][0]["position"])),
        "{side}"
    );

    // A Tatham game ID and a Tatham save file pasted into the solver: the
    // molecules bbx solve gives.
    b.click("#tab-solve");
    let save = std::fs::read_to_string(puzzle("tatham/a5-b8-checked-once.sav")).unwrap();
    for (pasted, name) in [(id, "id.txt"), (save.as_str(), "save.sav")] {
        let f = dir.join(name);
        std::fs::write(&f, pasted).unwrap();
        let solved = json_ok(&["solve", f.to_str().unwrap(), "--max", "10000"]);
        b.type_into("#solve-text", pasted);
        b.click("#solve-go");
        let got = b.wait_for(
            "document.getElementById('solve-out').dataset.molecules && Object.assign({}, document.getElementById('solve-out').dataset)",
            "the solver's answer",
            WAIT,
        );
        assert_eq!(
            got["molecules"],
            json!(solved["molecules"].to_string()),
            "{name}"
        );
        assert_eq!(got["complete"], json!("true"), "{name}");
        let drawn = b.eval("[...document.querySelectorAll('#solve-out figure[data-molecule]')].map(f => f.dataset.molecule)");
        let first: Vec<Value> = solved["found"]
            .as_array()
            .unwrap()
            .iter()
            .take(20)
            .map(|f| f["molecule"].clone())
            .collect();
        assert_eq!(drawn, json!(first), "{name}");
        assert_eq!(
            numbers(&got["certainAtoms"]),
            sorted(&solved, "certain_atoms"),
            "{name}"
        );
        let said = text(&b, "solve-out");
        let verdict = bbx::render::verdict(&bbx_solve(&f), &bbx::setting::Plain);
        assert!(said.contains(&verdict), "{said}: {verdict}");
    }

    // A Tatham save file opened: its game resumed, its lasers fired.
    b.click("#tab-game");
    let path = puzzle("tatham/a5-b8-checked-once.sav");
    b.send_keys("#open-file", &path);
    b.wait_for(
        "document.getElementById('title').innerText.includes('a5-b8-checked-once.sav')",
        "the save file opened",
        WAIT,
    );
    let t = parse_tatham(&save, "save").unwrap();
    let marks = board(&b)["marks"].as_str().unwrap().to_string();
    let seen = t.observation();
    for q in 1..=seen.shape().positions() {
        let shot = marks.chars().nth(q - 1) != Some(' ');
        assert_eq!(shot, seen.get(q).is_some(), "position {q}: {marks}");
    }
}

/// `bbx solve`'s report on the puzzle in `file`, from the library.
fn bbx_solve(file: &Path) -> bbx::solver::solve_report::SolveReport {
    let text = std::fs::read_to_string(file).unwrap();
    let p = bbx::puzzle::parse_puzzle(&text, "p", None).unwrap();
    let atoms = p
        .atoms
        .map_or_else(|| p.atom_range.clone().unwrap(), |n| n..=n);
    let limits = bbx::solver::Limits {
        max: Some(10_000),
        ..Default::default()
    };
    let rules = p.rules.unwrap_or_default();
    let found = bbx::solver::solve(&p.observation, rules, atoms, &limits, |_| {}).unwrap();
    let budget = bbx::control::Budget::default();
    bbx::solver::solve_report::SolveReport::new("p", found, p.guess.as_ref(), &budget)
}

#[test]
fn the_page_plays_rectangles_and_ranges_in_headless_chromium() {
    let Some(url) = page_or_skip() else {
        return;
    };
    let b = Browser::start(Screen::Desktop(1280, 900));
    let dir = temp_dir("web-rect");

    // Tatham's 8×6 game with 5 balls, from its game ID in the address.
    let shape = Shape::new(8, 6).unwrap();
    let rows = "--------/--O-----/O-------/-----O--/-O----O-/--------";
    let hidden = Molecule::new(shape, [10, 16, 29, 33, 38]).unwrap();
    let id = game_id(&TathamParams::parse("w8h6m5M5").unwrap(), &hidden).unwrap();
    let traced = json_ok(&["trace", "A5_B8x6", rows]);
    let mut twin = Twin::tatham(&id);
    open(&b, &format!("{url}#{id}"));
    twin.check(&b, "the start");
    assert_eq!(
        b.eval("document.getElementById('board').getAttribute('viewBox')"),
        json!("0 0 100 80")
    );
    assert_eq!(
        b.eval("document.querySelectorAll('#board [data-pos]').length"),
        json!(28)
    );
    assert!(
        text(&b, "title").contains("A5_B8x6"),
        "{}",
        text(&b, "title")
    );
    // Rays shot by clicks on every side, as bbx trace traces them.
    let traced_as = |twin: &Twin, q: usize| {
        let ray = &traced["rays"][q - 1];
        let got = json!(twin.game().observation().get(q).unwrap());
        assert_eq!(got["result"], ray["result"], "ray {q}");
        assert_eq!(got["exit"], ray["exit"], "ray {q}");
    };
    for q in [1, 6, 14, 20, 21, 2] {
        twin.click(&b, Target::Border(q));
        twin.check(&b, &format!("after ray {q}"));
        traced_as(&twin, q);
    }
    // The coach on the rectangle: count, certain cells and best ray as bbx
    // suggest and bbx solve give them; a chance in each of the 48 cells.
    for part in ["count", "certain", "best", "chance"] {
        b.click(&format!("#c-{part}"));
    }
    let position = dir.join("rect.txt");
    std::fs::write(
        &position,
        format!("A5_B8x6 {}\n", twin.game().observation()),
    )
    .unwrap();
    let file = position.to_str().unwrap();
    let suggested = json_ok(&["suggest", file, "--max", "10000"]);
    let solved = json_ok(&["solve", file, "--max", "10000"]);
    assert_eq!(
        coach_count(&b),
        (suggested["molecules"].as_u64().unwrap(), true)
    );
    assert_eq!(json!(best_ray(&b)), suggested["rays"][0]["position"]);
    assert_eq!(certain(&b, "atom"), sorted(&solved, "certain_atoms"));
    assert_eq!(certain(&b, "empty"), sorted(&solved, "certain_empty"));
    let heat = b.wait_for(
        "document.querySelector('#board .best') && document.querySelectorAll('#board .heat').length",
        "the heat map and the best ray's arrow",
        WAIT,
    );
    assert_eq!(heat, json!(48));

    for q in [15, 10] {
        twin.click(&b, Target::Border(q));
        twin.check(&b, &format!("after ray {q}"));
        traced_as(&twin, q);
    }
    // Keys: the cursor moves round the border, Enter shoots, m marks a
    // line, each as the library's middle reads the key.
    for key in [
        "ArrowDown",
        "ArrowDown",
        "ArrowDown",
        "Enter",
        "ArrowRight",
        "l",
        "Enter",
    ] {
        twin.key(&b, key);
        twin.check(&b, &format!("after the key {key}"));
    }
    for _ in 0..8 {
        twin.key(&b, "ArrowDown");
    }
    twin.key(&b, "Enter");
    for _ in 0..9 {
        twin.key(&b, "ArrowRight");
    }
    twin.key(&b, "m");
    twin.right_click(&b, Target::Border(21));
    twin.check(&b, "the lines marked by a key and a right click");
    assert!(!board(&b)["locked"].as_str().unwrap().is_empty());

    // Exported: the game ID gives the same game; the link, opened in a
    // fresh browser, the game as it stands.
    let shared = linked(&b, "document.getElementById('share-id').value");
    assert!(shared.starts_with("w8h6m5M5:"), "{shared}");
    assert_eq!(parse_tatham(&shared, "id").unwrap().hidden, hidden);
    let link = linked(&b, "location.href");
    {
        let fresh = Browser::start(Screen::Desktop(1024, 768));
        open(&fresh, &link);
        twin.check(&fresh, "the link restored");
    }
    // The guess: the hidden atoms, judged by the library's referee.
    guess_right(&b, &mut twin);

    // The game ID pasted into the solver: the molecules bbx solve gives,
    // drawn 8 wide and 6 high.
    b.click("#tab-solve");
    b.type_into("#solve-text", &id);
    b.click("#solve-go");
    let got = b.wait_for(
        "document.getElementById('solve-out').dataset.molecules && Object.assign({}, document.getElementById('solve-out').dataset)",
        "the solver's answer",
        WAIT,
    );
    let id_file = dir.join("id.txt");
    std::fs::write(&id_file, &id).unwrap();
    let solved = json_ok(&["solve", id_file.to_str().unwrap(), "--max", "10000"]);
    assert_eq!(got["molecules"], json!(solved["molecules"].to_string()));
    let boxes = b.eval("[...document.querySelectorAll('#solve-out figure svg')].map(s => s.getAttribute('viewBox'))");
    assert!(
        boxes.as_array().unwrap().iter().all(|v| v == "0 0 100 80"),
        "{boxes}"
    );
    // The first molecule's atoms drawn where its linear form puts them.
    let first = solved["found"][0]["molecule"]
        .as_str()
        .unwrap()
        .replace('/', "");
    let centres: Vec<Value> = first
        .chars()
        .enumerate()
        .filter(|&(_, c)| c == 'O')
        .map(|(i, _)| json!(format!("{},{}", (i % 8 + 1) * 10 + 5, (i / 8 + 1) * 10 + 5)))
        .collect();
    let drawn = b.eval(
        "[...document.querySelector('#solve-out figure[data-molecule]').querySelectorAll('circle.atom')].map(c => c.getAttribute('cx') + ',' + c.getAttribute('cy'))",
    );
    assert_eq!(drawn, json!(centres));

    // A box 5 wide and 3 high drawn for the solver: its border numbered as
    // bbx numbers it, exit pairs lettered in the order drawn, and one atom
    // in it placed in any of its 15 cells.
    b.type_into("#draw-width", "5");
    b.type_into("#draw-height", "3");
    b.eval("document.getElementById('draw-height').dispatchEvent(new Event('input')) || true");
    assert_eq!(
        b.eval("document.getElementById('draw').getAttribute('viewBox')"),
        json!("0 0 70 50")
    );
    let labels = b.eval(
        "Object.fromEntries([...document.querySelectorAll('#draw text.label')].map(t => [t.textContent, [t.getAttribute('x'), t.getAttribute('y')].join(',')]))",
    );
    assert_eq!(labels.as_object().unwrap().len(), 16);
    for (q, at) in [
        (1, "5,15"),
        (3, "5,35"),
        (4, "15,45"),
        (9, "65,35"),
        (11, "65,15"),
        (16, "15,5"),
    ] {
        assert_eq!(labels[q.to_string()], json!(at), "position {q}");
    }
    b.click("input[name=draw-tool][value=exit]");
    for (x, y) in [(5, 15), (65, 15), (15, 45), (15, 5)] {
        b.js(
            "const s = document.getElementById('draw'); const m = s.getScreenCTM(); const p = new DOMPoint(arguments[0], arguments[1]).matrixTransform(m); for (const t of ['pointerdown', 'pointerup']) s.dispatchEvent(new PointerEvent(t, { clientX: p.x, clientY: p.y, button: 0, pointerType: 'mouse', bubbles: true })); return true;",
            json!([x, y]),
        );
    }
    let marks = b
        .eval("[...document.querySelectorAll('#draw text.mark')].map(t => t.textContent).join('')");
    assert_eq!(marks, json!("abab"), "pairs lettered as drawn");
    b.click("#draw-clear");
    b.type_into("#solve-atoms", "1");
    b.click("#draw-go");
    let got = b.wait_for(
        "document.getElementById('solve-out').dataset.molecules && Object.assign({}, document.getElementById('solve-out').dataset)",
        "the drawing solved",
        WAIT,
    );
    assert_eq!(got["molecules"], json!("15"));
    b.type_into("#solve-atoms", "");

    // A range, 2 to 3 atoms in a 5×5 box, from the New game form: the count
    // is never told, the coach counts over the range, a right guess wins.
    let mut twin = new_game(&b, "A2-3_B5", 9);
    let n = twin.game().atoms();
    twin.check(&b, "the range");
    for q in [1, 8, 13] {
        twin.click(&b, Target::Border(q));
    }
    twin.check(&b, "rays on the range");
    // The coach's switches stay as they were from game to game.
    assert_eq!(
        b.eval("document.getElementById('c-count').checked"),
        json!(true)
    );
    let position = dir.join("range.txt");
    std::fs::write(&position, format!("A2_B5 {}\n", twin.game().observation())).unwrap();
    let suggested = json_ok(&[
        "suggest",
        position.to_str().unwrap(),
        "--atoms",
        "2..3",
        "--max",
        "10000",
    ]);
    assert_eq!(json!(coach_count(&b).0), suggested["molecules"]);
    let play = text(&b, "page-play");
    assert!(!play.contains(&format!("{n} hidden")) || n == 3, "{play}");
    assert!(play.contains("2 to 3 hidden"), "{play}");
    guess_right(&b, &mut twin);

    // Tatham's preset by name from the menu: his game of the seed, the
    // range told and the count not.
    b.click("#tab-game");
    b.eval("(() => { const s = document.getElementById('preset'); s.value = '8x8, 3-6 balls'; s.dispatchEvent(new Event('change')); return true; })()");
    b.type_into("#seed", "5");
    b.click("#new-form button[type=submit]");
    b.wait_for(
        "document.getElementById('title').innerText.includes('8x8, 3-6 balls')",
        "Tatham's preset",
        WAIT,
    );
    let twin = Twin::of(&Setup {
        start: Start::Tatham(TathamParams::preset("8x8, 3-6 balls").unwrap()),
        seed: Some(5),
        ..Setup::default()
    });
    twin.check(&b, "Tatham's preset");
    let shared = linked(&b, "document.getElementById('share-id').value");
    assert_eq!(
        parse_tatham(&shared, "id").unwrap().hidden,
        *twin.game().hidden()
    );
}

/// Chooses `policy` ("" for none) in the coach's menu, as a player does.
fn choose_policy(b: &Browser, policy: &str) {
    b.eval(&format!(
        "(() => {{ const s = document.getElementById('c-policy'); s.value = {}; s.dispatchEvent(new Event('change')); return true; }})()",
        json!(policy)
    ));
}

/// The line of the side panel that names `policy`'s next ray, once the
/// coach has answered with it.
fn policy_said(b: &Browser, policy: &str) -> String {
    let v = b.wait_for(
        &format!(
            "[...document.querySelectorAll('#side p')].map(p => p.textContent).find(t => t.startsWith({}))",
            json!(format!("{policy}'s next ray"))
        ),
        "the policy's next ray",
        WAIT,
    );
    v.as_str().unwrap().to_string()
}

/// The sentence `bbx play`'s coach ends its best-ray panel with, for
/// `bbx suggest --json`'s `policy` object, in a box of `shape`.
fn next_ray_sentence(shape: Shape, p: &Value) -> String {
    let name = p["name"].as_str().unwrap();
    let ray = p["ray"].as_u64().expect("a next ray") as usize;
    let mut said = format!(
        "{name}'s next ray: {ray} ({})",
        bbx::render::position_name(shape, ray)
    );
    if let Some(c) = p["candidates"].get(0) {
        said.push_str(&format!(
            ", {:.1} rays",
            c["expected_rays"].as_f64().unwrap()
        ));
    }
    said
}

#[test]
fn the_page_s_coach_names_a_policy_s_next_ray_in_headless_chromium() {
    let Some(url) = page_or_skip() else {
        return;
    };
    let b = Browser::start(Screen::Desktop(1280, 900));
    let dir = temp_dir("web-policy");
    open(&b, &url);
    let mut twin = new_game(&b, "A3_B5", 7);
    for q in [1, 7, 12] {
        twin.click(&b, Target::Border(q));
    }
    let shape = Shape::new(5, 5).unwrap();
    let position = dir.join("position.txt");
    std::fs::write(&position, format!("A3_B5 {}\n", twin.game().observation())).unwrap();
    let file = position.to_str().unwrap();
    let rings = "document.querySelectorAll('#board circle.next-ray').length";

    // Without a policy: the best ray, and no policy's line or ring.
    b.click("#c-best");
    best_ray(&b);
    assert!(!text(&b, "side").contains("next ray"));
    assert_eq!(b.eval(rings), json!(0));

    // Greedy, then rollout: the ray bbx suggest --policy gives, in bbx
    // play's words, ringed on the border; the best ray stays.
    for policy in ["greedy", "rollout"] {
        choose_policy(&b, policy);
        let said = policy_said(&b, policy);
        let suggested = json_ok(&["suggest", file, "--policy", policy, "--max-rays", "1"]);
        let p = &suggested["policy"];
        assert_eq!(said, next_ray_sentence(shape, p), "{policy}");
        assert_eq!(json!(best_ray(&b)), suggested["rays"][0]["position"]);
        let ringed = b.eval("document.querySelector('#board .slot.next').dataset.pos");
        assert_eq!(ringed, json!(p["ray"].to_string()), "{policy}");
        assert_eq!(b.eval(rings), json!(1));
    }

    // Fewer molecules listed than fit: the policy weighs them all all the
    // same, listed from the exact count, as suggest does.
    b.click("#tab-game");
    b.type_into("#max", "2");
    b.click("#tab-play");
    choose_policy(&b, "greedy");
    let said = policy_said(&b, "greedy");
    let suggested = json_ok(&["suggest", file, "--policy", "greedy", "--max", "2"]);
    assert_eq!(suggested["policy"]["unanswered"], Value::Null);
    assert_eq!(said, next_ray_sentence(shape, &suggested["policy"]));
    assert_eq!(b.eval(rings), json!(1));

    // None again: the line and the ring are gone.
    b.click("#tab-game");
    b.type_into("#max", "10000");
    b.click("#tab-play");
    choose_policy(&b, "");
    b.wait_for(
        "!document.getElementById('side').innerText.includes('next ray') && document.querySelector('#board .slot.hot')",
        "the policy's line gone",
        WAIT,
    );
    assert_eq!(b.eval(rings), json!(0));
}

// ---------------------------------------------------------------------------
// The page's defects of issue 38, each of which these tests found on the
// page as it was.
// ---------------------------------------------------------------------------

/// The New · Open · Share tab says its errors and confirmations on the tab
/// itself, where the player looks: a game that is not one, a seed that is
/// not a number, a paste that is not a game, a link copied.
#[test]
fn the_new_open_share_tab_says_what_it_did_where_it_is_seen() {
    let Some(url) = page_or_skip() else {
        return;
    };
    let b = Browser::start(Screen::Desktop(1280, 900));
    open(&b, &url);
    b.click("#tab-game");
    let seen = |what: &str, needle: &str| {
        b.wait_for(
            &format!("document.body.innerText.includes({})", json!(needle)),
            what,
            Duration::from_secs(20),
        );
    };
    b.type_into("#config", "A99_B8");
    b.click("#new-form button[type=submit]");
    seen("the error of A99_B8", "A99_B8");
    b.type_into("#config", "A4_B8");
    b.type_into("#seed", "hello");
    b.click("#new-form button[type=submit]");
    seen("the error of the seed hello", "hello");
    b.type_into("#seed", "");
    b.type_into("#open-text", "asdf");
    b.click("#open-play");
    seen("the error of the paste asdf", "the text pasted");
    b.click("#copy-link");
    seen("the link copied, or why not", "copied");
    assert!(b.eval("document.getElementById('page-game').hidden") == json!(false));
}

/// A page opened at an address that holds no game says so where it is
/// seen, plays a game of its own, and is ready, with no error thrown.
#[test]
fn a_bad_address_is_said_and_a_game_is_played_instead() {
    let Some(url) = page_or_skip() else {
        return;
    };
    let b = Browser::start(Screen::Desktop(1280, 900));
    for hash in [
        "#w8h8m4M4:zzzz",
        "#w200h200m4M4:0123456789abcdef0123",
        "#%E0%A4%A",
        "#bbx2.cut-short",
    ] {
        reopen(&b, &format!("{url}{hash}"));
        b.eval("(window.thrown = [], addEventListener('error', e => thrown.push(e.message)), addEventListener('unhandledrejection', e => thrown.push(String(e.reason))), true)");
        let said = b.wait_for(
            "(e => e && e.checkVisibility() && e.innerText)(document.querySelector('#announce.bad'))",
            "a visible error",
            WAIT,
        );
        assert!(
            said.as_str().unwrap().contains("the link"),
            "{hash}: {said}"
        );
        assert_eq!(
            b.eval("document.querySelectorAll('#board [data-cell]').length"),
            json!(64),
            "{hash}: a game of A4_B8"
        );
        b.click("#board [data-pos=\"1\"]");
        assert_ne!(
            board(&b)["marks"].as_str().unwrap().chars().next(),
            Some(' '),
            "{hash}"
        );
        b.click("#guess");
        b.click("#board [data-cell=\"0\"]");
        assert_eq!(b.eval("window.thrown"), json!([]), "{hash}");
    }
}

/// A wrong guess is kept by the link: reloaded, the page asks again
/// whether to play on, and playing on charges the wrong guess.
#[test]
fn a_wrong_guess_survives_a_reload() {
    let Some(url) = page_or_skip() else {
        return;
    };
    let b = Browser::start(Screen::Desktop(1280, 900));
    let id = "w5h5m3M3:a8048f3fbbd74cba";
    let mut twin = Twin::tatham(id);
    open(&b, &format!("{url}#{id}"));
    let hidden = twin.game().hidden().clone();
    let wrong: Vec<usize> = (0..25)
        .filter(|i| !hidden.atoms().contains(i))
        .take(3)
        .collect();
    for &i in &wrong {
        twin.click(&b, Target::Cell(i));
    }
    twin.button(&b, "#guess", Move::Guess);
    b.wait_for(
        "!document.getElementById('play-on').closest('[hidden]')",
        "the wrong guess",
        WAIT,
    );
    let link = linked(&b, "location.href");
    reopen(&b, &link);
    b.wait_for(
        "document.getElementById('play-on') && !document.getElementById('play-on').closest('[hidden]')",
        "the wrong guess asked again after the reload",
        Duration::from_secs(10),
    );
    twin.button(&b, "#play-on", Move::PlayOn);
    let g = twin.game();
    assert_eq!((g.wrong_guesses(), g.score()), (1, g.ray_score() + 5));
    twin.check(&b, "played on after the reload");
}

/// Starting a game from the New game form leaves the keys on the board.
#[test]
fn the_board_has_the_keys_after_start() {
    let Some(url) = page_or_skip() else {
        return;
    };
    let b = Browser::start(Screen::Desktop(1280, 900));
    open(&b, &url);
    new_game(&b, "A4_B8", 3);
    b.wait_for(
        "document.activeElement && document.activeElement.id === 'board'",
        "the focus on the board",
        Duration::from_secs(10),
    );
}

/// On a phone 390 pixels wide the Game menu fits its card and the tab
/// does not scroll sideways.
#[test]
fn the_new_game_tab_fits_a_phone() {
    let Some(url) = page_or_skip() else {
        return;
    };
    let b = Browser::start(Screen::Phone(390, 844, 2.0));
    open(&b, &url);
    b.click("#tab-game");
    let fit = b.eval(
        "(() => { const s = document.getElementById('preset').getBoundingClientRect(); const c = document.getElementById('new-form').getBoundingClientRect(); return [s.right <= c.right, document.documentElement.scrollWidth <= innerWidth, s.right, c.right, document.documentElement.scrollWidth]; })()",
    );
    assert_eq!((&fit[0], &fit[1]), (&json!(true), &json!(true)), "{fit}");
}

/// After a game of 4 to 5 balls lost with 5 placed where 4 are hidden, the
/// page never says "5 of 4 placed".
#[test]
fn a_range_s_verdict_says_no_count_it_did_not_hide() {
    let Some(url) = page_or_skip() else {
        return;
    };
    let b = Browser::start(Screen::Desktop(1280, 900));
    open(&b, &url);
    let seed = (1..)
        .find(|&s| {
            let setup = Setup::from_form(&Form {
                game: "A4-5_B5".into(),
                seed: format!("{s}"),
                ..Form::default()
            });
            start(&setup.unwrap(), &Budget::default())
                .unwrap()
                .game
                .atoms()
                == 4
        })
        .unwrap();
    let mut twin = new_game(&b, "A4-5_B5", seed);
    let hidden = twin.game().hidden().clone();
    let cells: Vec<usize> = (0..25)
        .filter(|i| !hidden.atoms().contains(i))
        .take(5)
        .collect();
    for &i in &cells {
        twin.click(&b, Target::Cell(i));
    }
    b.click("#guess");
    if b.eval("document.getElementById('end-game') && !document.getElementById('end-game').closest('[hidden]')") == json!(true) {
        b.click("#end-game");
    }
    b.wait_for(
        "document.getElementById('board').dataset.over === 'true'",
        "the verdict",
        WAIT,
    );
    let said = visible(&b);
    assert!(!said.contains("5 of 4"), "{said}");
}

/// A game restored from its link keeps its title, seed included.
#[test]
fn a_restored_game_keeps_its_title() {
    let Some(url) = page_or_skip() else {
        return;
    };
    let b = Browser::start(Screen::Desktop(1280, 900));
    open(&b, &url);
    let mut twin = new_game(&b, "A4_B8", 42);
    twin.click(&b, Target::Border(5));
    let link = linked(&b, "location.href");
    reopen(&b, &link);
    assert_eq!(text(&b, "title"), "A4_B8, standard rules, seed 42");
}

/// Accepts the question the page asks (`confirm` on the page as it was, a
/// dialog of the scene now).
fn confirm(b: &Browser) {
    std::thread::sleep(Duration::from_millis(200));
    if b.alert_text().is_some() {
        b.accept_dialog();
    } else {
        b.click("#confirm");
    }
}

/// The first ray of the Tatham game of these tests that scores 1 point
/// (absorbed or reflected), and the first absorbed inside the box.
fn rays_of(twin: &Twin) -> (usize, usize) {
    let (hidden, rules) = (twin.game().hidden().clone(), twin.game().rules());
    let trail = |q| bbx::play::marks::trail(&hidden, rules, q);
    let one = (1..=20).find(|&q| {
        matches!(
            trail(q).outcome,
            bbx::Outcome::Reflected | bbx::Outcome::Absorbed
        )
    });
    let absorbed = (1..=20).find(|&q| {
        let t = trail(q);
        t.outcome == bbx::Outcome::Absorbed && !t.cells.is_empty()
    });
    (
        one.expect("a ray worth 1 point"),
        absorbed.expect("a ray absorbed inside the box"),
    )
}

/// Resigning after 1 point: the question counts it in good English.
#[test]
fn resigning_counts_the_points_in_good_english() {
    let Some(url) = page_or_skip() else {
        return;
    };
    let b = Browser::start(Screen::Desktop(1280, 900));
    let id = "w5h5m3M3:a8048f3fbbd74cba";
    let twin = Twin::tatham(id);
    open(&b, &format!("{url}#{id}"));
    let (one, _) = rays_of(&twin);
    b.click(&format!("#board [data-pos=\"{one}\"]"));
    b.click("#resign");
    std::thread::sleep(Duration::from_millis(200));
    let asked = match b.alert_text() {
        Some(t) => t,
        None => text(&b, "dialog"),
    };
    assert!(!asked.contains("1 points"), "{asked}");
    assert!(asked.contains("1 point"), "{asked}");
    confirm(&b);
}

/// After the game, the path of an absorbed ray reaches its atom.
#[test]
fn an_absorbed_path_reaches_its_atom() {
    let Some(url) = page_or_skip() else {
        return;
    };
    let b = Browser::start(Screen::Desktop(1280, 900));
    let id = "w5h5m3M3:a8048f3fbbd74cba";
    let twin = Twin::tatham(id);
    open(&b, &format!("{url}#{id}"));
    let (_, absorbed) = rays_of(&twin);
    b.click("#resign");
    confirm(&b);
    b.wait_for(
        "document.getElementById('board').dataset.over === 'true' || document.querySelector('#verdict:not([hidden])')",
        "the answer",
        WAIT,
    );
    let (hidden, rules) = (twin.game().hidden().clone(), twin.game().rules());
    let (r, c) = bbx::play::marks::trail(&hidden, rules, absorbed)
        .atom
        .unwrap();
    b.click(&format!("#board [data-pos=\"{absorbed}\"]"));
    let end = b.wait_for(
        "(p => p && p.getAttribute('points').split(' ').pop())(document.querySelector('#board polyline.path:not(.guess)'))",
        "the absorbed ray's path",
        WAIT,
    );
    assert_eq!(end, json!(format!("{},{}", c * 10 + 5, r * 10 + 5)));
}

/// The coach's legend says what the coach is doing.
#[test]
fn the_coach_legend_says_whether_the_coach_is_on() {
    let Some(url) = page_or_skip() else {
        return;
    };
    let b = Browser::start(Screen::Desktop(1280, 900));
    open(&b, &url);
    let legend = "document.querySelector('#coach legend').innerText";
    assert!(b.eval(legend).as_str().unwrap().contains("off until asked"));
    b.click("#c-count");
    std::thread::sleep(Duration::from_millis(200));
    let said = b.eval(legend);
    assert!(
        !said.as_str().unwrap().contains("off until asked"),
        "{said}"
    );
}

/// On a touch screen, where nothing hovers, the border shows its numbers.
#[test]
fn the_border_shows_its_numbers_without_hovering() {
    let Some(url) = page_or_skip() else {
        return;
    };
    let b = Browser::start(Screen::Phone(390, 844, 2.0));
    open(&b, &url);
    let labels =
        b.eval("[...document.querySelectorAll('#board text.label')].map(t => +t.textContent)");
    assert_eq!(labels, json!((1..=32).collect::<Vec<_>>()));
}

/// A first-time player is told, where it is seen, to click the border.
#[test]
fn a_first_visit_says_to_click_the_border() {
    let Some(url) = page_or_skip() else {
        return;
    };
    let b = Browser::start(Screen::Phone(390, 844, 2.0));
    open(&b, &url);
    let said =
        b.eval("(e => e.checkVisibility() && e.innerText)(document.getElementById('announce'))");
    assert!(
        said.as_str()
            .is_some_and(|s| s.contains("Click the border")),
        "{said}"
    );
}

/// The page names its icon, so that the browser asks for no favicon.ico
/// (which a page opened from a folder does not have).
#[test]
fn the_page_names_its_icon() {
    let Some(url) = page_or_skip() else {
        return;
    };
    let b = Browser::start(Screen::Desktop(1024, 768));
    open(&b, &url);
    let icon = b.eval("(l => l && l.href)(document.querySelector('link[rel~=icon]'))");
    assert!(
        icon.as_str().is_some_and(|h| h.starts_with("data:")),
        "{icon}"
    );
}

/// The median of `v`.
fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

/// Asks the coach for the best ray on the board as it stands and returns
/// the time it took, from the click to the best ray drawn (ms).
fn best_ray_time(b: &Browser, click: &str) -> f64 {
    b.eval("(window.clicked = performance.now(), true)");
    b.click(click);
    // The best ray ringed, or none needed (one molecule fits), or not
    // ranked (and then why).
    b.wait_for(
        "document.querySelector('#board .slot.hot') || /best ray: (none|not ranked)/.test(document.getElementById('side').innerText)",
        "the best ray",
        WAIT,
    );
    b.eval("performance.now() - window.clicked")
        .as_f64()
        .unwrap()
}

/// The figures of docs/performance.md: the page's start from the local
/// folder, the coach's best ray at the opening of the standard game and
/// later, and what the page weighs.
#[test]
#[ignore = "a measurement: run with --ignored --nocapture"]
fn measure_the_page() {
    let Some(url) = page_or_skip() else {
        return;
    };
    let mut ready = Vec::new();
    let mut opening = Vec::new();
    let mut later = Vec::new();
    for seed in 1..=5 {
        let b = Browser::start(Screen::Desktop(1280, 900));
        open(&b, &url);
        ready.push(b.eval("window.bbxReady.sinceNavigation").as_f64().unwrap());
        new_game(&b, "A4_B8", seed);
        opening.push(best_ray_time(&b, "#c-best"));
        for q in [3, 14, 22, 27, 6, 19] {
            if board(&b)["over"] == json!("true") {
                break;
            }
            later.push(best_ray_time(&b, &format!("#board [data-pos=\"{q}\"]")));
        }
    }
    let max = |v: &[f64]| v.iter().copied().fold(0.0, f64::max);
    println!(
        "page ready after navigation (ms): median {:.0}, all {ready:.0?}",
        median(ready.clone())
    );
    println!(
        "opening best ray, click to arrow (ms): median {:.0} max {:.0}",
        median(opening.clone()),
        max(&opening)
    );
    println!(
        "later positions ({}) best ray (ms): median {:.0} max {:.0}",
        later.len(),
        median(later.clone()),
        max(&later)
    );
    let html = root().join("web/dist/index.html");
    let bytes = std::fs::metadata(&html).unwrap().len();
    println!("web/dist/index.html: {bytes} bytes");

    // Tatham's presets: the coach's answer at the opening and after each
    // of three rays (the first positions not yet lit of 2, 7, 12, 17, …),
    // three games each.
    for game in ["A3_B5", "A5_B8", "A3-6_B8", "A4-10_B10"] {
        let mut times = Vec::new();
        for seed in 1..=3 {
            let b = Browser::start(Screen::Desktop(1280, 900));
            open(&b, &url);
            let mut twin = new_game(&b, game, seed);
            times.push(best_ray_time(&b, "#c-best"));
            for _ in 0..3 {
                let Some(q) = (2..).step_by(5).take_while(|&q| q <= 40).find(|&q| {
                    twin.game().observation().get(q).is_none()
                        && q <= twin.game().observation().shape().positions()
                }) else {
                    break;
                };
                times.push(best_ray_time(&b, &format!("#board [data-pos=\"{q}\"]")));
                twin.0.apply(Move::Press {
                    at: Target::Border(q),
                    secondary: false,
                });
            }
        }
        println!(
            "{game}: best ray (ms) median {:.0} max {:.0} over {} answers",
            median(times.clone()),
            max(&times),
            times.len()
        );
    }

    // Rollout's next ray at A4_B8's opening, from choosing it in the menu
    // to its line in the side panel.
    let mut rollout = Vec::new();
    for seed in 1..=3 {
        let b = Browser::start(Screen::Desktop(1280, 900));
        open(&b, &url);
        new_game(&b, "A4_B8", seed);
        best_ray_time(&b, "#c-best");
        b.eval("(window.chosen = performance.now(), true)");
        choose_policy(&b, "rollout");
        policy_said(&b, "rollout");
        rollout.push(
            b.eval("performance.now() - window.chosen")
                .as_f64()
                .unwrap(),
        );
    }
    println!(
        "rollout's next ray at A4_B8's opening (ms): median {:.0} max {:.0}",
        median(rollout.clone()),
        max(&rollout)
    );
}

/// Screenshots of the page at a phone's and a desktop's size, into
/// `target/web-shots/`, to look at (`readme-play.png` is docs/web.png).
#[test]
#[ignore = "screenshots to look at: run with --ignored"]
fn screenshots() {
    let Some(url) = page_or_skip() else {
        return;
    };
    let out = root().join("target/web-shots");
    std::fs::create_dir_all(&out).unwrap();
    for (name, screen) in [
        ("phone", Screen::Phone(390, 844, 2.0)),
        ("desktop", Screen::Desktop(1280, 800)),
        // README's picture (docs/web.png): the game with the coach.
        ("readme", Screen::Desktop(1040, 780)),
    ] {
        let b = Browser::start(screen);
        open(&b, &format!("{url}#w8h8m5M5:925fa66636a72ed6ae1c5015"));
        for q in [3, 12, 19, 28, 24] {
            b.click(&format!("#board [data-pos=\"{q}\"]"));
        }
        b.click("#board [data-cell=\"21\"]");
        for part in ["count", "certain", "best", "chance"] {
            b.click(&format!("#c-{part}"));
        }
        best_ray(&b);
        b.eval("window.scrollTo(0, 0) || true");
        b.screenshot(&out.join(format!("{name}-play.png")));
        b.eval("document.getElementById('coach').scrollIntoView() || true");
        b.screenshot(&out.join(format!("{name}-coach.png")));
        // Rollout's next ray, ringed, at the end of the best ray's part.
        choose_policy(&b, "rollout");
        policy_said(&b, "rollout");
        b.eval("document.getElementById('side').scrollIntoView() || true");
        b.screenshot(&out.join(format!("{name}-policy.png")));
        choose_policy(&b, "");
        for q in [4, 9, 14, 30, 21, 10] {
            b.click(&format!("#board [data-pos=\"{q}\"]"));
        }
        b.click("#resign");
        confirm(&b);
        b.wait_for(
            "document.getElementById('board').dataset.over === 'true'",
            "the answer",
            WAIT,
        );
        b.eval("window.scrollTo(0, 0) || true");
        b.screenshot(&out.join(format!("{name}-resign.png")));
        b.click("#tab-solve");
        b.type_into(
            "#solve-text",
            &std::fs::read_to_string(puzzle("tatham/a5-b8-checked-once.sav")).unwrap(),
        );
        b.click("#solve-go");
        b.wait_for(
            "document.getElementById('solve-out').dataset.molecules",
            "the solver",
            WAIT,
        );
        b.eval("document.getElementById('solve-out').scrollIntoView() || true");
        std::thread::sleep(Duration::from_millis(500));
        b.screenshot(&out.join(format!("{name}-solve.png")));
        b.click("#tab-game");
        b.screenshot(&out.join(format!("{name}-game.png")));
        b.click("#tab-help");
        b.screenshot(&out.join(format!("{name}-help.png")));
    }
    println!("screenshots in {}", out.display());
}
