//! The puzzle drawn on the Solve tab: results clicked on the border of an
//! empty box, lettered as bbx letters a puzzle's border.

use bbx::render::position_name;
use bbx::rules::board::port;
use bbx::rules::config::{Config, Shape};
use bbx::rules::notation::{MISS, Notation};
use bbx::{Observation, Outcome};
use serde::{Deserialize, Serialize};
use serde_json::json;
use wasm_bindgen::prelude::*;

use crate::{error, message};

/// A puzzle being drawn: the results clicked, in the order clicked (an
/// exit pair once, from the end clicked first), and the first end of a
/// pair being drawn.
#[wasm_bindgen]
pub struct Drawing {
    shape: Shape,
    rays: Vec<(usize, Outcome)>,
    picked: Option<usize>,
}

/// A drawing's rays, as the worker gets them.
#[derive(Serialize, Deserialize)]
struct Drawn {
    width: usize,
    height: usize,
    rays: Vec<(usize, Outcome)>,
}

/// The observation of a drawing ([`Drawing::observation`]'s JSON).
pub(crate) fn observation(drawn: &str) -> Result<Observation, JsError> {
    let d: Drawn = serde_json::from_str(drawn).map_err(message)?;
    let shape = Shape::new(d.width, d.height).map_err(error)?;
    let mut seen = Observation::empty(shape);
    for (q, o) in d.rays {
        seen.record(q, o);
    }
    Ok(seen)
}

impl Drawing {
    /// Forgets what position `q` shows: its result, or the pair it ends.
    fn forget(&mut self, q: usize) {
        self.rays.retain(|&(p, o)| p != q && o != Outcome::Exit(q));
    }
}

#[wasm_bindgen]
impl Drawing {
    /// An empty box `width` wide and `height` high.
    #[wasm_bindgen(constructor)]
    pub fn new(width: usize, height: usize) -> Result<Drawing, JsError> {
        let shape = Shape::new(width, height).map_err(error)?;
        Config::shaped(0, shape).map_err(error)?;
        Ok(Drawing {
            shape,
            rays: Vec::new(),
            picked: None,
        })
    }

    /// A click on border position `q` with the tool chosen: `absorbed`,
    /// `reflected` and `miss` put that result there; `exit` takes the first
    /// end of a pair, then its other end (the same end again lets it go);
    /// `clear` erases the result there.
    pub fn click(&mut self, q: usize, tool: &str) {
        if !(1..=self.shape.positions()).contains(&q) {
            return;
        }
        let outcome = match tool {
            "absorbed" => Some(Outcome::Absorbed),
            "reflected" => Some(Outcome::Reflected),
            "miss" => Some(Outcome::Miss),
            _ => None,
        };
        match (tool, self.picked) {
            ("exit", None) => {
                self.forget(q);
                self.picked = Some(q);
            }
            ("exit", Some(p)) if p == q => self.picked = None,
            ("exit", Some(p)) => {
                self.forget(q);
                self.rays.push((p, Outcome::Exit(q)));
                self.picked = None;
            }
            _ => {
                self.picked = None;
                self.forget(q);
                self.rays.extend(outcome.map(|o| (q, o)));
            }
        }
    }

    /// Erases everything.
    pub fn clear(&mut self) {
        self.rays.clear();
        self.picked = None;
    }

    /// What the page draws: `{"width", "height", "slots": [{"position",
    /// "row", "col", "side", "name", "mark", "picked"}]}`, each border
    /// position where the box with its border puts it (rows 0 and
    /// height + 1, columns 0 and width + 1 are outside the box) with its
    /// mark: `@` absorbed, `&` reflected, `~` missed, the exit pairs
    /// lettered in the order drawn.
    pub fn view(&self) -> String {
        let mut marks = vec![String::new(); self.shape.positions()];
        let mut pairs = 0;
        for &(q, o) in &self.rays {
            let (mark, other) = match o {
                Outcome::Absorbed => (Notation::Letters.hit(), None),
                Outcome::Reflected => (Notation::Letters.reflection(), None),
                Outcome::Miss => (MISS, None),
                Outcome::Exit(k) => {
                    pairs += 1;
                    (Notation::Letters.pair(pairs - 1).unwrap_or('?'), Some(k))
                }
            };
            for end in std::iter::once(q).chain(other) {
                marks[end - 1] = mark.to_string();
            }
        }
        let slots: Vec<_> = (1..=self.shape.positions())
            .map(|q| {
                let at = port(self.shape, q);
                json!({
                    "position": q,
                    "row": at.row,
                    "col": at.col,
                    "side": at.side,
                    "name": position_name(self.shape, q),
                    "mark": marks[q - 1],
                    "picked": self.picked == Some(q),
                })
            })
            .collect();
        json!({ "width": self.shape.width, "height": self.shape.height, "slots": slots })
            .to_string()
    }

    /// The rays drawn, for the worker's [`solve`](crate::solve).
    pub fn observation(&self) -> String {
        let drawn = Drawn {
            width: self.shape.width,
            height: self.shape.height,
            rays: self.rays.clone(),
        };
        serde_json::to_string(&drawn).unwrap_or_default()
    }
}

/// Where each border position of a box `width` wide and `height` high is,
/// for the boards the page draws of molecules: `[{"position", "row",
/// "col", "side"}]`.
#[wasm_bindgen]
pub fn border(width: usize, height: usize) -> Result<String, JsError> {
    let shape = Shape::new(width, height).map_err(error)?;
    let ports: Vec<_> = (1..=shape.positions())
        .map(|q| {
            let at = port(shape, q);
            json!({ "position": q, "row": at.row, "col": at.col, "side": at.side })
        })
        .collect();
    Ok(serde_json::Value::Array(ports).to_string())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::Value;

    fn marks(d: &Drawing) -> String {
        let v: Value = serde_json::from_str(&d.view()).unwrap();
        v["slots"]
            .as_array()
            .unwrap()
            .iter()
            .map(|s| match s["mark"].as_str().unwrap() {
                "" => ' ',
                m => m.chars().next().unwrap(),
            })
            .collect()
    }

    #[test]
    fn exit_pairs_are_lettered_in_the_order_drawn() {
        let mut d = Drawing::new(2, 2).ok().unwrap();
        d.click(5, "exit");
        d.click(2, "exit");
        d.click(1, "absorbed");
        d.click(3, "exit");
        d.click(8, "exit");
        d.click(4, "reflected");
        assert_eq!(marks(&d), "@ab&a  b");
        // Erasing an end erases the pair; a result on an end replaces it.
        d.click(2, "clear");
        assert_eq!(marks(&d), "@ a&   a");
        d.click(8, "absorbed");
        assert_eq!(marks(&d), "@  &   @");
        let seen = observation(&d.observation()).ok().unwrap();
        assert_eq!(seen.get(1), Some(Outcome::Absorbed));
        assert_eq!(seen.get(4), Some(Outcome::Reflected));
        assert_eq!(seen.get(2), None);
    }

    #[test]
    fn a_rectangle_s_border_runs_down_the_left_and_round() {
        let v: Value = serde_json::from_str(&border(5, 3).ok().unwrap()).unwrap();
        let at = |q: usize| {
            (
                v[q - 1]["row"].as_u64().unwrap(),
                v[q - 1]["col"].as_u64().unwrap(),
            )
        };
        assert_eq!(at(1), (1, 0));
        assert_eq!(at(4), (4, 1));
        assert_eq!(at(9), (3, 6));
        assert_eq!(at(16), (0, 1));
    }
}
