"use strict";
// Correcting the tracking by tapping (issue 16), on the referee's page only: in the mode, the
// referee taps a tile on the table (a hand, a river, a meld, the flowers), a menu offers every
// zone where it may really lie, in words, and the choice sends the desk's `correct` action
// {tile, zone}. A zone is an area of one *side* of the table (engine/seats.py ZONES); the menu
// names it by the seat sitting there, as the table's picture does. No tile number is shown.

const AREAS = ["hand", "river", "melds", "wall"];
const TAPPABLE = ".seat .hand .tile[data-id], .seat .exposed .tile[data-id], " +
  ".seat .river .tile[data-id]";

words({  // i18n.js
  "Correct the tracking": "更正追蹤", "Stop correcting": "停止更正",
  "Tap the tile on the table, then choose where it really is (Escape cancels).":
    "點選桌上的牌，再選它實際所在的位置（Esc 取消）。",
  "the wall before {who}": "{who}家面前的牌牆", "{who}'s hand": "{who}家手牌",
  "{who}'s river": "{who}家河牌", "{who}'s melds": "{who}家副露", "{who}'s flowers": "{who}家花牌",
  "{tile} is now in {zone}": "{tile} 現在位於{zone}", "where the tile really is": "牌實際所在的位置",
  " now in {zone}. Where is it really?": " 現在位於{zone}。它實際在哪裡？", "Cancel": "取消",
});

let correcting = false;

// The button of the mode and the hint under it, for the referee's controls (display.js).
function correctionMode() {
  return el("div", {class: "buttons correction"},
    el("button", {id: "correct-mode", "aria-pressed": "false", onclick: () => setCorrecting(
      !correcting)}, tr("Correct the tracking")),
    el("span", {id: "correct-hint", hidden: true},
      tr("Tap the tile on the table, then choose where it really is (Escape cancels).")));
}

function setCorrecting(on) {
  correcting = on;
  document.body.classList.toggle("correcting", on);
  const button = document.getElementById("correct-mode");
  button.setAttribute("aria-pressed", String(on));
  button.textContent = tr(on ? "Stop correcting" : "Correct the tracking");
  document.getElementById("correct-hint").hidden = !on;
  if (!on) closeCorrection();
}

function closeCorrection() {
  const menu = document.getElementById("correct-menu");
  if (menu) menu.remove();
}

// Where a tile is drawn now, as the state document has it: its face and the seat and area.
function placed(id) {
  for (const seat of latest.seats) {
    const lists = {hand: seat.hand || [], river: seat.river, flowers: seat.flowers,
      melds: seat.melds.flatMap((m) => m.tiles)};
    for (const [area, list] of Object.entries(lists)) {
      const t = list.find((x) => !x.back && x.id === id);
      if (t) return {t, seat: seat.seat, area};
    }
  }
  return null;
}

function zoneWords(area, wind) {
  const who = LANG === "zh" ? WINDS[wind][0] : WINDS[wind][1];
  return tr(area === "wall" ? "the wall before {who}" : `{who}'s ${area}`, {who});
}

function openCorrection(id, anchor) {
  closeCorrection();
  const where = placed(id);
  if (!where) return;
  const answer = el("p", {class: "correct-answer", role: "status", style: "min-height: 1.4em"});
  const choose = async (area, seat) => {
    const zone = `${area}_${SEATS[seat.player]}`;  // the zone is on the seat's side
    answer.textContent = "…";
    const reply = await act("correct", {tile: id, zone});
    if (!reply) return;  // logged out: the login is shown
    const said = reply.ok ? tr("{tile} is now in {zone}",
      {tile: where.t.tile, zone: zoneWords(area, seat.seat)})
      : reply.text.replace(new RegExp(`\\btile ${id}\\b`, "g"), where.t.tile);
    answer.textContent = said;
    answer.classList.toggle("bad", !reply.ok);
    notice(said, !reply.ok);  // the desk's own words may name the tile by its number
  };
  const box = anchor.getBoundingClientRect();
  const menu = el("div", {id: "correct-menu", role: "dialog",
    "aria-label": tr("where the tile really is"), style: "position: fixed; z-index: 50; " +
      "background: #10202c; color: #f3f3f3; border: 2px solid #4d8fe8; border-radius: 8px; " +
      "padding: 8px; max-width: 420px; max-height: calc(100vh - 16px); overflow: auto; " +
      "box-shadow: 0 4px 16px #0006;"},
  el("div", {class: "correct-tile"}, tile({tile: where.t.tile, zh: where.t.zh}, "small"),
    tr(" now in {zone}. Where is it really?", {zone: zoneWords(where.area, where.seat)})),
  answer,
  latest.seats.map((seat) => el("div", {class: "correct-seat buttons"},
    AREAS.map((area) => el("button", {type: "button", "data-zone": area,
      "data-seat": seat.seat, onclick: () => choose(area, seat)}, zoneWords(area, seat.seat))))),
  el("button", {type: "button", class: "correct-cancel", onclick: closeCorrection}, tr("Cancel")));
  document.body.append(menu);
  const left = Math.min(box.left, window.innerWidth - menu.offsetWidth - 8);
  const below = box.bottom + 6 + menu.offsetHeight <= window.innerHeight;
  menu.style.left = `${Math.max(8, left)}px`;
  menu.style.top = `${Math.max(8, below ? box.bottom + 6 : box.top - menu.offsetHeight - 6)}px`;
}

// Only the referee's page has the mode's button, so on the public one nothing sets `correcting`.
document.getElementById("table").addEventListener("click", (event) => {
  if (!correcting) return;
  const picked = event.target.closest(TAPPABLE);
  if (!picked) return;
  event.preventDefault();
  openCorrection(Number(picked.dataset.id), picked);
});
document.addEventListener("keydown", (event) => {
  if (event.key === "Escape" && correcting) setCorrecting(false);
});
