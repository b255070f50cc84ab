"use strict";
// The hand history (issue 16): the session's hands, and one replayed step by step on the
// table picture, for disputes ("was the chow called before the pung?"). The documents are
// firmware/display/history.py's: each step has its table time, its event and the engine's outputs,
// who acted (and when, by the clock on the wall) and the table after it. While a hand is
// replayed, display.js's render keeps the live documents aside and hands them to `liveAside`;
// "Back to live" draws the latest again.

words({
  "Hand history": "牌局紀錄",
  "Hands of this session": "本節的牌局",
  "No finished hand yet.": "尚無已完成的牌局。",
  "The hand history is unavailable.": "無法取得牌局紀錄。",
  "This hand cannot be replayed: {why}": "無法重播此盤：{why}",
  "hand {n}": "第 {n} 盤",
  "won by {who}": "{who} 和牌",
  "drawn": "荒牌",
  "voided": "作廢",
  "in play": "進行中",
  "{n} steps": "{n} 步",
  "Replay · hand {n}": "重播 · 第 {n} 盤",
  "step {i} of {n} · t {t}": "第 {i} / {n} 步 · 時間 {t}",
  "walls up": "牌牆砌好",
  "Calls open": "鳴牌時限中",
  "no call yet": "尚無鳴牌",
  "{n} tiles left": "尚餘 {n} 張",
  "by {who} at {time}": "{who} 於 {time}",
  "the referee": "裁判",
  "First step": "第一步",
  "Previous step": "上一步",
  "Next step": "下一步",
  "Last step": "最後一步",
  "Back to live": "返回現場",
  "Live play goes on: {what}": "現場仍在進行：{what}",
  "alerts waiting for a ruling: {n}": "待裁決的警示：{n}",
  "nothing waits for the referee": "無待裁判處理事項",
  "acknowledged: alert {n}": "已確認：警示 {n}",
  "acknowledged: fault {n}": "已確認：故障 {n}",
  "tracking corrected: a tile put in {zone}": "追蹤更正：一張牌放到 {zone}",
  "hand voided: {reason}": "此盤作廢：{reason}",
  "score confirmed: hand {n}": "已確認計分：第 {n} 盤",
  "sheet signed by {who}": "{who} 簽署計分表",
  "{seat} calls {claim}": "{seat} 叫{claim}",
  "{seat} declares a win": "{seat} 宣告和牌",
  "calls closed": "鳴牌時限結束",
  "{seat} rings for a win": "{seat} 自摸宣告",
  "ruling on alert {n}: {what}": "警示 {n} 的裁決：{what}",
  "penalty applied": "罰則執行",
  "waived": "免罰",
  "{seat} reported: {offence}": "舉報 {seat}：{offence}",
  "penalty revoked (alert {n})": "撤銷罰則（警示 {n}）",
  "the table accepted as it lies": "牌桌依現狀接受",
  "{seat} touches the wall": "{seat} 觸碰牌牆",
  "{seat} keeps the deal": "{seat} 保留莊家",
  "{seat} exposes a flower": "{seat} 補花",
  "{seat} declares a kong": "{seat} 宣告槓",
  "{seat} rolls {dice}": "{seat} 擲骰 {dice}",
  "chow": "吃", "pung": "碰", "kong": "槓", "win": "和",
});

let replay = null;  // {hand, steps, at, lang} while a hand is replayed, else null

function replaying() {
  return replay !== null;
}

function buildHistory() {
  fill("history",
    el("button", {id: "history-open", type: "button", "data-tr": "Hand history",
      "aria-expanded": "false", onclick: toggleHistory}, tr("Hand history")),
    el("div", {id: "history-list", hidden: true}),
    el("div", {id: "replay-controls", hidden: true}));
}

async function toggleHistory() {
  const list = document.getElementById("history-list");
  const button = document.getElementById("history-open");
  if (!list.hidden) {
    list.hidden = true;
    button.setAttribute("aria-expanded", "false");
    return;
  }
  list.hidden = false;
  button.setAttribute("aria-expanded", "true");
  const reply = await fetch(`${API}/hands`).then((r) => (r.ok ? r.json() : null))
    .catch(() => null);
  if (!reply) return list.replaceChildren(el("p", {class: "bad"},
    tr("The hand history is unavailable.")));
  list.replaceChildren(el("h2", {}, tr("Hands of this session")), reply.hands.length
    ? el("ol", {class: "history-hands"}, reply.hands.map((h) => el("li", {},
      el("button", {type: "button", class: "history-hand", "data-hand": h.number,
        "data-result": h.result, onclick: () => openReplay(h.number)}, handLine(h)))))
    : el("p", {}, tr("No finished hand yet.")));
}

function handLine(h) {
  const winners = h.winners.map((s) => `${WINDS[s][0]} ${tr(WINDS[s][1])}`).join(", ");
  const result = h.result === "won" ? tr("won by {who}", {who: winners})
    : tr(h.result === "in_play" ? "in play" : h.result);
  return `${tr("hand {n}", {n: h.number})} · ${result} · ${tr("{n} steps", {n: h.steps})}`;
}

async function openReplay(number) {
  const answer = await fetch(`${API}/hands/${number}`).catch(() => null);
  const reply = answer ? await answer.json().catch(() => ({})) : {};
  if (!answer || !answer.ok) {
    return notice(tr("This hand cannot be replayed: {why}",
      {why: reply.error || tr("The hand history is unavailable.")}), true);
  }
  replay = {hand: reply.hand, steps: reply.steps, at: 0};
  document.body.classList.add("replaying");
  document.getElementById("history-list").hidden = true;
  replayControls();
  showStep(0);
}

function replayControls() {
  const n = replay.steps.length;
  const go = (label, symbol, to) => el("button", {type: "button", class: `replay-${to}`,
    title: tr(label), "aria-label": tr(label), onclick: () => showStep(replayTarget(to))},
  symbol);
  fill("replay-controls",
    el("div", {class: "replay-buttons"}, go("First step", "|◀", "first"),
      go("Previous step", "◀", "previous"), go("Next step", "▶", "next"),
      go("Last step", "▶|", "last")),
    el("input", {id: "replay-slider", type: "range", min: 0, max: n - 1, value: 0,
      "aria-label": tr("Replay · hand {n}", {n: replay.hand.number}),
      oninput: (e) => showStep(Number(e.target.value))}),
    el("button", {id: "replay-live", type: "button", onclick: backToLive}, tr("Back to live")),
    el("ol", {class: "replay-steps"}, replay.steps.map((s, i) => el("li", {},
      el("button", {type: "button", class: "replay-step", "data-step": i,
        onclick: () => showStep(i)}, el("span", {class: "t"}, stepTime(s.t)), " ",
      stepText(s))))));
  document.getElementById("replay-controls").hidden = false;
  replay.lang = LANG;
}

function replayTarget(to) {
  const last = replay.steps.length - 1;
  return {first: 0, previous: Math.max(0, replay.at - 1),
    next: Math.min(last, replay.at + 1), last}[to];
}

// The step `i` on the table picture: the seats as its frame has them (the latest frame at or
// before it: a record changes nothing on the table), the centre telling the step.
function showStep(i) {
  replay.at = i;
  if (replay.lang !== LANG) replayControls();
  const step = replay.steps[i];
  const frame = replay.steps.slice(0, i + 1).reverse().find((s) => s.frame).frame;
  const table = document.getElementById("table");
  table.querySelectorAll(".seat").forEach((node) => node.remove());
  for (const seat of frame.seats) table.append(renderSeat(seat, {turn: frame.turn}));
  fill("centre", el("div", {class: "replay-title"},
    tr("Replay · hand {n}", {n: replay.hand.number})),
  el("div", {class: "replay-at"}, tr("step {i} of {n} · t {t}",
    {i: i + 1, n: replay.steps.length, t: stepTime(step.t)})),
  el("div", {class: "phase"}, STATES[frame.state] || frame.state),
  frame.turn ? el("div", {class: "whose-turn"}, `${WINDS[frame.turn][0]} ${
    tr(WINDS[frame.turn][1])}`) : null,
  frame.claim_window ? el("div", {class: "replay-window"}, tr("Calls open"), ": ",
    frame.calls.length ? frame.calls.map((c) => `${WINDS[c.seat][0]} ${tr(c.claim)}`)
      .join(" · ") : tr("no call yet")) : null,
  frame.wall ? el("div", {class: "wall"}, tr("{n} tiles left", {n: frame.wall.live})) : null,
  el("div", {class: "replay-event", "data-kind": step.kind}, stepText(step)),
  el("ol", {class: "replay-outputs"}, step.outputs.map((o) => el("li", {"data-type": o.type},
    describe(o)))),
  step.by ? el("div", {class: "replay-by"}, tr("by {who} at {time}",
    {who: step.by.referee || tr("the referee"), time: step.by.wall_time})) : null,
  el("div", {class: "replay-live-note"}, liveNote()));
  document.getElementById("replay-slider").value = i;
  for (const node of document.querySelectorAll(".replay-step")) {
    const here = Number(node.dataset.step) === i;
    node.classList.toggle("current", here);
    if (here) {
      node.setAttribute("aria-current", "step");
      node.scrollIntoView({block: "nearest"});
    } else node.removeAttribute("aria-current");
  }
}

function stepTime(t) {
  return t === null || t === undefined ? "" : Number(t).toFixed(1);
}

function replaySeat(seat) {
  return seat === null || seat === undefined ? "" : tr(WINDS[SEATS[seat]][1]);
}

// The step's own event: the inputs the engine's outputs do not tell (those display.js's
// `describe` does), and the referee's records.
function stepText(step) {
  const e = step.event, seat = e ? replaySeat(e.seat) : "";
  if (step.kind === "hand") return tr("walls up");
  switch (e.type) {
    case "TileDrawn": return describe({...e, type: "Drew"});
    case "TileDiscarded": return describe({...e, type: "Discarded"});
    case "DiceRolled": return tr("{seat} rolls {dice}", {seat, dice: e.dice.join(" ")});
    case "ClaimDeclared": return e.claim === "win" ? tr("{seat} declares a win", {seat})
      : tr("{seat} calls {claim}", {seat, claim: tr(e.claim)});
    case "ClaimWindowClosed": return tr("calls closed");
    case "WinDeclared": return tr("{seat} rings for a win", {seat});
    case "KongDeclared": return tr("{seat} declares a kong", {seat});
    case "FlowerExposed": return tr("{seat} exposes a flower", {seat});
    case "Ruling": return tr("ruling on alert {n}: {what}", {n: e.alert,
      what: tr(e.apply ? "penalty applied" : "waived")}) + (e.reason ? ` (${e.reason})` : "");
    case "ViolationReported": return tr("{seat} reported: {offence}",
      {seat, offence: String(e.offence).replaceAll("_", " ")});
    case "PenaltyRevoked": return tr("penalty revoked (alert {n})", {n: e.alert}) +
      (e.reason ? ` (${e.reason})` : "");
    case "TableAccepted": return tr("the table accepted as it lies");
    case "WallTouched": return tr("{seat} touches the wall", {seat});
    case "DealerKept": return tr("{seat} keeps the deal", {seat});
    case "Acknowledged": return e.alert !== null && e.alert !== undefined
      ? tr("acknowledged: alert {n}", {n: e.alert}) : tr("acknowledged: fault {n}", {n: e.fault});
    case "TrackingCorrected": return tr("tracking corrected: a tile put in {zone}",
      {zone: e.zone});
    case "HandVoided": return tr("hand voided: {reason}", {reason: e.reason});
    case "ScoreConfirmed": return tr("score confirmed: hand {n}", {n: e.hand});
    case "SheetSigned": return tr("sheet signed by {who}", {who: e.referee});
    default: return describe(e);
  }
}

function liveNote() {
  const open = (latest ? latest.alerts : []).filter((a) => a.needs_ruling &&
    a.state === "open").length;
  return tr("Live play goes on: {what}", {what: open
    ? tr("alerts waiting for a ruling: {n}", {n: open}) : tr("nothing waits for the referee")});
}

// display.js's render, while a hand is replayed: the live document stays `latest` for "Back
// to live"; the replay keeps its picture, its live note follows (all of it after a switch of
// language: display.js's redraw).
function liveAside() {
  if (replay.lang !== LANG) return showStep(replay.at);
  const note = document.querySelector("#centre .replay-live-note");
  if (note) note.textContent = liveNote();
}

function backToLive() {
  replay = null;
  document.body.classList.remove("replaying");
  document.getElementById("replay-controls").hidden = true;
  showTab("alerts");  // tabs.js: the live table again, not the full-screen list
  if (latest) render(latest);
}

buildHistory();
