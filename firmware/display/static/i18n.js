"use strict";
// The page's two languages (issue 16): English is the text written in the scripts, Chinese
// comes from ZH, which each script fills with its own words (`words`). The browser remembers
// the choice; a text ZH lacks stays English, so a missing word shows, never a blank.

const LANG_KEY = "mjtable.language";
const ZH = {};
let LANG = localStorage.getItem(LANG_KEY) === "zh" ? "zh" : "en";

// One word for a hand and one for a game per rule book (issue 33): the Chinese is written with
// CCM's (seed 004: 局 a game, 盤 a hand); WSOM's Chinese book (seed 000) says 局 for a hand and
// has no games, so its pages say 局 where the text says 盤. display.js sets the rule book.
let HAND_WORD = "盤";

function setRuleBook(ruleset) {
  HAND_WORD = String(ruleset).startsWith("ccm") ? "盤" : "局";
}

// `text` in the page's language, its {name} places filled from `vars`.
function tr(text, vars = {}) {
  let template = text;
  if (LANG === "zh" && ZH[text] !== undefined) template = ZH[text].replaceAll("盤", HAND_WORD);
  return template.replace(/\{(\w+)\}/g, (whole, name) => (name in vars ? vars[name] : whole));
}

// The seat a referee typed: E, S, W or N, or 東, 南, 西 or 北 (issue 33); -1 for neither.
function seatTyped(text) {
  const typed = (text || "").trim().toUpperCase().replace(/家$/, "");
  const at = "ESWN".indexOf(typed);
  return typed.length === 1 && at >= 0 ? at : "東南西北".indexOf(typed);
}

// A script's own translations, English text to Chinese.
function words(table) {
  Object.assign(ZH, table);
}

// The page's fixed labels: each element marked data-tr keeps its English there.
function translateStatic() {
  document.documentElement.lang = LANG === "zh" ? "zh-Hant" : "en";
  for (const node of document.querySelectorAll("[data-tr]")) {
    if (!node.dataset.tr) node.dataset.tr = node.textContent.trim();
    node.textContent = tr(node.dataset.tr);
  }
  const toggle = document.getElementById("language");
  if (toggle) {  // the other language's name, in that language
    toggle.textContent = LANG === "zh" ? "English" : "中文";
    toggle.lang = LANG === "zh" ? "en" : "zh-Hant";
  }
}

// Switch, remember, and draw again what is on screen (display.js `redraw`).
function setLanguage(lang) {
  LANG = lang === "zh" ? "zh" : "en";
  localStorage.setItem(LANG_KEY, LANG);
  translateStatic();
  if (typeof redraw === "function") redraw();
}
