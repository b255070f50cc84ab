"use strict";
// What the display's pages share (firmware/display/static): the seats, the tile faces, building
// the DOM, and each seat's waits with the win check (issue 18), for the referee's page
// (display.js) and the broadcast's (broadcast.js).

const WAIT_TITLE = "{tile}: {unseen} unseen by this player, {wall} in the live wall; "
  + "on a discard {discard}, self-drawn {self}";
words({  // i18n.js: the tiles', waits' and seals' words (issue 16 "Every screen")
  "concealed": "暗牌", "a tile": "一張牌", "{kind} from {seat}": "{kind}（{seat}家出）",
  "{n} away": "差 {n} 向聽", "complete": "已成和", "ready 聽": "聽牌",
  "ready after a discard": "打一張即聽",
  [WAIT_TITLE]: "{tile}：此家未見 {unseen} 張，牌牆餘 {wall} 張；點和 {discard}，自摸 {self}",
  "{n} left": "餘 {n} 張", "{discard} · self-drawn {self}": "{discard} · 自摸 {self}",
  "self-drawn": "自摸", "on the discard": "點和",
  "win check: legal, {total}": "和牌檢查：合規，{total} 分",
  "win check: not legal": "和牌檢查：不合規", "wall sealed: {digest}": "牌牆已封：{digest}",
  "table key: {fingerprint}": "牌桌金鑰：{fingerprint}",
  "wall revealed: {digest}": "牌牆已公開：{digest}", "matches the seal": "與封存相符",
  "DOES NOT MATCH the seal": "與封存不符",
  "next walls sealed: {digest}": "下一副牌牆已封：{digest}",
  "chow": "吃", "pung": "碰", "kong": "槓", "East": "東", "South": "南", "West": "西",
  "North": "北",
});

const SEATS = "ESWN";
const WINDS = {E: ["東", "East"], S: ["南", "South"], W: ["西", "West"], N: ["北", "North"]};
const PLACES = ["bottom", "right", "top", "left"];  // players 0..3 from above, in turn order
const STATES = {
  dice: "rolls the dice", second_roll: "second roll", draw: "to draw", discard: "to discard",
  claim_window: "calls open", rob_window: "kong may be robbed", won: "hand won",
  exhausted: "drawn hand 荒牌", game_over: "game over 局結", between_hands: "between hands",
};
const COLOURS = {m: "#b3261e", p: "#1f5fbf", s: "#1d7a3a", f: "#7b3fa0", C: "#c62828",
  F: "#1d7a3a"};
// Tile names of physical ids in events, as engine/tiles.py numbers them (the state
// document itself always names its tiles).
const NAMES = [..."mps"].flatMap((suit) => [1, 2, 3, 4, 5, 6, 7, 8, 9].map((r) => r + suit))
  .concat([..."ESWNCFP"], [1, 2, 3, 4, 5, 6, 7, 8].map((n) => n + "f"));

// -- building DOM ------------------------------------------------------------------------

function present(children) {   // text for strings and numbers; nothing for null or false
  return children.flat().filter((c) => c !== null && c !== undefined && c !== false)
    .map((c) => (typeof c === "object" ? c : String(c)));
}

function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs)) {
    if (value === null || value === undefined || value === false) continue;
    if (key === "class") node.className = value;
    else if (key.startsWith("on")) node.addEventListener(key.slice(2), value);
    else node.setAttribute(key, value === true ? "" : value);
  }
  node.append(...present(children));
  return node;
}

function fill(id, ...children) {
  document.getElementById(id).replaceChildren(...present(children));
}

function svg(tag, attrs, text) {
  const node = document.createElementNS("http://www.w3.org/2000/svg", tag);
  for (const [key, value] of Object.entries(attrs)) node.setAttribute(key, value);
  if (text !== undefined) node.textContent = text;
  return node;
}

// -- tiles -------------------------------------------------------------------------------

function face(t) {
  const art = svg("svg", {viewBox: "0 0 60 80", class: "face", "aria-hidden": "true"});
  art.append(svg("rect", {x: 2, y: 2, width: 56, height: 76, rx: 9,
    class: t.back ? "back" : "front"}));
  if (t.back) return art;
  const name = t.tile, suit = name.slice(-1);
  const glyph = (x, y, size, text, colour) => svg("text", {x, y, "font-size": size,
    class: "glyph", fill: colour || "#1b1b1b"}, text);
  if (suit === "m") {
    art.append(glyph(30, 35, 30, t.zh[0]), glyph(30, 70, 30, t.zh[1], COLOURS.m));
  } else if (suit === "p" || suit === "s") {
    art.append(glyph(30, 50, 46, name[0], COLOURS[suit]));
    art.append(suit === "p"
      ? svg("circle", {cx: 30, cy: 64, r: 7, fill: "none", stroke: COLOURS.p, "stroke-width": 3})
      : svg("rect", {x: 26, y: 56, width: 8, height: 17, rx: 4, fill: COLOURS.s}));
  } else if (name === "P") {
    art.append(svg("rect", {x: 13, y: 14, width: 34, height: 52, rx: 5, class: "white"}));
  } else {
    art.append(glyph(30, 54, suit === "f" ? 38 : 42, t.zh, COLOURS[suit] || COLOURS[name]));
  }
  return art;
}

function tile(t, extra = "") {
  return el("span", {class: `tile ${extra}`, "data-tile": t.back ? "back" : t.tile,
    "data-id": t.back ? null : t.id, title: t.back ? tr("concealed") : `${t.tile} ${t.zh}`},
  face(t), el("span", {class: "name"}, t.back ? "" : t.tile));
}

function tileName(id) {
  if (id === null || id === undefined) return tr("a tile");
  return NAMES[id < 136 ? Math.floor(id / 4) : id - 136 + 34];
}

// -- a seat's tiles -----------------------------------------------------------------------

function handTiles(seat) {
  const penalty = new Map(seat.penalty_tiles.map((t) => [t.id, t.state]));
  const mark = (t) => (penalty.has(t.id) ? `penalty ${penalty.get(t.id)}` : "");
  if (seat.hand) return seat.hand.map((t) => tile(t, mark(t)));
  const backs = Array.from({length: seat.hand_count - seat.penalty_tiles.length},
    () => tile({back: true}, "small"));
  return backs.concat(seat.penalty_tiles.map((t) => tile(t, mark(t))));
}

function meld(m) {
  const claimed = m.claimed ? m.claimed.id : null;
  return el("span", {class: `meld ${m.kind}${m.concealed ? " concealed" : ""}`,
    title: m.from ? tr("{kind} from {seat}", {kind: tr(m.kind), seat: tr(WINDS[m.from][1])})
      : tr(m.kind)},
  m.tiles.map((t) => tile(t, !t.back && t.id === claimed ? "sideways" : "")));
}

function rows(list, size) {
  const out = [];
  for (let i = 0; i < list.length; i += size) out.push(list.slice(i, i + size));
  return out;
}

// -- waits and the win check (issue 18) ----------------------------------------------------

function worth(v) {   // a win's value, or a cross when the rule book refuses it
  return v.legal ? String(v.total) : "✗";
}

// "2 away"; once ready, each winning tile: unseen by the player / left in the live wall, and
// its value on a discard · self-drawn. `wordy` (the broadcast): what a viewer reads at once.
function waitsView(seat, wordy = false) {
  if (seat.shanten === null || seat.shanten === undefined) return null;
  const label = seat.shanten > 0 ? tr("{n} away", {n: seat.shanten})
    : seat.shanten < 0 ? tr("complete") : seat.waits.length ? tr("ready 聽")
      : tr("ready after a discard");
  return el("div", {class: `waits${seat.waits.length ? " ready" : ""}`,
    "data-shanten": seat.shanten},
  el("span", {class: "shanten"}, label),
  seat.waits.map((w) => el("span", {class: "wait", "data-wait": w.tile,
    title: tr(WAIT_TITLE, {tile: w.tile, unseen: w.unseen, wall: w.in_wall,
      discard: worth(w.discard), self: worth(w.self_draw)})},
  tile({tile: w.tile, zh: w.zh}, "small"),
  el("span", {class: "counts"}, wordy ? tr("{n} left", {n: w.in_wall})
    : [el("b", {}, w.unseen), "/",
    w.in_wall]),
  el("span", {class: "value"}, wordy ? tr("{discard} · self-drawn {self}",
    {discard: worth(w.discard), self: worth(w.self_draw)})
    : `${worth(w.discard)}·${worth(w.self_draw)}`))));
}

function winCheckView(checks) {   // "win check: legal, 24" for each win called or drawn
  return (checks || []).map((c) => el("div", {class: `win-check ${c.legal ? "legal" : "illegal"}`,
    "data-winner": c.seat},
  `${tr(WINDS[c.seat][1])} ${c.by === "self_draw" ? tr("self-drawn") : tr("on the discard")} `,
  tile(c.tile, "small"),
  el("span", {class: "verdict"}, c.legal ? tr("win check: legal, {total}", {total: c.total})
    : tr("win check: not legal", {}) + (c.reason ? ` (${c.reason})` : "")),
  c.legal && c.patterns.length ? el("div", {class: "patterns"}, c.patterns.join(" · ")) : null));
}

// The walls' seals (issue 17, docs/fairness.md): the hand's "wall sealed: 3fa9…" until it is
// over, then "wall revealed" with the whole digest and whether the reveal gives it; the next
// walls' seal beside it (the machine builds them while a hand is played); the table's device
// key by its fingerprint (issue 35), which `mjtable verify --key` checks a journal against.
function sealView(seal, key) {
  if (!seal && !key) return null;
  const hand = seal && seal.hand;
  return el("div", {class: "seal"},
    hand && hand.state === "sealed"
      ? el("div", {class: "seal-hand", "data-state": "sealed"},
        tr("wall sealed: {digest}", {digest: hand.shown})) : null,
    hand && hand.state === "revealed"
      ? el("div", {class: "seal-hand", "data-state": "revealed"},
        tr("wall revealed: {digest}", {digest: hand.digest}) + " ",
        el("b", {}, hand.matches ? tr("matches the seal") : tr("DOES NOT MATCH the seal"))) : null,
    seal && seal.next ? el("div", {class: "seal-next"},
      tr("next walls sealed: {digest}", {digest: seal.next.shown})) : null,
    key ? el("div", {class: "device-key"}, tr("table key: {fingerprint}", {fingerprint: key}))
      : null);
}
