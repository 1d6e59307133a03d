//! The web page (`web/dist/index.html`, built by `web/build`) in a real
//! headless Chromium, opened from the local folder (`file://`) as a player
//! would, driven through WebDriver (`chromedriver` on a free loopback port):
//! a game played to the verdict by clicks, against the library's own game
//! step by step (same marks, referee and score); the coach's count, certain
//! cells and best ray against `bbx suggest --json` and `bbx solve --json` on
//! the same position; a Tatham game ID and save file pasted into the solver
//! against `bbx solve`; a Tatham save file opened; a link opened in a fresh
//! browser restoring the game.
//!
//! Without `chromium` and `chromedriver`, or without a built page, the test
//! prints why and passes (`.ci/run` installs both and builds the page
//! first); a page older than the sources it is built from fails, saying to
//! run `web/build`. The timings of docs/performance.md and the screenshots
//! of docs/web.md come from the ignored tests at the end:
//! `cargo test --release --test integration web:: -- --ignored --nocapture`.

use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

use bbx::play::game::Game;
use bbx::play::referee::Judge;
use bbx::play::setup::{Setup, Start, start};
use bbx::puzzle::{TathamParams, game_id, parse_tatham};
use bbx::rules::config::Shape;
use bbx::{Molecule, Rules};
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
            eprintln!("skipped: {why}");
            None
        }
    }
}

/// Opens `url` and waits until the page has started its game.
fn open(b: &Browser, url: &str) {
    b.open(url);
    b.wait_for("document.body.dataset.ready", "the page starts", WAIT);
}

/// What the board shows: rays, atoms, marks, score.
fn board(b: &Browser) -> Value {
    b.eval("Object.assign({}, document.getElementById('board').dataset)")
}

/// The library's game as the board should show it.
fn expected(g: &Game) -> Value {
    let list = |v: Vec<usize>| v.iter().map(usize::to_string).collect::<Vec<_>>().join(",");
    let shape = g.shape();
    let empty: Vec<usize> = (0..shape.cells())
        .filter(|&i| g.is_marked_empty(i))
        .collect();
    json!({
        "width": shape.width.to_string(),
        "height": shape.height.to_string(),
        "observation": g.observation().to_string(),
        "guess": list(g.guess().atoms().to_vec()),
        "empty": list(empty),
        "over": g.is_over().to_string(),
        "score": g.verdict().map_or(g.ray_score(), |v| v.score).to_string(),
    })
}

/// `expr` (a link or game ID the page writes), once the page has written
/// them for the game as it stands: they follow a compression that takes a
/// moment after each change.
fn linked(b: &Browser, expr: &str) -> String {
    let ready = format!("document.documentElement.dataset.link === 'ready' && ({expr})");
    let v = b.wait_for(&ready, "the link of the game as it stands", WAIT);
    v.as_str().unwrap_or_default().to_string()
}

/// Starts a game of `config` from the New game form, with `seed` and a
/// minute for each coach question, and waits for its title to name both.
fn new_game(b: &Browser, config: &str, seed: u64) {
    b.click("#tab-game");
    b.type_into("#timeout", "60");
    b.type_into("#config", config);
    b.type_into("#seed", &seed.to_string());
    b.click("#new-form button[type=submit]");
    b.wait_for(
        &format!(
            "(t => t.includes('{config}') && t.includes('seed {seed}'))(document.getElementById('title').innerText)"
        ),
        "the new game",
        WAIT,
    );
}

/// Places the `hidden` atoms on the page and its `twin`, submits the guess
/// and checks that the page shows the win and the score the library's
/// referee gives: that verdict.
fn guess_right(b: &Browser, twin: &mut Game, hidden: &Molecule) -> bbx::play::referee::Verdict {
    for &i in hidden.atoms() {
        b.click(&format!("#board [data-cell=\"{i}\"]"));
        twin.toggle(i);
    }
    b.click("#guess");
    let verdict = twin.submit().unwrap().clone();
    assert!(verdict.won, "the library's referee: {verdict:?}");
    b.wait_for(
        "!document.getElementById('verdict').hidden",
        "the verdict",
        WAIT,
    );
    assert_eq!(board(b), expected(twin));
    let said = text(b, "verdict");
    assert!(said.contains("You win"), "{said}");
    assert!(said.contains(&format!("score {}", verdict.score)), "{said}");
    verdict
}

fn text(b: &Browser, id: &str) -> String {
    b.eval(&format!("document.getElementById('{id}').innerText"))
        .as_str()
        .unwrap_or_default()
        .to_string()
}

fn numbers(v: &Value) -> Vec<u64> {
    let s = v.as_str().unwrap_or_default();
    s.split(',')
        .filter(|x| !x.is_empty())
        .map(|x| x.parse().expect("a number"))
        .collect()
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
    let hidden: Molecule = parse_tatham(id, "id").unwrap().hidden;
    let mut twin = Game::new(hidden.clone(), Rules::Standard, Judge::AllRays);
    open(&b, &format!("{url}#{id}"));
    assert_eq!(board(&b), expected(&twin));
    for q in [1, 7, 12, 18, 3, 7] {
        b.click(&format!("#board [data-pos=\"{q}\"]"));
        twin.shoot(q);
        assert_eq!(board(&b), expected(&twin), "after ray {q}");
    }
    assert!(text(&b, "announce").contains("ray 7"), "the shot is said");
    // Marks: the Mark empty tool, a right click; undo takes the last back.
    b.click("#mark");
    b.click("#board [data-cell=\"6\"]");
    b.click("#mark");
    twin.mark_empty(&[6]);
    b.right_click("#board [data-cell=\"11\"]");
    twin.mark_empty(&[11]);
    assert_eq!(board(&b), expected(&twin));
    b.click("#undo");
    twin.undo();
    assert_eq!(board(&b), expected(&twin));
    // A wrong guess: three atoms off the hidden ones.
    let wrong: Vec<usize> = (0..25)
        .filter(|i| !hidden.atoms().contains(i) && *i != 6)
        .take(3)
        .collect();
    for &i in &wrong {
        b.click(&format!("#board [data-cell=\"{i}\"]"));
        twin.toggle(i);
    }
    assert_eq!(board(&b), expected(&twin));

    // The link, opened in a fresh browser, restores the game as it stands,
    // undo included.
    let link = linked(&b, "location.href");
    assert!(link.contains("#bbx1."), "{link}");
    {
        let fresh = Browser::start(Screen::Desktop(1024, 768));
        open(&fresh, &link);
        assert_eq!(board(&fresh), expected(&twin));
        assert_eq!(text(&fresh, "status"), text(&b, "status"));
        let mut undone = twin.clone();
        undone.undo();
        fresh.click("#undo");
        assert_eq!(board(&fresh), expected(&undone));
    }

    b.click("#guess");
    b.wait_for(
        "!document.getElementById('wrong').hidden",
        "the wrong guess is said",
        WAIT,
    );
    let v = twin.check().unwrap();
    assert!(!v.won);
    assert!(text(&b, "wrong").contains("Your guess is wrong"));
    b.click("#play-on");
    let shown = twin.play_on().expect("the ray that tells");
    assert_eq!(board(&b), expected(&twin), "play on shoots ray {shown}");
    for &i in &wrong {
        b.click(&format!("#board [data-cell=\"{i}\"]"));
        twin.toggle(i);
    }
    let verdict = guess_right(&b, &mut twin, &hidden);
    assert_eq!(verdict.wrong_guesses, 1);
    // The molecules the rays allowed, drawn after the game, as bbx solve lists them.
    let dir = temp_dir("web");
    let game_file = dir.join("game.txt");
    std::fs::write(&game_file, format!("A3_B5 {}\n", twin.observation())).unwrap();
    let solved = json_ok(&["solve", game_file.to_str().unwrap(), "--max", "10000"]);
    let listed = b.wait_for(
        "document.querySelector('#also h3') && document.getElementById('also').innerText",
        "the molecules the rays allowed",
        WAIT,
    );
    let n = solved["molecules"].as_u64().unwrap();
    let fit = if n == 1 {
        "1 molecule fits".to_string()
    } else {
        format!("{n} molecules fit")
    };
    assert!(listed.as_str().unwrap().contains(&fit), "{listed}: {fit}");

    // The coach on the standard game, started from the New game form:
    // count, certain cells and best ray as bbx suggest and bbx solve give them.
    new_game(&b, "A4_B8", 42);
    assert!(text(&b, "title").contains("A4_B8, standard rules, seed 42"));
    for q in [2, 11, 20, 29] {
        b.click(&format!("#board [data-pos=\"{q}\"]"));
    }
    for part in ["count", "certain", "best"] {
        b.click(&format!("#c-{part}"));
    }
    let observation = board(&b)["observation"].clone();
    let answer = b.wait_for(
        &format!(
            "document.getElementById('coach-out').dataset.observation === {observation} && Object.assign({{}}, document.getElementById('coach-out').dataset)"
        ),
        "the coach's answer",
        WAIT,
    );
    let position = dir.join("position.txt");
    std::fs::write(
        &position,
        format!("A4_B8 {}\n", observation.as_str().unwrap()),
    )
    .unwrap();
    let file = position.to_str().unwrap();
    let suggested = json_ok(&["suggest", file, "--max", "10000"]);
    let solved = json_ok(&["solve", file, "--max", "10000"]);
    assert_eq!(
        answer["molecules"],
        json!(suggested["molecules"].to_string())
    );
    assert_eq!(answer["complete"], json!(suggested["complete"].to_string()));
    assert_eq!(
        answer["best"],
        json!(suggested["rays"][0]["position"].to_string())
    );
    let certain = |key: &str| {
        let mut v: Vec<u64> = solved[key]
            .as_array()
            .unwrap()
            .iter()
            .map(|x| x.as_u64().unwrap())
            .collect();
        v.sort_unstable();
        v
    };
    assert_eq!(numbers(&answer["certainAtoms"]), certain("certain_atoms"));
    assert_eq!(numbers(&answer["certainEmpty"]), certain("certain_empty"));
    assert!(
        text(&b, "coach-out").contains(&format!("best ray {}", suggested["rays"][0]["position"]))
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
            certain_of(&solved, "certain_atoms"),
            "{name}"
        );
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
    assert_eq!(board(&b)["observation"], json!(t.observation().to_string()));
}

/// Presses `key` on the board, as a player's keyboard does.
fn press(b: &Browser, key: &str) {
    b.eval(&format!(
        "document.getElementById('board').dispatchEvent(new KeyboardEvent('keydown', {{ key: {}, bubbles: true }})) || true",
        json!(key)
    ));
}

/// The coach's answer on the rays on the board, once it is in.
fn coach_answer(b: &Browser) -> Value {
    let observation = board(b)["observation"].clone();
    b.wait_for(
        &format!(
            "document.getElementById('coach-out').dataset.observation === {observation} && Object.assign({{}}, document.getElementById('coach-out').dataset)"
        ),
        "the coach's answer",
        WAIT,
    )
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
    let mut twin = Game::new(hidden.clone(), Rules::Standard, Judge::AllRays);
    open(&b, &format!("{url}#{id}"));
    assert_eq!(board(&b), expected(&twin));
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
    for q in [1, 6, 14, 20, 21, 2] {
        b.click(&format!("#board [data-pos=\"{q}\"]"));
        twin.shoot(q);
        assert_eq!(board(&b), expected(&twin), "after ray {q}");
        let ray = &traced["rays"][q - 1];
        let got = twin.observation().get(q).unwrap();
        assert_eq!(json!(got)["result"], ray["result"], "ray {q}");
        assert_eq!(json!(got)["exit"], ray["exit"], "ray {q}");
    }
    // The coach on the rectangle: count, certain cells and best ray as bbx
    // suggest and bbx solve give them; a chance in each of the 48 cells.
    for part in ["count", "certain", "best", "chances"] {
        b.click(&format!("#c-{part}"));
    }
    let answer = coach_answer(&b);
    let position = dir.join("rect.txt");
    std::fs::write(&position, format!("A5_B8x6 {}\n", twin.observation())).unwrap();
    let file = position.to_str().unwrap();
    let suggested = json_ok(&["suggest", file, "--max", "10000"]);
    let solved = json_ok(&["solve", file, "--max", "10000"]);
    assert_eq!(
        answer["molecules"],
        json!(suggested["molecules"].to_string())
    );
    assert_eq!(answer["complete"], json!("true"));
    let best = suggested["rays"][0]["position"]
        .as_u64()
        .expect("a ray to rank");
    assert_eq!(answer["best"], json!(best.to_string()));
    assert_eq!(
        numbers(&answer["certainAtoms"]),
        certain_of(&solved, "certain_atoms")
    );
    assert_eq!(
        numbers(&answer["certainEmpty"]),
        certain_of(&solved, "certain_empty")
    );
    let best = b.wait_for(
        "document.querySelector('#board .best') && document.querySelectorAll('#board .tenths').length",
        "the heat map and the best ray's arrow",
        WAIT,
    );
    assert_eq!(best, json!(48));

    for q in [15, 10] {
        b.click(&format!("#board [data-pos=\"{q}\"]"));
        twin.shoot(q);
        assert_eq!(board(&b), expected(&twin), "after ray {q}");
        let ray = &traced["rays"][q - 1];
        let got = twin.observation().get(q).unwrap();
        assert_eq!(json!(got)["result"], ray["result"], "ray {q}");
        assert_eq!(json!(got)["exit"], ray["exit"], "ray {q}");
    }
    // Keys: down the left side to the bottom of column 1 (position 7), then
    // along the bottom and round the corner up the right side.
    for _ in 0..8 {
        press(&b, "ArrowDown");
    }
    press(&b, "Enter");
    twin.shoot(7);
    assert_eq!(board(&b), expected(&twin), "ray 7 by keys");
    for _ in 0..8 {
        press(&b, "ArrowRight");
    }
    press(&b, "ArrowUp");
    press(&b, "Enter");
    twin.shoot(16);
    assert_eq!(board(&b), expected(&twin), "ray 16 by keys");
    // Row 1 marked empty from the right side by the key m, column 8 from
    // the top by a right click.
    for _ in 0..4 {
        press(&b, "ArrowUp");
    }
    press(&b, "m");
    twin.mark_empty(&(0..8).collect::<Vec<_>>());
    b.right_click("#board [data-pos=\"21\"]");
    twin.mark_empty(&[7, 15, 23, 31, 39, 47]);
    assert_eq!(board(&b), expected(&twin), "the lines marked");

    // Exported: the game ID gives the same game; the link, opened in a
    // fresh browser, the game as it stands.
    let shared = linked(&b, "document.getElementById('share-id').value");
    assert!(shared.starts_with("w8h6m5M5:"), "{shared}");
    assert_eq!(parse_tatham(&shared, "id").unwrap().hidden, hidden);
    let link = linked(&b, "location.href");
    {
        let fresh = Browser::start(Screen::Desktop(1024, 768));
        open(&fresh, &link);
        assert_eq!(board(&fresh), expected(&twin));
        assert_eq!(text(&fresh, "status"), text(&b, "status"));
    }
    // The guess: the hidden atoms, judged by the library's referee.
    guess_right(&b, &mut twin, &hidden);

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
    // bbx numbers it, and one atom in it placed in any of its 15 cells.
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
    new_game(&b, "A2-3_B5", 9);
    let setup = Setup {
        start: Start::Random {
            config: "A2-3_B5".parse().unwrap(),
            unique: false,
        },
        seed: Some(9),
        ..Setup::default()
    };
    let mut twin = start(&setup).unwrap().game;
    let n = twin.atoms();
    let status = text(&b, "status");
    assert!(status.contains("atoms 0 of 2 to 3 placed"), "{status}");
    for q in [1, 8, 13] {
        b.click(&format!("#board [data-pos=\"{q}\"]"));
        twin.shoot(q);
    }
    assert_eq!(board(&b), expected(&twin));
    b.click("#c-count");
    let answer = coach_answer(&b);
    let position = dir.join("range.txt");
    std::fs::write(&position, format!("A2_B5 {}\n", twin.observation())).unwrap();
    let suggested = json_ok(&[
        "suggest",
        position.to_str().unwrap(),
        "--atoms",
        "2..3",
        "--max",
        "10000",
    ]);
    assert_eq!(
        answer["molecules"],
        json!(suggested["molecules"].to_string())
    );
    for &i in twin.hidden().atoms().to_vec().iter() {
        b.click(&format!("#board [data-cell=\"{i}\"]"));
        twin.toggle(i);
    }
    let play = b.eval("document.getElementById('page-play').innerText");
    let play = play.as_str().unwrap();
    assert!(!play.contains(&format!("of {n} placed")), "{play}");
    assert!(
        play.contains(&format!("atoms {n} of 2 to 3 placed")),
        "{play}"
    );
    b.click("#guess");
    let verdict = twin.submit().unwrap().clone();
    assert!(verdict.won);
    b.wait_for(
        "!document.getElementById('verdict').hidden",
        "the verdict",
        WAIT,
    );
    let said = text(&b, "verdict");
    assert!(said.contains("You win"), "{said}");
    assert!(said.contains(&format!("score {}", verdict.score)), "{said}");

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
    let setup = Setup {
        start: Start::Tatham(TathamParams::preset("8x8, 3-6 balls").unwrap()),
        seed: Some(5),
        ..Setup::default()
    };
    let twin = start(&setup).unwrap().game;
    assert_eq!(board(&b), expected(&twin));
    let status = text(&b, "status");
    assert!(status.contains("atoms 0 of 3 to 6 placed"), "{status}");
    let shared = linked(&b, "document.getElementById('share-id').value");
    assert_eq!(parse_tatham(&shared, "id").unwrap().hidden, *twin.hidden());
}

/// Chooses `policy` ("" for none) in the coach's menu, as a player does.
fn choose_policy(b: &Browser, policy: &str) {
    b.eval(&format!(
        "(() => {{ const s = document.getElementById('c-policy'); s.value = {}; s.dispatchEvent(new Event('change')); return true; }})()",
        json!(policy)
    ));
}

/// The coach's answer on the rays on the board with `policy`'s next ray
/// ("" for none), once it is in.
fn coach_answer_with(b: &Browser, policy: &str) -> Value {
    let observation = board(b)["observation"].clone();
    b.wait_for(
        &format!(
            "(d => d.observation === {observation} && d.policy === {} && Object.assign({{}}, d))(document.getElementById('coach-out').dataset)",
            json!(policy)
        ),
        "the coach's answer with the policy",
        WAIT,
    )
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
    new_game(&b, "A3_B5", 7);
    assert!(text(&b, "title").contains("A3_B5, standard rules, seed 7"));
    for q in [1, 7, 12] {
        b.click(&format!("#board [data-pos=\"{q}\"]"));
    }
    let shape = Shape::new(5, 5).unwrap();
    let position = dir.join("position.txt");
    std::fs::write(
        &position,
        format!("A3_B5 {}\n", board(&b)["observation"].as_str().unwrap()),
    )
    .unwrap();
    let file = position.to_str().unwrap();

    // Without a policy: the best ray, and no policy's line or ring.
    b.click("#c-best");
    let answer = coach_answer_with(&b, "");
    assert_eq!(answer["nextRay"], json!(""));
    assert_eq!(b.eval("document.getElementById('next-ray')"), Value::Null);
    assert_eq!(
        b.eval("document.querySelector('#board .next-ray')"),
        Value::Null
    );

    // Greedy, then rollout: the ray bbx suggest --policy gives, in bbx
    // play's words, ringed on the border; the best ray stays.
    for policy in ["greedy", "rollout"] {
        choose_policy(&b, policy);
        let answer = coach_answer_with(&b, policy);
        let suggested = json_ok(&["suggest", file, "--policy", policy, "--max-rays", "1"]);
        let p = &suggested["policy"];
        assert_eq!(answer["nextRay"], json!(p["ray"].to_string()), "{policy}");
        assert_eq!(
            answer["best"],
            json!(suggested["rays"][0]["position"].to_string())
        );
        assert_eq!(
            text(&b, "next-ray"),
            next_ray_sentence(shape, p),
            "{policy}"
        );
        let ringed = b.eval("document.querySelector('#board .slot.next').dataset.pos");
        assert_eq!(ringed, json!(p["ray"].to_string()), "{policy}");
        assert_eq!(
            b.eval("document.querySelectorAll('#board circle.next-ray').length"),
            json!(1)
        );
    }

    // A policy whose next ray cannot be known: the panel says why, and
    // names the setting to raise.
    b.click("#tab-game");
    b.type_into("#max", "2");
    b.click("#tab-play");
    choose_policy(&b, "greedy");
    let answer = coach_answer_with(&b, "greedy");
    let suggested = json_ok(&["suggest", file, "--policy", "greedy", "--max", "2"]);
    assert_eq!(suggested["policy"]["unanswered"], json!("not_listed"));
    assert_eq!(answer["nextRay"], json!(""));
    assert_eq!(
        text(&b, "next-ray"),
        "greedy's next ray: unknown until all are listed"
    );
    let said = text(&b, "coach-out");
    assert!(
        said.contains("the most molecules (Settings) raises it"),
        "{said}"
    );
    assert_eq!(
        b.eval("document.querySelector('#board .next-ray')"),
        Value::Null
    );

    // None again: the line and the ring are gone.
    b.click("#tab-game");
    b.type_into("#max", "10000");
    b.click("#tab-play");
    choose_policy(&b, "");
    coach_answer_with(&b, "");
    assert_eq!(b.eval("document.getElementById('next-ray')"), Value::Null);
    assert_eq!(
        b.eval("document.querySelector('#board .next-ray')"),
        Value::Null
    );
}

fn certain_of(v: &Value, key: &str) -> Vec<u64> {
    let mut c: Vec<u64> = v[key]
        .as_array()
        .unwrap()
        .iter()
        .map(|x| x.as_u64().unwrap())
        .collect();
    c.sort_unstable();
    c
}

/// The median of `v`.
fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

/// Asks the coach for the best ray on the board as it stands and returns
/// the answer's time in the worker and in the page (ms).
fn best_ray_time(b: &Browser) -> (f64, f64) {
    let observation = board(b)["observation"].clone();
    let a = b.wait_for(
        &format!(
            "document.getElementById('coach-out').dataset.observation === {observation} && Object.assign({{}}, document.getElementById('coach-out').dataset)"
        ),
        "the coach's answer",
        WAIT,
    );
    let ms = |k: &str| a[k].as_str().unwrap().parse::<f64>().unwrap();
    (ms("elapsedMs"), ms("wallMs"))
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
        b.click("#tab-game");
        b.type_into("#timeout", "60");
        b.type_into("#seed", &seed.to_string());
        b.click("#new-form button[type=submit]");
        b.click("#c-best");
        opening.push(best_ray_time(&b));
        for q in [3, 14, 22, 27, 6, 19] {
            b.click(&format!("#board [data-pos=\"{q}\"]"));
            if board(&b)["over"] == json!("true") {
                break;
            }
            later.push(best_ray_time(&b));
        }
    }
    let worker = |v: &[(f64, f64)]| v.iter().map(|t| t.0).collect::<Vec<_>>();
    let wall = |v: &[(f64, f64)]| v.iter().map(|t| t.1).collect::<Vec<_>>();
    let max = |v: Vec<f64>| v.into_iter().fold(0.0, f64::max);
    println!(
        "page ready after navigation (ms): median {:.0}, all {ready:.0?}",
        median(ready.clone())
    );
    println!(
        "opening best ray (ms): worker median {:.0} max {:.0}; page median {:.0} max {:.0}",
        median(worker(&opening)),
        max(worker(&opening)),
        median(wall(&opening)),
        max(wall(&opening))
    );
    println!(
        "later positions ({}) best ray (ms): worker median {:.0} max {:.0}; page median {:.0} max {:.0}",
        later.len(),
        median(worker(&later)),
        max(worker(&later)),
        median(wall(&later)),
        max(wall(&later))
    );
    let html = root().join("web/dist/index.html");
    let bytes = std::fs::metadata(&html).unwrap().len();
    println!("web/dist/index.html: {bytes} bytes");
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
        for part in ["count", "certain", "best", "chances"] {
            b.click(&format!("#c-{part}"));
        }
        best_ray_time(&b);
        b.eval("window.scrollTo(0, 0) || true");
        b.screenshot(&out.join(format!("{name}-play.png")));
        b.eval("document.getElementById('coach').scrollIntoView() || true");
        b.screenshot(&out.join(format!("{name}-coach.png")));
        // Rollout's next ray, ringed, at the end of the best ray's part.
        choose_policy(&b, "rollout");
        coach_answer_with(&b, "rollout");
        b.eval("document.getElementById('coach').scrollIntoView() || true");
        b.screenshot(&out.join(format!("{name}-policy.png")));
        choose_policy(&b, "");
        for q in [4, 9, 14, 30, 21, 10] {
            b.click(&format!("#board [data-pos=\"{q}\"]"));
        }
        b.click("#resign");
        b.accept_dialog();
        b.wait_for(
            "!document.getElementById('verdict').hidden",
            "the answer",
            WAIT,
        );
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
    }
    println!("screenshots in {}", out.display());
}
