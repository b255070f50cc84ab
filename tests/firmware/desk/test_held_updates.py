"""Issue 32 item 4: flat memory with the display served. What the desk's open pages hold
(each page's queue of a hundred updates, the views' backlogs, the broadcast's delay) is
bounded in updates, and an update may carry the score sheet, which grows a row a hand: the
held updates hold each row once, so a finished hand leaves one row behind, not one in every
update held, and rows with the same names and check share them; and an update carries the
sheet only when a page lacks it."""

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
        first, second = _rows(held[-1])  # same seating, both zero-sum: held once for both
        assert second["names"] is first["names"] and second["zero_sum"] is first["zero_sum"]
        assert all("sheet" not in document for document in broadcast)  # the public parts only


def _rows(document: dict) -> list[dict]:
    return document["sheet"]["rows"] if document.get("sheet") else []


def test_issue_32_item_4_an_update_carries_the_sheet_only_when_the_page_lacks_it(tmp_path):
    """The sheet, a row a hand, is sent when it changed, not in every update (at hand 1000 it
    was 280 KB of each update's text); a page keeps the one it has. A page whose queue
    overflowed may have lost the update that carried it: every update put after a drop
    carries it again, so each page ends with the sheet as it stands."""
    with Journal(tmp_path / "j.sqlite") as journal:
        table = DeskedTable(journal, Clock())
        desk = table.desk
        reading, lagging = desk.subscribe(True), desk.subscribe(False)
        read: list[dict] = []
        table.service.commands.subscribe(
            lambda events: read.extend(reading.get_nowait() for _ in range(reading.qsize()))
        )
        for tile_set in "AB":
            table.new_hand(tile_set)
            table.play_out()
        now = desk.snapshot(False)["sheet"]
        assert len(now["rows"]) == HANDS
        carried = [update["state"]["sheet"] for update in read if "sheet" in update["state"]]
        assert carried[-1] == now and len(read) > 10 * len(carried)
        behind = [lagging.get_nowait()["state"] for _ in range(lagging.qsize())]
        assert len(behind) == lagging.maxsize and all("sheet" in state for state in behind)
        assert behind[-1]["sheet"] == now
