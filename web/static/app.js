// The page's front: it draws what bbx's library says and turns clicks,
// taps and keys into calls to it. The game, the referee, the score, the
// coach, the solver and every file format are the library's (bbx-web, in
// WebAssembly); nothing here decides what a ray does or who wins.
'use strict';
(async function main() {
  const t0 = performance.now();
  const $ = (id) => document.getElementById(id);
  const U = 10; // SVG units per cell

  // ---------------------------------------------------------------- loading
  // The module is inlined (gzip, base64) so that the page works from a
  // local folder, where browsers fetch no .wasm file and start no module
  // worker; the workers are started from the same text, as blobs.
  async function compileModule() {
    const text = atob($('wasm').textContent.trim());
    const gz = new Uint8Array(text.length);
    for (let i = 0; i < text.length; i++) gz[i] = text.charCodeAt(i);
    const stream = new Blob([gz]).stream().pipeThrough(new DecompressionStream('gzip'));
    return WebAssembly.compile(await new Response(stream).arrayBuffer());
  }
  let module;
  try {
    module = await compileModule();
    await wasm_bindgen({ module_or_path: module });
  } catch (e) {
    $('loading').textContent = 'This browser cannot run bbx (it needs WebAssembly and DecompressionStream): ' + e.message;
    return;
  }
  const bbx = wasm_bindgen;
  const workerUrl = URL.createObjectURL(new Blob(
    [$('glue').textContent, '\n', $('worker-src').textContent], { type: 'text/javascript' }));

  const superseded = { superseded: true };
  // One question at a time in a worker of its own; a newer question stops
  // the one in hand by terminating the worker (a fresh one starts at once
  // from the compiled module).
  class Asker {
    constructor() { this.worker = null; this.job = null; this.seq = 0; }
    spawn() {
      const w = new Worker(workerUrl);
      w.onmessage = (e) => this.hear(e.data);
      w.onerror = (e) => {
        e.preventDefault();
        this.fail(new Error('the worker failed: ' + (e.message || 'unknown error')));
      };
      w.postMessage({ module });
      this.worker = w;
    }
    ask(fn, args, onProgress) {
      this.cancel();
      if (!this.worker) this.spawn();
      const id = ++this.seq;
      return new Promise((resolve, reject) => {
        this.job = { id, resolve, reject, onProgress };
        this.worker.postMessage({ id, fn, args });
      });
    }
    hear(m) {
      const job = this.job;
      if (!job || m.id !== job.id) return;
      if ('progress' in m) { if (job.onProgress) job.onProgress(m.progress); return; }
      this.job = null;
      if (m.broken) this.stop();
      if ('error' in m) job.reject(new Error(m.error));
      else job.resolve(JSON.parse(m.result));
    }
    fail(err) {
      const job = this.job;
      this.job = null;
      this.stop();
      if (job) job.reject(err);
    }
    stop() { if (this.worker) { this.worker.terminate(); this.worker = null; } }
    cancel() {
      if (!this.job) return;
      const job = this.job;
      this.job = null;
      this.stop();
      job.reject(superseded);
    }
    get busy() { return this.job !== null; }
  }
  const coachWorker = new Asker();
  const solveWorker = new Asker();
  const startWorker = new Asker();
  coachWorker.spawn(); // ready before the first question

  // ------------------------------------------------------------------ words
  const plural = (n, one, many) => `${n} ${n === 1 ? one : many}`;
  const esc = (s) => String(s).replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]);
  function posName(q) {
    const b = st && st.border[q - 1];
    return b ? b.name : `position ${q}`;
  }
  const rayName = (q) => `ray ${q} (${posName(q)})`;
  // Cells are numbered row by row in a box w wide: i = w·(row − 1) + column − 1.
  const cellName = (w, i) => `row ${Math.floor(i / w) + 1}, column ${i % w + 1}`;
  // What the player is told of the atoms hidden: their number, or the range
  // it was drawn in (a range never gives the count away before the end).
  const atomsTold = (s) => (s.atoms === null ? `${s.counts[0]} to ${s.counts[1]}` : String(s.atoms));
  function outcomeWords(o) {
    switch (o.result) {
      case 'absorbed': return 'absorbed';
      case 'reflected': return 'reflected';
      case 'miss': return 'missed the board';
      default: return `out at ${o.exit} (${posName(o.exit)})`;
    }
  }
  function limits() {
    const max = Math.max(1, Math.floor(Number($('max').value) || 10000));
    const seconds = Number($('timeout').value);
    return { max, timeout: seconds > 0 ? seconds * 1000 : 5000 };
  }
  // `bbx play`'s sentence on how many molecules fit.
  function countSentence(a, what) {
    const fit = plural(a.molecules, 'molecule fits', 'molecules fit');
    if (a.complete) return `${fit} ${what}`;
    if (a.timed_out) return `at least ${fit} ${what} (the search stopped at its time limit, ${(a.elapsed_ms / 1000).toFixed(1)} s; Settings raises it)`;
    if (a.over_memory) return `at least ${fit} ${what} (the search stopped at the page's memory bound)`;
    return `at least ${fit} ${what} (the search stopped at its limit of ${plural(a.listed, 'molecule', 'molecules')} listed; Settings raises it)`;
  }

  // ------------------------------------------------------------------ state
  let play = null; // the library's game (bbx-web's Play)
  let st = null; // its state, as drawn
  let cursor = null; // {row, col} in the padded grid, shown once keys are used
  let marking = false; // taps mark cells empty
  let shownPath = null; // after the game: the ray whose path is drawn
  let pendingWrong = null; // a wrong guess waiting for "play on" or "end"
  const coach = {
    panels: { count: false, certain: false, chances: false, best: false, explained: false },
    // The policy whose next ray ends the best ray's part ('' none): kept
    // from game to game as the panels are, and, as they are, not in the
    // link, which holds the game and not how its player is helped.
    policy: '',
    // `key` and `asked`: the question and the policy of the answer in hand
    // or coming.
    key: null, asked: '', answer: null, error: null, found: 0, started: 0, wallMs: 0, timer: null, coached: false,
  };
  const also = { key: null, answer: null, error: null };

  function say(text, bad) {
    const m = $('announce');
    m.textContent = text || '';
    m.classList.toggle('bad', !!bad);
  }

  // Every call into the game goes through here: a failure is said, and a
  // trap (a bug) says that the page must be reloaded; the link keeps the game.
  function act(f) {
    try {
      return f();
    } catch (e) {
      if (e instanceof WebAssembly.RuntimeError) {
        say('bbx failed (a bug: ' + e.message + '). Reload the page: the address keeps your game.', true);
      } else {
        say(e.message || String(e), true);
      }
      return undefined;
    }
  }

  // ------------------------------------------------------------------ board
  const px = (c) => c * U;
  function slotCenter(b) { return [px(b.col) + U / 2, px(b.row) + U / 2]; }
  function cellCenter(w, i) { return [px(i % w + 1) + U / 2, px(Math.floor(i / w) + 1) + U / 2]; }
  // The lines of a box w wide and h high, and its frame.
  function gridPath(w, h) {
    let d = '';
    for (let k = 0; k <= h; k++) d += `M${U} ${U + k * U}h${w * U}`;
    for (let k = 0; k <= w; k++) d += `M${U + k * U} ${U}v${h * U}`;
    return `<path class="grid" d="${d}"/><rect class="frame" x="${U}" y="${U}" width="${w * U}" height="${h * U}"/>`;
  }
  // The triangle of the best ray, in its slot, pointing into the box.
  function arrow(b) {
    const [x, y] = slotCenter(b);
    const r = 2.6;
    const pts = {
      left: [[x - r, y - r], [x + r, y], [x - r, y + r]],
      right: [[x + r, y - r], [x - r, y], [x + r, y + r]],
      top: [[x - r, y - r], [x, y + r], [x + r, y - r]],
      bottom: [[x - r, y + r], [x, y - r], [x + r, y + r]],
    }[b.side];
    return `<polygon class="best" points="${pts.map((p) => p.join(',')).join(' ')}"/>`;
  }
  function pathLine(p, path, cls) {
    const pts = [slotCenter(st.border[path.position - 1])];
    for (const [r, c] of path.cells) pts.push([px(c) + U / 2, px(r) + U / 2]);
    const o = path.outcome;
    if (o.result === 'exit') pts.push(slotCenter(st.border[o.exit - 1]));
    if (o.result === 'reflected') pts.push(slotCenter(st.border[path.position - 1]));
    if (pts.length === 1) {
      const [x, y] = pts[0];
      return `<circle class="path ${cls}" cx="${x}" cy="${y}" r="1.5"/>`;
    }
    return `<polyline class="path ${cls}" points="${pts.map((q) => q.join(',')).join(' ')}"/>`;
  }

  // The answer of the coach for the rays on the board, if in.
  function coachAnswer() {
    return coach.answer && coach.key === play.question() && coach.asked === askedPolicy() ? coach.answer : null;
  }
  // The policy to ask the coach with: the one chosen, while the best ray is
  // shown (its next ray is part of it, as in `bbx play`).
  function askedPolicy() { return coach.panels.best ? coach.policy : ''; }

  function drawBoard() {
    const p = st.width;
    const h = st.height;
    const over = st.over;
    const guess = new Set(st.guess);
    const hidden = new Set(st.hidden || []);
    const empty = new Set(st.empty);
    const a = over ? null : coachAnswer();
    const parts = [`<rect class="box" x="${U}" y="${U}" width="${p * U}" height="${h * U}"/>`];
    const chances = a && coach.panels.chances && a.probabilities;
    const sureAtoms = a && coach.panels.certain && a.certainty_known ? new Set(a.certain_atoms) : null;
    const sureEmpty = a && coach.panels.certain && a.certainty_known ? new Set(a.certain_empty) : null;
    for (let i = 0; i < p * h; i++) {
      const [x, y] = [px(i % p + 1), px(Math.floor(i / p) + 1)];
      const locked = empty.has(i) && !over;
      parts.push(`<rect class="cell${locked ? ' locked' : ''}" data-cell="${i}" x="${x}" y="${y}" width="${U}" height="${U}"/>`);
      if (chances) {
        const q = chances[i];
        if (q >= 0.0005) parts.push(`<rect class="heat" x="${x}" y="${y}" width="${U}" height="${U}" fill-opacity="${(0.06 + 0.5 * q).toFixed(3)}"/>`);
        if (!guess.has(i)) {
          const t = q >= 0.9995 ? '*' : q < 0.0005 ? '·' : String(Math.min(9, Math.floor(q * 10)));
          parts.push(`<text class="tenths" x="${x + U / 2}" y="${y + U / 2}">${t}</text>`);
        }
      }
    }
    parts.push(gridPath(p, h));
    // Cells marked empty: a short stroke, as Tatham greys a locked cell.
    if (!over) {
      for (const i of empty) {
        const [x, y] = cellCenter(p, i);
        parts.push(`<path class="lockmark" d="M${x - 2} ${y + 2}L${x + 2} ${y - 2}"/>`);
      }
    }
    // The border: the marks of the rays shot, whether the guess explains them.
    const explained = coach.panels.explained && !over ? new Map(st.explained) : null;
    const best = a && coach.panels.best && a.rays.length ? a.rays[0].position : null;
    const next = a && a.policy && a.policy.ray !== null ? a.policy.ray : null;
    borderAt.clear();
    for (const b of st.border) borderAt.set(b.row * (p + 2) + b.col, b.position);
    const evidence = over && st.verdict && st.verdict.evidence ? st.verdict.evidence.position : null;
    for (const b of st.border) {
      const cls = ['slot'];
      if (b.mark) cls.push(b.free ? 'free' : 'shot');
      if (b.position === best) cls.push('hot');
      if (b.position === next) cls.push('next');
      if (b.position === evidence || (pendingWrong && pendingWrong.position === b.position)) cls.push('evidence');
      parts.push(`<rect class="${cls.join(' ')}" data-pos="${b.position}" x="${px(b.col)}" y="${px(b.row)}" width="${U}" height="${U}"><title>${esc(rayName(b.position))}${b.outcome ? ': ' + esc(outcomeWords(b.outcome)) : ''}</title></rect>`);
      const [x, y] = slotCenter(b);
      if (b.mark) {
        const pc = b.pair === null ? '' : ` p${b.pair % 8}`;
        parts.push(`<text class="mark${pc}" x="${x}" y="${y}">${esc(b.mark)}</text>`);
      }
      if (explained && b.outcome) {
        const low = b.outcome.result === 'exit' ? Math.min(b.position, b.outcome.exit) : b.position;
        const ok = explained.get(low);
        parts.push(`<text class="tick ${ok ? 'ok' : 'no'}" x="${px(b.col) + U - 2}" y="${px(b.row) + 2.2}">${ok ? '✓' : '✗'}</text>`);
      }
      if (b.position === best) parts.push(arrow(b));
      // The policy's next ray: a dashed ring round its slot.
      if (b.position === next) parts.push(`<circle class="next-ray" cx="${x}" cy="${y}" r="4.1"/>`);
    }
    // Certain cells.
    if (sureEmpty) {
      for (const i of sureEmpty) {
        const [x, y] = cellCenter(p, i);
        if (guess.has(i)) parts.push(`<text class="warn" x="${x + 3}" y="${y - 3}">!</text>`);
        else if (!chances) parts.push(`<circle class="sure-empty" cx="${x}" cy="${y}" r=".8"/>`);
      }
      for (const i of sureAtoms) {
        const [x, y] = cellCenter(p, i);
        parts.push(`<circle class="sure-atom" cx="${x}" cy="${y}" r="3.9"/>`);
      }
    }
    // Atoms: the guess, or after the game the reveal.
    for (let i = 0; i < p * h; i++) {
      const [x, y] = cellCenter(p, i);
      const g = guess.has(i);
      const h = hidden.has(i);
      if (!over) {
        if (g) parts.push(`<circle class="atom" cx="${x}" cy="${y}" r="3"/>`);
      } else if (g && h) {
        parts.push(`<circle class="atom" cx="${x}" cy="${y}" r="2.6"/><circle class="hidden-atom" cx="${x}" cy="${y}" r="3.7"/>`);
      } else if (g) {
        parts.push(`<circle class="atom wrong" cx="${x}" cy="${y}" r="3"/><path class="cross" d="M${x - 2} ${y - 2}L${x + 2} ${y + 2}M${x + 2} ${y - 2}L${x - 2} ${y + 2}"/>`);
      } else if (h) {
        parts.push(`<circle class="atom missed-atom" cx="${x}" cy="${y}" r="2.6"/><circle class="missed" cx="${x}" cy="${y}" r="3.7"/>`);
      }
    }
    // Paths after the game: the ray chosen, and the one that tells the guess apart.
    if (over) {
      const v = st.verdict;
      if (v && v.evidence && !shownPath) {
        parts.push(pathLine(p, JSON.parse(play.path(v.evidence.position, 'hidden')), ''));
        parts.push(pathLine(p, v.evidence.path_guess, 'guess'));
      }
      if (shownPath) parts.push(pathLine(p, JSON.parse(play.path(shownPath, 'hidden')), ''));
    } else if (pendingWrong) {
      parts.push(pathLine(p, pendingWrong.path_guess, 'guess'));
    }
    if (cursor) {
      parts.push(`<rect class="cursor" x="${px(cursor.col) + 0.5}" y="${px(cursor.row) + 0.5}" width="${U - 1}" height="${U - 1}" rx="1"/>`);
    }
    const svg = $('board');
    svg.setAttribute('viewBox', `0 0 ${(p + 2) * U} ${(h + 2) * U}`);
    fitShape(svg, p, h, true);
    svg.innerHTML = parts.join('');
    // What the board shows, readable by programs (and the page's tests).
    Object.assign(svg.dataset, {
      observation: st.observation, guess: st.guess.join(','), empty: st.empty.join(','),
      width: String(p), height: String(h),
      over: String(st.over), score: String(st.verdict ? st.verdict.score : st.ray_score),
    });
    $('legend').textContent = over
      ? 'ringed: your atom, right · crossed: your atom, wrong · dashed ring: an atom you missed · click a ray for its path'
      : marking ? 'Mark empty is on: clicks and taps mark cells (the border: a whole line)' : '';
  }

  // A board keeps the shape of its box, and the page's board fits in the
  // window's height as well as its width.
  function fitShape(svg, w, h, tall) {
    const ratio = (w + 2) / (h + 2);
    svg.style.aspectRatio = `${w + 2} / ${h + 2}`;
    if (tall) svg.style.maxWidth = `min(100%, calc((100vh - 7rem) * ${ratio.toFixed(4)}))`;
  }
  // A small board of a molecule in a box w wide and h high, for lists: its
  // atoms, and the marks given.
  function miniBoard(p, h, atoms, marks, opts = {}) {
    const parts = [`<rect class="box" x="${U}" y="${U}" width="${p * U}" height="${h * U}"/>`, gridPath(p, h)];
    const hidden = new Set(opts.hidden || []);
    const ring = opts.ring ? new Set(opts.ring) : null;
    for (const i of atoms) {
      const [x, y] = cellCenter(p, i);
      parts.push(`<circle class="atom" cx="${x}" cy="${y}" r="3"/>`);
      if (hidden.has(i)) parts.push(`<circle class="hidden-atom" cx="${x}" cy="${y}" r="3.8"/>`);
    }
    if (ring) for (const i of ring) {
      const [x, y] = cellCenter(p, i);
      parts.push(`<circle class="sure-atom" cx="${x}" cy="${y}" r="3.9"/>`);
    }
    if (opts.dots) for (const i of opts.dots) {
      const [x, y] = cellCenter(p, i);
      parts.push(`<circle class="sure-empty" cx="${x}" cy="${y}" r=".8"/>`);
    }
    if (marks) {
      const border = ports(p, h);
      for (let q = 1; q <= border.length; q++) {
        const m = marks[q - 1];
        if (!m || m === '?' || m === ' ') continue;
        const [x, y] = slotCenter(border[q - 1]);
        parts.push(`<text class="mark" x="${x}" y="${y}">${esc(m)}</text>`);
      }
    }
    return `<svg class="board" style="aspect-ratio: ${p + 2} / ${h + 2}" viewBox="0 0 ${(p + 2) * U} ${(h + 2) * U}" role="img" aria-label="${esc(opts.label || 'a molecule')}">${parts.join('')}</svg>`;
  }
  // The border of a box w wide and h high, as the library places it.
  const portCache = new Map();
  function ports(w, h) {
    const key = `${w}x${h}`;
    if (!portCache.has(key)) portCache.set(key, JSON.parse(bbx.border(w, h)));
    return portCache.get(key);
  }
  // The atoms of a molecule's linear form (a rectangle's rows separated by '/').
  const atomsOf = (linear) => [...linear.replace(/\//g, '')].flatMap((c, i) => (c === 'O' ? [i] : []));

  // ------------------------------------------------------------------ panel
  function drawPanel() {
    $('title').textContent = st.title;
    const given = st.given ? ` (${st.given} given free)` : '';
    const wrong = st.wrong_guesses ? ` · ${plural(st.wrong_guesses, 'wrong guess', 'wrong guesses')} played on` : '';
    $('status').textContent = `rays shot ${st.rays_shot}${given} · score ${st.ray_score} · atoms ${st.placed} of ${atomsTold(st)} placed${wrong}`;
    $('undo').disabled = !st.can_undo;
    $('redo').disabled = !st.can_redo;
    for (const id of ['mark', 'guess', 'resign']) $(id).disabled = st.over;
    $('mark').setAttribute('aria-pressed', String(marking && !st.over));
    $('wrong').hidden = !pendingWrong;
    drawVerdict();
    drawCoach();
  }

  function verdictExplanation(v) {
    const differ = plural(v.wrong, 'atom', 'atoms');
    if (v.resigned) return 'You gave up: the hidden molecule is shown, your atoms on it.';
    if (v.exact) return 'Your molecule is the hidden one.';
    if (v.won && st.judge === 'all-rays') return `Your molecule differs from the hidden one by ${differ}, but every ray gives the same result in both: no ray can tell them apart, so it wins.`;
    if (v.won) {
      const would = v.evidence ? ` (ray ${v.evidence.position}, not shot, would have told them apart)` : '';
      return `Your molecule differs from the hidden one by ${differ}, but fits every ray you shot, so it wins${would}.`;
    }
    const e = v.evidence;
    if (!e) return 'Your molecule is not the hidden one.';
    if (e.shot) return `Ray ${e.position} (${e.name}) was ${outcomeWords(e.hidden)}, but in your molecule it would be ${outcomeWords(e.guess)} (its path in your molecule is dashed).`;
    return `Your molecule fits every ray you shot, but ray ${e.position} (${e.name}), not shot, tells it apart: ${outcomeWords(e.hidden)} for the hidden molecule, ${outcomeWords(e.guess)} for yours (dashed).`;
  }

  function drawVerdict() {
    const box = $('verdict');
    const v = st.verdict;
    if (!v) { box.hidden = true; $('also').hidden = true; return; }
    const title = v.resigned ? 'You resigned' : v.won ? 'You win' : 'Not this time';
    let penalty = '';
    if (v.resigned) penalty = ` + ${v.penalty} for resigning (×5 per atom)`;
    else if (v.penalty) penalty = ` + ${v.penalty} for ${plural(v.missed, 'missed atom', 'missed atoms')} (×5)`;
    const after = v.wrong_guesses ? `, after ${plural(v.wrong_guesses, 'wrong guess', 'wrong guesses')} played on` : '';
    box.innerHTML = `<h2 class="${v.won ? 'won' : 'lost'}">${title}</h2>
      <p>score <b>${v.score}</b>: ${v.ray_score} for rays${penalty}${after}</p>
      <p>${esc(verdictExplanation(v))}</p>
      ${coach.coached ? '<p class="dim">(the coach helped in this game)</p>' : ''}
      <p><button id="again" class="primary">New game</button></p>`;
    box.hidden = false;
    $('again').onclick = () => newRandom();
    drawAlso();
  }

  // After the game: every molecule the rays shot allow, drawn.
  function drawAlso() {
    const box = $('also');
    box.hidden = false;
    const key = play.question();
    if (also.key !== key) {
      also.key = key;
      also.answer = null;
      also.error = null;
      const { max, timeout } = limits();
      solveWorker.ask('coach', { question: key, policy: '', max, timeout, shown: 24 }).then((a) => {
        if (also.key === key) { also.answer = a; drawAlso(); }
      }, (e) => {
        if (e !== superseded && also.key === key) { also.error = e.message; drawAlso(); }
      });
    }
    const a = also.answer;
    if (!a) {
      box.innerHTML = also.error ? `<p class="bad">The molecules could not be listed: ${esc(also.error)}</p>` : '<p class="dim">Listing the molecules that fit…</p>';
      return;
    }
    const rays = plural(st.border.filter((b) => b.outcome && !(b.outcome.result === 'exit' && b.outcome.exit < b.position)).length, 'ray shot', 'rays shot');
    const hidden = st.hidden;
    const figs = a.found.map((f, n) => {
      const atoms = atomsOf(f.molecule);
      const isHidden = atoms.length === hidden.length && atoms.every((x, k) => x === hidden[k]);
      const yours = atoms.length === st.guess.length && atoms.every((x, k) => x === st.guess[k]);
      const what = [isHidden && 'hidden', yours && 'yours'].filter(Boolean).join(', ');
      return `<figure>${miniBoard(st.width, st.height, atoms, null, { hidden: isHidden ? hidden : [], label: `molecule ${n + 1}` })}<figcaption>${n + 1}${what ? ': ' + what : ''}</figcaption></figure>`;
    });
    const cut = a.found.length < a.listed ? `<p class="dim">The first ${a.found.length} of the ${a.listed} listed are drawn.</p>` : '';
    box.innerHTML = `<h3>The molecules the rays allowed</h3><p>${esc(countSentence(a, 'the ' + rays))}; each gives the same results on those rays.</p><div class="boards">${figs.join('')}</div>${cut}`;
  }

  function drawCoach() {
    const out = $('coach-out');
    const pn = coach.panels;
    for (const k of Object.keys(pn)) $('c-' + k).checked = pn[k];
    $('c-policy').value = coach.policy;
    const lines = [];
    if (pn.explained && !st.over) {
      const n = st.explained.length;
      const ok = st.explained.filter(([, e]) => e).length;
      lines.push(n === 0 ? '<p class="dim">no ray shot yet for your guess to explain</p>'
        : `<p>your guess explains ${ok} of the ${plural(n, 'ray', 'rays')} shot (✓ and ✗ on the border)</p>`);
    }
    const heavy = pn.count || pn.certain || pn.chances || pn.best;
    if (!heavy || st.over) {
      if (!lines.length && !st.over) lines.push('<p class="dim">Ask for the count of molecules that fit, the certain cells, the chances or the best ray.</p>');
      out.innerHTML = lines.join('');
      return;
    }
    const a = coachAnswer();
    if (!a) {
      for (const k of Object.keys(out.dataset)) delete out.dataset[k];
      if (coach.error) lines.push(`<p class="bad">the coach failed: ${esc(coach.error)}</p>`);
      else lines.push(`<p class="dim">thinking… ${plural(coach.found, 'molecule', 'molecules')} so far (${((performance.now() - coach.started) / 1000).toFixed(1)} s)</p>`);
      out.innerHTML = lines.join('');
      return;
    }
    const p = st.width;
    if (pn.count) lines.push(`<p>${esc(countSentence(a, 'the rays shot'))}</p>`);
    if (pn.certain) {
      if (!a.certainty_known) lines.push('<p class="dim">certain cells: not known, the search stopped at its limit</p>');
      else {
        lines.push(`<p>certain: ${plural(a.certain_atoms.length, 'atom', 'atoms')} (ringed), ${plural(a.certain_empty.length, 'empty cell', 'empty cells')}${pn.chances ? '' : ' (dotted)'}</p>`);
        const bad = st.guess.filter((i) => a.certain_empty.includes(i)).length;
        if (bad) lines.push(`<p class="bad">${plural(bad, 'of your atoms is', 'of your atoms are')} on a cell certainly empty (!)</p>`);
      }
    }
    if (pn.chances) {
      if (!a.probabilities) lines.push('<p class="dim">chances: not known, too many molecules to count in the time</p>');
      else {
        lines.push('<p>chance of an atom: tenths in each cell (· none, * sure), darker when likelier</p>');
        let best = -1;
        a.probabilities.forEach((q, i) => {
          if (q <= 0.9995 && q >= 0.0005 && !st.guess.includes(i) && (best < 0 || q > a.probabilities[best])) best = i;
        });
        if (best >= 0) lines.push(`<p>likeliest open cell: ${cellName(p, best)} (${Math.round(100 * a.probabilities[best])}%)</p>`);
      }
    }
    if (pn.best) {
      if (!a.rays.length) {
        lines.push(`<p>best ray: ${a.molecules === 1 ? 'none needed, one molecule fits' : 'none, no ray left tells the molecules apart'}</p>`);
      } else {
        const s = a.rays[0];
        let partial = '';
        if (!a.ranking_exact) partial = a.ranking_sample ? ` (ranked on a random sample of ${a.ranking_sample.molecules})` : ` (ranked on the first ${a.listed} found only, not a sample)`;
        lines.push(`<p>best ray <b>${s.position}</b> (${esc(s.name)}, the arrow on the border): ${s.expected_remaining.toFixed(2)} molecules expected left${partial}</p>`);
        const rows = a.rays.slice(0, 5).map((r) => `<tr><td>${r.position}</td><td>${esc(r.name)}</td><td>${r.classes.length}</td><td>${r.expected_remaining.toFixed(2)}</td><td>${r.entropy.toFixed(2)}</td></tr>`);
        lines.push(`<table class="rays"><thead><tr><th>ray</th><th>position</th><th>outcomes</th><th>expected left</th><th>bits</th></tr></thead><tbody>${rows.join('')}</tbody></table>`);
        if (a.caveat) lines.push(`<p class="dim">${esc(a.caveat)}</p>`);
      }
      // The policy's next ray, in `bbx play`'s words; why there is none.
      if (a.policy) {
        const ringed = a.policy.ray !== null ? ' <span class="dim">(ringed on the border)</span>' : '';
        lines.push(`<p><span id="next-ray" class="${a.policy.ray !== null ? '' : 'dim'}">${esc(a.policy.line)}</span>${ringed}</p>`);
        if (a.policy.why) lines.push(`<p class="dim">${esc(a.policy.why)}</p>`);
      }
    }
    lines.push(`<p class="dim">answered in ${(a.elapsed_ms / 1000).toFixed(2)} s</p>`);
    out.innerHTML = lines.join('');
    Object.assign(out.dataset, answerData(a), { wallMs: String(coach.wallMs) });
  }
  // An answer's count, certain cells and best ray, readable by programs.
  function answerData(a) {
    return {
      observation: a.observation, molecules: String(a.molecules), complete: String(a.complete),
      best: a.rays.length ? String(a.rays[0].position) : '',
      policy: a.policy ? a.policy.name : '', nextRay: a.policy && a.policy.ray !== null ? String(a.policy.ray) : '',
      certainAtoms: a.certainty_known ? a.certain_atoms.join(',') : '',
      certainEmpty: a.certainty_known ? a.certain_empty.join(',') : '',
      elapsedMs: String(a.elapsed_ms),
    };
  }

  // Asks the coach about the rays on the board, when a heavy part is on
  // and its answer is not in; a question in hand about other rays stops.
  function askCoach() {
    const pn = coach.panels;
    if (st.over || !(pn.count || pn.certain || pn.chances || pn.best)) {
      coachWorker.cancel();
      clearInterval(coach.timer);
      return;
    }
    coach.coached = true;
    const key = play.question();
    const policy = askedPolicy();
    if (coach.key === key && coach.asked === policy && (coach.answer || coach.error || coachWorker.busy)) return;
    coach.key = key;
    coach.asked = policy;
    coach.answer = null;
    coach.error = null;
    coach.found = 0;
    coach.started = performance.now();
    clearInterval(coach.timer);
    coach.timer = setInterval(() => { if (!coach.answer) drawCoach(); }, 250);
    const { max, timeout } = limits();
    coachWorker.ask('coach', { question: key, policy, max, timeout, shown: 0 }, (n) => { coach.found = n; }).then((a) => {
      if (coach.key !== key || coach.asked !== policy) return;
      coach.answer = a;
      coach.wallMs = performance.now() - coach.started;
      clearInterval(coach.timer);
      render();
    }, (e) => {
      if (e === superseded || coach.key !== key || coach.asked !== policy) return;
      coach.error = e.message;
      clearInterval(coach.timer);
      drawCoach();
    });
  }

  function render() {
    st = JSON.parse(play.state());
    drawBoard();
    drawPanel();
    askCoach();
    updateLink();
  }

  // ---------------------------------------------------------------- actions
  function shoot(q) {
    const r = act(() => JSON.parse(play.shoot(q)));
    if (!r) return;
    if (r.shot === 'over') return;
    const b = st.border[q - 1];
    say(`${rayName(q)}: ${outcomeWords(r.outcome)}${r.shot === 'again' ? ' (shot already: nothing to pay)' : ''}${b && b.free ? ' (given by the puzzle)' : ''}`);
    render();
  }
  function toggle(i) {
    if (st.empty.includes(i)) { say(`${cellName(st.width, i)} is marked empty: mark it again to unmark it`); return; }
    const on = act(() => play.toggle(i));
    if (on === undefined) return;
    say(`${on ? 'atom at' : 'no atom at'} ${cellName(st.width, i)} (${st.placed + (on ? 1 : -1)} of ${atomsTold(st)})`);
    render();
  }
  function markCell(i) {
    if (st.guess.includes(i)) { say(`${cellName(st.width, i)} holds your atom: take it away first`); return; }
    const r = act(() => JSON.parse(play.mark_cell(i)));
    if (!r) return;
    say(`${cellName(st.width, i)} ${r.marked ? 'marked empty' : 'unmarked'}`);
    render();
  }
  function markLine(q) {
    const r = act(() => JSON.parse(play.mark_line(q)));
    if (!r) return;
    const b = st.border[q - 1];
    const line = b.side === 'left' || b.side === 'right' ? 'row' : 'column';
    say(r.changed ? `${plural(r.changed, 'cell', 'cells')} of the ${line} ${r.marked ? 'marked empty' : 'unmarked'}` : `nothing to mark in the ${line}: your atoms are there`);
    render();
  }
  // While a wrong guess waits for its answer, the board waits too.
  function waiting() {
    if (pendingWrong) say('Your guess is wrong: play on, or end the game.', true);
    return !!pendingWrong;
  }
  function primary(target) {
    if (!target || waiting()) return;
    if (st.over) {
      if (target.pos) { shownPath = shownPath === target.pos ? null : target.pos; say(shownPath ? `${rayName(shownPath)}: ${outcomeWords(JSON.parse(play.path(shownPath, 'hidden')).outcome)} (its path is drawn)` : ''); drawBoard(); }
      return;
    }
    if (marking) { secondary(target); return; }
    if (target.pos) shoot(target.pos); else toggle(target.cell);
  }
  function secondary(target) {
    if (!target || st.over || waiting()) return;
    if (target.pos) markLine(target.pos); else markCell(target.cell);
  }
  function undo() { if (!waiting() && act(() => play.undo())) { say('undone'); render(); } }
  function redo() { if (!waiting() && act(() => play.redo())) { say('redone'); render(); } }
  function guess() {
    if (st.over || waiting()) return;
    const c = JSON.parse(play.check());
    if (c.error) { say(c.error, true); return; }
    if (c.won) { act(() => play.submit()); finish(); return; }
    pendingWrong = c.evidence || { position: 0 };
    const e = c.evidence;
    let how = 'Play on, or end the game.';
    if (e && e.shot) how = `Play on: ${rayName(e.position)}, which you shot, does not fit your guess (its path in your guess is dashed); fix it and guess again.`;
    else if (e) how = `Play on: ${rayName(e.position)} tells it apart; it is shot for you and counted. Fix your guess, then guess again.`;
    $('wrong-text').innerHTML = `<b>Your guess is wrong.</b> ${esc(how)} Ending the game shows the answer, score ${c.score}.`;
    say('');
    render();
    $('play-on').focus();
  }
  function playOn() {
    const shot = pendingWrong && pendingWrong.shot;
    pendingWrong = null;
    const q = act(() => play.play_on());
    if (q) {
      const o = outcomeWords(JSON.parse(play.state()).border[q - 1].outcome);
      say(shot ? `Fix your guess: ${rayName(q)} was ${o}.` : `${rayName(q)} is shot for you: ${o}.`);
    }
    render();
    $('board').focus();
  }
  function endGame() { pendingWrong = null; act(() => play.submit()); finish(); }
  function resign() {
    if (st.over || waiting()) return;
    if (!confirm(`Give up? The hidden molecule is shown and the game is lost: your rays' ${st.ray_score} points + 5 per atom.`)) return;
    act(() => play.resign());
    finish();
  }
  function finish() {
    shownPath = null;
    coachWorker.cancel();
    render();
    const v = st.verdict;
    if (v) say(v.won ? `You win, score ${v.score}.` : v.resigned ? `You resigned: score ${v.score}.` : `Not this time: score ${v.score}.`);
  }

  // Starts a game made by `make` (a function returning a Play), in place of
  // the one in hand.
  function begin(make, what) {
    const p = act(make);
    if (!p) return false;
    if (play) play.free();
    play = p;
    pendingWrong = null;
    shownPath = null;
    cursor = null;
    coach.key = null; coach.answer = null; coach.error = null; coach.coached = false;
    also.key = null;
    coachWorker.cancel();
    solveWorker.cancel();
    render();
    say(what || `A new game: ${st.title}.`);
    showTab('play');
    return true;
  }
  function fields() {
    return { seed: $('seed').value.trim(), rules: $('rules').value, judge: $('judge').value };
  }
  function newRandom() {
    const f = fields();
    const config = $('config').value.trim() || 'A4_B8';
    if ($('unique').checked) {
      say('Choosing a molecule whose rays identify it…');
      startWorker.ask('start', { request: JSON.stringify({ config, unique: true, ...f }) }).then((r) => {
        begin(() => { const g = bbx.Play.open(r.save, 'the game', '', '', '', ''); g.set_title(r.title); return g; });
      }, (e) => { if (e !== superseded) say(e.message, true); });
      return;
    }
    begin(() => bbx.Play.random(config, f.seed, f.rules, f.judge));
  }
  // Opens the text of a file or a paste: saved games and Tatham's games at
  // once, a puzzle through the worker (its answer is chosen by the solver).
  function openText(text, origin) {
    const f = fields();
    if (!text.trim()) { say('Paste a game ID, a save file or a puzzle first.', true); return; }
    const k = bbx.kind(text);
    if (k !== 'puzzle') {
      begin(() => bbx.Play.open(text, origin, f.seed, '', f.judge, ''));
      return;
    }
    say(`Choosing the hidden molecule among the answers of ${origin}…`);
    startWorker.ask('start', { request: JSON.stringify({ text, origin, seed: f.seed, judge: f.judge, atoms: $('solve-atoms').value.trim() }) }).then((r) => {
      begin(() => { const g = bbx.Play.open(r.save, origin, '', '', '', ''); g.set_title(r.title); return g; });
    }, (e) => { if (e !== superseded) say(e.message, true); });
  }

  // ------------------------------------------------------- the URL fragment
  // The game as it stands travels in the address: bbx's save text, deflated,
  // in base64url (`#bbx1.…`); a Tatham game ID (`#w8h8m5M5:…`) opens too.
  const b64url = (bytes) => {
    let s = '';
    for (let i = 0; i < bytes.length; i += 0x8000) s += String.fromCharCode.apply(null, bytes.subarray(i, i + 0x8000));
    return btoa(s).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
  };
  const unb64url = (t) => {
    const s = atob(t.replace(/-/g, '+').replace(/_/g, '/'));
    const b = new Uint8Array(s.length);
    for (let i = 0; i < s.length; i++) b[i] = s.charCodeAt(i);
    return b;
  };
  async function pipe(bytes, transform) {
    return new Uint8Array(await new Response(new Blob([bytes]).stream().pipeThrough(transform)).arrayBuffer());
  }
  let linkSeq = 0;
  let ownHash = null;
  // The link and game ID are written after a compression that takes a
  // moment: `data-link` on the page's root says `pending` until the last
  // change's are written, then `ready` (what a test waits for).
  async function updateLink() {
    const seq = ++linkSeq;
    document.documentElement.dataset.link = 'pending';
    const done = () => { if (seq === linkSeq) document.documentElement.dataset.link = 'ready'; };
    let save;
    try { save = play.save(); } catch (e) { $('share-link').value = `no link: ${e.message}`; done(); return; }
    const packed = b64url(await pipe(new TextEncoder().encode(save), new CompressionStream('deflate-raw')));
    if (seq !== linkSeq) return;
    ownHash = '#bbx1.' + packed;
    history.replaceState(null, '', ownHash);
    $('share-link').value = location.href;
    const id = (() => { try { return play.tatham_id(); } catch (e) { return `no game ID: ${e.message}`; } })();
    $('share-id').value = id;
    done();
  }
  async function openHash() {
    const h = location.hash.slice(1);
    if (h.startsWith('bbx1.')) {
      let text;
      try {
        text = new TextDecoder().decode(await pipe(unb64url(h.slice(5)), new DecompressionStream('deflate-raw')));
      } catch (e) {
        return begin(() => bbx.Play.random('A4_B8', '', '', ''), 'The link is damaged (cut short?): a new game instead.');
      }
      return begin(() => bbx.Play.open(text, 'the link', '', '', '', ''), 'The game of the link, as it stood.');
    }
    const id = decodeURIComponent(h);
    if (id && bbx.kind(id) === 'tatham') {
      return begin(() => bbx.Play.open(id, "the link's game ID", '', '', '', ''), "The game of the link's game ID.");
    }
    return begin(() => bbx.Play.random('A4_B8', '', '', ''));
  }
  window.addEventListener('hashchange', () => { if (location.hash !== ownHash) openHash(); });

  // ------------------------------------------------------------------ input
  // What is under the pointer, worked out from its place on the board (the
  // board is drawn again after each action, so elements come and go).
  const borderAt = new Map(); // row * (p + 2) + col → border position
  function targetAt(svg, width, height, slots, e) {
    const m = svg.getScreenCTM();
    if (!m) return null;
    const pt = new DOMPoint(e.clientX, e.clientY).matrixTransform(m.inverse());
    const row = Math.floor(pt.y / U);
    const col = Math.floor(pt.x / U);
    if (row >= 1 && row <= height && col >= 1 && col <= width) return { cell: (row - 1) * width + col - 1 };
    const q = slots.get(row * (width + 2) + col);
    return q ? { pos: q } : null;
  }
  const same = (a, b) => a && b && a.pos === b.pos && a.cell === b.cell;
  // Clicks and taps act on pointer up over the place of pointer down; a
  // long press (touch, pen) or a right click marks.
  function pointerInput(svg, where, onPrimary, onSecondary) {
    let down = null;
    svg.addEventListener('pointerdown', (e) => {
      if (e.button !== 0) return;
      const t = where(e);
      down = { t, touch: e.pointerType !== 'mouse', fired: false, timer: null };
      if (down.touch && onSecondary) {
        const d = down;
        d.timer = setTimeout(() => { d.fired = true; onSecondary(d.t); }, 500);
      }
    });
    svg.addEventListener('pointerup', (e) => {
      const d = down;
      down = null;
      if (!d || e.button !== 0) return;
      clearTimeout(d.timer);
      const t = where(e);
      if (!d.fired && same(t, d.t)) onPrimary(t);
    });
    svg.addEventListener('pointercancel', () => { if (down) clearTimeout(down.timer); down = null; });
    svg.addEventListener('pointerleave', () => { if (down) clearTimeout(down.timer); });
    svg.addEventListener('contextmenu', (e) => {
      e.preventDefault();
      // A long press marks by itself; the browser's own long-press menu is not wanted.
      if (e.pointerType === 'touch' || (down && down.touch)) return;
      if (onSecondary) onSecondary(where(e));
    });
  }
  const board = $('board');
  pointerInput(board, (e) => targetAt(board, st.width, st.height, borderAt, e), primary, secondary);

  function atCursor() {
    if (!cursor) return null;
    const [p, h] = [st.width, st.height];
    const { row, col } = cursor;
    if (row >= 1 && row <= h && col >= 1 && col <= p) return { cell: (row - 1) * p + col - 1 };
    const b = st.border.find((x) => x.row === row && x.col === col);
    return b ? { pos: b.position } : null;
  }
  function moveCursor(dr, dc) {
    const [p, h] = [st.width, st.height];
    if (!cursor) { cursor = { row: 0, col: 1 }; return; }
    let { row, col } = cursor;
    row += dr; col += dc;
    const corner = (row === 0 || row === h + 1) && (col === 0 || col === p + 1);
    if (corner) {
      // Round the corner, onto the next side.
      if (dr) col += col === 0 ? 1 : -1; else row += row === 0 ? 1 : -1;
    }
    if (row < 0 || row > h + 1 || col < 0 || col > p + 1) return;
    cursor = { row, col };
  }
  board.addEventListener('keydown', (e) => {
    if (e.altKey || e.metaKey) return;
    const k = e.key;
    const ctrl = e.ctrlKey;
    let handled = true;
    if (ctrl && (k === 'z' || k === 'Z')) { if (e.shiftKey) redo(); else undo(); }
    else if (ctrl && (k === 'y' || k === 'Y')) redo();
    else if (ctrl) handled = false;
    else if (k === 'ArrowUp' || k === 'k') { moveCursor(-1, 0); describeCursor(); }
    else if (k === 'ArrowDown' || k === 'j') { moveCursor(1, 0); describeCursor(); }
    else if (k === 'ArrowLeft' || k === 'h') { moveCursor(0, -1); describeCursor(); }
    else if (k === 'ArrowRight' || k === 'l') { moveCursor(0, 1); describeCursor(); }
    else if (pendingWrong && (k === 'Enter' || k === 'p')) playOn();
    else if (pendingWrong && k === 'e') endGame();
    else if (k === 'Enter' || k === ' ') primary(atCursor());
    else if (k === 'm') { if (cursor) secondary(atCursor()); }
    else if (k === 'u') undo();
    else if (k === 'U') redo();
    else if (k === 'g') guess();
    else if (k === 'r') resign();
    else if (k === 'n') showTab('game');
    else if (k === 'c' || k === 'x' || k === 'p' || k === 'b' || k === 'e') togglePanel({ c: 'count', x: 'certain', p: 'chances', b: 'best', e: 'explained' }[k]);
    else handled = false;
    if (handled) { e.preventDefault(); drawBoard(); }
  });
  function describeCursor() {
    const t = atCursor();
    if (!t) return;
    if (t.pos) {
      const b = st.border[t.pos - 1];
      say(`${rayName(t.pos)}: ${b.outcome ? outcomeWords(b.outcome) : 'not shot'}`);
    } else {
      const i = t.cell;
      const what = st.guess.includes(i) ? 'your atom' : st.empty.includes(i) ? 'marked empty' : 'empty';
      say(`${cellName(st.width, i)}: ${what}`);
    }
  }
  function togglePanel(name) {
    coach.panels[name] = !coach.panels[name];
    drawBoard();
    drawCoach();
    askCoach();
  }
  for (const name of Object.keys(coach.panels)) {
    $('c-' + name).addEventListener('change', (e) => { coach.panels[name] = e.target.checked; drawBoard(); drawCoach(); askCoach(); });
  }
  // A policy chosen shows its next ray with the best ray's part, which it
  // turns on.
  $('c-policy').addEventListener('change', (e) => {
    coach.policy = e.target.value;
    if (coach.policy) coach.panels.best = true;
    drawBoard(); drawCoach(); askCoach();
  });
  $('undo').onclick = undo;
  $('redo').onclick = redo;
  $('mark').onclick = () => { marking = !marking; drawPanel(); drawBoard(); };
  $('guess').onclick = guess;
  $('resign').onclick = resign;
  $('play-on').onclick = playOn;
  $('end-game').onclick = endGame;

  // ------------------------------------------------------------------- tabs
  const tabs = ['play', 'game', 'solve', 'help'];
  function showTab(name) {
    if ($('page-' + name).hidden) window.scrollTo(0, 0);
    for (const t of tabs) {
      $('tab-' + t).setAttribute('aria-selected', String(t === name));
      $('page-' + t).hidden = t !== name;
    }
    if (name === 'solve') drawEditor();
  }
  for (const t of tabs) $('tab-' + t).onclick = () => showTab(t);

  // ------------------------------------------------- new, open and share
  $('preset').onchange = () => { if ($('preset').value) $('config').value = $('preset').value; else $('config').focus(); };
  $('config').oninput = () => { $('preset').value = [...$('preset').options].some((o) => o.value === $('config').value.trim()) ? $('config').value.trim() : ''; };
  $('new-form').onsubmit = (e) => { e.preventDefault(); newRandom(); };
  $('open-play').onclick = () => openText($('open-text').value, 'the text pasted');
  $('open-solve').onclick = () => { $('solve-text').value = $('open-text').value; showTab('solve'); solvePasted(); };
  $('open-file').onchange = async (e) => {
    const file = e.target.files[0];
    if (file) openFile(file, 'play');
    e.target.value = '';
  };
  async function copy(text, what) {
    try { await navigator.clipboard.writeText(text); say(`${what} copied.`); } catch (err) { say(`${what} could not be copied here: select it and copy it.`, true); }
  }
  $('copy-link').onclick = () => copy($('share-link').value, 'The link');
  $('copy-id').onclick = () => copy($('share-id').value, 'The game ID');
  $('copy-save').onclick = () => { const s = act(() => play.save()); if (s) copy(s, 'The puzzle text'); };
  $('download').onclick = () => {
    const s = act(() => play.save());
    if (!s) return;
    const a = document.createElement('a');
    a.href = URL.createObjectURL(new Blob([s], { type: 'text/plain' }));
    a.download = `bbx-${st.config}-game.txt`;
    document.body.append(a);
    a.click();
    a.remove();
    setTimeout(() => URL.revokeObjectURL(a.href), 1000);
  };

  // Files: chosen or dropped; at most 16 MiB, as bbx reads them.
  async function openFile(file, where) {
    if (file.size > 16 * 1024 * 1024) { say(`${file.name} is larger than the 16 MiB a puzzle or saved game may be.`, true); return; }
    const text = await file.text();
    if (where === 'solve') { $('solve-text').value = text; showTab('solve'); solvePasted(file.name); } else openText(text, file.name);
  }
  document.addEventListener('dragover', (e) => { e.preventDefault(); document.body.classList.add('drop'); });
  document.addEventListener('dragleave', (e) => { if (!e.relatedTarget) document.body.classList.remove('drop'); });
  document.addEventListener('drop', (e) => {
    e.preventDefault();
    document.body.classList.remove('drop');
    const file = e.dataTransfer.files[0];
    if (file) openFile(file, $('page-solve').hidden ? 'play' : 'solve');
  });

  // ------------------------------------------------------------------ solve
  const drawing = { width: 8, height: 8, rays: new Map(), picked: null };
  const drawAt = new Map();
  const side = (id) => Math.max(2, Math.min(64, Math.floor(Number($(id).value)) || 8));
  function drawEditor() {
    const [p, h] = [side('draw-width'), side('draw-height')];
    if (p !== drawing.width || h !== drawing.height) {
      Object.assign(drawing, { width: p, height: h, picked: null });
      drawing.rays.clear();
    }
    const parts = [`<rect class="box" x="${U}" y="${U}" width="${p * U}" height="${h * U}"/>`, gridPath(p, h)];
    // Letters for the exit pairs, in the order drawn.
    const letters = new Map();
    const ends = new Map();
    let n = 0;
    for (const [q, o] of drawing.rays) {
      if (o.result !== 'exit') continue;
      const l = 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ'[n++ % 52];
      letters.set(q, l); letters.set(o.exit, l);
      ends.set(o.exit, q);
    }
    drawAt.clear();
    for (const b of ports(p, h)) {
      const q = b.position;
      drawAt.set(b.row * (p + 2) + b.col, q);
      const o = drawing.rays.get(q) || (ends.has(q) ? { result: 'exit' } : null);
      parts.push(`<rect class="slot${o ? ' shot' : ''}${drawing.picked === q ? ' picked' : ''}" x="${px(b.col)}" y="${px(b.row)}" width="${U}" height="${U}"><title>${esc(b.name)}</title></rect>`);
      const [x, y] = slotCenter(b);
      const m = o ? (o.result === 'absorbed' ? '@' : o.result === 'reflected' ? '&' : letters.get(q)) : '';
      if (m) parts.push(`<text class="mark" x="${x}" y="${y}">${esc(m)}</text>`);
      else parts.push(`<text class="label" x="${x}" y="${y}">${q}</text>`);
    }
    const svg = $('draw');
    svg.setAttribute('viewBox', `0 0 ${(p + 2) * U} ${(h + 2) * U}`);
    fitShape(svg, p, h, false);
    svg.innerHTML = parts.join('');
  }
  $('draw-width').oninput = drawEditor;
  $('draw-height').oninput = drawEditor;
  $('draw-clear').onclick = () => { drawing.rays.clear(); drawing.picked = null; drawEditor(); };
  function forget(q) {
    drawing.rays.delete(q);
    for (const [k, o] of drawing.rays) if (o.exit === q) drawing.rays.delete(k);
  }
  function drawClick(t) {
    if (!t || !t.pos) return;
    const tool = document.querySelector('input[name="draw-tool"]:checked').value;
    const q = t.pos;
    if (tool === 'exit') {
      if (drawing.picked === null) { forget(q); drawing.picked = q; }
      else if (drawing.picked === q) drawing.picked = null;
      else { forget(q); drawing.rays.set(drawing.picked, { result: 'exit', exit: q }); drawing.picked = null; }
    } else {
      drawing.picked = null;
      forget(q);
      if (tool !== 'clear') drawing.rays.set(q, { result: tool });
    }
    drawEditor();
  }
  const drawSvg = $('draw');
  pointerInput(drawSvg, (e) => targetAt(drawSvg, drawing.width, drawing.height, drawAt, e), drawClick, (t) => { if (t && t.pos) { drawing.picked = null; forget(t.pos); drawEditor(); } });
  function solvePasted(origin) {
    const text = $('solve-text').value;
    if (!text.trim()) { $('solve-out').innerHTML = '<p class="bad">Paste a puzzle first.</p>'; return; }
    runSolve('solve', { text, origin: origin || 'the puzzle pasted' });
  }
  $('solve-go').onclick = () => solvePasted();
  $('draw-go').onclick = () => {
    const rays = [...drawing.rays].map(([position, o]) => ({ position, result: o.result, exit: o.exit || null }));
    runSolve('solve_rays', { width: drawing.width, height: drawing.height, rays: JSON.stringify(rays) });
  };
  function runSolve(fn, args) {
    const out = $('solve-out');
    for (const k of Object.keys(out.dataset)) delete out.dataset[k];
    const { max, timeout } = limits();
    const t = performance.now();
    let found = 0;
    const timer = setInterval(() => { out.innerHTML = `<p class="dim">solving… ${plural(found, 'molecule', 'molecules')} so far (${((performance.now() - t) / 1000).toFixed(1)} s)</p>`; }, 250);
    out.innerHTML = '<p class="dim">solving…</p>';
    solveWorker.ask(fn, { ...args, atoms: $('solve-atoms').value.trim(), rules: $('solve-rules').value, max, timeout, shown: 20 }, (n) => { found = n; })
      .then((a) => { clearInterval(timer); showSolution(a); out.scrollIntoView({ block: 'start', behavior: 'smooth' }); },
        (e) => { if (e === superseded) return; clearInterval(timer); out.innerHTML = `<p class="bad">${esc(e.message)}</p>`; out.scrollIntoView({ block: 'nearest' }); });
  }
  function showSolution(a) {
    const out = $('solve-out');
    const [p, h] = [a.width, a.height];
    const marks = [...a.observation];
    const atoms = a.atoms_min === a.atoms_max ? plural(a.atoms_min, 'atom', 'atoms') : `${a.atoms_min} to ${a.atoms_max} atoms`;
    const html = [`<h3>${esc(a.origin)}: ${p}×${h}, ${a.rays_shot} of ${2 * (p + h)} rays shot, ${atoms}, ${esc(a.rules)} rules</h3>`,
      `<p><code>${esc(a.observation)}</code></p>`];
    if (a.molecules === 0 && a.complete) {
      const why = a.conflict ? ` These rays contradict each other: ${a.conflict.join(', ')}.` : '';
      html.push(`<p class="bad">No molecule fits.${why}</p>`);
      out.innerHTML = html.join('');
      Object.assign(out.dataset, answerData(a));
      return;
    }
    html.push(`<p><b>${esc(countSentence(a, 'the rays'))}</b></p>`);
    if (a.guess) html.push(`<p>the guess ${a.guess.fits ? 'fits every observed ray' : 'does not fit'}${a.guess.differs_at ? ` (ray ${a.guess.differs_at[0]})` : ''}</p>`);
    const figs = [];
    if (a.certainty_known) {
      figs.push(`<figure>${miniBoard(p, h, [], marks, { ring: a.certain_atoms, dots: a.certain_empty, label: 'the cells certain' })}<figcaption>certain: ${plural(a.certain_atoms.length, 'atom', 'atoms')} (ringed), ${plural(a.certain_empty.length, 'empty cell', 'empty cells')} (dotted)</figcaption></figure>`);
    }
    a.found.forEach((f, n) => {
      const num = f.number === null ? '' : `, number ${f.number}`;
      figs.push(`<figure data-molecule="${esc(f.molecule)}">${miniBoard(p, h, atomsOf(f.molecule), marks, { label: `molecule ${n + 1}` })}<figcaption>molecule ${n + 1}${num}</figcaption></figure>`);
    });
    html.push(`<div class="boards">${figs.join('')}</div>`);
    if (a.found.length < a.listed) html.push(`<p class="dim">The first ${a.found.length} of the ${a.listed} molecules listed are drawn.</p>`);
    if (a.rays.length) {
      const rows = a.rays.slice(0, 8).map((r) => `<tr><td>${r.position}</td><td>${esc(r.name)}</td><td>${r.classes.length}</td><td>${r.expected_remaining.toFixed(2)}</td><td>${r.entropy.toFixed(2)}</td></tr>`);
      html.push(`<h3>Rays that tell them apart, best first</h3><table class="rays"><thead><tr><th>ray</th><th>position</th><th>outcomes</th><th>expected left</th><th>bits</th></tr></thead><tbody>${rows.join('')}</tbody></table>`);
      if (a.caveat) html.push(`<p class="dim">${esc(a.caveat)}</p>`);
    }
    html.push(`<p class="dim">answered in ${(a.elapsed_ms / 1000).toFixed(2)} s</p>`);
    out.innerHTML = html.join('');
    Object.assign(out.dataset, answerData(a));
  }

  // -------------------------------------------------------------- start up
  $('version').textContent = bbx.version();
  $('loading').hidden = true;
  await openHash();
  // Since the navigation started, and since this script did.
  window.bbxReady = { sinceNavigation: performance.now(), sinceScript: performance.now() - t0 };
  document.body.dataset.ready = 'yes';
})();
