"use strict";
// The banner of a hand taken up after a power cut (firmware/table/resume.py): since when and
// how long; for the referee the tiles that lie away from where the hand has them, until they
// are put back or corrected. Worded here from the server's fields, so that the Chinese view
// is wholly Chinese (issue 33): the cut's time of day in local time, the zones in words.

// A zone ("hand_S": an area on a side of the table) named by the seat sitting on that side,
// as the correction menu names it (correct.js zoneWords).
function sideZone(name) {
  const [area, side] = name.split("_");
  return zoneWords(area, latest.seats.find((s) => SEATS[s.player] === side).seat);
}

// "hand 3 resumed after an interruption at 14:32:05 (2 min 11 s)"
function cutHeadline(cut) {
  const minutes = Math.floor(cut.seconds / 60), seconds = cut.seconds % 60;
  const took = minutes ? tr("{m} min {s} s", {m: minutes, s: seconds}) : tr("{s} s", {s: seconds});
  const at = new Date(cut.cut * 1000).toLocaleTimeString(LANG === "zh" ? "zh-Hant" : "en-GB",
    {hour: "2-digit", minute: "2-digit", second: "2-digit", hour12: false});
  return tr("hand {n} resumed after an interruption at {at} ({took})",
    {n: cut.hand, at, took});
}

function renderInterruption(cut) {
  const banner = document.getElementById("interruption");
  banner.hidden = !cut;
  if (!cut) return;
  const rows = PUBLIC
    ? (cut.out_of_place ? [el("li", {}, tr("{n} tile(s) to put back", {n: cut.out_of_place}))]
      : [])
    : cut.displaced.map((d) => el("li", {class: "displaced"},
        tr(d.seen.length ? "{face}: the hand has it in {expected}; the readers see it in {seen}"
          : "{face}: the hand has it in {expected}; the readers do not see it",
        {face: d.face, expected: sideZone(d.expected),
          seen: d.seen.map(sideZone).join(tr(", "))})));
  const advice = tr(rows.length ? "put these tiles back, or correct the tracking"
    : "every tile lies where the hand has it: the referee resumes the clocks");
  fill("interruption", el("button", {class: "fold", type: "button", "aria-label": tr("fold"),
    onclick: () => banner.classList.toggle("folded")}, "▾"),  // issue 33: off the South seat
  el("div", {class: "headline"}, cutHeadline(cut)), el("ul", {}, ...rows),
  el("div", {class: "advice"}, advice));
}
