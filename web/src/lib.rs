//! # bbx-web — bbx in the browser
//!
//! The bindings of the web page that `web/build` makes (`web/dist/index.html`):
//! bbx's library compiled to WebAssembly with wasm-bindgen, under a small
//! JavaScript front that draws what the library says and turns clicks,
//! taps and keys into moves. The game is the library's game middle
//! (`bbx::play::middle::Middle`, the same as `bbx play`'s): every rule,
//! score, sentence and file format comes from the library, on its own types
//! in JSON; this crate only carries them across.
//!
//! The page uses it on two threads:
//!
//! | where | what | calls |
//! |-------|------|-------|
//! | the page | the game in hand: moves, keys and the workers' answers in, the scene to draw and the effects to carry out back | [`Session`] |
//! | the page | the puzzle drawn on the Solve tab; where the border of a box is, for the boards of molecules | [`Drawing`], [`border`] |
//! | a Web Worker | the game middle's heavy effects (the coach's answer, the review of a finished game, a new game's start) and a puzzle solved | [`coach`], [`review`], [`start`], [`solve`] |
//!
//! A question that a newer one makes useless is stopped by the page, which
//! terminates the worker and starts another; each question is also bounded
//! by its own limits, and its answer says what cut it short.

mod answers;
mod drawing;
mod session;

use bbx::setting::{Naming, Setting};
use wasm_bindgen::prelude::*;

pub use answers::{coach, review, solve, start};
pub use drawing::{Drawing, border};
pub use session::Session;

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
