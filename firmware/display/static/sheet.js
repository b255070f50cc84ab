"use strict";
// The score sheet (issue 16), drawn from the state document's `sheet` (firmware/desk/sheet.py)
// on both views: each hand's row with its changes, penalties and running totals, the zero-sum
// check, confirmed or not; who has signed. The referee's view adds a Confirm button on each
// row not yet confirmed (it names its own row, so it stays right during the next hand), the
// players' names and federation ids, his signature (his PIN typed again) and the players'
// (asked for, then each presses his 和 button or taps his name here). A voided hand has no
// result: the sheet says so instead.

words({
  "Score sheet": "計分表",
  "Corrections": "更正",
  "hand": "盤",
  "zero sum": "零和",
  "confirmed": "已確認",
  "changed since confirmed": "確認後有更改",
  "Confirm hand {n}": "確認第{n}盤",
  "penalty {points}": "罰分 {points}",
  "payments sum {sum}": "付分合計 {sum}",
  "hand {n} voided: {reason}": "第{n}盤作廢：{reason}",
  "No hand on the sheet yet.": "計分表尚無牌盤。",
  "Players": "選手",
  "name": "姓名",
  "federation id": "協會編號",
  "Save players": "儲存選手",
  "Sign the sheet up to hand {n}": "簽署計分表至第{n}盤",
  "referee's name (when none is enrolled)": "裁判姓名（未登記裁判時）",
  "your PIN again": "再次輸入密碼",
  "Ask the players to sign": "請選手簽署",
  "{who} signs": "{who} 簽署",
  "sign the score sheet: press your 和 button": "請簽署計分表：按你的和牌按鈕",
  "Signed by referee {name} up to hand {n}{at}": "裁判 {name} 已簽署至第{n}盤{at}",
  "{who} signed up to hand {n} ({via}){at}": "{who} 已簽署至第{n}盤（{via}）{at}",
  "button": "按鈕",
  "screen": "螢幕",
  " at {time}": "，{time}",
  "Not signed yet.": "尚未簽署。",
  "Hands {hands} are not confirmed: sign up to hand {n} anyway?":
    "第 {hands} 盤尚未確認：仍要簽署至第{n}盤嗎？",
  "Signed: {who}": "已簽署：{who}",
  "Withdraw": "撤回",
  "Withdraw {who}'s signature: why? (the journal keeps the reason)": "撤回 {who} 的簽署：原因？（紀錄會保存原因）",
});

let sheetBuilt = false;

function renderSheet(state) {
  const sheet = state.sheet;
  let section = document.getElementById("score-sheet");
  if (!section) {
    section = el("section", {id: "score-sheet"});
    const panel = document.getElementById("sheet-panel");  // the Sheet tab (tabs.js)
    panel.insertBefore(section, document.getElementById("sheet-download"));
  }
  if (!PUBLIC && !sheetBuilt) buildSheetForms(section);
  const shown = section.querySelector(".sheet-shown") || el("div", {class: "sheet-shown"});
  if (!shown.parentNode) section.prepend(shown);
  shown.replaceChildren(...present([
    el("h2", {}, tr("Score sheet")),
    state.voided ? el("p", {id: "sheet-voided", class: "voided"},
      tr("hand {n} voided: {reason}", {n: state.voided.hand, reason: state.voided.reason})) : null,
    sheet ? sheetTable(sheet) : null,
    sheet ? signedList(sheet) : null,
  ]));
  if (sheet && !PUBLIC) updateSheetForms(sheet);
  signCall(sheet);
}

function sheetTable(sheet) {
  if (!sheet.rows.length) return el("p", {class: "sheet-empty"}, tr("No hand on the sheet yet."));
  const last = sheet.rows[sheet.rows.length - 1];
  const head = el("tr", {}, el("th", {}, tr("hand")),
    ...last.names.map((name) => el("th", {}, name)), el("th", {}, tr("zero sum")),
    el("th", {}, ""));
  return el("table", {id: "sheet-table"}, el("thead", {}, head),
    el("tbody", {}, ...sheet.rows.map(sheetRow)));
}

function sheetRow(row) {
  const cells = row.changes.map((change, i) => el("td", {title: row.names[i]},
    el("span", {class: "change"}, signed(change)),
    row.penalties[i] ? el("span", {class: "penalty"},
      tr("penalty {points}", {points: signed(row.penalties[i])})) : null,
    el("span", {class: "total"}, `${row.totals[i]}`)));
  const check = row.zero_sum.ok ? el("td", {class: "ok"}, "✓")
    : el("td", {class: "bad"}, row.zero_sum.problems.join("; "));
  let state;
  if (row.changed_since_confirmed) {
    state = el("span", {class: "changed"}, tr("changed since confirmed"));
  } else if (row.confirmed) {
    state = el("span", {class: "confirmed"}, tr("confirmed"));
  }
  const confirm = PUBLIC || (row.confirmed && !row.changed_since_confirmed) ? null
    : el("button", {class: "confirm-row", "data-hand": row.number,
      onclick: (event) => sheetAct(event, "confirm_score", {hand: row.number})},
    tr("Confirm hand {n}", {n: row.number}));
  return el("tr", {"data-hand": row.number, class: row.confirmed ? "confirmed" : null},
    el("td", {}, `${row.number}`), ...cells, check, el("td", {}, state, confirm));
}

function signed(n) {
  return n > 0 ? `+${n}` : `${n}`;
}

function playerName(sheet, person) {
  const p = sheet.players && sheet.players[person];
  return `P${person + 1}` + (p ? ` ${p.name}` : "");
}

// The time of day a signature was made, in the table's local time (issue 33), not UTC.
function at(s) {
  const when = s.wall_time ? new Date(s.wall_time) : null;
  if (!when || Number.isNaN(when.getTime())) return "";
  return tr(" at {time}", {time: when.toLocaleTimeString(LANG === "zh" ? "zh-Hant" : "en-GB",
    {hour: "2-digit", minute: "2-digit"})});
}

function signedList(sheet) {
  const lines = sheet.signatures.map((s) => tr("Signed by referee {name} up to hand {n}{at}",
    {name: s.referee, n: s.hand, at: at(s)}));
  lines.push(...sheet.player_signatures.map((s) => [tr("{who} signed up to hand {n} ({via}){at}",
    {who: playerName(sheet, s.person), n: s.hand, via: tr(s.via), at: at(s)}),
  PUBLIC ? null : withdrawButton(sheet, s.person)]));
  return el("ul", {id: "sheet-signatures"},
    ...(lines.length ? lines : [tr("Not signed yet.")]).map((line) => el("li", {}, ...[line].flat())));
}

// A signature tapped for the wrong person, withdrawn with the referee's reason (issue 36).
function withdrawButton(sheet, person) {
  return el("button", {class: "withdraw-signature", "data-person": person, onclick: (event) => {
    const reason = (prompt(tr("Withdraw {who}'s signature: why? (the journal keeps the reason)",
      {who: playerName(sheet, person)})) || "").trim();
    if (reason) sheetAct(event, "withdraw_signature", {person, reason});
  }}, tr("Withdraw"));
}

// The public screen's call while the players are asked to sign: large, with who has signed.
function signCall(sheet) {
  const old = document.getElementById("sign-call");
  if (!sheet || sheet.asking === null) {
    if (old) old.remove();
    return;
  }
  const who = sheet.signed_now.map((person) => playerName(sheet, person)).join(", ");
  const call = el("div", {id: "sign-call", role: "status"},
    el("div", {class: "headline"}, tr("sign the score sheet: press your 和 button")),
    who ? el("div", {}, tr("Signed: {who}", {who})) : null,
    PUBLIC ? null : el("div", {class: "buttons"}, ...[0, 1, 2, 3].map((person) =>
      el("button", {class: "player-signs", "data-person": person,
        disabled: sheet.signed_now.includes(person),
        onclick: (event) => sheetAct(event, "player_signs", {person})},
      tr("{who} signs", {who: playerName(sheet, person)})))));
  if (old) old.replaceWith(call);
  else document.getElementById(PUBLIC ? "table" : "score-sheet").append(call);
}

// -- the referee's forms: built once, so a re-render never wipes what he is typing ---------

function buildSheetForms(section) {
  sheetBuilt = true;
  const players = el("form", {id: "sheet-players", onsubmit: (event) => {
    event.preventDefault();
    const rows = [0, 1, 2, 3].map((n) => ({
      name: document.getElementById(`player-name-${n}`).value.trim(),
      federation_id: document.getElementById(`player-id-${n}`).value.trim() || null,
    }));
    sheetAct(event, "players", {players: rows}).then((done) => {
      if (done.ok) delete players.dataset.dirty;
    });
  }, oninput: () => { players.dataset.dirty = "1"; }},
  el("h3", {"data-tr": "Players"}, tr("Players")),
  ...[0, 1, 2, 3].map((n) => el("div", {class: "player-row"}, el("span", {}, `P${n + 1}`),
    el("input", {id: `player-name-${n}`, type: "text", maxlength: 60, required: true}),
    el("input", {id: `player-id-${n}`, type: "text", maxlength: 32}))),
  el("button", {type: "submit", id: "save-players", "data-tr": "Save players"},
    tr("Save players")));
  const sign = el("form", {id: "sheet-sign", onsubmit: (event) => {
    event.preventDefault();
    const pin = document.getElementById("sign-pin");
    const name = document.getElementById("sign-name").value.trim();
    const body = {hand: Number(sign.dataset.hand), pin: pin.value};
    const open = (latest.sheet ? latest.sheet.rows : []).filter((r) => r.number <= body.hand
      && (!r.confirmed || r.changed_since_confirmed)).map((r) => r.number);
    if (open.length && !confirm(tr("Hands {hands} are not confirmed: sign up to hand {n} anyway?",
      {hands: open.join(", "), n: body.hand}))) return;  // issue 33: asks first
    if (name) body.referee = name;
    pin.value = "";  // the PIN is not kept on the page
    sheetAct(event, "sign_sheet", body);
  }},
  el("input", {id: "sign-name", type: "text", maxlength: 60}),
  el("input", {id: "sign-pin", type: "password", inputmode: "numeric", autocomplete: "off",
    required: true}),
  el("button", {type: "submit", id: "sign"}, ""));
  const ask = el("button", {id: "ask-signatures", type: "button",
    onclick: (event) => sheetAct(event, "ask_signatures", {hand: Number(sign.dataset.hand)})},
  tr("Ask the players to sign"));
  ask.dataset.tr = "Ask the players to sign";
  document.getElementById("players-panel").append(el("div", {class: "sheet-forms"}, players,
    el("p", {class: "sheet-answer", role: "status"})));  // the Players tab (tabs.js)
  section.append(el("div", {class: "sheet-forms"}, sign, ask,
    el("p", {class: "sheet-answer", role: "status"})));
}

function updateSheetForms(sheet) {
  const placeholders = {"sign-name": "referee's name (when none is enrolled)",
    "sign-pin": "your PIN again"};
  for (const n of [0, 1, 2, 3]) {
    placeholders[`player-name-${n}`] = "name";
    placeholders[`player-id-${n}`] = "federation id";
  }
  for (const [id, text] of Object.entries(placeholders)) {
    const input = document.getElementById(id);
    input.placeholder = tr(text);
    input.setAttribute("aria-label", id.startsWith("player") ? `P${Number(id.slice(-1)) + 1} `
      + tr(text) : tr(text));
  }
  const players = document.getElementById("sheet-players");
  if (sheet.players && !players.dataset.dirty && !players.contains(document.activeElement)) {
    sheet.players.forEach((p, n) => {
      document.getElementById(`player-name-${n}`).value = p.name;
      document.getElementById(`player-id-${n}`).value = p.federation_id || "";
    });
  }
  const last = sheet.rows.length ? sheet.rows[sheet.rows.length - 1].number : null;
  const sign = document.getElementById("sheet-sign");
  sign.hidden = last === null;
  document.getElementById("ask-signatures").hidden = last === null || sheet.asking !== null;
  if (last !== null) {
    sign.dataset.hand = last;
    document.getElementById("sign").textContent = tr("Sign the sheet up to hand {n}", {n: last});
  }
}

// An action of the sheet, its answer shown beside the forms where it was pressed.
async function sheetAct(event, action, body) {
  const done = await act(action, body);
  const panel = event.target.closest(".tab-panel");
  const answer = panel && panel.querySelector(".sheet-answer");
  if (answer && done) {
    answer.textContent = done.text;
    answer.classList.toggle("bad", !done.ok);
  }
  return done || {ok: false};
}
