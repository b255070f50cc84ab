"use strict";
// The broadcast view (firmware/display/broadcast.py): a stream's browser source (OBS, 1920×1080)
// laid over a camera on the table, as the table was `delay` seconds ago; the server holds every
// update back that long, this page only draws what comes. It draws what the camera cannot show
// (issue 33 "A real overlay"): a name plate per player (the name once entered, else the wind)
// with the score, the concealed hand along that player's edge, the waits, and at a win the
// result (winner, tile, patterns, points) until the next deal; the frame's centre third stays
// empty, so `?transparent=1` leaves the table itself in view.

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
  const state = frame.state;
  if (!state) {
    root.replaceChildren(el("div", {id: "info"}, el("div", {class: "starting"},
      tr("the broadcast begins {s} s after the table's first move", {s: frame.delay}))));
    return;
  }
  setRuleBook(state.ruleset);
  root.replaceChildren(infoView(state, frame.delay), ...state.seats.map((s) => plate(s, state)),
    outcomeView(state));
}

// The corner: the table, the round and hand, the tiles left, the seals, the delay.
function infoView(state, delay) {
  return el("div", {id: "info"},
    el("div", {class: "table-name"}, `${state.table} · ${state.ruleset_title}`),
    el("div", {class: "round", "data-round": state.round_wind}, tr("{wind} round · hand {n}",
      {wind: WINDS[state.round_wind][0], n: state.hand_number})),
    state.wall && !state.result ? el("div", {class: "wall"},
      el("span", {class: "wall-live"}, state.wall.live), tr(" tiles left")) : null,
    sealView(state.seal, state.key_fingerprint),
    el("div", {class: "delay"}, tr("{s} s delay", {s: delay})));
}

// A player's plate along his edge of the frame: wind, name, score; his hand, melds and waits.
function plate(seat, state) {
  const [zh, en] = WINDS[seat.seat];
  return el("section", {class: `plate place-${PLACES[seat.player]}` +
    (state.turn === seat.seat ? " turn" : ""), "data-seat": seat.seat},
  el("header", {},
    el("span", {class: "wind"}, el("span", {class: "wind-zh"}, zh), LANG === "zh" ? "" : ` ${en}`),
    seat.name ? el("span", {class: "player"}, seat.name) : null,
    seat.seat === "E" ? el("span", {class: "dealer"}, tr("dealer")) : null,
    el("span", {class: "score"}, seat.score)),
  el("div", {class: "hand"}, handTiles(seat), seat.melds.map(meld),
    seat.flowers.length ? el("span", {class: "flowers"}, seat.flowers.map((t) => tile(t))) : null),
  waitsView(seat, true));
}

// The win check while a win is called, then the result until the next deal (result.js's parts).
function outcomeView(state) {
  const r = state.result;
  if (!r) return el("div", {id: "outcome"}, winCheckView(state.win_check));
  return el("div", {id: "outcome", class: "result", "data-outcome": r.outcome},
    el("div", {class: "result-hand"}, tr("hand {n}", {n: r.hand_number})),
    r.outcome === "win" ? r.wins.map((w) => el("div", {class: "win", "data-winner": w.seat},
      winnerLine(w),
      el("div", {class: "win-tile"}, tile(w.tile, "winning"), tr(HOW[w.by]),
        w.from ? el("b", {class: "from"}, person(w.from)) : null),
      el("table", {class: "patterns"}, el("tbody", {}, w.patterns.map((p) =>
        el("tr", {class: "pattern", "data-pattern": p.id},
          el("td", {class: "zh"}, p.chinese),
          LANG === "zh" ? null : el("td", {class: "en", lang: "en"}, p.name),
          el("td", {class: "points"}, p.points))),
      el("tr", {class: "total"}, el("td", {}, "合計"), LANG === "zh" ? null : el("td", {}, "total"),
        el("td", {class: "points"}, w.total))))))
      : el("div", {class: "result-title"}, tr(r.outcome === "game over"
        ? "局結 game over: two players without chips" : "荒牌 exhaustive draw")));
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
