"use strict";
// The referee display page (firmware/display). At /table it is the public view, at / the
// referee's (after the PIN). It draws the state document of firmware/display/state.py as it
// arrives on the event stream, and counts the clocks down between updates.

const PUBLIC = location.pathname.replace(/\/+$/, "") === "/table";
const API = PUBLIC ? "/api" : "/api/referee";
const LOG_LENGTH = 20;
const RETRY_MS = 2000;
const NOTICE_SECONDS = 300;  // RULES.md 4.3: the head referee announces 5 minutes before time

let shownAt = 0;     // performance.now() at which the clocks' numbers were true
let latest = null;   // the state document on screen

// -- the table ---------------------------------------------------------------------------

function render(state) {
  // an update without the score sheet leaves it as it was (the desk sends it when it changes)
  if (!("sheet" in state)) state.sheet = latest ? latest.sheet : null;
  latest = state;
  setRuleBook(state.ruleset);  // i18n.js: its words for a hand and a game
  if (replaying()) return liveAside();  // history.js: a hand replayed keeps the table picture
  shownAt = performance.now();
  document.body.classList.toggle("paused", state.clocks_paused);
  const table = document.getElementById("table");
  table.querySelectorAll(".seat").forEach((node) => node.remove());
  for (const seat of state.seats) table.append(renderSeat(seat, state));
  renderCentre(state);
  renderResult(state);  // result.js (issue 16)
  renderSheet(state);  // sheet.js (issue 16): the score sheet, both views
  renderAlerts(state.alerts);
  renderRulings(state);  // rulings.js (issue 16)
  renderFaults(state.faults, state.referee_on_way);
  renderShuffler(state.shuffler);
  renderLog(state.log);
  renderStopped(state.not_refereeing);
  renderInterruption(state.interruption);
  if (!PUBLIC) updateControls(state);
  renderTabs(state);  // tabs.js (issue 33)
  tick();
}

function redraw() {  // the language switched (i18n.js): the same document in the other
  document.body.dataset.offline = tr("connection to the table lost: retrying");  // display.css
  if (latest) render(latest);
}

function renderSeat(seat, state) {
  const [zh, en] = WINDS[seat.seat];
  const turn = state.turn === seat.seat;
  return el("section", {class: `seat place-${PLACES[seat.player]}${turn ? " turn" : ""}`,
    "data-seat": seat.seat, "data-player": seat.player},
  el("header", {},
    el("span", {class: "wind"}, el("span", {class: "wind-zh"}, zh), LANG === "zh" ? "" : ` ${en}`),
    seat.score === null ? null : el("span", {class: "score"}, seat.score),  // 問分: asked.py
    seat.penalty_points ? el("span", {class: "pending",
      title: tr("penalties of this hand, settled at its end")},
    `${seat.penalty_points > 0 ? "+" : ""}${seat.penalty_points}`) : null,
    el("span", {class: "player"},
      `P${seat.person + 1}${seat.seat === "E" ? ` ${tr("dealer")}` : ""}`),
    seat.name ? el("span", {class: "player-name"}, seat.name) : null,
    el("span", {class: "clocks"}, clock("clock-turn", "turn", seat.clock_turn),
      clock("clock-hand", "hand", seat.clock_hand))),
  el("div", {class: "hand"}, handTiles(seat)),
  waitsView(seat),
  el("div", {class: "exposed"}, seat.melds.map(meld),
    seat.flowers.length ? el("span", {class: "flowers"}, seat.flowers.map((t) => tile(t))) : null),
  el("div", {class: "river"}, rows(seat.river, 6).map((row) =>
    el("div", {class: "river-row"}, row.map((t) => tile(t))))));
}

function clock(kind, label, c) {
  const timed = c && c.remaining !== null;
  return el("div", {class: `clock ${kind}${timed ? "" : " idle"}`,
    "data-remaining": timed ? c.remaining : null, "data-running": timed && c.running,
    "data-free": timed ? c.free : null},
  el("span", {class: "label"}, tr(label)), el("span", {class: "time"}, "—"));
}

function tick() {
  const elapsed = (performance.now() - shownAt) / 1000;
  for (const node of document.querySelectorAll(".clock[data-remaining]")) {
    let left = Number(node.dataset.remaining);
    if (node.hasAttribute("data-running")) left -= Math.max(0, elapsed - Number(node.dataset.free));
    const shown = Math.floor(left * 10) / 10;   // the colour goes with the number shown
    node.querySelector(".time").textContent = seconds(shown);
    node.classList.toggle("warn", shown > 0 && shown < 5);
    node.classList.toggle("over", shown <= 0);
  }
  for (const node of document.querySelectorAll(".scores-asked[data-until]")) {
    node.hidden = latest && latest.t + elapsed >= Number(node.dataset.until);
  }
  // 問分's answer gone by its time, no update since: the chips it showed go with it (asked.py)
  document.body.classList.toggle("chips-over", Boolean(latest && latest.chips_until
    && latest.t + elapsed >= latest.chips_until));
  for (const node of document.querySelectorAll(".sitting-left[data-left]")) {
    const left = Math.max(0, Number(node.dataset.left) - elapsed);
    node.textContent = hours(left);
    node.parentNode.classList.toggle("warn", left > 0 && left <= NOTICE_SECONDS);
    node.parentNode.classList.toggle("over", left <= 0);
  }
}

function hours(left) {
  const whole = Math.floor(left), two = (n) => String(n).padStart(2, "0");
  return `${Math.floor(whole / 3600)}:${two(Math.floor(whole / 60) % 60)}:${two(whole % 60)}`;
}

function seconds(left) {
  const sign = left < 0 ? "−" : "", s = Math.abs(left);
  if (s < 10) return sign + s.toFixed(1);
  const whole = Math.floor(s);
  return sign + (whole < 60 ? String(whole)
    : `${Math.floor(whole / 60)}:${String(whole % 60).padStart(2, "0")}`);
}

function renderCentre(state) {
  const turn = state.turn ? WINDS[state.turn] : null;
  const dice = state.dice;
  fill("centre",
    el("div", {class: "table-name"}, `${state.table} · `,
      el("span", {lang: "en"}, state.ruleset_title)),  // the rule book's title, a name
    el("div", {class: "round"}, tr("{wind} round · hand {n}",
      {wind: WINDS[state.round_wind][0], n: state.hand_number})),
    el("div", {class: "whose-turn"}, turn ? (LANG === "zh" ? `${turn[0]}家` : `${turn[0]} ${turn[1]}`)
      : ""),
    el("div", {class: "phase"}, STATES[state.state] ? tr(STATES[state.state]) : state.state),
    state.clocks_paused ? el("div", {class: "paused-banner"}, tr("PAUSED")) : null,
    sitting(state.session_seconds_left, state.session_notice),
    gameClock(state.game_clock),
    state.venue_message ? el("div", {class: "venue-message"}, state.venue_message) : null,
    onWay(state.referee_on_way),
    state.wall ? el("div", {class: "wall"}, el("span", {class: "wall-live"}, state.wall.live),
      el("span", {}, tr(" tiles left")),
      el("div", {class: "dead"}, tr("dead wall {n}", {n: state.wall.dead}))) : null,
    dice ? el("div", {class: "dice"}, tr("dice {dice}", {dice: dice.dice.join(" ")}) +
      (dice.break ? tr(" · break {wind} {stacks}", {wind: tr(WINDS[dice.break.seat][1]),
        stacks: dice.break.stacks}) : "")) : null,
    state.last_hand ? el("div", {class: "last-hand"},
      lastHand(state.last_hand, state.last_hand_seating)) : null,
    sealView(state.seal, state.key_fingerprint),
    askedView(state.scores_asked, state.seats),
    stageView(state.stage),
    winCheckView(state.win_check));
}

function lastHand(row, seating) {  // the row is by side; the people on them, by its seating
  const changes = row.changes.map((c, side) => `${personName(seating[side])} `
    + `${c > 0 ? "+" : ""}${c}`);
  return tr("hand {n}: {result} · {changes}",
    {n: row.number, result: tr(row.result), changes: changes.join("  ")});
}

// A person by the name entered for him (issue 33: names everywhere once entered), else P1-P4.
function personName(person) {
  const seat = latest && latest.seats.find((s) => s.person === person);
  return (seat && seat.name) || `P${person + 1}`;
}

// The table stopped refereeing (its journal's disk is full or failing): a banner over all,
// which stays when the service has gone; the referee's buttons go with it.
function renderStopped(stopped) {
  const banner = document.getElementById("not-refereeing");
  banner.hidden = !stopped;
  document.body.classList.toggle("not-refereeing", Boolean(stopped));
  if (stopped) fill("not-refereeing", el("div", {class: "headline"}, tr("NOT REFEREEING")),
    ...headline(stopped), el("div", {class: "advice"}, inLanguage(stopped.advice_text,
      stopped.advice)));
}

// -- the side panel ----------------------------------------------------------------------

function renderAlerts(alerts) {  // a ruling is made at the centre (rulings.js)
  fill("alerts", grouped([...alerts].reverse(), alertGroupKey).map((group) => {
    const a = group[0];  // the latest; a seat's overtime penalties together (groups.js)
    const open = a.state === "open";
    return el("li", {class: `alert ${a.state}${a.needs_ruling ? " needs-ruling" : ""}`,
      "data-alert-id": a.id, "data-count": group.length},
    el("div", {class: "meta"}, [a.seat == null ? "" : tr(WINDS[SEATS[a.seat]][1]),
      citation(a.rule_text, a.rule),  // the rule book's article (issue 33)
      tr(a.state)].filter(Boolean).join(" · ")),
    ...headline(a),
    a.penalty ? el("div", {class: "penalty"}, penaltyText(a.penalty)) : null,
    groupLine(group),
    !PUBLIC && a.awaits_ruling ? el("div", {class: "awaits"}, tr("awaits your ruling (centre)"))
      : null,
    PUBLIC || !open ? null : el("div", {class: "buttons"},
      el("button", {class: "ack", onclick: () => actOnAll(group, "ack", (g) => ({alert: g.id}))},
        tr(group.length > 1 ? "Acknowledge all {n}" : "Acknowledge", {n: group.length}))));
  }));
}

// The server's Chinese words ({"en", "zh"}) on a Chinese page, else its English text as sent.
function inLanguage(text, english) {
  return LANG === "zh" && text ? text.zh : english;
}

// A rule reference as the rule book's article in the page's language (issue 33:
// firmware/texts/citations.py), else as sent.
function citation(text, rule) {
  return text ? text[LANG] || text.en : rule;
}

// An alert's or a fault's message: the public's words in the page's language; in Chinese the
// referee's detailed English message (a device's own text, `raw`) only behind a "details"
// fold (issue 33), marked as English.
function headline(notice, raw = null) {
  const text = inLanguage(notice.text, notice.message);
  const detail = LANG === "zh" && notice.text && text !== notice.message && !PUBLIC;
  return [el("div", {class: "message"}, text), detail || (raw && LANG === "zh")
    ? el("details", {class: "details"}, el("summary", {}, tr("details")),
      detail ? el("div", {class: "detail", lang: "en"}, notice.message) : null,
      raw ? el("div", {class: "raw", lang: "en"}, raw) : null) : null];
}

function penaltyText(p) {
  const parts = [inLanguage(p.offence_text, p.offence.replaceAll("_", " "))];
  if (p.points) parts.push(tr(p.paid_to_others ? "{n} points to each" : "{n} points",
    {n: p.points}));
  if (p.effect) parts.push(tr(p.effect.replaceAll("_", " ")));
  if (p.penalty_tiles.length) parts.push(tr("{n} penalty tiles", {n: p.penalty_tiles.length}));
  return `${tr(p.confirm ? "proposed" : "penalty")}: ${parts.join(", ")} `
    + `(${citation(p.rule_text, p.rule)})`;
}

// The sitting's time left (issue 15, RULES.md 4.3), counted down between updates on the
// page like the seats' clocks; the notice five minutes before time, and once time is up.
function sitting(left, announced) {
  if (left === null || left === undefined) return null;
  return el("div", {class: "sitting"}, el("span", {class: "label"}, tr("time left ")),
    el("span", {class: "sitting-left", "data-left": left}, hours(left)),
    announced ? el("div", {class: "sitting-notice", role: "status"}, announced) : null);
}

// The game's clock (seed 004 第五條, issue 13): its number and time left, counted down like the
// sitting's (its whole time before its first hand), the notices; or the break before it.
function gameClock(g) {
  if (!g) return null;
  if (g.break_left !== null) {
    return el("div", {class: "game-break"}, el("span", {class: "label"},
      tr("break · game {n} ", {n: g.game})),
      el("span", {class: "sitting-left", "data-left": g.break_left}, hours(g.break_left)));
  }
  const left = g.seconds_left;
  return el("div", {class: "sitting game-clock"}, el("span", {class: "label"},
    tr("game {n} ", {n: g.game})),
    el("span", {class: "sitting-left", "data-left": left}, hours(left ?? g.minutes * 60)),
    g.notice ? el("div", {class: "sitting-notice", role: "status"}, g.notice) : null);
}

// 問分 (seed 004 三十三): the four scores a player asked for, by seat, until the next discard
// or the time the state document gives (the page counts it down: no update may come).
function askedView(asked, seats) {
  if (!asked) return null;
  return el("div", {class: "scores-asked", role: "status", "data-until": asked.until},
    tr("{who} asks the scores: ", {who: personName(asked.person)}), ...seats.map((seat) =>
      el("span", {class: "asked-seat"}, `${LANG === "zh" ? WINDS[seat.seat][0] : seat.seat} `
        + `${asked.chips[seat.player]} `
        + tr("(stage {n}) ", {n: asked.totals[seat.player]}))));
}

// The stage's standings (seed 004 第十條, 第十一條): each person's 局分 game by game, the
// 總局分, the place (equal totals, equal places), the standard score once the stage is over.
function stageView(stage) {
  if (!stage) return null;
  const who = (person) => stage.players.find((p) => p.person === person).name || `P${person + 1}`;
  const head = stage.finished ? [el("span", {lang: "en"}, stage.format),
    tr(": over · qualified: {who}", {who: stage.qualified.map(who).join(", ")})
      + (stage.tied_at_cut ? tr(" (tied: as the competition rules)") : "")]
    : [tr("game {n} of ", {n: stage.played + 1}),
    el("span", {lang: "en"}, stage.format)];  // the format is the rule book's own name
  if (stage.withheld) {  // seed 004 三十三: the scores only when a player asks (asked.py)
    return el("div", {class: "stage withheld"}, ...head, " · ",
      tr("scores told only when asked (問分)"));
  }
  return el("table", {class: "stage"}, el("caption", {}, head),
    el("tr", {}, el("th", {title: tr("place")}, "#"), el("th", {}, ""),
      ...[...Array(stage.games).keys()].map((g) => el("th",
        {title: tr("局分, game {n}", {n: g + 1})}, `局${g + 1}`)),
      el("th", {title: tr("總局分: the stage's total")}, "總"),
      el("th", {title: tr("標準分: the standard score")}, "標")),
    ...stage.players.map((p) => el("tr", {class: stage.qualified.includes(p.person)
      ? "qualified" : ""}, el("td", {}, p.rank), el("td", {}, who(p.person)),
    ...[...Array(stage.games).keys()].map((g) => el("td", {}, p.points[g] ?? "")),
    el("td", {}, p.total), el("td", {}, p.standard_score ?? ""))),
    stage.reserve.length ? el("tr", {class: "reserve"}, el("td", {colspan: stage.games + 4},
      tr("second on record: ") + stage.reserve.map((r) => `${who(r.person)} ${r.total}`)
        .join(", "))) : null);
}

// The venue acknowledged a call (issue 15): its referee is on the way, until he is here.
function onWay(coming) {
  return coming ? el("div", {class: "on-way"}, tr("{who} is on the way", {who: coming.referee}))
    : null;
}

function renderFaults(faults, coming) {  // repeated faults of one kind together (groups.js)
  fill("faults", grouped([...faults].reverse(), faultGroupKey).map((group) => faultItem(group,
    group[0], coming)));
}

// A fault, or faults of one kind, the latest `f` first; seen: acknowledged; cleared: by the
// device (issue 16).
function faultItem(group, f, coming) {
  return el("li", {class: `fault${f.cleared ? " cleared" : ""}${f.seen ? " seen" : ""}`,
    "data-fault-id": f.id, "data-count": group.length},
    el("div", {class: "meta"}, LANG === "zh" ? "" : `${f.device} · ${f.kind}`,
      (f.cleared ? ` · ${tr("cleared")}` : f.seen ? ` · ${tr("seen, not yet cleared")}` : "")),
    group.length > 1 ? el("div", {class: "group-count"}, el("b", {},
      tr("×{n}", {n: group.length}))) : null,
    ...headline(f, `${f.device} · ${f.kind}`),
    el("div", {class: "advice"}, inLanguage(f.advice_text, f.advice)),
    coming && group.some((g) => coming.alert === g.id) && !f.cleared ? onWay(coming) : null,
    PUBLIC || f.cleared || f.seen ? null
      : el("button", {class: "ack", onclick: () => actOnAll(group, "ack", (g) => ({fault: g.id}))},
        tr(group.length > 1 ? "Acknowledge all {n}" : "Acknowledge", {n: group.length})));
}

function renderShuffler(s) {
  const counts = s.counts ? Object.entries(s.counts).map(([k, v]) => `${k} ${v}`).join(", ") : "";
  fill("shuffler",
    el("div", {class: "shuffler-state"}, s.state ? tr(s.state) : "—"),
    el("div", {}, tr("in play: set {set} · ready: {ready}",
      {set: s.set_in_play ?? "—", ready: tr(s.set_ready ? "yes" : "no")})),
    counts ? el("div", {class: "counts", lang: "en"}, counts) : null,
    s.fault ? el("div", {class: "fault-text"}, inLanguage(s.text, s.fault)) : null,
    s.fault && !PUBLIC ? el("button", {id: "shuffler-retry", onclick: () => act("retry", {})},
      tr("Retry: the machine is put right")) : null);
}

function renderLog(log) {
  fill("log", log.slice(-LOG_LENGTH).reverse().map((e) =>
    el("li", {"data-type": e.type}, el("span", {class: "t"}, Number(e.t).toFixed(1)), " ",
      describe(e))));
}


// An alert of the log in the page's language: its words as the alerts list has them (the
// engine's English message behind it in Chinese).
function alertText(e) {
  const listed = latest && latest.alerts.find((a) => a.id === e.id);
  if (LANG !== "zh") return e.message;
  return listed && listed.text ? listed.text.zh : tr(e.rule ? "rule {rule}" : "alert",
    {rule: e.rule});
}

function describe(e) {
  const side = (seat) => (seat === null || seat === undefined ? "" : tr(WINDS[SEATS[seat]][1]));
  const who = side(e.seat);
  const tile = e.tile === undefined ? "" : tileName(e.tile);
  switch (e.type) {
    case "Discarded": return tr("{who} discards {tile}", {who, tile});
    case "Drew": return tr(e.replacement ? "{who} draws a replacement {tile}"
      : "{who} draws {tile}", {who, tile}).trim();
    case "Claimed": return tr("{who} {claim} {tile} from {from}", {who, claim: tr(e.claim),
      tile: tileName(e.claimed_tile), from: side(e.from_seat)});
    case "Konged": return tr("{who} {kind} kong{of}", {who, kind: tr(e.kind),
      of: e.tiles ? tr(" of {tile}", {tile: tileName(e.tiles[0])}) : ""});
    case "FlowerReplaced": return tr("{who} flower {tile}", {who, tile});
    case "Won": return e.from_seat === null ? tr("{who} wins by self-draw", {who})
      : tr("{who} wins on {from}'s discard", {who, from: side(e.from_seat)});
    case "ExhaustiveDraw": return tr("the wall is exhausted: drawn hand");
    case "GameEnded": return tr("two players without chips: the game ends here");
    case "WallBroken": return tr("dice {dice}: {who}'s wall broken, {stacks} stacks",
      {dice: e.dice.join(" "), who, stacks: e.stacks});
    case "Dealt": return tr("tiles dealt");
    case "Alert": return tr("alert: {text}", {text: alertText(e)});
    case "PenaltyApplied": return tr("{who} penalty applied: {offence}",
      {who, offence: inLanguage(e.offence_text, e.offence.replaceAll("_", " "))});
    case "PenaltyWaived": return tr("ruling on alert {alert}: waived", {alert: e.alert});
    case "PenaltyLifted": return tr("{who} penalty revoked (alert {alert}): {reason}",
      {who, alert: e.alert, reason: e.reason});
    case "WinRescored": return tr("{who}'s win scored again: {payer} (ruling on alert {alert})",
      {who, alert: e.alert, payer: e.responsible === null ? tr("nobody pays alone")
        : tr("{seat} pays", {seat: SEATS[e.responsible]})});
    case "Fault": return inLanguage(e.text, null) || tr(e.cleared ? "cleared: {device} {kind}"
      : "fault: {device} {kind}", {device: e.device, kind: e.kind});
    case "ClocksPaused": return tr("clocks paused");
    case "ClocksResumed": return tr("clocks resumed");
    case "WallRevealed": return tr("wall revealed: {digest}", {digest: e.digest});
    case "SeatsDrawn": return tr("seats drawn ({source}): {seats}; East deals first on the E side",
      {source: e.source, seats: e.winds.map((w, s) => tr("{side} side's player → {wind}",
        {side: SEATS[s], wind: SEATS[w]})).join(", ")});
    case "SeatsChanged": return tr("seats for game {game} ({source}): {seats}", {game: e.game,
      source: e.source, seats: e.seating.map((person, s) => `${SEATS[s]} P${person + 1}`)
        .join(", ")});
    case "ScoresAsked": return tr("{who} asks the scores (問分)", {who: personName(e.person)});
    case "VenueCommand": return tr(e.refused ? "venue: {command} refused" : "venue: {command}",
      {command: e.command || "?"});
    default: return `${e.type} ${who}`;
  }
}

// -- the referee's controls ----------------------------------------------------------------

// A step not taken back (issue 36 item 3): the referee writes why, then confirms it; a blank
// reason or a cancel does nothing.
function withReason(ask, question, then) {
  const reason = (prompt(tr(ask)) || "").trim();
  if (reason && confirm(tr(question, {reason}))) then(reason);
}

function buildControls() {
  fill("controls", el("div", {class: "buttons"},
    el("button", {id: "pause", onclick: () => act("pause", {})}, tr("Pause")),
    el("button", {id: "resume", onclick: () => act("resume", {})}, tr("Resume")),
    el("button", {id: "accept-table", onclick: () => withReason(
      "Accept the table as it lies: why? (the journal keeps the reason)",
      "The hand goes on from the tiles as they lie. Accept the table? Reason: {reason}",
      (reason) => act("accept_table", {reason}))}, tr("Accept the table as it lies")),
    el("button", {id: "referee-roll", title: "seed 000 開門 6: an opponent asks the referee to "
      + "throw East's second roll; the table throws it from the OS's random source",
      onclick: () => act("roll", {})}, tr("Throw East's second roll")),
    el("button", {id: "wall-touched", title: "seed 000 摸打規條 2: the next player touched the "
      + "wall head while calls were open: his calls on that discard are given up, not his win",
      onclick: () => {
        const seat = seatTyped(prompt(tr("Who touched the wall head? (E, S, W or N)")));
        if (seat >= 0) act("wall_touched", {seat});
      }}, tr("Wall head touched")),
    el("button", {id: "draw-seats", title: "執位 (seed 000): the table draws the winds from the "
      + "OS's random source at the start of a half-session", onclick: () => act("draw_seats", {})},
      tr("Draw seats")),
    el("button", {id: "change-seats", title: "換位 (seed 004): between games, each player one "
      + "side on, or the seating entered as four players, E S W N (e.g. 2 3 4 1)", onclick: () => {
        const text = prompt(tr("Seats for the next game: blank for the table's, or P1-P4 E S W N"));
        if (text === null) return;
        const people = text.trim().split(/[\s,]+/).filter(Boolean).map((p) => Number(p) - 1);
        act("change_seats", people.length ? {seating: people} : {});
      }}, tr("Change seats")),
    el("button", {id: "ask-scores", title: "問分 (seed 004 三十三): in the 4th game, a player "
      + "asks the four scores, twice at most", onclick: () => {
        const seat = seatTyped(prompt(tr("Who asks the scores? (E, S, W or N)")));
        if (seat >= 0) act("ask_scores", {seat});
      }}, tr("Scores asked")),
    el("button", {id: "new-session", title: "issue 19: between hands, the next session's "
      + "journal is begun and the table starts again on it", onclick: () => {
        if (confirm(tr("End this session and begin the next? The table restarts on it."))) {
          act("new_session", {});
        }
      }}, tr("New session")),
    el("button", {id: "redeal", title: "seed 000 配牌時的犯規 7: a re-deal, until all four "
      + "have discarded once", onclick: () => {
        const reason = prompt(tr("Re-deal this hand: why? (the journal keeps the reason)"));
        if (reason && reason.trim()) act("redeal", {reason: reason.trim()});
      }}, tr("Re-deal")),
    el("button", {id: "remove-excess", title: "seed 000 配牌時的犯規 6: a player long at the "
      + "deal; the table picks the excess tiles at random", onclick: () => {
        const seat = seatTyped(prompt(tr("Who is long at the deal? (E, S, W or N)")));
        if (seat >= 0) act("remove_excess", {seat});
      }}, tr("Remove excess tiles")),
    el("button", {id: "void", onclick: () => withReason(
      "Void this hand: why? (the journal keeps the reason)",
      "The hand will not count and is dealt again. Void it? Reason: {reason}",
      (reason) => act("void_hand", {reason}))}, tr("Void hand")),
    el("button", {id: "logout", onclick: () => fetch("/api/referee/logout", {method: "POST",
      headers: {"Content-Type": "application/json"}, body: "{}"}).then(showLogin)},
    tr("Log out"))));
  fill("sheet", el("h2", {}, tr("Corrections")),  // the score sheet is sheet.js's
    correctionMode());  // correct.js (issue 16): by tapping the tile, no tile numbers
  document.getElementById("sheet").append(entryForms());
}

// What the referee enters (issue 12): an offence the sensors cannot see (the penalty tiles he
// chooses are an "Other ruling", rulings.js). Tiles are typed as faces ("1m 2m", found in the
// seat's hand) or physical ids.
function entryForms() {
  const value = (id) => document.getElementById(id).value.trim();
  const offence = el("select", {id: "report-offence"});
  fetch(`${API}/offences`).then((r) => r.json()).then((book) => offence.append(
    ...book.offences.map((o) => el("option", {value: o.name, title: o.rule},
      inLanguage(o.text, o.name.replaceAll("_", " ")) + (o.timed ? tr(" (seconds)") : "")
        + (o.tiles ? tr(" (tiles)") : "")))))
    .catch(() => offence.append(el("option", {disabled: true},
      tr("the rule book's offences are unavailable"))));
  const report = el("form", {class: "buttons", onsubmit: (event) => {
    event.preventDefault();
    const seat = Number(value("report-seat"));
    const body = {seat, offence: value("report-offence")};
    if (value("report-seconds")) body.seconds = Number(value("report-seconds"));
    const tiles = tileIds(value("report-tiles"), seat);
    if (tiles === null) return;
    if (tiles.length) body.tiles = tiles;
    act("report", body);
  }}, el("h3", {}, tr("Report an offence")),
  el("label", {}, tr("seat "), el("select", {id: "report-seat"},
    ...[...SEATS].map((s, i) => el("option", {value: i}, tr(WINDS[s][1]))))),
  el("label", {}, tr("offence "), offence),
  el("label", {}, tr("seconds "), el("input", {id: "report-seconds", type: "number", min: 1})),
  el("label", {}, tr("tiles "), el("input", {id: "report-tiles", type: "text", size: 12})),
  el("button", {type: "submit"}, tr("Report")));
  return report;
}

function tileIds(text, seatIndex) {
  const hand = [...((latest.seats[seatIndex] || {}).hand || [])];
  const ids = [];
  for (const word of text.split(/[\s,]+/).filter(Boolean)) {
    if (/^\d+$/.test(word)) { ids.push(Number(word)); continue; }
    const at = hand.findIndex((t) => t.tile === word && !ids.includes(t.id));
    if (at < 0) {
      notice(tr("{seat} holds no {tile} to name", {seat: SEATS[seatIndex], tile: word}), true);
      return null;
    }
    ids.push(hand.splice(at, 1)[0].id);
  }
  return ids;
}

function updateControls(state) {
  const controls = document.getElementById("controls");
  if (controls.hidden || controls.dataset.lang !== LANG) {  // built again in a new language
    buildControls();
    controls.dataset.lang = LANG;
    controls.hidden = false;
    document.getElementById("sheet").hidden = false;
    document.getElementById("sheet-download").hidden = false;  // issue 16: the referee's only
  }
  document.getElementById("pause").disabled = state.clocks_paused;
  // controls only for the rule book in play (issue 33): seed 000's at a WSOM table, the
  // stage's (換位, 問分, seed 004) where games make a stage
  const ccm = String(state.ruleset).startsWith("ccm");
  for (const id of ["referee-roll", "wall-touched", "remove-excess", "redeal"]) {
    document.getElementById(id).hidden = ccm;
  }
  for (const id of ["change-seats", "ask-scores"]) {
    document.getElementById(id).hidden = !state.stage;
  }
  const onBreak = state.game_clock && state.game_clock.break_left !== null;
  document.getElementById("resume").disabled = !state.clocks_paused && !onBreak;
}

async function act(action, body) {
  const response = await fetch(`/api/referee/${action}`, {method: "POST",
    headers: {"Content-Type": "application/json"}, body: JSON.stringify(body)});
  const reply = await response.json().catch(() => ({}));
  if (response.status === 401) return showLogin();
  const name = tr(action.replaceAll("_", " "));
  const text = response.ok ? tr("{action}: done", {action: name})
    : tr("{action} refused: {error}", {action: name, error: reply.error || response.status});
  notice(text, !response.ok);
  return {ok: response.ok, text};  // for an answer shown beside its buttons (rulings.js)
}

function notice(text, bad = false) {
  const node = document.getElementById("notice");
  node.textContent = text;
  node.classList.toggle("bad", bad);
}

// -- connecting ----------------------------------------------------------------------------

function showLogin() {
  document.body.classList.remove("offline");  // the table answers: it asks for the PIN
  document.getElementById("display").hidden = true;
  document.getElementById("login").hidden = false;
  document.getElementById("pin").focus();
}

function connect() {
  document.getElementById("login").hidden = true;
  document.getElementById("display").hidden = false;
  const stream = new EventSource(`${API}/stream`);
  // reconnected (Last-Event-ID: only the missed updates follow, maybe none): back online
  stream.onopen = () => document.body.classList.remove("offline");
  stream.onmessage = (message) => {
    document.body.classList.remove("offline");
    render(JSON.parse(message.data).state);
  };
  stream.onerror = () => {
    document.body.classList.add("offline");
    if (stream.readyState === EventSource.CLOSED) setTimeout(start, RETRY_MS);
  };
}

async function start() {
  if (PUBLIC) return connect();
  const response = await fetch(`${API}/state`).catch(() => null);
  if (response === null) return setTimeout(start, RETRY_MS);
  if (response.status === 401 || response.status === 403) return showLogin();
  connect();
}

document.getElementById("login").addEventListener("submit", async (event) => {
  event.preventDefault();
  const pin = document.getElementById("pin");
  const name = document.getElementById("referee-name").value.trim();
  const body = name ? {pin: pin.value, referee: name} : {pin: pin.value};
  const response = await fetch("/api/referee/login", {method: "POST",
    headers: {"Content-Type": "application/json"}, body: JSON.stringify(body)});
  pin.value = "";
  if (response.ok) return connect();
  const reply = await response.json().catch(() => ({}));
  document.getElementById("login-error").textContent = response.status === 429
    ? reply.error || tr("Too many wrong PINs: wait and try again.")
    : response.status === 422 ? tr("Type your name too: referees are enrolled here.")
    : tr("Wrong PIN.");
});

translateStatic();  // i18n.js: the fixed labels in the remembered language
document.body.dataset.offline = tr("connection to the table lost: retrying");
document.body.classList.toggle("public", PUBLIC);
document.getElementById("to-referee").hidden = !PUBLIC;  // the kiosk's way to the login
setInterval(tick, 100);
start();
