"use strict";
// The page's two languages (issue 16): English is the text written in the scripts, Chinese
// comes from ZH, which each script fills with its own words (`words`). The browser remembers
// the choice; a text ZH lacks stays English, so a missing word shows, never a blank.

const LANG_KEY = "mjtable.language";
const ZH = {};
let LANG = localStorage.getItem(LANG_KEY) === "zh" ? "zh" : "en";

// `text` in the page's language, its {name} places filled from `vars`.
function tr(text, vars = {}) {
  const template = LANG === "zh" && ZH[text] !== undefined ? ZH[text] : text;
  return template.replace(/\{(\w+)\}/g, (whole, name) => (name in vars ? vars[name] : whole));
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
  if (toggle) toggle.textContent = LANG === "zh" ? "English" : "中文";
}

// Switch, remember, and draw again what is on screen (display.js `redraw`).
function setLanguage(lang) {
  LANG = lang === "zh" ? "zh" : "en";
  localStorage.setItem(LANG_KEY, LANG);
  translateStatic();
  if (typeof redraw === "function") redraw();
}
