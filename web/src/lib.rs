//! # bbx-web — bbx in the browser
//!
//! The bindings of the web page that `web/build` makes (`web/dist/index.html`):
//! bbx's library compiled to WebAssembly with wasm-bindgen, called by a small
//! JavaScript front that draws the box in SVG and turns clicks and keys into
//! calls. Every rule, verdict, score, answer and file format comes from the
//! library, the same calls `bbx play`, `bbx solve` and `bbx suggest` make;
//! this crate turns the library's values into JSON for the page, and the
//! page's fields into the library's settings.
//!
//! The page uses it on two threads:
//!
//! | where | what | calls |
//! |-------|------|-------|
//! | the page | the game in hand: shots, atoms, marks, undo and redo, the referee, the save text and the game ID, all quick | [`Play`] |
//! | the page | the border of a box of any width and height, for the solver's boards; what a file is | [`border`], [`kind`] |
//! | a Web Worker | the heavy questions: the coach's answer (with a policy's next ray when one is chosen), a puzzle solved, a game started from a puzzle | [`coach`], [`solve`], [`solve_rays`], [`start`] |
//!
//! A question that a newer one makes useless is stopped by the page, which
//! terminates the worker and starts another; each question is also bounded
//! by its own time limit and largest count, and its answer says when one of
//! them cut it short.

mod answers;
mod game;

use bbx::setting::{Naming, Setting};
use wasm_bindgen::prelude::*;

pub use answers::{border, coach, kind, solve, solve_rays, start};
pub use game::Play;

/// The settings as the page names them in messages ("raise the coach's time
/// limit"): the fields and menus of the page, not the command line's flags.
#[derive(Debug, Clone, Copy, Default)]
pub struct Page;

impl Naming for Page {
    fn name(&self, setting: Setting) -> String {
        match setting {
            Setting::Atoms => "the atoms field".into(),
            Setting::Rules => "the rules menu".into(),
            Setting::Seed => "the seed field".into(),
            Setting::Max => "the most molecules (Settings)".into(),
            Setting::Timeout => "the time limit (Settings)".into(),
            other => other.words().into(),
        }
    }
}

/// Where border position `q` of a box of `shape` is: `{"position", "row",
/// "col", "side", "name"}`, rows and columns counted in the box with its
/// border (rows 0 and height + 1, columns 0 and width + 1 are outside).
pub(crate) fn port_json(shape: bbx::rules::config::Shape, q: usize) -> serde_json::Value {
    let at = bbx::rules::board::port(shape, q);
    serde_json::json!({
        "position": q,
        "row": at.row,
        "col": at.col,
        "side": at.side.name(),
        "name": bbx::render::position_name(shape, q),
    })
}

/// An error of the library as the page shows it.
pub(crate) fn error(e: bbx::Error) -> JsError {
    JsError::new(&e.show(&Page))
}

/// A message for the page.
pub(crate) fn message(text: impl std::fmt::Display) -> JsError {
    JsError::new(&text.to_string())
}

#[wasm_bindgen]
extern "C" {
    #[wasm_bindgen(js_namespace = console, js_name = error)]
    fn console_error(text: &str);
}

/// Sets up the module: a panic (a bug) is written to the browser's console
/// with its message before the module stops, and the page says so.
#[wasm_bindgen(start)]
fn begin() {
    std::panic::set_hook(Box::new(|info| console_error(&format!("bbx: {info}"))));
}

/// The library's version, for the page's footer.
#[wasm_bindgen]
pub fn version() -> String {
    env!("CARGO_PKG_VERSION").into()
}
