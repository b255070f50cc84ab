"""The fault board (firmware/table/faults.py) over a long day: the journal holds every record, the
board only the open faults and the latest records."""

from firmware.table.faults import RECENT, FaultBoard


class Journal:
    def __init__(self) -> None:
        self.rows: list = []

    def record(self, record) -> None:
        self.rows.append(record)


def test_the_board_keeps_the_open_faults_and_the_latest_records_not_the_days():
    """Issue 20 item 11: a reader offline since the morning stays open and is cleared after
    thousands of calls for the referee have scrolled it out of the latest records; every
    record is journaled, ids go on counting, and the faults told are counted by kind."""
    journal, told = Journal(), []
    board = FaultBoard(journal, lambda line: None, told.extend)
    board.report(0.0, "zone reader", "offline", "the reader is offline", "check the cable")
    calls = 30 * RECENT
    for n in range(calls):
        board.report(1.0 + n, "table", "referee", "E calls the referee", "go", transient=True)
    board.clear(99999.0, "zone reader", "offline")
    assert len(board.recent) == RECENT and not board.open
    assert board.recent[-1].cleared and board.recent[-1].id == 1
    assert [f.id for f in board.recent][-3:] == [calls, calls + 1, 1]
    assert board.records == calls + 2 and journal.rows == told and len(told) == calls + 2
    assert board.kinds == {"offline": 1, "referee": calls}
