"use strict";
// The hall's big screen: every table's public state, the standings once released: the first
// 64 of each rule book, in two columns read from the floor.
const STANDINGS_SHOWN = 64;
const grid = new Grid(document.getElementById("grid"), (table) => publicTile(table));
function start() {
  follow("/api/board/stream", (doc) => {
    grid.update(doc.tables, doc.full);
    document.body.classList.toggle("released", doc.released);
    if (doc.standings) {
      document.getElementById("standings")
        .replaceChildren(standingsTable(doc.standings, STANDINGS_SHOWN, 2));
    }
  }, start);
}
start();
