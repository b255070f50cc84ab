"""Issue 32 item 4: flat memory with the display served. What the desk's open pages hold
(each page's queue of a hundred updates, the views' backlogs, the broadcast's delay) is
bounded in updates, and each update carries the score sheet, which grows a row a hand: the
held updates hold each row once, so a finished hand leaves one row behind, not one in every
update held."""

from firmware.display.broadcast import DelayedFeed
from firmware.journal.store import Journal
from tests.support.deskkit import DeskedTable
from tests.support.servicekit import Clock

HANDS = 2  # the first hand's row is in every update held after it: once, or once each


def test_issue_32_item_4_the_updates_held_for_the_pages_hold_each_sheet_row_once(tmp_path):
    with Journal(tmp_path / "j.sqlite") as journal:
        table = DeskedTable(journal, Clock())
        desk = table.desk
        desk.broadcast = DelayedFeed(60.0, lambda: table.clock.t)  # holds all: time stands
        pages = [desk.subscribe(True), desk.subscribe(False)]
        for tile_set in "AB" * (HANDS // 2):
            table.new_hand(tile_set)
            table.play_out()
        held = [page.get_nowait()["state"] for page in pages for _ in range(page.qsize())]
        broadcast = [document for _, _, document in desk.broadcast._held]
        assert len(held) == 2 * pages[0].maxsize and broadcast  # the queues are full
        rows = {id(row) for document in held + broadcast for row in _rows(document)}
        assert len(table.service.status().session.sheet) == len(rows) == HANDS
        assert all("sheet" not in document for document in broadcast)  # the public parts only


def _rows(document: dict) -> list[dict]:
    return document["sheet"]["rows"] if document.get("sheet") else []
