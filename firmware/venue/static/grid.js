"use strict";
// The hall's grid of tables, shared by the organiser's dashboard (venue.js) and the big
// screen (board.js): one tile a table, sized so that every table fits the grid's box, from
// 50 to 500 tables on one 1920x1080 screen, and the session clocks counted down between
// updates. A stream sends the whole document first, then the tables that changed.

const RETRY_MS = 2000;
const PHASES = {playing: "playing", between_hands: "between hands", fault: "fault",
  paused: "paused", offline: "offline", not_refereeing: "NOT REFEREEING", unknown: "—"};
const TILE_RATIO = 1.5;  // width over height of a tile

function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs)) {
    if (value === null || value === undefined || value === false) continue;
    if (key === "class") node.className = value;
    else if (key.startsWith("on")) node.addEventListener(key.slice(2), value);
    else node.setAttribute(key, value === true ? "" : value);
  }
  node.append(...children.flat().filter((c) => c !== null && c !== undefined && c !== false));
  return node;
}

class Grid {
  // `drawTile(table)` makes a tile's element; the grid keeps one per table by name.
  constructor(node, drawTile) {
    this.node = node;
    this.drawTile = drawTile;
    this.tables = new Map();  // name -> {table, node, at}
    window.addEventListener("resize", () => this.fit());
    setInterval(() => this.tick(), 1000);
  }

  update(tables, whole) {
    const at = performance.now();
    if (whole) {
      this.tables.clear();
      this.node.replaceChildren();
    }
    for (const table of tables) {
      const node = this.drawTile(table);
      const known = this.tables.get(table.name);
      if (known) known.node.replaceWith(node);
      else this.node.append(node);
      this.tables.set(table.name, {table, node, at});
    }
    if (whole || tables.some((t) => !this.tables.has(t.name))) this.order();
    this.fit();
    this.tick();
  }

  order() {
    const names = [...this.tables.keys()].sort((a, b) =>
      a.localeCompare(b, undefined, {numeric: true}));
    this.node.replaceChildren(...names.map((name) => this.tables.get(name).node));
  }

  fit() {
    // The column count that gives the largest tiles of TILE_RATIO in the grid's box.
    const n = Math.max(this.tables.size, 1);
    const width = this.node.clientWidth, height = this.node.clientHeight;
    if (!width || !height) return;
    const gap = 3;
    let best = {size: 0, columns: 1, rowHeight: height};
    for (let columns = 1; columns <= n; columns++) {
      const rows = Math.ceil(n / columns);
      const w = (width - gap * (columns - 1)) / columns;
      const h = (height - gap * (rows - 1)) / rows;
      const size = Math.min(w, h * TILE_RATIO);
      if (size > best.size) best = {size, columns, rowHeight: Math.floor(h)};
    }
    const tileHeight = Math.min(best.rowHeight, Math.floor(best.size / TILE_RATIO * 1.25));
    this.node.style.gridTemplateColumns = `repeat(${best.columns}, minmax(0, 1fr))`;
    this.node.style.gridAutoRows = `${tileHeight}px`;
    this.node.style.setProperty("--tile-font", `${Math.max(6, Math.min(20, tileHeight / 6))}px`);
    this.node.classList.toggle("dense", tileHeight < 64);
  }

  tick() {
    const now = performance.now();
    for (const {table, node, at} of this.tables.values()) {
      const clock = node.querySelector(".left");
      if (!clock || table.seconds_left === null) continue;
      const left = table.running ? table.seconds_left - (now - at) / 1000 : table.seconds_left;
      clock.textContent = minutes(Math.max(0, left));
    }
  }
}

function minutes(seconds) {
  const s = Math.floor(seconds);
  return `${Math.floor(s / 60)}:${String(s % 60).padStart(2, "0")}`;
}

function publicTile(table, extra = {}) {
  // The parts of a tile that are public state: name, phase, hand, clock, players, scores.
  const hand = table.hand_number ? `${table.round_wind ?? ""} hand ${table.hand_number}` : "";
  const seats = (table.players.length ? table.players : [null, null, null, null]).map((name, i) =>
    el("span", {class: "player", title: name ?? ""},
      el("span", {class: "name"}, name ?? ["E", "S", "W", "N"][i]),
      table.scores ? el("span", {class: "score"}, String(table.scores[i])) : null));
  return el(extra.link ? "a" : "div", {
    class: `tile phase-${table.phase}${table.finished ? " finished" : ""}${extra.class ?? ""}`,
    "data-table": table.name, href: extra.link ?? null, title: PHASES[table.phase]},
  el("div", {class: "head"}, el("span", {class: "table-name"}, table.name),
    extra.badge ?? null),
  el("div", {class: "line"}, el("span", {class: "phase"}, PHASES[table.phase] ?? table.phase),
    el("span", {class: "hand"}, hand),
    table.seconds_left === null ? null : el("span", {class: "left"}, minutes(table.seconds_left))),
  el("div", {class: "players"}, seats));
}

const BOOKS = {CCM: "CCM: by standard points, then score", WSOM: "WSOM: by score"};

function standingsTable(standings, limit = Infinity, columns = 1) {
  // The standings, or why they are held back. Each rule book ranks its own players (CCM's
  // first); CCM's carry the standard points their table's first (or a best second) earns.
  // `columns`: the rows split into that many tables side by side (the hall's board: 64
  // players at a size read from the floor).
  if (standings.hidden) {
    return el("p", {class: "held", id: "standings-held"},
      `Standings after the round: ${standings.finished} of ${standings.tables} tables finished.`);
  }
  const players = standings.players ?? [];
  const books = [...new Set(players.map((p) => p.book))];
  const ccm = books.includes("CCM");
  const heads = ["#", "Player", "Table", ...(ccm ? ["Std"] : []), "Score", "Place"];
  const row = (p) => el("tr", {class: p.final ? "final" : "provisional", "data-book": p.book},
    el("td", {}, String(p.rank)), el("td", {class: "name"}, p.name ?? `${p.table} ${p.seat}`),
    el("td", {}, p.table),
    ccm ? el("td", {class: "num standard", title: p.promoted ?? ""},
      p.standard_points === null ? "" : String(p.standard_points)) : null,
    el("td", {class: "num score"}, String(p.score)), el("td", {class: "num"}, String(p.place)));
  const rows = books.flatMap((book) => [
    books.length > 1 ? el("tr", {class: "book"},
      el("th", {colspan: String(heads.length)}, BOOKS[book] ?? book)) : null,
    ...players.filter((p) => p.book === book).slice(0, limit).map(row)].filter((r) => r));
  const notes = [];
  if (standings.released_by_organiser) {
    notes.push(el("p", {class: "released", id: "standings-released"},
      "Released by the organiser before every table finished " +
      `(${standings.finished} of ${standings.tables}).`));
  }
  if (ccm && !standings.complete) {
    notes.push(el("p", {class: "held"}, "Standard points provisional until the round is over."));
  }
  const per = Math.max(1, Math.ceil(rows.length / columns));
  const tables = [];
  for (let start = 0; start < rows.length || !tables.length; start += per) {
    tables.push(el("table", {id: tables.length ? null : "standings-table",
      class: `standings-table${ccm ? " with-standard" : ""}`},
    el("thead", {}, el("tr", {}, heads.map((h) =>
      el("th", {title: h === "Std" ? "standard points (標準分)" : null}, h)))),
    el("tbody", {}, rows.slice(start, start + per))));
  }
  return el("div", {}, ...notes, el("div", {class: "standings-columns"}, ...tables));
}

function follow(url, onDocument, onLost) {
  // The stream at `url`, each message's document to `onDocument`; `onLost` when it ends.
  const stream = new EventSource(url);
  stream.onmessage = (message) => {
    document.body.classList.remove("lost");
    onDocument(JSON.parse(message.data));
  };
  stream.onerror = () => {
    document.body.classList.add("lost");
    if (stream.readyState === EventSource.CLOSED) {
      stream.close();
      setTimeout(onLost, RETRY_MS);
    }
  };
  return stream;
}
