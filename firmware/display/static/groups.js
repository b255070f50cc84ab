"use strict";
// No floods (issue 33 item 2): a slow player's mechanical overtime penalties are one entry per
// seat and hand (how many, the total, one Revoke with one reason), and repeated faults of one
// kind one entry with their count, one Acknowledge for them all.

words({  // i18n.js
  "×{n}": "×{n}",
  "{n} times, {points} points in all": "{n} 次，共 {points} 分",
  "Revoke all {n}": "全部撤銷 {n} 項",
  "Acknowledge all {n}": "全部確認 {n} 項",
});

// Items of `list` grouped by `key` (null: alone), in the order each group first comes.
function grouped(list, key) {
  const groups = new Map();
  list.forEach((item, i) => {
    const k = key(item) ?? `alone ${i}`;
    if (!groups.has(k)) groups.set(k, []);
    groups.get(k).push(item);
  });
  return [...groups.values()];
}

function overtime(a) {
  return Boolean(a.penalty && a.penalty.offence.startsWith("overtime"));
}

// Alerts and penalties: a seat's overtime penalties of one state together.
function alertGroupKey(a) {
  return overtime(a) ? `${a.seat} ${a.penalty.offence} ${a.state} ${a.revocable}` : null;
}

function groupPoints(group) {
  return group.reduce((sum, a) => sum + (a.penalty.points || 0), 0);
}

// The line that says a group is many: "×12 · 12 times, 60 points in all".
function groupLine(group) {
  if (group.length < 2) return null;
  return el("div", {class: "group-count"}, el("b", {}, tr("×{n}", {n: group.length})), " ",
    tr("{n} times, {points} points in all", {n: group.length, points: groupPoints(group)}));
}

// Faults of one device and kind, in one state, together.
function faultGroupKey(f) {
  return `${f.device} ${f.kind} ${f.cleared} ${f.seen}`;
}

// One action for each of a group's items, in turn; the last answer is the one shown.
async function actOnAll(items, action, body) {
  let reply = null;
  for (const item of items) reply = await act(action, body(item));
  return reply;
}
