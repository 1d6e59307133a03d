// The page's front on bbx's game middle (bbx-web's Session, in WebAssembly): it draws the
// scene the middle gives, turns clicks, taps and keys into its moves, and carries out its
// effects (the coach, the review and new games in Web Workers, saves as downloads, the game
// kept in the address). No rule, score or sentence of the game is here: every word shown
// comes from the library or from index.html.
'use strict';
(async function main() {
  const $ = (id) => document.getElementById(id);
  const U = 10; // SVG units per cell
  const esc = (s) => String(s).replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
  const bytes = (s) => Uint8Array.from(s, (c) => c.charCodeAt(0));
  const pipe = async (data, t) => new Uint8Array(await new Response(new Blob([data]).stream().pipeThrough(t)).arrayBuffer());

  // The module is inlined (gzip, base64): browsers fetch no .wasm file and start no
  // module worker for a page opened from a folder. The workers start from the same text.
  let module;
  try {
    module = await WebAssembly.compile(await pipe(bytes(atob($('wasm').textContent.trim())), new DecompressionStream('gzip')));
    await wasm_bindgen({ module_or_path: module });
  } catch (e) {
    $('loading').textContent = `${$('loading').dataset.failed} ${e.message}`;
    return;
  }
  const workerUrl = URL.createObjectURL(new Blob([$('glue').textContent, '\n', $('worker-src').textContent], { type: 'text/javascript' }));

  // A question at a time in a worker of its own: a newer one terminates it (another starts).
  const superseded = { superseded: true };
  function asker() {
    let [worker, job, seq] = [null, null, 0];
    const stop = () => { if (worker) worker.terminate(); worker = null; };
    const settle = (f) => { const j = job; job = null; if (j) f(j); };
    const spawn = () => {
      worker = new Worker(workerUrl);
      worker.onmessage = ({ data: m }) => {
        if (!job || m.id !== job.id) return;
        if ('progress' in m) { if (job.onProgress) job.onProgress(m.progress); return; }
        if (m.broken) stop();
        settle((j) => ('error' in m ? j.reject(new Error(m.error)) : j.resolve(m.result)));
      };
      worker.onerror = (e) => { e.preventDefault(); stop(); settle((j) => j.reject(new Error(e.message))); };
      worker.postMessage({ module });
    };
    const cancel = () => { if (job) { stop(); settle((j) => j.reject(superseded)); } };
    const ask = (fn, arg, onProgress) => {
      cancel();
      if (!worker) spawn();
      return new Promise((resolve, reject) => { job = { id: ++seq, resolve, reject, onProgress }; worker.postMessage({ id: seq, fn, arg }); });
    };
    return { ask, cancel, spawn };
  }
  // The coach's questions, a part each (rollout's weighing is shared among them).
  const cores = Math.max(1, navigator.hardwareConcurrency || 1);
  const workers = { ask: [asker()], review: asker(), start: asker(), solve: asker() };
  workers.ask[0].spawn(); // ready before the first question
  const coachWorker = ({ index = 0, of = 1 } = {}) => {
    workers.ask.slice(of).forEach((w) => w.cancel()); // parts no longer asked
    return workers.ask[index] || (workers.ask[index] = asker());
  };

  // The game as it stands travels in the address: the scene's link, deflated,
  // in base64url after `#bbx2.`; anything else after `#` (a Tatham game ID, an
  // older `#bbx1.` save) goes to the session as text, which says what it holds.
  let [linked, ownHash] = [null, null];
  async function readAddress() {
    const h = location.hash.slice(1);
    const packed = /^bbx\d\.(.*)$/.exec(h);
    try {
      if (!packed) return decodeURIComponent(h);
      const deflated = bytes(atob(packed[1].replace(/-/g, '+').replace(/_/g, '/')));
      return new TextDecoder().decode(await pipe(deflated, new DecompressionStream('deflate-raw')));
    } catch (e) {
      return h;
    }
  }
  async function writeAddress(link) {
    if (link === linked) return;
    linked = link;
    // `data-link` says `pending` until the link is in the address (what a test waits for).
    document.documentElement.dataset.link = 'pending';
    const packed = await pipe(new TextEncoder().encode(link), new CompressionStream('deflate-raw'));
    if (link !== linked) return;
    ownHash = '#bbx2.' + btoa(String.fromCharCode(...packed)).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
    history.replaceState(null, '', ownHash);
    $('share-link').value = location.href;
    document.documentElement.dataset.link = 'ready';
  }
  window.addEventListener('hashchange', async () => {
    const text = location.hash !== ownHash && (await readAddress());
    if (text !== false) act(() => session.address(text));
  });

  // ----------------------------------------------------- the session's game
  const session = await readAddress().then((a) => new wasm_bindgen.Session(a, cores)).catch((e) => { $('loading').textContent = e.message; });
  if (!session) return;
  let scene = null;
  const tone = (t) => (typeof t === 'string' ? t : t.verdict ? 'won' : 'lost');
  const say = (m) => { $('announce').textContent = m ? m[0] : ''; $('announce').className = `message ${m ? tone(m[1]) : ''}`; };
  // Every answer of the session: its scene drawn, its effects carried out.
  function act(call) {
    try {
      const a = JSON.parse(call());
      scene = a.scene;
      draw();
      a.done = Promise.all(a.effects.map(effect));
      return a;
    } catch (e) {
      say([`${$('loading').dataset.bug} ${e.message || e}`, 'bad']);
      return null;
    }
  }
  const move = (m) => act(() => session.apply(JSON.stringify(m)));
  const hear = (news) => act(() => session.hear(news));
  function begin(answer) {
    const a = act(() => session.begin(answer));
    if (a && a.started) { showTab('play'); board.focus(); }
  }
  // Each heavy effect: the worker's function, where its answer goes, what is said if lost.
  const heavy = {
    ask: ['coach', hear, (q, why) => hear(JSON.stringify({ failed: [q, why] }))],
    review: ['review', hear, (q, why) => hear(JSON.stringify({ review: { unavailable: why } }))],
    start: ['start', begin, (s, why) => begin(JSON.stringify({ error: why }))],
  };
  function effect(e) {
    const [kind, value] = typeof e === 'string' ? [e, null] : Object.entries(e)[0];
    if (kind in heavy) {
      const [fn, then, lost] = heavy[kind];
      const w = kind === 'ask' ? coachWorker(value.part) : workers[kind];
      const done = w.ask(fn, JSON.stringify(value), hear).then(then, (err) => { if (err !== superseded) lost(value, err.message); });
      return kind === 'start' ? done : null;
    }
    if (kind === 'save') {
      const a = Object.assign(document.createElement('a'), { download: value.path, href: URL.createObjectURL(new Blob([value.text])) });
      a.click();
      setTimeout(() => URL.revokeObjectURL(a.href), 1000);
      act(() => session.saved(value.path, ''));
    }
    if (kind === 'forget_coach') [...workers.ask, workers.review].forEach((w) => w.cancel());
    return null; // no 'quit': the page's middle is told it cannot quit
  }

  // ---------------------------------------------------------------- drawing
  const line = ([text, t]) => `<p class="${tone(t)}">${esc(text)}</p>`;
  const px = (c) => c * U;
  const centre = (w, i) => [px(i % w + 1) + U / 2, px(Math.floor(i / w) + 1) + U / 2];
  const slotAt = (s) => [px(s.col) + U / 2, px(s.row) + U / 2];
  const circle = (cls, [x, y], r) => `<circle class="${cls}" cx="${x}" cy="${y}" r="${r}"/>`;
  const text = (cls, [x, y], t) => `<text class="${cls}" x="${x}" y="${y}">${esc(t)}</text>`;
  const square = (cls, [x, y], more = '') => `<rect class="${cls}" x="${x - U / 2}" y="${y - U / 2}" width="${U}" height="${U}"${more}/>`;
  const slot = (cls, s, more = '') => square(cls, slotAt(s), `${more}><title>${esc(s.name)}</title></rect`);
  const box = (w, h, cls) => `<rect class="${cls}" x="${U}" y="${U}" width="${w * U}" height="${h * U}"/>`;
  const lines = (n, f) => Array.from({ length: n + 1 }, (_, k) => f(U + k * U)).join('');
  const grid = (w, h) => `<path class="grid" d="${lines(h, (y) => `M${U} ${y}h${w * U}`)}${lines(w, (x) => `M${x} ${U}v${h * U}`)}"/>${box(w, h, 'frame')}`;
  // A board keeps its box's shape; the page's fits the window's height too.
  function svg(el, w, h, parts, tall) {
    el.setAttribute('viewBox', `0 0 ${(w + 2) * U} ${(h + 2) * U}`);
    el.style.aspectRatio = `${w + 2} / ${h + 2}`;
    if (tall) el.style.maxWidth = `min(100%, calc((100vh - 7rem) * ${((w + 2) / (h + 2)).toFixed(4)}))`;
    el.innerHTML = parts.join('');
  }
  // A cell's atom: the player's, and after the game the answer on it.
  const atoms = {
    guess: (at) => [circle('atom', at, 3)],
    right: (at) => [circle('atom', at, 2.6), circle('hidden-atom', at, 3.7)],
    wrong: ([x, y]) => [circle('atom wrong', [x, y], 3), `<path class="cross" d="M${x - 2} ${y - 2}l4 4m0 -4l-4 4"/>`],
    missed: (at) => [circle('atom missed-atom', at, 2.6), circle('missed', at, 3.7)],
  };

  const board = $('board');
  function drawBoard() {
    const { width: w, height: h, cells, slots } = scene.board;
    const [under, over] = [[box(w, h, 'box')], [grid(w, h)]];
    cells.forEach((c, i) => {
      const at = centre(w, i);
      under.push(square(`cell${c.locked ? ' locked' : ''}`, at, ` data-cell="${i}" data-certain="${c.certain || ''}"`));
      if (c.chance !== null) under.push(square('heat', at, ` fill-opacity="${(0.5 * c.chance).toFixed(3)}"`));
      if (c.locked) over.push(`<path class="lockmark" d="M${at[0] - 2} ${at[1] + 2}l4 -4"/>`);
      if (c.chance !== null && !c.atom) over.push(text('tenths', at, c.mark.ch));
      if (c.certain === 'atom') over.push(circle('sure-atom', at, 3.9));
      else if (c.certain === 'empty' && c.chance === null && !c.atom) over.push(circle('sure-empty', at, 0.8));
      const seen = c.hidden === null ? c.atom && 'guess' : c.atom ? (c.hidden ? 'right' : 'wrong') : c.hidden && 'missed';
      if (seen) over.push(...atoms[seen](at));
      if (c.hidden === null && c.mark.look === 'wrong') over.push(text('warn', [at[0] + 3, at[1] - 3], c.mark.ch));
    });
    for (const s of slots) {
      const at = slotAt(s);
      const cls = ['slot', s.outcome && (s.free ? 'free' : 'shot'), s.best && 'hot', s.next && 'next', s.telling && 'evidence', s.mark.lit && 'lit'];
      under.push(slot(cls.filter(Boolean).join(' '), s, ` data-pos="${s.position}"`));
      const mark = `mark${s.pair === null ? '' : ` p${s.pair % 8}`} ${s.mark.look}`; // the best ray's arrow too
      over.push(s.mark.ch.trim() ? text(mark, at, s.mark.ch) : text('label', at, s.position));
      if (s.mark.explained !== null) over.push(text(`tick ${s.mark.explained ? 'ok' : 'no'}`, [at[0] + 3, at[1] - 2.8], s.mark.explained ? '✓' : '✗'));
      if (s.next) over.push(circle('next-ray', at, 4.1));
    }
    // Rays' ways, from the border to where they end (the atom that absorbs one).
    for (const t of scene.trails) {
      const pts = [slotAt(slots[t.position - 1]), ...t.cells.map(([r, c]) => [px(c) + U / 2, px(r) + U / 2])];
      if (t.atom) pts.push([px(t.atom[1]) + U / 2, px(t.atom[0]) + U / 2]);
      else if (t.outcome.result === 'exit') pts.push(slotAt(slots[t.outcome.exit - 1]));
      else if (t.outcome.result === 'reflected') pts.push(pts[0]);
      over.push(`<polyline class="path${t.through === 'guess' ? ' guess' : ''}" points="${pts.map((p) => p.join(',')).join(' ')}"/>`);
    }
    if (scene.cursor_shown) over.push(square('cursor', slotAt({ row: scene.cursor[0], col: scene.cursor[1] }), ' rx="1"'));
    svg(board, w, h, [...under, ...over], true);
    // What the board shows, for programs (the page's tests).
    const where = (f) => cells.flatMap((c, i) => (f(c) ? [i] : [])).join(',');
    const marks = slots.map((s) => (s.outcome ? s.mark.ch : ' ')).join('');
    Object.assign(board.dataset, { width: w, height: h, over: scene.over, atoms: where((x) => x.atom), locked: where((x) => x.locked), marks });
  }
  // A small board: atoms, cells ringed and dotted, the marks on its border.
  const borders = new Map();
  function figure(w, h, b, marks, caption) {
    const parts = [box(w, h, 'box'), grid(w, h), ...b.atoms.map((i) => circle('atom', centre(w, i), 3)),
      ...b.ringed.map((i) => circle('sure-atom', centre(w, i), 3.9)), ...b.dotted.map((i) => circle('sure-empty', centre(w, i), 0.8))];
    if (marks && !borders.has(`${w}x${h}`)) borders.set(`${w}x${h}`, JSON.parse(wasm_bindgen.border(w, h)));
    if (marks) borders.get(`${w}x${h}`).forEach((s, q) => { if (marks[q].trim()) parts.push(text('mark', slotAt(s), marks[q])); });
    const pic = `<svg class="board" style="aspect-ratio: ${w + 2} / ${h + 2}" viewBox="0 0 ${(w + 2) * U} ${(h + 2) * U}" role="img"`;
    const data = b.molecule ? ` data-molecule="${esc(b.molecule)}"` : '';
    return `<figure${data}>${pic} aria-label="${esc(caption)}">${parts.join('')}</svg><figcaption>${esc(caption)}</figcaption></figure>`;
  }

  let listed = null;
  function draw() {
    const s = scene;
    [$('title').textContent, $('status').textContent, $('keys').textContent] = [s.title, s.status.trim(), s.keys.trim()];
    say(s.message);
    drawBoard();
    $('side').innerHTML = s.side.map(line).join('');
    const d = s.dialog;
    $('dialog').hidden = !d;
    if (d) {
      // A button per choice, named after its move (`play-on`, `confirm`).
      const name = (m) => (typeof m === 'string' ? m : Object.keys(m)[0]).replace(/_/g, '-');
      const buttons = d.choices.map((c, i) => `<button id="${name(c.choice)}" data-choice="${i}"${i ? '' : ' class="primary"'}>${esc(c.label)}</button>`);
      $('dialog').className = `dialog ${d.kind}`;
      $('dialog').innerHTML = `<h2>${esc(d.title.trim())}</h2>${d.lines.map(line).join('')}<p>${buttons.join(' ')}</p>`;
      for (const b of $('dialog').querySelectorAll('button')) b.onclick = () => { move(d.choices[b.dataset.choice].choice); board.focus({ preventScroll: true }); };
    }
    for (const k of ['undo', 'redo', 'guess', 'resign', 'restart']) $(k).disabled = !s.tools[k];
    $('mark').disabled = s.over;
    $('mark').setAttribute('aria-pressed', String(s.tools.marking)); // clicks mark
    for (const c of document.querySelectorAll('[data-panel]')) [c.checked, c.disabled] = [s.coach.on.includes(c.dataset.panel), s.over];
    [$('c-policy').value, $('c-policy').disabled, $('coach-legend').textContent] = [s.coach.policy || '', s.over, s.coach.legend];
    if (s.help) {
      const keys = s.help.keys.map(([k, w]) => `<tr><td><kbd>${esc(k)}</kbd></td><td>${esc(w)}</td></tr>`).join('');
      $('help').innerHTML = `${s.help.above.map(line).join('')}<table class="keys">${keys}</table>${s.help.below.map(line).join('')}`;
      if ($('page-help').hidden) showTab('help');
    }
    // After the game, every molecule the rays allowed (drawn when it changes).
    const m = s.molecules;
    if (JSON.stringify(m) !== listed) {
      [listed, $('also').hidden] = [JSON.stringify(m), !m];
      const fig = (x) => figure(s.board.width, s.board.height, { atoms: x.atoms, ringed: x.hidden ? x.atoms : [], dotted: [] }, null, x.title);
      const heading = m && `<p class="${'Ok' in m.heading ? '' : 'dim'}">${esc(m.heading.Ok || m.heading.Err)}</p>`;
      if (m) $('also').innerHTML = `${heading}<div class="boards">${m.molecules.map(fig).join('')}</div>${m.cut ? `<p class="dim">${esc(m.cut)}</p>` : ''}`;
    }
    const sh = s.share;
    [$('share-id').value, $('download-sav').disabled] = [sh.tatham_id || '', !sh.tatham_file];
    $('download').disabled = $('copy-save').disabled = !('Ok' in sh.save);
    if ('Ok' in sh.link) writeAddress(sh.link.Ok);
    else [$('share-link').value, document.documentElement.dataset.link] = [sh.link.Err, 'ready'];
  }

  // ------------------------------------------------------------------ input
  // What is under the pointer, from its place (a board's elements come and go).
  function targetAt(el, w, h, slots, e) {
    const m = el.getScreenCTM();
    if (!m) return null;
    const p = new DOMPoint(e.clientX, e.clientY).matrixTransform(m.inverse());
    const [r, c] = [Math.floor(p.y / U), Math.floor(p.x / U)];
    if (r >= 1 && r <= h && c >= 1 && c <= w) return { cell: (r - 1) * w + c - 1 };
    const s = slots.find((x) => x.row === r && x.col === c);
    return s ? { border: s.position } : null;
  }
  const same = (a, b) => a && b && a.border === b.border && a.cell === b.cell;
  // A click or tap acts on pointer up where it went down; a long press or a right click is secondary.
  function pointer(el, where, primary, secondary) {
    let down = null;
    const drop = () => { if (down) clearTimeout(down.timer); down = null; };
    el.addEventListener('pointerdown', (e) => {
      if (e.button !== 0) return;
      const d = (down = { t: where(e), touch: e.pointerType !== 'mouse', fired: false, timer: null });
      if (d.touch) d.timer = setTimeout(() => { d.fired = true; secondary(d.t); }, 500);
    });
    el.addEventListener('pointerup', (e) => {
      const d = down;
      drop();
      if (d && e.button === 0 && !d.fired && same(where(e), d.t)) primary(d.t);
    });
    for (const e of ['pointercancel', 'pointerleave']) el.addEventListener(e, drop);
    el.addEventListener('contextmenu', (e) => {
      e.preventDefault(); // a long press acts by itself, without the browser's menu
      if (e.pointerType !== 'touch' && !(down && down.touch)) secondary(where(e));
    });
  }
  const press = (secondary) => (t) => { if (t) move({ press: { at: t, secondary } }); };
  pointer(board, (e) => targetAt(board, scene.board.width, scene.board.height, scene.board.slots, e), press(false), press(true));
  board.addEventListener('keydown', (e) => {
    const a = e.metaKey ? null : act(() => session.key(e.key, e.ctrlKey, e.altKey));
    if (a && a.handled) e.preventDefault();
  });
  for (const b of document.querySelectorAll('[data-move]')) b.onclick = () => { move(b.dataset.move); board.focus({ preventScroll: true }); };
  for (const c of document.querySelectorAll('[data-panel]')) c.onchange = () => move({ coach: c.dataset.panel });
  $('c-policy').onchange = (e) => move({ policy: e.target.value || null });

  // Tabs: the Help tab is the middle's help, open while it is shown.
  const tabs = ['play', 'game', 'solve', 'help'];
  function showTab(name) {
    if ($('page-' + name).hidden) window.scrollTo(0, 0);
    tabs.forEach((t) => { $('tab-' + t).setAttribute('aria-selected', String(t === name)); $('page-' + t).hidden = t !== name; });
    if (name === 'solve') drawEditor();
    if ((name === 'help') !== !!scene.help) move(name === 'help' ? 'help' : 'cancel');
  }
  for (const t of tabs) $('tab-' + t).onclick = () => showTab(t);

  // --------------------------------------------------- new, open and share
  $('preset').onchange = () => { if ($('preset').value) $('config').value = $('preset').value; else $('config').focus(); };
  $('config').oninput = () => { $('preset').value = [...$('preset').options].some((o) => o.value === $('config').value.trim()) ? $('config').value.trim() : ''; };
  $('new-form').onsubmit = (e) => {
    e.preventDefault();
    move({ new_from: { game: $('config').value, seed: $('seed').value, rules: $('rules').value, judge: $('judge').value, unique: $('unique').checked } });
  };
  const open = (text, origin) => move({ open: { text, origin } });
  $('open-play').onclick = () => open($('open-text').value, $('open-text').dataset.origin);
  $('open-solve').onclick = () => { $('solve-text').value = $('open-text').value; showTab('solve'); solvePasted(); };
  $('open-file').onchange = (e) => { if (e.target.files[0]) openFile(e.target.files[0], false); e.target.value = ''; };
  async function openFile(file, solving) {
    if (!solving) return open(await file.text(), file.name);
    $('solve-text').value = await file.text();
    showTab('solve');
    return solvePasted(file.name);
  }
  const dropping = (e, on) => { e.preventDefault(); document.body.classList.toggle('drop', on); };
  document.addEventListener('dragover', (e) => dropping(e, true));
  document.addEventListener('dragleave', (e) => { if (!e.relatedTarget) dropping(e, false); });
  document.addEventListener('drop', (e) => { dropping(e, false); if (e.dataTransfer.files[0]) openFile(e.dataTransfer.files[0], !$('page-solve').hidden); });
  // Copies say the page's own words (index.html), where they are seen.
  for (const b of document.querySelectorAll('[data-done]')) {
    b.onclick = () => navigator.clipboard.writeText(b.dataset.copy ? $(b.dataset.copy).value : scene.share.save.Ok)
      .then(() => say([b.dataset.done, 'good']), () => say([b.dataset.failed, 'bad']));
  }
  $('download').onclick = () => move({ save: scene.share.file });
  $('download-sav').onclick = () => move({ save: scene.share.tatham_file });
  $('max').onchange = $('timeout').onchange = () => {
    const [max, seconds] = [Math.floor(Number($('max').value)), Number($('timeout').value)];
    if (max >= 1 && seconds > 0) move({ limits: { max, timeout_ms: Math.round(seconds * 1000) } });
  };

  // ------------------------------------------------------------------ solve
  let drawing = null; // the puzzle drawn (bbx-web's Drawing)
  function drawEditor() {
    const side = (id) => Math.min(+$(id).max, Math.max(+$(id).min, Math.floor(+$(id).value) || +$(id).min));
    const [w, h] = [side('draw-width'), side('draw-height')];
    if (!drawing || drawing.width !== w || drawing.height !== h) {
      if (drawing) drawing.free();
      drawing = Object.assign(new wasm_bindgen.Drawing(w, h), { width: w, height: h });
    }
    drawing.slots = JSON.parse(drawing.view()).slots;
    const parts = [box(w, h, 'box'), grid(w, h)];
    for (const s of drawing.slots) {
      parts.push(slot(`slot${s.mark ? ' shot' : ''}${s.picked ? ' picked' : ''}`, s));
      parts.push(s.mark ? text('mark', slotAt(s), s.mark) : text('label', slotAt(s), s.position));
    }
    svg($('draw'), w, h, parts, false);
  }
  $('draw-width').oninput = $('draw-height').oninput = drawEditor;
  $('draw-clear').onclick = () => { drawing.clear(); drawEditor(); };
  const drawClick = (tool) => (t) => {
    if (t && t.border) drawing.click(t.border, tool || document.querySelector('input[name="draw-tool"]:checked').value);
    drawEditor();
  };
  pointer($('draw'), (e) => targetAt($('draw'), drawing.width, drawing.height, drawing.slots, e), drawClick(null), drawClick('clear'));
  function solve(request) {
    const out = $('solve-out');
    for (const k of Object.keys(out.dataset)) delete out.dataset[k];
    const said = (t) => { out.innerHTML = `<p class="dim">${esc(t)}</p>`; };
    said('…'); // until the search says how far it is
    const [max, timeout] = scene.coach.limits;
    const asked = { ...request, atoms: $('solve-atoms').value, rules: $('solve-rules').value, max, timeout, shown: 20 };
    workers.solve.ask('solve', JSON.stringify(asked), said)
      .then((r) => showSolution(JSON.parse(r)), (e) => { if (e !== superseded) out.innerHTML = `<p class="bad">${esc(e.message)}</p>`; });
  }
  const solvePasted = (origin) => solve({ text: $('solve-text').value, origin: origin || $('solve-text').dataset.origin });
  $('solve-go').onclick = () => solvePasted();
  $('draw-go').onclick = () => solve({ drawing: drawing.observation() });
  function showSolution(p) {
    const [out, r, cell] = [$('solve-out'), p.rays, (tag) => (c) => `<${tag}>${esc(c)}</${tag}>`];
    const table = r && `<h3>${esc(r.heading)}</h3>${r.caveat ? `<p class="dim">${esc(r.caveat)}</p>` : ''}<table class="rays">`
      + `<thead><tr>${r.columns.map(cell('th')).join('')}</tr></thead>`
      + `<tbody>${r.rows.map((row) => `<tr>${row.map(cell('td')).join('')}</tr>`).join('')}</tbody></table>`;
    out.innerHTML = [`<h3>${esc(p.heading)}</h3><p><code>${esc(p.observed)}</code></p><p class="${p.none ? 'bad' : ''}"><b>${esc(p.verdict)}</b></p>`,
      ...p.notes.map(cell('p')), `<div class="boards">${p.boards.map((b) => figure(p.width, p.height, b, p.marks, b.caption)).join('')}</div>`,
      p.more && `<p class="dim">${esc(p.more)}</p>`, table, `<p class="dim">${esc(p.answered)}</p>`].filter(Boolean).join('');
    const certain = p.boards.find((b) => !b.molecule) || { ringed: [], dotted: [] };
    Object.assign(out.dataset, { molecules: p.count, complete: p.complete, certainAtoms: certain.ringed.join(','), certainEmpty: certain.dotted.join(',') });
    out.scrollIntoView({ block: 'nearest' });
  }

  // --------------------------------------------------------------- start up
  [$('version').textContent, $('loading').hidden] = [wasm_bindgen.version(), true];
  const first = act(() => session.first());
  if (!first) return;
  showTab('play');
  [$('max').value, $('timeout').value] = [scene.coach.limits[0], scene.coach.limits[1] / 1000];
  await first.done;
  window.bbxReady = { sinceNavigation: performance.now() };
  document.body.dataset.ready = 'yes';
})();
