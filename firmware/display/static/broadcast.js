"use strict";
// The broadcast view (firmware/display/broadcast.py): a stream's browser source (OBS, 1920×1080)
// showing the four hands with their waits and values, the rivers and the scores as the table
// was `delay` seconds ago; the server holds every update back that long, this page only
// draws what comes. `?transparent=1` leaves the background see-through.

const QUERY = new URLSearchParams(location.search);
const RETRY = 2000;

function render(frame) {
  const root = document.getElementById("broadcast");
  root.querySelectorAll(".seat").forEach((node) => node.remove());
  const state = frame.state;
  if (!state) {
    fill("centre", el("div", {class: "starting"},
      `the broadcast begins ${frame.delay} s after the table's first move`));
    return;
  }
  for (const seat of state.seats) root.append(renderSeat(seat, state));
  const turn = state.turn ? WINDS[state.turn] : null;
  fill("centre",
    el("div", {class: "table-name"}, `${state.table} · ${state.ruleset_title}`),
    el("div", {class: "round"}, `${WINDS[state.round_wind][0]} round · hand ${state.hand_number}`),
    el("div", {class: "whose-turn"}, turn ? `${turn[0]} ${turn[1]}` : ""),
    el("div", {class: "phase"}, STATES[state.state] || state.state),
    state.wall ? el("div", {class: "wall"}, el("span", {class: "wall-live"}, state.wall.live),
      " tiles left") : null,
    winCheckView(state.win_check),
    state.last_hand ? el("div", {class: "last-hand"}, `hand ${state.last_hand.number}: ` +
      state.last_hand.result) : null,
    sealView(state.seal),
    el("div", {class: "delay"}, `${frame.delay} s delay`));
}

function renderSeat(seat, state) {
  const [zh, en] = WINDS[seat.seat];
  return el("section", {class: `seat place-${PLACES[seat.player]}` +
    (state.turn === seat.seat ? " turn" : ""), "data-seat": seat.seat},
  el("header", {},
    el("span", {class: "wind"}, el("span", {class: "wind-zh"}, zh), " ", en),
    el("span", {class: "player"}, `P${seat.player + 1}${seat.seat === "E" ? " dealer" : ""}`),
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
