"use strict";
// The result panel (issue 16): at a win or a draw, a large panel over the table on both views,
// drawn from the state document's `result` (firmware/display/result.py) until the next hand's
// walls rise: the winner, the winning tile and from whom, his whole hand, each pattern or fan
// in Chinese and English with its points, the total, every payment, the penalties settled.
// The referee may fold it to a strip to act on the table beneath; the public view keeps it.

words({  // i18n.js
  "hand {n}": "第 {n} 盤", "荒牌 exhaustive draw": "荒牌", "show result": "顯示結果",
  "局結 game over: two players without chips": "局結：兩家無分",
  "fold": "收起", "{who} wins 和": "{who} 和牌", "self-drawn 自摸": "自摸",
  "on the discard of": "和", "robbing the kong of 搶槓": "搶槓和", "total": "合計",
  "{pay} hand, {penalty} penalties": "本盤 {pay}，罰分 {penalty}",
  "{n} held to the game's end": "{n} 保留至本局結束", "{n} dead points": "{n} 死分",
  "to each other player": "給其他每家", "dead points": "死分", "deducted": "扣除",
  "to {who}": "給{who}", "{n} penalty tiles": "{n} 張罰牌",
});

let resultFolded = null;   // the hand number whose panel the referee folded

function renderResult(state) {
  const old = document.getElementById("result");
  const r = state.result;
  if (!r) {
    if (old) old.remove();
    return;
  }
  const folded = !PUBLIC && resultFolded === r.hand_number;
  const panel = el("section", {id: "result", class: folded ? "folded" : null,
    "data-outcome": r.outcome, "data-hand": r.hand_number, role: "status"},
  el("header", {class: "result-head"},
    el("span", {class: "result-hand"}, tr("hand {n}", {n: r.hand_number})),
    el("span", {class: "result-title"}, r.outcome === "win" ? r.wins.map(winnerLine)
      : tr(r.outcome === "game over" ? "局結 game over: two players without chips"
        : "荒牌 exhaustive draw")),
    PUBLIC ? null : el("button", {class: "fold", type: "button", onclick: () => {
      resultFolded = folded ? null : r.hand_number;
      renderResult(latest);
    }}, tr(folded ? "show result" : "fold"))),
  folded ? [] : [...r.wins.map(winView), paymentsView(r), penaltiesView(r.penalties)]);
  if (old) old.replaceWith(panel);
  else document.getElementById("table").append(panel);
}

function person(who) {   // "South 南 · Li Wei" (the venue's name), or "South 南 · P2"
  const [zh, en] = WINDS[who.seat];
  const seat = LANG === "zh" ? `${zh}家` : `${en} ${zh}`;
  return `${seat} · ${who.name || `P${who.person + 1}`}`;
}

function winnerLine(w) {
  return el("span", {class: "winner", "data-winner": w.seat}, tr("{who} wins 和", {who: person(w)}));
}

const HOW = {self_draw: "self-drawn 自摸", discard: "on the discard of", robbed_kong:
  "robbing the kong of 搶槓"};

function winView(w) {
  const hand = w.hand;
  return el("div", {class: "win", "data-winner": w.seat},
    el("div", {class: "win-tile"}, el("span", {class: "label"}, person(w)),
      tile(w.tile, "winning"), tr(HOW[w.by]), w.from ? el("b", {class: "from"}, person(w.from))
        : null),
    el("div", {class: "win-hand"}, hand.concealed.map((t) => tile(t)), tile(w.tile, "winning"),
      hand.melds.map(meld),
      hand.flowers.length ? el("span", {class: "flowers"}, hand.flowers.map((t) => tile(t)))
        : null),
    el("table", {class: "patterns"}, el("tbody", {}, w.patterns.map((p) =>
      el("tr", {class: "pattern", "data-pattern": p.id},
        el("td", {class: "zh"}, p.chinese),  // in Chinese the English name follows it
        el("td", {class: "en", lang: "en"}, p.name),
        el("td", {class: "points"}, p.points))),
    el("tr", {class: "total"}, el("td", {}, "合計"), el("td", {}, LANG === "zh" ? "" : "total"),
      el("td", {class: "points"}, w.total)))));
}

function signed(n) {
  return n > 0 ? `+${n}` : String(n);
}

function paymentsView(r) {
  return el("div", {class: "payments"},
    r.payments.map((p) => el("div", {"data-payer": p.seat,
      class: `payment ${p.change < 0 ? "pays" : p.change > 0 ? "gets" : "even"}`},
    el("span", {class: "who"}, person(p)),
    el("span", {class: "change"}, signed(p.change)),
    p.penalty ? el("span", {class: "detail"}, tr("{pay} hand, {penalty} penalties",
      {pay: signed(p.payment), penalty: signed(p.penalty)})) : null,
    p.held ? el("span", {class: "detail"}, tr("{n} held to the game's end", {n: signed(p.held)}))
      : null)),
    r.dead ? el("div", {class: "dead-points"}, tr("{n} dead points", {n: r.dead})) : null);
}

const PAID = {others: "to each other player", dead: "dead points", deducted: "deducted"};

function penaltiesView(penalties) {
  if (!penalties.length) return null;
  return el("ul", {class: "penalties"}, penalties.map((p) => el("li", {"data-offender": p.seat},
    `${inLanguage(p.texts, p.text)}: `, [p.points ? `${p.points} ${PAID[p.to] ? tr(PAID[p.to])
      : tr("to {who}", {who: tr(WINDS[p.to][1])})}` : null,
    p.penalty_tiles ? tr("{n} penalty tiles", {n: p.penalty_tiles}) : null]
      .filter(Boolean).join(", "))));
}
