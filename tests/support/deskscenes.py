"""The desk's scenes for the tests of issue 33: a WSOM hand with its alerts, two faults and a
sheet of eight hands with the players named (`source_for`), a CCM hand won with an alert
awaiting a ruling and a fault seen (`ccm_won`), a hand taken up after a power cut
(`taken_up`), and the side column's tabs."""

from firmware.table.resume import Displaced, Interruption
from tests.support.displaykit import FakeSource
from tests.support.scenes import ccm_win, view_of, view_of_win, wsom_scene

TABS = ["alerts", "penalties", "faults", "sheet", "history", "players", "tools"]
PUBLIC_TABS = ["alerts", "faults", "sheet", "history"]
NAMES = ["Alice Smith", "陳大文", "Bartholomew K.", "佐藤"]

ALERT = {
    "id": 7,
    "t": 1.0,
    "seat": 1,
    "rule": "seed 004 RULES.md 4.6",
    "message": "South named the discard 5s aloud",
    "needs_ruling": True,
    "awaits_ruling": True,
    "state": "open",
    "penalty": {
        "seat": 1,
        "offence": "naming_discard",
        "points": 10,
        "paid_to_others": True,
        "effect": None,
        "penalty_tiles": [],
        "confirm": True,
        "rule": "RULES.md 4.6",
    },
}
FAULT = {
    "id": 3,
    "t": 2.0,
    "device": "shuffler",
    "kind": "jam",
    "message": "the North lane jammed",
    "advice": "clear the lane",
    "cleared": False,
    "seen": True,
}


def sheet(rows: int) -> dict:
    """A sheet of `rows` hands with four-figure totals and penalties, the players named."""
    totals = [0, 0, 0, 0]
    made = []
    for number in range(1, rows + 1):
        changes = [-1200 * number, 400 * number, 400 * number, 400 * number]
        totals = [t + c for t, c in zip(totals, changes, strict=True)]
        made.append(
            {
                "number": number,
                "names": NAMES,
                "changes": changes,
                "penalties": [-30, 10, 10, 10] if number % 2 else [0, 0, 0, 0],
                "totals": list(totals),
                "zero_sum": {"ok": True, "problems": []},
                "confirmed": number < rows,
                "changed_since_confirmed": False,
            }
        )
    players = [{"name": n, "federation_id": None} for n in NAMES]
    return {
        "rows": made,
        "players": players,
        "signatures": [],
        "player_signatures": [],
        "asking": None,
        "signed_now": [],
    }


def source_for(wsom) -> FakeSource:
    view = view_of(wsom_scene(wsom))
    view.sheet = sheet(8)
    view.faults.append(
        dict(
            view.faults[0],
            id=2,
            device="shuffler",
            kind="jam",
            message="lane 2 stalled",
            advice="clear the lane",
        )
    )
    return FakeSource(view)


def ccm_won(ccm) -> FakeSource:
    """A CCM hand won, its result over the table, an alert awaiting a ruling, a fault seen."""
    view = view_of_win(*ccm_win(ccm))
    view.alerts, view.faults = [ALERT], [FAULT]
    return FakeSource(view)


def taken_up(source: FakeSource) -> FakeSource:
    """Its hand taken up after a power cut of 2 min 11 s (firmware/table/resume.py), two tiles
    away from where the hand has them: one not seen, one seen in two zones."""
    cut = Interruption(cut=1_760_000_000.0, back=1_760_000_131.0, t=50.0, hand=3)
    away = [Displaced(12, "hand_S", ()), Displaced(40, "river_E", ("melds_W", "wall_N"))]
    source.view.interruption = cut.to_json() | {"displaced": [d.to_json() for d in away]}
    return source
