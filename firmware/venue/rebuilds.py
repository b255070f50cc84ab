"""The venue counts, per table, the walls sealed and never raised and the hands voided (issue 35):
a modified table could seal several walls and deal the one that suits it (seal shopping), or
void the hands that went against its owner's player.

What a fair table does: it seals the walls it accepted, one set for each hand (the next set is
sealed while a hand is played, firmware/table/walls.py), so within a session every seal but
the last reaches a hand; a set is left unraised only when the table restarts (a power cut)
with walls built, and a hand is voided only by the referee's word or a restart mid-hand. The
project's fault campaign (README: 40 runs of 80 hands, run twice) and power-cut campaign
voided none.
So a fair table's count in a session is 0, or 1 or 2 after an incident the referee saw;
UNUSUAL is 3, two incidents' grace, which seal shopping between only two walls a hand reaches
by its third hand. The count is shown for every table; the alarm is raised once a session.
"""

from dataclasses import dataclass

UNUSUAL = 3  # walls unraised and hands voided in one session: see the docstring


@dataclass
class TableCount:
    session: str = ""
    sealed: int = 0  # walls sealed this session
    hands: int = 0  # hands dealt this session
    unraised: int = 0  # walls sealed and followed by another seal before a hand
    voided: int = 0
    waiting: bool = False  # a seal not raised yet
    alarmed: bool = False

    def summary(self) -> dict:
        return {
            "session": self.session,
            "walls_sealed": self.sealed,
            "hands": self.hands,
            "walls_not_raised": self.unraised,
            "hands_voided": self.voided,
            "unusual": self.unraised + self.voided >= UNUSUAL,
        }


class Rebuilds:
    """Every table's count of its current session, fed the rows the board takes (`row`)."""

    def __init__(self):
        self.tables: dict[str, TableCount] = {}

    def summary(self) -> dict:
        return {name: count.summary() for name, count in self.tables.items()}

    def row(self, table: str, session: str, row: dict) -> str | None:
        """One journal row of `table`: the alarm's text when its count becomes unusual."""
        count = self.tables.get(table)
        if count is None or count.session != session:
            count = self.tables[table] = TableCount(session)
        kind, event = row["kind"], row["event"]
        if kind == "hand":
            count.hands += 1
            count.waiting = False
        elif event.get("type") == "WallSealed":
            count.sealed += 1
            count.unraised += count.waiting
            count.waiting = True
        elif event.get("type") == "HandVoided":
            count.voided += 1
        else:
            return None
        if count.alarmed or count.unraised + count.voided < UNUSUAL:
            return None
        count.alarmed = True
        return (
            f"table {table}: {count.unraised} walls sealed and never raised and "
            f"{count.voided} hands voided in {count.hands} hands of this session; a fair table "
            f"has none but after a power cut or a referee's void (alarm at {UNUSUAL}): "
            "ask the table's referee why, and keep its journal"
        )
