"use strict";
// The organiser's dashboard and the referees' pager (firmware/venue/app.py): the grid of
// every table, the alerts waiting with an "On my way" for the referee who goes, the
// standings once released (by the round's end, or at once by the organiser for a table
// offline or stuck), and at /tables/<name> one table's drill-down. A new call for the
// referee or ruling flashes its table, shows #pager-cue and beeps (WebAudio).

const WINDS = ["East", "South", "West", "North"];
const DRILL = decodeURIComponent((location.pathname.match(/^\/tables\/(.+)$/) ?? [])[1] ?? "");

const grid = new Grid(document.getElementById("grid"), (table) => publicTile(table, {
  link: `/tables/${encodeURIComponent(table.name)}`,
  class: table.calling ? " calling" : "",
  badge: table.badge ? el("span", {class: "badge", title: "alerts waiting"}, String(table.badge))
    : (table.on_way ? el("span", {class: "on-way", title: `${table.on_way} is on the way`}, "✓")
      : null),
}));

// -- the organiser's commands ---------------------------------------------------------------

async function post(url, body, done) {
  const response = await fetch(url, {method: "POST",
    headers: {"Content-Type": "application/json"}, body: JSON.stringify(body)})
    .catch(() => null);
  if (response === null) return notice("The dashboard is not answering.");
  const answer = await response.json().catch(() => ({}));
  notice(response.ok ? done : `Not sent: ${answer.error ?? response.status}`);
  return response.ok;
}

function notice(text) {
  document.getElementById("notice").textContent = text;
}

async function releaseStandings() {
  // For a table offline or stuck: the standings go out, on the board too, marked so.
  if (!confirm("Release the standings to the hall's board before every table has finished?")) {
    return;
  }
  await post("/api/standings/release", {}, "Standings released");
}

document.getElementById("pause-all").addEventListener("click", () => {
  // issue 36: the whole hall stops, so a confirmation and a reason (logged at the venue)
  const reason = prompt("Pause every table's clocks. The reason (logged):");
  if (reason === null) return;
  if (!reason.trim()) return notice("Not sent: a reason is needed to pause the hall.");
  post("/api/pause", {confirm: true, reason}, "Every table's clocks: pause sent");
});
document.getElementById("resume-all").addEventListener("click", () =>
  post("/api/resume", {}, "Every table's clocks: resume sent"));
document.getElementById("referee-name").value = localStorage.getItem("mjtable-referee") ?? "";
document.addEventListener("click", () => {
  // a page may start sound only after a person's gesture
  if (audio === null) {
    try { audio = new AudioContext(); } catch (err) { audio = null; }
  }
}, {once: true});

// -- the seating and the rounds (issue 36) ----------------------------------------------------

let event = {planned: [], round: 0, over: []};

document.getElementById("import-plan").addEventListener("click", async () => {
  const file = document.getElementById("plan-file").files[0];
  const problems = document.getElementById("plan-problems");
  if (!file) return notice("Choose the plan's CSV file first.");
  const response = await fetch("/api/seating", {method: "POST",
    headers: {"Content-Type": "application/json"},
    body: JSON.stringify({csv: await file.text()})}).catch(() => null);
  const answer = response ? await response.json().catch(() => ({})) : {};
  problems.replaceChildren(...(answer.problems ?? []).map((p) => el("li", {}, p)));
  if (!response || !response.ok) return notice(`Plan not imported: ${answer.error ?? "no answer"}`);
  notice(`Plan imported: ${answer.players} players, rounds ${answer.event.planned.join(", ")}`);
  showEvent(answer.event);
});

document.getElementById("seat-round").addEventListener("click", async () => {
  const next = event.round + 1;
  const minutes = Number(document.getElementById("round-minutes").value) || undefined;
  const response = await fetch(`/api/rounds/${next}/start`, {method: "POST",
    headers: {"Content-Type": "application/json"}, body: JSON.stringify({minutes})})
    .catch(() => null);
  const answer = response ? await response.json().catch(() => ({})) : {};
  if (!response || !response.ok) return notice(`Round ${next} not seated: ${answer.error ?? "no answer"}`);
  const missed = Object.keys(answer.not_sent);
  notice(`Round ${next} seated: start_session sent to ${answer.sent} tables` +
    (missed.length ? `; NOT to ${missed.join(", ")}` : ""));
});

function showEvent(doc) {
  event = doc;
  const next = doc.round + 1;
  const button = document.getElementById("seat-round");
  button.disabled = !doc.planned.includes(next);
  button.textContent = `Seat round ${next}`;
  document.getElementById("event-status").textContent = doc.planned.length
    ? `Round ${doc.round || "—"} of ${doc.planned.length}` +
      (doc.over.length ? ` · over: ${doc.over.join(", ")}` : "")
    : "No plan yet";
}

// -- the drill-down -------------------------------------------------------------------------

async function renderDrill() {
  const response = await fetch(`/api/tables/${encodeURIComponent(DRILL)}`).catch(() => null);
  const drill = document.getElementById("drill");
  if (response === null || !response.ok) {
    drill.replaceChildren(el("a", {href: "/"}, "← the hall"),
      el("p", {}, `No table ${DRILL} has reported.`));
    return;
  }
  const doc = await response.json();
  const input = el("input", {id: "message-text", maxlength: "200", placeholder: "a message"});
  const sessions = Object.entries(doc.sessions).reverse();
  drill.replaceChildren(
    el("a", {href: "/"}, "← the hall"),
    el("h1", {}, `Table ${DRILL}`, el("span", {class: "status"}, ` ${doc.status ?? ""}`)),
    publicTile(doc.tile),
    el("form", {id: "message", onsubmit: (event) => {
      event.preventDefault();
      post(`/api/tables/${encodeURIComponent(DRILL)}/message`, {text: input.value},
        `Message sent to ${DRILL}`);
    }}, input, el("button", {type: "submit"}, "Send to the table")),
    el("h2", {}, "Zero-sum check"),
    el("p", {class: doc.zero_sum.ok ? "ok" : "problem", id: "zero-sum"},
      doc.zero_sum.ok ? `ok (${doc.zero_sum.hands} hands)` : doc.zero_sum.problems.join("; ")),
    el("h2", {}, "Public view"),
    publicView(doc.state, doc.tile),
    el("details", {}, el("summary", {}, "The state as received"),
      el("pre", {id: "state"}, JSON.stringify(doc.state, null, 1))),
    ...sessions.map(([name, session]) => el("section", {class: "session"},
      el("h2", {}, `Session ${name || "(no id)"}: ${session.missing} rows missing`),
      session.sheet ? sheet(session.sheet) : null,
      el("ol", {class: "rows"}, session.rows.slice().reverse().map((row) =>
        el("li", {}, `${row.seq} ${row.kind} ${row.event.type ?? ""} ` +
          JSON.stringify(row.event).slice(0, 160)))))));
}

function publicView(state, tile) {
  // The table as its own /table page shows it to the hall, from the public state the venue
  // holds: each seat where it sits (East at the bottom, South to its right), its wind, its
  // player and score, the dealer marked; in the middle the hand, the phase and the clock.
  if (!state) return el("p", {id: "public", class: "held"}, "No state received yet.");
  const seat = (player, i) => el("div", {class: `seat seat-${"ESWN"[i]}`},
    el("span", {class: "wind"}, WINDS[i], state.dealer === "ESWN"[i] ? " · dealer" : ""),
    el("span", {class: "name"}, player?.name ?? "—"),
    el("span", {class: "score"}, String(state.scores[i])));
  return el("div", {id: "public", class: "public-view"},
    [0, 1, 2, 3].map((i) => seat(state.players[i], i)),
    el("div", {class: "centre"},
      el("span", {class: "hand"}, state.hand_number
        ? `${WINDS["ESWN".indexOf(state.round_wind)] ?? ""} round, hand ${state.hand_number}` : ""),
      el("span", {class: "phase"}, PHASES[tile.phase] ?? tile.phase),
      tile.seconds_left === null ? null : el("span", {class: "left"}, minutes(tile.seconds_left)),
      state.referee_called ? el("span", {class: "called"}, "Referee called") : null));
}

function sheet(signed) {
  return el("table", {class: "sheet"},
    el("caption", {}, `Signed by ${signed.referee ?? "?"} up to hand ${signed.hand}`),
    el("tbody", {}, signed.rows.map((row) => el("tr", {},
      el("td", {}, String(row.number)),
      (row.totals ?? []).map((v) => el("td", {class: "num"}, String(v)))))));
}

// -- connecting -----------------------------------------------------------------------------

let drillPending = false;

function take(doc) {
  document.getElementById("venue-name").textContent = doc.venue;
  if (doc.event) showEvent(doc.event);
  const broker = document.getElementById("broker");
  broker.textContent = doc.connected ? "broker connected" : "broker NOT connected";
  broker.classList.toggle("down", !doc.connected);
  const c = doc.counts;
  document.getElementById("counts").textContent = `${c.tables} tables · ${c.messages} messages ` +
    `· ${c.duplicates} duplicates · ${c.gaps} gaps · ${c.malformed} malformed`;
  grid.update(doc.tables, doc.full);
  if (doc.standings) {
    const release = el("button", {id: "release-standings", type: "button",
      onclick: releaseStandings}, "Release the standings now");
    document.getElementById("standings").replaceChildren(standingsTable(doc.standings),
      ...(doc.standings.hidden ? [release] : []));
  }
  ring(doc.tables);
  renderPager();
  if (DRILL && !drillPending && (doc.full || doc.tables.some((t) => t.name === DRILL))) {
    drillPending = true;
    setTimeout(() => { drillPending = false; renderDrill(); }, 300);
  }
}

function showLogin() {
  document.getElementById("dashboard").hidden = true;
  document.getElementById("login").hidden = false;
  document.getElementById("pin").focus();
}

async function start() {
  const response = await fetch("/api/venue").catch(() => null);
  if (response === null) return setTimeout(start, RETRY_MS);
  if (response.status === 401 || response.status === 403) return showLogin();
  const you = (await response.json().catch(() => ({}))).you ?? {};
  document.body.classList.toggle("floor-referee", you.role !== "organiser");
  document.getElementById("you").textContent = you.name ? `${you.name} (${you.role})` : "";
  if (you.name) document.getElementById("referee-name").value = you.name;
  document.getElementById("login").hidden = true;
  document.getElementById("dashboard").hidden = false;
  document.body.classList.toggle("drilling", Boolean(DRILL));
  document.getElementById("drill").hidden = !DRILL;
  follow("/api/stream", take, start);
}

document.getElementById("login").addEventListener("submit", async (event) => {
  event.preventDefault();
  const pin = document.getElementById("pin");
  const response = await fetch("/api/login", {method: "POST",
    headers: {"Content-Type": "application/json"},
    body: JSON.stringify({pin: pin.value,
      referee: document.getElementById("login-name").value.trim() || undefined})})
    .catch(() => null);
  if (response && response.ok) return start();
  const answer = response ? await response.json().catch(() => ({})) : {};
  document.getElementById("login-error").textContent = answer.error ?? "no answer";
});

start();
