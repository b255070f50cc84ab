"use strict";
// Rulings that cannot go wrong (issue 16), on the referee's view only: the first alert that
// awaits a ruling (the desk's `awaits_ruling`) takes the centre of the table in large type,
// with the proposed penalty and its rule; Apply, Waive and "Other ruling" (the rule book's
// alternatives: the penalty tiles he names, the player paid or dead points) stay until it is
// ruled, acknowledged or not. Every ruling needs a reason, chosen or written. The penalties
// in force are listed in the side panel, each with Revoke (a reason again). Each action's
// answer is shown beside the buttons that sent it.

const USUAL_REASONS = [
  "seen by the referee",
  "confirmed by the players at the table",
  "the table's record is right",
  "not seen: no player confirms it",
  "a fault of the table, not of the player",
];

words({  // i18n.js
  "seen by the referee": "裁判親眼所見",
  "confirmed by the players at the table": "經同桌選手確認",
  "the table's record is right": "牌桌的紀錄正確",
  "not seen: no player confirms it": "未看到：無選手確認",
  "a fault of the table, not of the player": "是牌桌的故障，不是選手的過失",
  "choose or write the reason first": "請先選擇或填寫理由", "Close": "關閉", "Apply": "執行",
  "Waive": "免除", "Other ruling": "其他裁定", "a ruling is needed": "需要裁定",
  "Ruling needed · alert {id}": "需要裁定 · 警示 {id}", "{n} more waiting": "另有 {n} 項等待",
  "rule {rule}": "規則 {rule}",
  "all the points to the player disadvantaged: ": "全部分數給受損的選手：",
  "as dead points": "作為死分", "{n} of {seat}'s tiles, e.g. 1m 2m": "{seat} 的 {n} 張牌，如 1m 2m",
  "penalty tiles ": "罰牌 ", "Apply with these tiles": "以這些牌執行",
  "the rule book offers no other ruling here: apply or waive": "規則書此處沒有其他裁定：執行或免除",
  "— the reason —": "— 理由 —", "or in your own words": "或用你自己的話", "reason ": "理由 ",
  "Revoke the penalty": "撤銷罰則", "ruled: {reason}": "裁定：{reason}",
  "revoked: {reason}": "撤銷：{reason}", "Revoke…": "撤銷…",
  "Undo waive…": "撤銷免除…", "Undo the waive": "撤銷免除",
});

let ruled = null;        // the centre panel's alert being ruled, or ruled: {key, text, ok}
let penaltiesKey = null; // what the penalties list shows, so a reason being typed stays
const revokeAnswers = {};  // "hand:alert" -> the answer of its Revoke, shown beside it

function renderRulings(state) {
  if (PUBLIC) return;
  document.getElementById("penalties-head").hidden = false;
  const waiting = state.alerts.filter((a) => a.awaits_ruling);
  renderRulingPanel(waiting[0] || null, waiting.length, state);
  renderPenalties(state);
}

function alertKey(state, a) {
  return `${a.late ? a.hand : state.hand_number}:${a.id}`;
}

// An alert of the hand before, still to rule once the next was dealt (issue 36): its hand named.
function handOf(a) {
  return a.late ? {hand: a.hand} : {};
}

function renderRulingPanel(a, count, state) {
  const old = document.getElementById("ruling");
  const key = a ? alertKey(state, a) : null;
  // kept: the same alert, or the one just ruled, its answer not in yet or shown until closed
  const keep = old && old.lang === LANG && (old.dataset.key === key || (ruled
    && ruled.key === old.dataset.key && (ruled.text === undefined || !a)));
  if (keep) {
    old.querySelector(".more").textContent = count > 1 ? tr("{n} more waiting", {n: count - 1})
      : "";
    return;
  }
  if (old) old.remove();
  if (a) document.getElementById("table").append(rulingPanel(a, count, state, key));
}

function rulingPanel(a, count, state, key) {
  const feedback = el("p", {class: "feedback", role: "status"});
  const reason = reasonPicker();
  const buttons = el("div", {class: "buttons"});
  const send = (body) => {
    const why = reason.value();
    if (!why) return say(feedback, tr("choose or write the reason first"), true);
    ruled = {key};
    buttons.querySelectorAll("button").forEach((b) => { b.disabled = true; });
    act("rule", {alert: a.id, reason: why, ...handOf(a), ...body}).then((answer) => {
      if (!answer) return;  // logged out: the login is shown
      ruled = {key, ...answer};
      say(feedback, answer.text, !answer.ok);
      if (answer.ok) buttons.replaceChildren(el("button", {class: "close", onclick: () => {
        ruled = null;
        document.getElementById("ruling").remove();
        renderRulings(latest);
      }}, tr("Close")));
      else buttons.querySelectorAll("button").forEach((b) => { b.disabled = false; });
    });
  };
  const other = el("div", {class: "other-ruling", hidden: true}, otherRulings(a, state, send));
  buttons.append(
    el("button", {class: "apply", onclick: () => send({apply: true})}, tr("Apply")),
    el("button", {class: "waive", onclick: () => send({apply: false})}, tr("Waive")),
    el("button", {class: "other", onclick: () => { other.hidden = !other.hidden; }},
      tr("Other ruling")));
  const seat = a.seat == null ? "" : LANG === "zh" ? `${WINDS[SEATS[a.seat]][0]}家`
    : `${WINDS[SEATS[a.seat]][1]} ${WINDS[SEATS[a.seat]][0]}`;
  return el("section", {id: "ruling", "data-key": key, "data-alert-id": a.id, lang: LANG,
    role: "alertdialog", "aria-label": tr("a ruling is needed")},
  el("header", {class: "ruling-head"}, el("span", {}, tr("Ruling needed · alert {id}",
    {id: a.id})),
    el("span", {class: "ruling-seat"}, seat),
    el("span", {class: "more"}, count > 1 ? tr("{n} more waiting", {n: count - 1}) : "")),
  el("div", {class: "ruling-message"}, inLanguage(a.text, a.message)),
  LANG === "zh" && a.text ? el("details", {class: "details"}, el("summary", {}, tr("details")),
    el("div", {class: "detail", lang: "en"}, a.message)) : null,  // issue 33: folded
  a.penalty ? el("div", {class: "ruling-penalty"}, penaltyText(a.penalty)) : null,
  el("div", {class: "ruling-rule"}, tr("rule {rule}", {rule: (a.penalty
    ? citation(a.penalty.rule_text, a.penalty.rule) : citation(a.rule_text, a.rule)) || "—"})),
  reason.node, buttons, other, feedback);
}

// The rule book's alternatives to the proposal: the points to the player disadvantaged or
// dead (seed 004 §38 一 6), the penalty tiles the referee names (seed 000 錯鳴 3: 裁判有權指定).
function otherRulings(a, state, send) {
  const p = a.penalty;
  const options = [];
  if (p && p.points && state.penalties_allocatable) {
    const others = [...SEATS].filter((s, i) => i !== p.seat);
    options.push(el("div", {class: "buttons payees"},
      tr("all the points to the player disadvantaged: "), ...others.map((s) => el("button",
        {class: `to to-${s}`, onclick: () => send({apply: true, to: s})}, tr(WINDS[s][1]))),
    el("button", {class: "dead", onclick: () => send({apply: true, dead: true})},
      tr("as dead points"))));
  }
  if (p && p.penalty_tiles.length) {
    const named = el("input", {class: "tiles", type: "text", size: 14,
      placeholder: tr("{n} of {seat}'s tiles, e.g. 1m 2m",
        {n: p.penalty_tiles.length, seat: tr(WINDS[SEATS[p.seat]][1])})});
    options.push(el("div", {class: "buttons"}, el("label", {}, tr("penalty tiles "), named),
      el("button", {class: "with-tiles", onclick: () => {
        const tiles = tileIds(named.value.trim(), p.seat);
        if (tiles && tiles.length) send({apply: true, tiles});
      }}, tr("Apply with these tiles"))));
  }
  return options.length ? options
    : [el("p", {class: "none"}, tr("the rule book offers no other ruling here: apply or waive"))];
}

function reasonPicker() {
  const choice = el("select", {class: "reason-choice"},
    el("option", {value: ""}, tr("— the reason —")),  // journaled in the language shown
    ...USUAL_REASONS.map((r) => el("option", {value: tr(r)}, tr(r))));
  const own = el("input", {class: "reason-text", type: "text", maxlength: 200,
    placeholder: tr("or in your own words")});
  return {
    node: el("div", {class: "reason"}, el("label", {}, tr("reason "), choice), own),
    value: () => [choice.value, own.value.trim()].filter(Boolean).join(": "),
  };
}

function say(node, text, bad) {
  node.textContent = text;
  node.classList.toggle("bad", bad);
}

// The penalties of this hand: in force (with Revoke while the hand's row may still change),
// waived (with Undo waive until the sheet is signed over it, issue 36 item 2), or revoked,
// with the reasons given.
function renderPenalties(state) {
  const shown = state.alerts.filter((a) => ["applied", "waived", "revoked"].includes(a.state));
  const key = LANG + JSON.stringify(shown.map((a) => [alertKey(state, a), a.state, a.revocable,
    a.undoable, a.reason, revokeAnswers[alertKey(state, a)]]));
  if (key === penaltiesKey) return;
  penaltiesKey = key;
  fill("penalties", grouped(shown, alertGroupKey).map((group) => penaltyItem(group, state)));
}

// A penalty, or a seat's overtime penalties of this hand together (groups.js).
function penaltyItem(group, state) {
  const a = group[group.length - 1];
  const key = alertKey(state, group[0]);
  const feedback = el("span", {class: "feedback", role: "status"});
  const answer = revokeAnswers[key];
  if (answer) say(feedback, answer.text, !answer.ok);
  const reason = reasonPicker();
  const undo = a.undoable;  // a waive taken back: the alert awaits a ruling again
  const confirm = undo ? "Undo the waive" : group.length > 1 ? "Revoke all {n}" : "Revoke the penalty";
  const form = el("div", {class: "revoke-form", hidden: true}, reason.node,
    el("button", {class: "revoke-confirm", onclick: () => {
      const why = reason.value();
      if (!why) return say(feedback, tr("choose or write the reason first"), true);
      const action = undo ? "undo_waive" : "revoke";
      actOnAll(group, action, (g) => ({alert: g.id, reason: why, ...handOf(g)})).then((reply) => {
        if (!reply) return;
        revokeAnswers[key] = reply;
        renderPenalties(latest);  // the answer beside its item, drawn again or not
      });
    }}, tr(confirm, {n: group.length})));
  return el("li", {class: `penalty-item ${a.state}`, "data-alert-id": group[0].id,
    "data-count": group.length},
    el("div", {class: "meta"}, [a.seat == null ? "" : tr(WINDS[SEATS[a.seat]][1]), tr(a.state)]
      .filter(Boolean).join(" · ")),
    a.penalty ? el("div", {class: "penalty"}, penaltyText(a.penalty)) : null,
    groupLine(group),
    a.reason ? el("div", {class: "reason-given"}, tr("ruled: {reason}", {reason: a.reason})) : null,
    a.revoked ? el("div", {class: "reason-given"}, tr("revoked: {reason}", {reason: a.revoked}))
      : null,
    a.revocable || undo ? el("div", {class: "buttons"}, el("button", {class: undo ? "undo-waive" : "revoke",
      onclick: () => { form.hidden = !form.hidden; }}, tr(undo ? "Undo waive…" : "Revoke…"))) : null,
    a.revocable || undo ? form : null, feedback);
}
