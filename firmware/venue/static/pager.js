"use strict";
// The referees' pager (venue.html, with venue.js): each alert waiting, with an "On my way"
// for the referee who goes; a new call or ruling shows #pager-cue and beeps (WebAudio).

const KINDS = {call_referee: "Referee called", ruling: "Ruling waiting", fault: "Fault"};
const CALLING = ["call_referee", "ruling"];

let heard = new Set();  // table + alert keys already beeped for
let audio = null;

// -- the pager ------------------------------------------------------------------------------

function refereeName() {
  return document.getElementById("referee-name").value.trim();
}

const pagerItems = new Map();  // table + alert key -> {node, said}: each item kept while it is

function renderPager() {
  // Keyed: an alert's item is replaced only when what it says changes, and moved only when
  // its place changes, so a tap on "On my way" never lands on a button just replaced.
  // Waiting longest first, the ones someone is on the way to after.
  const alerts = [];
  for (const {table} of grid.tables.values()) {
    for (const alert of table.alerts) alerts.push({table, alert});
  }
  alerts.sort((a, b) => Boolean(a.alert.acknowledged) - Boolean(b.alert.acknowledged) ||
    a.alert.received - b.alert.received || a.table.name.localeCompare(b.table.name));
  const pager = document.getElementById("pager");
  const shown = new Set();
  alerts.forEach(({table, alert}, place) => {
    const id = `${table.name}\n${alert.key}`;
    const said = JSON.stringify(alert);
    let item = pagerItems.get(id);
    if (!item || item.said !== said) {
      const node = alertItem(table, alert);
      if (item) item.node.replaceWith(node);
      item = {node, said};
      pagerItems.set(id, item);
    }
    shown.add(id);
    if (pager.children[place] !== item.node) {
      pager.insertBefore(item.node, pager.children[place] ?? null);
    }
  });
  for (const [id, item] of pagerItems) {
    if (!shown.has(id)) {
      item.node.remove();
      pagerItems.delete(id);
    }
  }
  const ringing = [...grid.tables.values()].some(({table}) => table.calling);
  const cue = document.getElementById("pager-cue");
  cue.hidden = !ringing;
  cue.classList.toggle("ringing", ringing);
}

function alertItem(table, alert) {
  const ack = alert.acknowledged;
  return el("li", {class: `alert kind-${alert.kind}${ack ? " acknowledged" : ""}`,
    "data-table": table.name, "data-key": alert.key},
  el("a", {href: `/tables/${encodeURIComponent(table.name)}`, class: "where"}, table.name),
  el("span", {class: "kind"}, KINDS[alert.kind] ?? alert.kind),
  alert.seat === null ? null : el("span", {class: "seat"}, ["E", "S", "W", "N"][alert.seat]),
  el("span", {class: "text"}, alert.text),
  ack ? el("span", {class: "ack"}, (ack.referee ? `${ack.referee} on the way` : ack.text) +
    (ack.confirmed ? "" : " (sent)"))
    : el("button", {class: "on-my-way", type: "button",
      onclick: (event) => onMyWay(table.name, alert.key, event.target)}, "On my way"));
}

async function onMyWay(table, key, button) {
  const referee = refereeName();
  if (!referee) {
    notice("Type your name first (Referee, at the top).");
    document.getElementById("referee-name").focus();
    return;
  }
  localStorage.setItem("mjtable-referee", referee);
  button.disabled = true;
  await post(`/api/tables/${encodeURIComponent(table)}/alerts/${encodeURIComponent(key)}` +
    "/acknowledge", {referee}, `${referee} is on the way to ${table}`);
  button.disabled = false;
}

function ring(tables) {
  // A beep for each call or ruling not heard before.
  let fresh = false;
  for (const table of tables) {
    for (const alert of table.alerts) {
      const id = `${table.name}\n${alert.key}`;
      if (!alert.acknowledged && CALLING.includes(alert.kind) && !heard.has(id)) {
        heard.add(id);
        fresh = true;
      }
    }
  }
  if (fresh) beep();
}

function beep() {
  const cue = document.getElementById("pager-cue");
  cue.dataset.beeps = String(Number(cue.dataset.beeps) + 1);
  try {
    audio = audio ?? new AudioContext();
    if (audio.state === "suspended") audio.resume();
    for (const [start, pitch] of [[0, 880], [0.25, 660]]) {
      const tone = audio.createOscillator(), gain = audio.createGain();
      tone.frequency.value = pitch;
      gain.gain.setValueAtTime(0.2, audio.currentTime + start);
      gain.gain.exponentialRampToValueAtTime(0.001, audio.currentTime + start + 0.2);
      tone.connect(gain).connect(audio.destination);
      tone.start(audio.currentTime + start);
      tone.stop(audio.currentTime + start + 0.22);
    }
  } catch (err) {
    // no sound on this device: the cue element still shows
  }
}

