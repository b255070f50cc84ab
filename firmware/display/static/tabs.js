"use strict";
// The side column in parts (issue 33): alerts and rulings first, then penalties, faults, the
// sheet, the history, the players, the tools, one at a time, each in type legible from two
// metres; the sheet and the history take the whole screen (the table picture comes back for
// a replay). Each tab counts what awaits the referee in it.

let shownTab = "alerts";
const SMALL = matchMedia("(max-width: 900px)");  // display.css: a drawer over the table there

// Show the tab `name`; on a small screen its panel is a drawer over the table, which a tap on
// its tab opens and a second closes.
function showTab(name) {
  const open = !(SMALL.matches && name === shownTab
    && document.body.classList.contains("drawer-open"));
  document.body.classList.toggle("drawer-open", open);
  shownTab = name;
  for (const tab of document.querySelectorAll("#tabs [data-tab]")) {
    tab.setAttribute("aria-selected", String(tab.dataset.tab === name && open));
  }
  for (const panel of document.querySelectorAll("#side .tab-panel")) {
    panel.hidden = panel.dataset.tab !== name;
  }
  document.getElementById("display").dataset.tab = name;  // display.css: full screen
}

// The counts on the tabs: open alerts (urgent when one awaits a ruling), penalties in force,
// faults not yet cleared.
function renderTabs(state) {
  const count = (tab, n, urgent = false) => {
    const node = document.querySelector(`#tab-${tab} .count`);
    node.textContent = n ? String(n) : "";
    node.parentNode.classList.toggle("urgent", urgent);
  };
  const open = state.alerts.filter((a) => a.state === "open");
  count("alerts", open.length, state.alerts.some((a) => a.awaits_ruling));
  count("penalties", document.querySelectorAll("#penalties > li:not(.revoked)").length);
  count("faults", state.faults.filter((f) => !f.cleared).length,
    state.faults.some((f) => !f.cleared && !f.seen));
}

for (const tab of document.querySelectorAll("#tabs [data-tab]")) {
  tab.type = "button";
  tab.addEventListener("click", () => showTab(tab.dataset.tab));
  if (PUBLIC && tab.classList.contains("referee-only")) tab.hidden = true;
}
showTab(shownTab);
if (SMALL.matches) showTab(shownTab);  // closed: the table first
