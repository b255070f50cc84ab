"use strict";
// The result panel (issue 16): at a win or a draw, a large panel over the table on both views,
// drawn from the state document's `result` (firmware/display/result.py) until the next hand's
// walls rise: the winner, the winning tile and from whom, his whole hand, each pattern or fan
// in Chinese and English with its points, the total, every payment with the transfers it is
// the sum of and each one's reason and article (issue 33), the penalties settled.
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
  "from {who}": "收自{who}", "doubled 倍打": "倍打", "all the chips he had 付完為止": "付完為止",
  "held to the game's end": "保留至本局結束",
});

// Each transfer's reason (engine/transfers.py: the rule books' codes), in the page's words.
const REASONS = {
  // WSOM 2006, seed 000 計分系統 得分授受法
  self_draw_each: "self-drawn: each pays the hand's points",
  small_hand_each: "a small hand: each pays its points",
  standard_share: "a big hand: each pays the standard score",
  discarder_rest: "the discarder pays the rest",
  follow_tile_rest: "follow-tile exemption: the first to discard the tile pays the rest",
  no_discarder_each: "follow-tile exemption: no discarder, each pays the hand's points",
  deducted: "penalty deducted",
  // CCM 2012, seed 004 第九條 and 第一條
  discard_win: "discard win: the discarder pays double",
  self_draw_win: "self-drawn: each of the three pays once",
  robbed_kong_win: "robbed kong: the konger pays for the three",
  liable_win: "liable 包付: one pays for the three",
  melded_kong: "exposed kong: its feeder pays",
  added_kong: "added kong: each of the three pays",
  concealed_kong: "concealed kong: each of the three pays",
  flower_kong: "flower kong: each of the three pays",
  chase: "追牌: the first of the four pays each",
  penalty_each: "penalty: to each other player",
  penalty_to: "penalty: to the player it disadvantaged",
  dead_points: "penalty: dead points, out of the table",
  chipless_fine: "won off a player without chips: fined",
};
words({
  "self-drawn: each pays the hand's points": "自摸各家分付",
  "a small hand: each pays its points": "小牌：三家平均攤付",
  "a big hand: each pays the standard score": "大牌：各家先付標準分數",
  "the discarder pays the rest": "銃家包付餘數",
  "follow-tile exemption: the first to discard the tile pays the rest":
    "跟張免責：最先打出該張牌的一家包付餘數",
  "follow-tile exemption: no discarder, each pays the hand's points": "跟張免責：沒有銃家，各家分付",
  "penalty deducted": "罰分扣除",
  "discard win: the discarder pays double": "點和：點炮方支付雙份",
  "self-drawn: each of the three pays once": "自摸：三家各支付一份",
  "robbed kong: the konger pays for the three": "搶槓和：槓牌者一家支付三家分",
  "liable 包付: one pays for the three": "包付：一家支付三家分",
  "exposed kong: its feeder pays": "明槓：點槓者支付", "added kong: each of the three pays": "加槓：三家各付",
  "concealed kong: each of the three pays": "暗槓：三家各付",
  "flower kong: each of the three pays": "花槓：三家各付",
  "追牌: the first of the four pays each": "追牌：第一家向其他三家各支付",
  "penalty: to each other player": "罰分：均分給其他三家",
  "penalty: to the player it disadvantaged": "罰分：判給虧損方",
  "penalty: dead points, out of the table": "罰分：盤外的死分",
  "won off a player without chips: fined": "對無分者和牌：罰分",
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
      : null,
    linesView(r.lines, p.seat))),
    r.dead ? el("div", {class: "dead-points"}, tr("{n} dead points", {n: r.dead})) : null);
}

function seatName(who) {   // "South 南" or "南家"
  const [zh, en] = WINDS[who.seat];
  return LANG === "zh" ? `${zh}家` : `${en} ${zh}`;
}

// The transfers a seat paid or received (issue 33), each with its reason and the rule book's
// article: what the figure above them adds up from (held ones apart, as the sheet holds them).
function linesView(lines, seat) {
  const own = lines.filter((l) => l.payer.seat === seat || l.payee.seat === seat);
  if (!own.length) return null;
  return el("ul", {class: "lines"}, own.map((l) => {
    const paid = l.payer.seat === seat;
    const other = paid ? l.payee : l.payer;
    const whom = other.seat ? tr(paid ? "to {who}" : "from {who}", {who: seatName(other)})
      : tr(PAID[other]);
    const notes = [l.doubled ? tr("doubled 倍打") : null,
      l.short ? tr("all the chips he had 付完為止") : null,
      l.column === "held" ? tr("held to the game's end") : null].filter(Boolean);
    return el("li", {class: "line", "data-reason": l.reason, "data-column": l.column,
      "data-amount": paid ? -l.amount : l.amount},
    el("span", {class: "amount"}, signed(paid ? -l.amount : l.amount)), " ", whom, " · ",
    tr(REASONS[l.reason] || l.reason), notes.length ? ` (${notes.join(", ")})` : "",
    el("cite", {}, citation(l.rule_text, l.rule)));
  }));
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
