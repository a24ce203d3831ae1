// damas web: the page. It draws what the server sends and asks it for every rule: the routes
// of the side to move come from the engine, and a move is played when its squares match one.
"use strict";

const PX = 60; // one square in SVG units
const SVGNS = "http://www.w3.org/2000/svg";
const $ = (id) => document.getElementById(id);

const S = {
  meta: null,
  view: null, // {kind: "game" | "replay", data, id, index}
  at: 0, // the frame shown
  flip: false,
  pick: null, // {path: [squares], dragging, x, y}: the person's move in progress
  paused: false,
  busy: false,
  clockAt: 0, // performance.now() when the clocks were read
  flagAsked: false,
};

// --- Requests ------------------------------------------------------------------------------

async function api(path, body) {
  const options = body === undefined ? {} : {
    method: "POST",
    headers: {"Content-Type": "application/json"},
    body: JSON.stringify(body),
  };
  const response = await fetch(path, options);
  let data;
  try {
    data = await response.json();
  } catch (e) {
    throw new Error(`the server answered ${response.status} without JSON`);
  }
  if (!response.ok) throw new Error(data.error || `the server answered ${response.status}`);
  return data;
}

function showError(error) {
  $("error").textContent = error ? String(error.message || error) : "";
}

async function attempt(work) {
  try {
    await work();
    return true;
  } catch (e) {
    showError(e);
    return false;
  }
}

// --- Start ---------------------------------------------------------------------------------

async function start() {
  S.meta = await api("/api/meta");
  fillVariants();
  for (const spec of ["human", ...S.meta.agents]) {
    const option = document.createElement("option");
    option.value = spec;
    $("agents").appendChild(option);
  }
  wire();
  const key = new URLSearchParams(location.hash.slice(1)).get("game");
  if (key) await attempt(async () => showGame(await api(`/api/games/${key}`)));
  setInterval(tick, 200);
}

function fillVariants(selected) {
  const select = $("variant");
  select.textContent = "";
  const add = (value, label) => {
    const option = document.createElement("option");
    option.value = value;
    option.textContent = label;
    select.appendChild(option);
  };
  for (const custom of S.meta.custom) add(custom.id, `${custom.name} (uploaded)`);
  for (const name of S.meta.variants) add(name, name);
  select.value = selected || "english";
  nameSides();
}

function nameSides() {
  const sides = S.meta.sides[$("variant").value] || ["White", "Black"];
  $("white-label").textContent = sides[0];
  $("black-label").textContent = sides[1];
}

function wire() {
  $("new-game").addEventListener("submit", (event) => {
    event.preventDefault();
    newGame();
  });
  $("rules-file").addEventListener("change", uploadRules);
  $("variant").addEventListener("change", nameSides);
  $("pdn-file").addEventListener("change", openPdn);
  $("pdn-games").addEventListener("change", () => loadReplay(Number($("pdn-games").value)));
  $("undo").addEventListener("click", undo);
  $("flip").addEventListener("click", () => { S.flip = !S.flip; draw(); });
  $("pause").addEventListener("click", () => {
    S.paused = !S.paused;
    $("pause").textContent = S.paused ? "Go on" : "Pause";
    pump();
  });
  $("first").addEventListener("click", () => go(0));
  $("prev").addEventListener("click", () => go(S.at - 1));
  $("next").addEventListener("click", () => go(S.at + 1));
  $("last").addEventListener("click", () => go(Infinity));
  $("moves").addEventListener("click", (event) => {
    const item = event.target.closest("li");
    if (item) go(Number(item.dataset.frame));
  });
  document.addEventListener("keydown", (event) => {
    if (event.target.tagName === "INPUT") return;
    if (event.key === "ArrowLeft") go(S.at - 1);
    if (event.key === "ArrowRight") go(S.at + 1);
    if (event.key === "Escape") { S.pick = null; draw(); }
  });
  const board = $("board");
  board.addEventListener("pointerdown", press);
  board.addEventListener("pointermove", drag);
  board.addEventListener("pointerup", release);
  board.addEventListener("contextmenu", (event) => { event.preventDefault(); S.pick = null; draw(); });
}

async function newGame() {
  showError("");
  const minutes = $("minutes").value.trim();
  const body = {
    variant: $("variant").value,
    white: $("white").value.trim() || "human",
    black: $("black").value.trim() || "human",
    increment: Number($("increment").value || 0),
  };
  if (minutes !== "") body.seconds = Number(minutes) * 60;
  if ($("fen").value.trim()) body.fen = $("fen").value.trim();
  $("status").textContent = "starting the game (an agent may load a network first)...";
  await attempt(async () => showGame(await api("/api/games", body)));
}

async function uploadRules() {
  const file = $("rules-file").files[0];
  if (!file) return;
  await attempt(async () => {
    const made = await api("/api/rules", {name: file.name, text: await file.text()});
    S.meta = await api("/api/meta");
    fillVariants(made.id);
    $("status").textContent = `rules ${made.name} read: start a new game to play them`;
  });
}

// --- Games and replays ---------------------------------------------------------------------

function showGame(data) {
  if (!S.view || S.view.id !== data.id) S.flip = data.people[1] && !data.people[0]; // yours below
  S.view = {kind: "game", data, id: data.id};
  S.at = data.frames.length - 1;
  S.pick = null;
  S.clockAt = performance.now();
  S.flagAsked = false;
  history.replaceState(null, "", `#game=${data.id}`);
  showError("");
  draw();
  pump();
}

async function pump() {
  const view = S.view;
  if (!view || view.kind !== "game" || !view.data.agent_to_move || S.paused || S.busy) return;
  S.busy = true;
  draw();
  const watching = !view.data.people.some((person) => person);
  await new Promise((done) => setTimeout(done, watching ? 500 : 100));
  const played = await attempt(async () => {
    const data = await api(`/api/games/${view.id}/agent`, {});
    if (S.view === view) showGame(data);
  });
  S.busy = false;
  if (!played) {
    S.paused = true; // an agent that failed is not asked again until Go on
    $("pause").textContent = "Go on";
  }
  draw();
  pump();
}

async function sendMove(squares) {
  const view = S.view;
  S.pick = null;
  S.busy = true;
  await attempt(async () => showGame(await api(`/api/games/${view.id}/move`, {squares})));
  S.busy = false;
  draw();
  pump();
}

async function undo() {
  if (!S.view || S.view.kind !== "game" || S.busy) return;
  await attempt(async () => showGame(await api(`/api/games/${S.view.id}/undo`, {})));
}

async function openPdn() {
  const file = $("pdn-file").files[0];
  if (!file) return;
  showError("");
  if (file.size > 8 * 1024 * 1024) return showError(`${file.name} is larger than 8 MB`);
  await attempt(async () => {
    const opened = await api("/api/pdn", {text: await file.text()});
    const select = $("pdn-games");
    select.textContent = "";
    opened.games.forEach((g, i) => {
      const option = document.createElement("option");
      option.value = i;
      option.textContent = `${i + 1}. ${g.white} - ${g.black} ${g.result} (${g.plies} plies)`;
      select.appendChild(option);
    });
    select.hidden = false;
    S.pdn = opened.id;
    await loadReplay(0);
  });
}

async function loadReplay(index) {
  await attempt(async () => {
    const data = await api(`/api/pdn/${S.pdn}/${index}`);
    S.view = {kind: "replay", data, id: S.pdn, index};
    S.at = 0;
    S.pick = null;
    history.replaceState(null, "", "#");
    showError(data.error);
    draw();
  });
}

function go(frame) {
  if (!S.view) return;
  S.at = Math.max(0, Math.min(S.view.data.frames.length - 1, frame));
  S.pick = null;
  draw();
}

// --- Moving --------------------------------------------------------------------------------

function canMove() {
  const view = S.view;
  return view && view.kind === "game" && !S.busy && view.data.routes.length > 0
    && S.at === view.data.frames.length - 1;
}

function following(path) {
  // the routes that begin with the hops played so far
  return S.view.data.routes.filter((r) => path.every((sq, i) => r.squares[i] === sq));
}

function targets() {
  if (!S.pick) return [];
  const n = S.pick.path.length;
  return following(S.pick.path).filter((r) => r.squares.length > n).map((r) => r.squares[n]);
}

function squareAt(event) {
  const board = $("board");
  const point = board.createSVGPoint();
  point.x = event.clientX;
  point.y = event.clientY;
  const p = point.matrixTransform(board.getScreenCTM().inverse());
  const size = S.view.data.size;
  let col = Math.floor(p.x / PX), row = Math.floor(p.y / PX);
  if (S.flip) col = size - 1 - col, row = size - 1 - row;
  const found = S.view.data.cells.findIndex(([r, c]) => r === row && c === col);
  return {square: found, x: p.x, y: p.y};
}

function press(event) {
  if (!S.view || event.button !== 0) return;
  const {square, x, y} = squareAt(event);
  if (!canMove()) {
    if (S.view.kind === "game" && square >= 0 && !S.busy && S.at !== S.view.data.frames.length - 1) {
      showError("you are looking at an earlier position: go to the latest (▶|) to move");
    }
    return;
  }
  if (S.pick && targets().includes(square)) return hop(square);
  if (S.pick && square === S.pick.path.at(-1)) { // the picked piece: drag it on
    Object.assign(S.pick, {dragging: true, x, y});
    $("board").setPointerCapture(event.pointerId);
    return draw();
  }
  if (S.pick && S.pick.path.length > 1) {
    showError(`finish the capture: the piece on ${square0(S.pick.path.at(-1))} must jump on (Escape starts the move again)`);
    return;
  }
  if (following([square]).length) {
    S.pick = {path: [square], dragging: true, x, y};
    $("board").setPointerCapture(event.pointerId);
    showError("");
  } else {
    S.pick = null;
    if (square >= 0 && S.view.data.frames[S.at].board[square] !== 0) {
      showError(`the piece on ${square0(square)} has no legal move${mustCapture() ? " (a capture is compulsory)" : ""}`);
    }
  }
  draw();
}

function mustCapture() {
  return S.view.data.routes.every((r) => r.captures.length > 0);
}

function drag(event) {
  if (!S.pick || !S.pick.dragging) return;
  const {x, y} = squareAt(event);
  S.pick.x = x;
  S.pick.y = y;
  draw();
}

function release(event) {
  if (!S.pick || !S.pick.dragging) return;
  S.pick.dragging = false;
  const {square} = squareAt(event);
  const here = S.pick.path.at(-1);
  if (square === here) return draw(); // a click: the piece stays picked
  if (targets().includes(square)) return hop(square);
  const where = square >= 0 ? square0(square) : "off the board";
  showError(`illegal drop: ${where} is not a legal landing square of the piece on ${square0(here)}`);
  if (S.pick.path.length === 1) S.pick = null;
  draw();
}

function hop(square) {
  S.pick.path.push(square);
  S.pick.dragging = false;
  showError("");
  const path = S.pick.path;
  const routes = following(path);
  const longer = routes.some((r) => r.squares.length > path.length);
  if (!longer && routes.some((r) => r.squares.length === path.length)) return sendMove(path.slice());
  draw();
}

function square0(square) {
  return String(square + 1); // the PDN number the board shows
}

// --- Drawing -------------------------------------------------------------------------------

function shownBoard(frame) {
  // the frame's board, with the person's move in progress played so far
  const board = frame.board.slice();
  const captured = [];
  if (S.pick && S.pick.path.length > 1) {
    const path = S.pick.path;
    const route = following(path)[0];
    board[path.at(-1)] = board[path[0]];
    if (path.at(-1) !== path[0]) board[path[0]] = 0;
    captured.push(...route.captures.slice(0, path.length - 1));
  }
  return {board, captured};
}

function cellXY(square) {
  const [row, col] = S.view.data.cells[square];
  const size = S.view.data.size;
  return S.flip ? [(size - 1 - col) * PX, (size - 1 - row) * PX] : [col * PX, row * PX];
}

function element(name, attributes, parent) {
  const e = document.createElementNS(SVGNS, name);
  for (const [k, v] of Object.entries(attributes)) e.setAttribute(k, v);
  parent.appendChild(e);
  return e;
}

function draw() {
  const view = S.view;
  if (!view) return;
  const data = view.data;
  const frame = data.frames[S.at];
  const svg = $("board");
  const side = data.size * PX;
  svg.setAttribute("viewBox", `0 0 ${side} ${side}`);
  svg.dataset.frame = S.at;
  svg.dataset.turn = frame.turn;
  svg.textContent = "";
  element("rect", {class: "light", width: side, height: side}, svg);
  const {board, captured} = shownBoard(frame);
  const last = [...frame.squares, ...(S.pick ? S.pick.path : [])];
  const picked = S.pick ? S.pick.path.at(-1) : -1;
  const aims = targets();
  const grid = data.cells.length === data.size * data.size ? " grid" : ""; // all squares played
  data.cells.forEach((_, sq) => {
    const [x, y] = cellXY(sq);
    const mark = sq === picked ? " selected" : last.includes(sq) ? " last" : "";
    const attributes = {class: `square${mark}${grid}`, x, y, width: PX, height: PX, "data-square": sq};
    element("rect", attributes, svg);
    element("text", {class: "number", x: x + 3, y: y + 12}, svg).textContent = sq + 1;
  });
  data.cells.forEach((_, sq) => {
    const code = board[sq];
    const dragged = S.pick && S.pick.dragging && sq === picked;
    if (code && !dragged) piece(svg, sq, code, captured.includes(sq), ...centre(sq));
    if (aims.includes(sq)) {
      const [x, y] = centre(sq);
      element("circle", {class: "target", cx: x, cy: y, r: PX * 0.14, "data-square": sq}, svg);
    }
  });
  if (S.pick && S.pick.dragging) piece(svg, picked, board[picked], false, S.pick.x, S.pick.y, " dragging");
  drawSide();
}

function centre(square) {
  const [x, y] = cellXY(square);
  return [x + PX / 2, y + PX / 2];
}

function piece(svg, square, code, captured, x, y, extra = "") {
  const colour = code > 0 ? 0 : 1;
  const name = S.view.data.colours[colour];
  const kind = Math.abs(code) === 2 ? "king" : "man";
  const classes = `piece c${colour} ${name} ${kind}${captured ? " captured" : ""}${extra}`;
  element("circle", {class: classes, cx: x, cy: y, r: PX * 0.38, "data-square": square}, svg);
  if (kind === "king") element("circle", {class: "crown", cx: x, cy: y, r: PX * 0.2}, svg);
}

function drawSide() {
  const view = S.view;
  const data = view.data;
  const frame = data.frames[S.at];
  const names = data.colours;
  $("players").textContent = `${data.variant}: ${names[0]} ${data.players[0]}, ${names[1]} ${data.players[1]}`;
  $("status").textContent = statusText(view, frame);
  drawClocks();
  drawLimits();
  drawMoves();
  const live = view.kind === "game";
  $("undo").disabled = !live || !data.can_undo || S.busy;
  $("pause").disabled = !live;
  const base = live ? `/api/games/${view.id}` : `/api/pdn/${view.id}/${view.index}`;
  const flip = S.flip ? "?flip=1" : "";
  $("export-svg").href = `${base}/export.svg${flip}`;
  $("export-gif").href = `${base}/export.gif${flip}`;
  $("export-pdn").hidden = !live;
  $("export-pdn").href = live ? `${base}/pdn` : "#";
}

function statusText(view, frame) {
  const data = view.data;
  const mover = data.colours[frame.turn];
  const latest = S.at === data.frames.length - 1;
  if (view.kind === "replay") {
    const end = latest ? ` (end of the record: ${data.result})` : "";
    return `ply ${S.at} of ${data.frames.length - 1}: ${mover} to move${end}`;
  }
  if (data.outcome && latest) return `${data.outcome.result}: ${data.outcome.text}`;
  if (!latest) return `ply ${S.at} of ${data.frames.length - 1} (an earlier position)`;
  if (data.agent_to_move) return `${mover} (${data.players[frame.turn]}) ${S.busy ? "is thinking..." : "to move"}`;
  if (S.pick && S.pick.path.length > 1) return `${mover}: go on capturing`;
  return `${mover} to move: drag or click a piece`;
}

function drawClocks() {
  const clock = S.view.kind === "game" ? S.view.data.clock : null;
  const box = $("clocks");
  box.textContent = "";
  if (!clock) return;
  const spent = (performance.now() - S.clockAt) / 1000;
  clock.left.forEach((left, colour) => {
    const running = clock.running === colour;
    const seconds = Math.max(0, running ? left - spent : left);
    const span = document.createElement("span");
    span.className = running ? "running" : "";
    const m = Math.floor(Math.ceil(seconds) / 60), s = Math.ceil(seconds) % 60;
    span.textContent = `${S.view.data.colours[colour]} ${m}:${String(s).padStart(2, "0")}`;
    box.appendChild(span);
  });
}

function drawLimits() {
  const box = $("limits");
  if (S.view.kind !== "game") return (box.textContent = "");
  const {no_progress: [quiet, quietMax], ply: [ply, plyMax], repetitions: [reps, repsMax]} = S.view.data.limits;
  const parts = [
    quietMax ? `no progress ${quiet}/${quietMax} plies` : "no no-progress draw",
    plyMax ? `ply ${ply}/${plyMax}` : `ply ${ply}, no ply limit`,
    repsMax ? `position seen ${reps}/${repsMax} times` : "no repetition draw",
  ];
  box.textContent = parts.join(" · ");
}

function drawMoves() {
  const list = $("moves");
  const frames = S.view.data.frames;
  list.textContent = "";
  frames.slice(1).forEach((frame, i) => {
    const item = document.createElement("li");
    item.dataset.frame = i + 1;
    item.className = i + 1 === S.at ? "current" : "";
    item.textContent = frame.text;
    if (frame.score !== undefined) {
      const note = document.createElement("span");
      note.className = "note";
      note.textContent = `${frame.score} (depth ${frame.depth}) pv ${frame.pv.join(" ")}`;
      item.appendChild(note);
    }
    list.appendChild(item);
  });
  const current = list.querySelector("li.current");
  if (current) current.scrollIntoView({block: "nearest"});
}

async function tick() {
  const view = S.view;
  if (!view || view.kind !== "game" || !view.data.clock || view.data.outcome) return;
  drawClocks();
  const clock = view.data.clock;
  const spent = (performance.now() - S.clockAt) / 1000;
  if (clock.running !== null && clock.left[clock.running] - spent <= 0 && !S.flagAsked && !S.busy) {
    S.flagAsked = true; // the server ends the game on time
    await attempt(async () => showGame(await api(`/api/games/${view.id}`)));
  }
}

start().catch(showError);
