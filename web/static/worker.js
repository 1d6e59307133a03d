// The Web Worker of the page: bbx's heavy questions, off the page's thread.
// It runs after the wasm-bindgen glue (the global `wasm_bindgen`), gets the
// compiled module from the page, and answers one question at a time (each
// function takes its question in JSON and a callback for its progress);
// the page stops a question it no longer needs by terminating the worker.
'use strict';
const questions = ['coach', 'review', 'start', 'solve'];
self.onmessage = (event) => {
  const m = event.data;
  if (m.module) {
    wasm_bindgen.initSync({ module: m.module });
    return;
  }
  const { id, fn, arg } = m;
  try {
    if (!questions.includes(fn)) throw new Error(`no question called ${fn}`);
    const result = wasm_bindgen[fn](arg, (said) => self.postMessage({ id, progress: said }));
    self.postMessage({ id, result });
  } catch (err) {
    const message = err && err.message ? err.message : String(err);
    // A trap (a bug in bbx) leaves the module unusable: say so, the page
    // starts a fresh worker for the next question.
    self.postMessage({ id, error: message, broken: err instanceof WebAssembly.RuntimeError });
  }
};
