//! The game in hand, on the page's thread: [`Session`] holds the library's
//! game middle ([`Middle`]) and answers each move, key and answer of a
//! worker with the scene to draw and the effects to carry out, in JSON.
//!
//! The page keeps no state of the game: it draws the scene, turns clicks,
//! taps and keys into moves, and carries out the effects (the coach's
//! questions, the review and new games in a Web Worker, saves as
//! downloads).

use std::sync::Arc;

use bbx::Error;
use bbx::control::Budget;
use bbx::play::coach::News;
use bbx::play::keys::{Key, KeyCode};
use bbx::play::middle::{Effect, Middle, Options};
use bbx::play::moves::Move;
use bbx::play::referee::Judge;
use bbx::play::setup::{Setup, Source, Start, Started, start};
use serde::Deserialize;
use serde_json::json;
use wasm_bindgen::prelude::*;

use crate::{Page, message};

/// What the page's address is called in titles and messages.
const LINK: &str = "the link";

/// The setup that starts another game of the kind `started` is: the same
/// box, atoms and rules, a fresh seed (the middle's new game reads it as
/// it reads the setup of a game started from the command line).
fn setup_of(started: &Started) -> Setup {
    let g = &started.game;
    let unique = matches!(started.source, Source::Random { unique: true, .. });
    Setup {
        start: Start::Random {
            config: g.range(),
            unique,
        },
        seed: None,
        rules: Some(g.rules()),
        atoms: None,
        format: None,
        judge: g.judge(),
    }
}

/// What a worker answers to [`Effect::Start`]: the game started, carried as
/// text ([`Started::carry`]), or why it could not start.
#[derive(Deserialize)]
#[serde(rename_all = "snake_case")]
enum Begun {
    Carried(String),
    Error(String),
}

/// One game of the page and its middle.
#[wasm_bindgen]
pub struct Session {
    middle: Middle,
    /// The effects of the start, handed over with the first scene.
    first: Vec<Effect>,
    /// A game of the address is being started in a worker: its failure is
    /// said as the address's.
    opening: bool,
}

impl Session {
    /// The scene and `effects` as the page reads them.
    fn answer(&self, effects: Vec<Effect>) -> String {
        json!({ "scene": self.middle.scene(), "effects": effects }).to_string()
    }

    /// A game of the address's text, which is not a game carried by a link
    /// (a Tatham game ID, a save, a puzzle, or nothing bbx reads), started
    /// as an opened file is: in a worker.
    fn open(&mut self, text: &str) -> Vec<Effect> {
        self.opening = true;
        self.middle.apply(Move::Open {
            text: text.into(),
            origin: LINK.into(),
        })
    }
}

/// The most Web Workers the coach's question is shared among: each holds
/// the molecules' outcome table and its own memo (at the A4_B8 opening,
/// about 200 MB), and a part of the weighing besides the count that every
/// part works out.
pub const COACH_WORKERS: usize = 4;

#[wasm_bindgen]
impl Session {
    /// The game of the page's address (its text after `#`, decoded): a game
    /// as a link carries it ([`Scene::share`]'s `link`); or else a random
    /// game of the standard configuration, A4_B8, with a fresh seed, while
    /// a Tatham game ID, a saved game or a puzzle in the address starts in
    /// a worker (the first effects say so), and anything else is said to
    /// hold no game. Fails only when no game can start at all.
    ///
    /// `cores` is how many the browser says the machine has: rollout's
    /// question goes to as many of the coach's workers, up to
    /// [`COACH_WORKERS`] (each holds its own tables).
    ///
    /// [`Scene::share`]: bbx::play::scene::Scene::share
    #[wasm_bindgen(constructor)]
    pub fn new(address: &str, cores: usize) -> Result<Session, JsError> {
        let options = Options {
            naming: Arc::new(Page),
            quits: false,
            coach_workers: cores.clamp(1, COACH_WORKERS),
            ..Options::default()
        };
        let text = address.trim();
        let carried = text
            .starts_with('{')
            .then(|| Started::carried(text, Judge::default()));
        if let Some(Ok(started)) = carried {
            let (middle, first) = Middle::new(setup_of(&started), started, options);
            return Ok(Session {
                middle,
                first,
                opening: false,
            });
        }
        let setup = Setup::default();
        let started = start(&setup, &Budget::default()).map_err(crate::error)?;
        let (middle, first) = Middle::new(setup, started, options);
        let mut s = Session {
            middle,
            first,
            opening: false,
        };
        let more = match carried {
            Some(Err(e)) => s.middle.not_opened(e),
            None if !text.is_empty() => s.open(text),
            _ => Vec::new(),
        };
        s.first.extend(more);
        Ok(s)
    }

    /// The first scene and the effects of the start: `{"scene", "effects"}`.
    pub fn first(&mut self) -> String {
        let effects = std::mem::take(&mut self.first);
        self.answer(effects)
    }

    /// A new address typed or pasted while the page is open (its text
    /// after `#`, decoded): its game, as [`Session::new`] reads it.
    pub fn address(&mut self, address: &str) -> String {
        let text = address.trim();
        let effects = if text.starts_with('{') {
            match Started::carried(text, Judge::default()) {
                Ok(started) => self.middle.begin(Ok(started)),
                Err(e) => self.middle.not_opened(e),
            }
        } else {
            self.open(text)
        };
        self.answer(effects)
    }

    /// A move ([`Move`] in JSON: `"undo"`, `{"shoot": 12}`); a move that is
    /// not one is a bug of the page.
    pub fn apply(&mut self, m: &str) -> Result<String, JsError> {
        let m: Move = serde_json::from_str(m).map_err(message)?;
        let effects = self.middle.apply(m);
        Ok(self.answer(effects))
    }

    /// A key pressed on the board, named as the browser names it
    /// (`KeyboardEvent.key`), with Ctrl or Alt held: `{"scene", "effects",
    /// "handled"}`, `handled` false when the key makes no move (the browser
    /// keeps it). The page's middle does not quit, so `q`, Ctrl-C and
    /// Ctrl-D stay the browser's, and so does Tab, which moves the focus on
    /// (`o` jumps to the opposite side).
    pub fn key(&mut self, name: &str, ctrl: bool, alt: bool) -> String {
        let chosen = name.parse::<Key>().ok().and_then(|k| {
            let key = Key { ctrl, alt, ..k };
            let browser = matches!(key.code, KeyCode::Tab | KeyCode::BackTab);
            (!browser).then(|| self.middle.key_move(&key)).flatten()
        });
        let (effects, handled) = match chosen {
            None => (Vec::new(), false),
            Some(m) => (self.middle.apply(m), true),
        };
        let mut v = json!({ "scene": self.middle.scene(), "effects": effects });
        v["handled"] = json!(handled);
        v.to_string()
    }

    /// What the coach said ([`News`] in JSON, as the worker answers).
    pub fn hear(&mut self, news: &str) -> Result<String, JsError> {
        let news: News = serde_json::from_str(news).map_err(message)?;
        let effects = self.middle.hear(news);
        Ok(self.answer(effects))
    }

    /// The worker's answer to [`Effect::Start`]: `{"carried": text}` or
    /// `{"error": why}`. The answer has `started`, whether a new game
    /// began.
    pub fn begin(&mut self, answer: &str) -> Result<String, JsError> {
        let begun: Begun = serde_json::from_str(answer).map_err(message)?;
        let opening = std::mem::take(&mut self.opening);
        let started = match begun {
            Begun::Carried(text) => Started::carried(&text, Judge::default()),
            Begun::Error(why) => Err(Error::invalid(why)),
        };
        let ok = started.is_ok();
        let effects = match started {
            Err(e) if opening => self.middle.not_opened(e),
            started => self.middle.begin(started),
        };
        let mut v = json!({ "scene": self.middle.scene(), "effects": effects });
        v["started"] = json!(ok);
        Ok(v.to_string())
    }

    /// The page offered the save of [`Effect::Save`] as a download
    /// (`error` empty), or could not.
    pub fn saved(&mut self, path: &str, error: &str) -> String {
        let result = match error {
            "" => Ok(()),
            why => Err(why.to_string()),
        };
        let effects = self.middle.saved(path.into(), result);
        self.answer(effects)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::Value;

    fn scene(answer: &str) -> Value {
        serde_json::from_str::<Value>(answer).unwrap()["scene"].clone()
    }

    #[test]
    fn a_link_carries_the_game_as_it_stands_and_its_seed() {
        let mut s = Session::new("", 1).ok().unwrap();
        let first: Value = serde_json::from_str(&s.first()).unwrap();
        assert!(first["effects"].as_array().unwrap().is_empty());
        s.apply(r#"{"shoot": 3}"#).ok().unwrap();
        let link = scene(&s.apply(r#"{"atom": 9}"#).ok().unwrap())["share"]["link"]["Ok"]
            .as_str()
            .unwrap()
            .to_string();
        let before = s.middle.scene().clone();
        let mut again = Session::new(&link, 1).ok().unwrap();
        let after = scene(&again.first());
        assert_eq!(after["title"], json!(before.title));
        assert!(before.title.contains(", seed "), "{}", before.title);
        assert_eq!(after["board"], serde_json::to_value(&before.board).unwrap());
    }

    #[test]
    fn the_page_offers_no_quitting() {
        let mut s = Session::new("", 1).ok().unwrap();
        let first = scene(&s.first());
        assert!(!first["keys"].as_str().unwrap().contains("quit"), "{first}");
        for key in ["q", "Q"] {
            let v: Value = serde_json::from_str(&s.key(key, false, false)).unwrap();
            assert_eq!(v["handled"], false, "{key}");
            assert_eq!(v["scene"]["dialog"], Value::Null, "{key}");
        }
        let v: Value = serde_json::from_str(&s.key("c", true, false)).unwrap();
        assert_eq!(v["handled"], false);
        let help = scene(&s.apply(r#""help""#).ok().unwrap());
        assert!(!help["help"]["keys"].to_string().contains("quit"), "{help}");
    }

    #[test]
    fn an_address_that_holds_no_game_says_so_and_the_game_goes_on() {
        let mut s = Session::new(r#"{"save": "#, 1).ok().unwrap();
        let first = scene(&s.first());
        let (said, tone) = (&first["message"][0], &first["message"][1]);
        assert!(
            said.as_str().unwrap().starts_with("The link holds no game"),
            "{said}"
        );
        assert_eq!(tone, "bad");
        assert!(first["title"].as_str().unwrap().starts_with("A4_B8"));
        // A game ID starts in the worker; its failure is the link's.
        let mut s = Session::new("w8h8m4M4:zzzz", 1).ok().unwrap();
        let first: Value = serde_json::from_str(&s.first()).unwrap();
        let setup = &first["effects"][0]["start"];
        assert_eq!(setup["start"]["text"]["origin"], "the link");
        let setup: Setup = serde_json::from_value(setup.clone()).unwrap();
        let why = start(&setup, &Budget::default()).err().unwrap().show(&Page);
        let answer = json!({ "error": why }).to_string();
        let v: Value = serde_json::from_str(&s.begin(&answer).ok().unwrap()).unwrap();
        assert_eq!(v["started"], false);
        let said = v["scene"]["message"][0].as_str().unwrap();
        assert!(said.starts_with("The link holds no game"), "{said}");
        // The default game plays on.
        let v = scene(&s.apply(r#"{"shoot": 1}"#).ok().unwrap());
        assert!(v["board"]["slots"][0]["outcome"].is_object(), "{v}");
    }

    #[test]
    fn keys_are_read_through_the_profile_and_ctrl_c_and_tab_stay_the_browser_s() {
        let mut s = Session::new("", 1).ok().unwrap();
        let v: Value = serde_json::from_str(&s.key("Enter", false, false)).unwrap();
        assert_eq!(v["handled"], true);
        assert!(v["scene"]["board"]["slots"][0]["outcome"].is_object());
        let v: Value = serde_json::from_str(&s.key("c", true, false)).unwrap();
        assert_eq!(v["handled"], false);
        for key in ["Hyper", "Tab"] {
            let v: Value = serde_json::from_str(&s.key(key, false, false)).unwrap();
            assert_eq!(v["handled"], false, "{key}");
        }
    }
}
