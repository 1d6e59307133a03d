// The Web Worker of the page: bbx's heavy questions, off the page's thread.
// It runs after the wasm-bindgen glue (the global `wasm_bindgen`), gets the
// compiled module from the page, and answers one question at a time; the
// page stops a question it no longer needs by terminating the worker.
'use strict';
self.onmessage = (event) => {
  const m = event.data;
  if (m.module) {
    wasm_bindgen.initSync({ module: m.module });
    return;
  }
  const { id, fn, args } = m;
  const progress = (found) => self.postMessage({ id, progress: found });
  const t0 = performance.now();
  try {
    let result;
    switch (fn) {
      case 'coach':
        result = wasm_bindgen.coach(args.question, args.policy, args.max, args.timeout, args.shown, progress);
        break;
      case 'solve':
        result = wasm_bindgen.solve(args.text, args.origin, args.atoms, args.rules,
          args.max, args.timeout, args.shown, progress);
        break;
      case 'solve_rays':
        result = wasm_bindgen.solve_rays(args.width, args.height, args.rays, args.atoms, args.rules,
          args.max, args.timeout, args.shown, progress);
        break;
      case 'start':
        result = wasm_bindgen.start(args.request);
        break;
      default:
        throw new Error('no question called ' + fn);
    }
    self.postMessage({ id, result, ms: performance.now() - t0 });
  } catch (err) {
    const message = err && err.message ? err.message : String(err);
    // A trap (a bug in bbx) leaves the module unusable: say so, the page
    // starts a fresh worker for the next question.
    self.postMessage({ id, error: message, broken: err instanceof WebAssembly.RuntimeError });
  }
};
