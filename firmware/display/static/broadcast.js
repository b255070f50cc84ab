"use strict";
// The broadcast view (firmware/display/broadcast.py): a stream's browser source (OBS, 1920×1080)
// showing the four hands with their waits and values, the rivers and the scores as the table
// was `delay` seconds ago; the server holds every update back that long, this page only
// draws what comes. `?transparent=1` leaves the background see-through.

const QUERY = new URLSearchParams(location.search);
const RETRY = 2000;
// A stream's language is its address's (?lang=zh), not a remembered switch: no one taps it.
LANG = QUERY.get("lang") === "zh" ? "zh" : "en";
words({
  "the broadcast begins {s} s after the table's first move": "轉播於本桌第一手後 {s} 秒開始",
  "hand {n}: {result}": "第 {n} 盤：{result}", "{s} s delay": "延遲 {s} 秒",
});

function render(frame) {
  const root = document.getElementById("broadcast");
  root.querySelectorAll(".seat").forEach((node) => node.remove());
  const state = frame.state;
  if (!state) {
    fill("centre", el("div", {class: "starting"},
      tr("the broadcast begins {s} s after the table's first move", {s: frame.delay})));
    return;
  }
  for (const seat of state.seats) root.append(renderSeat(seat, state));
  const turn = state.turn ? WINDS[state.turn] : null;
  fill("centre",
    el("div", {class: "table-name"}, `${state.table} · ${state.ruleset_title}`),
    el("div", {class: "round"}, tr("{wind} round · hand {n}",
      {wind: WINDS[state.round_wind][0], n: state.hand_number})),
    el("div", {class: "whose-turn"}, turn ? `${turn[0]} ${LANG === "zh" ? "" : turn[1]}` : ""),
    el("div", {class: "phase"}, STATES[state.state] ? tr(STATES[state.state]) : state.state),
    state.wall ? el("div", {class: "wall"}, el("span", {class: "wall-live"}, state.wall.live),
      tr(" tiles left")) : null,
    winCheckView(state.win_check),
    state.last_hand ? el("div", {class: "last-hand"}, tr("hand {n}: {result}",
      {n: state.last_hand.number, result: tr(state.last_hand.result)})) : null,
    sealView(state.seal, state.key_fingerprint),
    el("div", {class: "delay"}, tr("{s} s delay", {s: frame.delay})));
}

function renderSeat(seat, state) {
  const [zh, en] = WINDS[seat.seat];
  return el("section", {class: `seat place-${PLACES[seat.player]}` +
    (state.turn === seat.seat ? " turn" : ""), "data-seat": seat.seat},
  el("header", {},
    el("span", {class: "wind"}, el("span", {class: "wind-zh"}, zh), LANG === "zh" ? "" : ` ${en}`),
    el("span", {class: "player"},
      `P${seat.player + 1}${seat.seat === "E" ? ` ${tr("dealer")}` : ""}`),
    el("span", {class: "score"}, seat.score)),
  el("div", {class: "hand"}, handTiles(seat)),
  waitsView(seat, true),
  el("div", {class: "exposed"}, seat.melds.map(meld),
    seat.flowers.length ? el("span", {class: "flowers"}, seat.flowers.map((t) => tile(t))) : null),
  el("div", {class: "river"}, rows(seat.river, 12).map((row) =>
    el("div", {class: "river-row"}, row.map((t) => tile(t))))));
}

function connect() {
  const token = QUERY.get("token");
  const stream = new EventSource("/api/broadcast/stream" +
    (token ? `?token=${encodeURIComponent(token)}` : ""));
  stream.onmessage = (message) => {
    document.body.classList.remove("offline");
    render(JSON.parse(message.data));
  };
  stream.onerror = () => {
    document.body.classList.add("offline");
    if (stream.readyState === EventSource.CLOSED) setTimeout(connect, RETRY);
  };
}

document.documentElement.classList.toggle("transparent", QUERY.get("transparent") === "1");
connect();
