"use strict";
// The hall's big screen: every table's public state, the standings once released.
const grid = new Grid(document.getElementById("grid"), (table) => publicTile(table));
function start() {
  follow("/api/board/stream", (doc) => {
    grid.update(doc.tables, doc.full);
    document.body.classList.toggle("released", doc.released);
    if (doc.standings) {
      document.getElementById("standings").replaceChildren(standingsTable(doc.standings, 60));
    }
  }, start);
}
start();
