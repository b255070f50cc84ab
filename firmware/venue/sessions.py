"""A table's journal sessions as the venue keeps them (venue_board.py): the seqs seen as runs,
so that a duplicate is dropped and a gap counted in bounded memory, the latest rows, the
latest signed sheet and the latest score sheet published.
"""

import bisect

ROWS_KEPT = 200  # per session: the drill-down shows the latest; the sheet is kept apart
RUNS_KEPT = 10_000  # runs of seqs per session; beyond, the oldest run is forgotten


class SeqRuns:
    """The seqs seen of one session as runs [first, last]: rows in order keep one run."""

    def __init__(self):
        self.runs: list[list[int]] = []

    def add(self, seq: int) -> bool:
        """False when `seq` was seen before."""
        runs = self.runs
        i = bisect.bisect_right(runs, seq, key=lambda run: run[0]) - 1
        if i >= 0 and seq <= runs[i][1]:
            return False
        joins_left = i >= 0 and runs[i][1] == seq - 1
        joins_right = i + 1 < len(runs) and runs[i + 1][0] == seq + 1
        if joins_left and joins_right:
            runs[i][1] = runs.pop(i + 1)[1]
        elif joins_left:
            runs[i][1] = seq
        elif joins_right:
            runs[i + 1][0] = seq
        else:
            runs.insert(i + 1, [seq, seq])
            if len(runs) > RUNS_KEPT:
                runs.pop(0)
        return True

    def gaps(self, latest: int = 0) -> list[tuple[int, int]]:
        """The seqs not seen from the session's first row (seq 1) to `latest` (the table's
        latest, as its state says) or the last seen, as (after, until) ranges: the rows the
        venue asks the table for again."""
        gaps, after = [], 0
        for first, last in self.runs:
            if first > after + 1:
                gaps.append((after, first - 1))
            after = last
        if latest > after:
            gaps.append((after, latest))
        return gaps

    @property
    def missing(self) -> int:
        """Seqs not seen between the first and the last seen: the gaps."""
        if not self.runs:
            return 0
        seen = sum(last - first + 1 for first, last in self.runs)
        return self.runs[-1][1] - self.runs[0][0] + 1 - seen


class SessionLog:
    """One journal session of a table: its seqs, its latest rows, its latest signed sheet,
    the latest score sheet it published (`score_sheet`: {"seq", "sheet"})."""

    def __init__(self):
        self.seqs = SeqRuns()
        self.rows: list[dict] = []  # {"seq", "kind", "event"}, by seq
        self.sheet: dict | None = None
        self.score_sheet: dict | None = None

    def add(self, row: dict) -> None:
        bisect.insort(self.rows, row, key=lambda r: r["seq"])
        if len(self.rows) > ROWS_KEPT:
            del self.rows[0]
        event = row["event"]
        if row["kind"] == "device" and event.get("type") == "SheetSigned":
            hand = event.get("hand")
            if not isinstance(hand, int) or isinstance(hand, bool):
                return
            if self.sheet is None or hand >= self.sheet["hand"]:
                rows, referee = event.get("rows"), event.get("referee")
                self.sheet = {
                    "seq": row["seq"],
                    "hand": hand,
                    "referee": referee if isinstance(referee, str) else None,
                    "rows": rows if isinstance(rows, list) else [],
                }
