"""The session's hand history and each hand's step-by-step replay (issue 16 "Hand history"),
for disputes ("was the chow called before the pung?"), rebuilt from the journal.

The journal is opened read-only and replayed as `mjtable replay` does (firmware/journal/replay.py's
one loop, whose `watch` sees each row): a step is one journaled row of the hand (its hand
row, each input, each device record), with its table time, what the engine made of it and the
table after it (the frame), as the display's documents draw a table (firmware/display/state.py).
A RefereeActed record says who did the step before it: it is joined to that step as `by`.

The public view has the finished hands only (won, drawn, voided), never the hand in play; in
its frames the concealed tiles of every seat that did not win are backs, its concealed kongs
faceless, and its events pass through public_event (no drawn tile's face); the wall's order
is in no document. The hand won is no longer concealed (state.py): the winner's tiles show.
"""

from engine import events as ev
from engine import tiles
from engine.events import BACK
from engine.seats import LETTERS as SEATS
from engine.table import WINDOWS, Table
from firmware.audit.sheet import entered_players, settled
from firmware.display.state import penalty_points
from firmware.journal.chain import Row
from firmware.journal.replay import Played, replay
from firmware.journal.store import Journal
from firmware.texts.faces import meld_json, tile_json
from firmware.texts.public import public_event

FORMAT = "mjtable hand history 1"


class UnknownHand(LookupError):
    """No such hand in this view's history (the message says which and why)."""


def result_of(played: Played) -> tuple[str, list[str]]:
    """The hand's result (won, drawn, voided, in_play) and its winners' seats."""
    won = [o.seat for o in played.outputs if isinstance(o, ev.Won)]
    winners = [SEATS[seat] for seat in won if seat is not None]
    if played.voided:
        return "voided", []
    if winners:
        return "won", winners
    return ("drawn", []) if played.table.ended else ("in_play", [])


def hands(path, referee: bool) -> dict:
    """The session's hands in order: number, result, winners, table times of its start and
    end, number of steps; the public's only those finished."""
    counts: dict[int, int] = {}

    def watch(row: Row, played: Played | None, outputs: list) -> None:
        if played is not None and not _acted(row):
            counts[id(played)] = counts.get(id(played), 0) + 1

    with Journal(path, readonly=True) as journal, journal.snapshot():
        result = replay(journal, watch)
    listed = [_entry(p, counts.get(id(p), 0)) for p in result.played]
    return {
        "history": FORMAT,
        "view": "referee" if referee else "public",
        "hands": [h for h in listed if referee or h["result"] != "in_play"],
    }


def steps(path, number: int, referee: bool) -> dict:
    """Hand `number`'s replay, one step per journaled row; UnknownHand if the view has no
    such hand (the public's: not before it has ended)."""
    raw: list[tuple[Row, list]] = []  # each row of the hand and its outputs
    frames: list[dict | None] = []
    target: list[Played] = []
    shown = _Shown()

    def watch(row: Row, played: Played | None, outputs: list) -> None:
        if played is None or played.number != number:
            return
        if not target:
            target.append(played)
        if played is not target[0]:
            return
        raw.append((row, [o.to_json() for o in outputs]))
        # a record changes nothing on the table: its frame is the step's before (None)
        frames.append(None if row.kind == "device" else shown.table(played.table))

    with Journal(path, readonly=True) as journal, journal.snapshot():
        result = replay(journal, watch)
        rows = list(journal.rows())
    if not target:
        raise UnknownHand(f"no hand {number} in this session's journal")
    played = target[0]
    entry = _entry(played, 0)
    if not referee and entry["result"] == "in_play":
        raise UnknownHand(f"hand {number} is in play: its replay opens once it has ended")
    _, by_hand = settled(result, rows)
    hand = next(h for h in by_hand if h.played is played)
    entered = entered_players([r.event() for r in rows if r.kind == "device"])
    # names as the live view has them: the desk's or the venue's, else none (P1..P4 then)
    names = None if entered is None else [p["name"] for p in entered]
    seating = hand.seating or list(range(4))
    open_seats = range(4) if referee else [SEATS.index(s) for s in entry["winners"]]
    out_steps: list[dict] = []
    for (row, outputs), frame in zip(raw, frames, strict=True):
        data = row.data()
        if _acted(row):
            if out_steps:  # who did the step before, and when by the clock on the wall
                out_steps[-1]["by"] = {k: data[k] for k in ("action", "referee", "wall_time")}
            continue
        event = None if row.kind == "hand" else row.event().to_json()  # upgraded, as read
        out_steps.append(
            {
                "step": len(out_steps),
                "t": data.get("t"),
                "kind": row.kind,
                "event": event if referee or event is None else public_event(event),
                "outputs": outputs if referee else [public_event(o) for o in outputs],
                "by": None,
                "frame": None
                if frame is None
                else _frame(frame, set(open_seats), hand.dealer, hand.scores, seating, names),
            }
        )
    entry["steps"] = len(out_steps)
    return {
        "history": FORMAT,
        "view": "referee" if referee else "public",
        "hand": entry,
        "steps": out_steps,
    }


class _Shown:
    """The table as it lies after a step, copied before the next input changes it: per seat
    its tiles' ids, and the state a frame tells."""

    def table(self, table: Table) -> dict:
        wall = table.wall
        return {
            "state": table.state,
            "turn": None if table.ended else table.turn,
            "calls": [{"seat": SEATS[s], "claim": c.claim} for s, c in sorted(table.calls.items())]
            if table.state in WINDOWS
            else [],
            "wall": None
            if wall is None
            else {"live": wall.live_count, "dead": len(wall.dead_wall_tiles)},
            "hands": [sorted(h, key=tiles.kind_of) for h in table.hands],
            "melds": [list(m) for m in table.melds],
            "flowers": [list(f) for f in table.flowers],
            "rivers": [list(r) for r in table.rivers],
            "penalty_tiles": [dict(p) for p in table.referee.penalty_tiles],
            "penalty_points": [penalty_points(table, seat) for seat in range(4)],
        }


def _frame(lie: dict, open_seats: set, dealer: int, scores, seating, names) -> dict:
    """A step's frame in the state document's shape (state.py `_seat`, clocks none), the
    tiles of the seats not in `open_seats` seen from the back."""
    seats = []
    for seat in range(4):
        player = (dealer + seat) % 4
        held = lie["penalty_tiles"][seat]
        penalty = [dict(tile_json(t), state=state) for t, state in held.items()]
        shown = seat in open_seats
        hand = [tile_json(t) for t in lie["hands"][seat]]
        if not shown:
            hand = [BACK] * (len(hand) - len(penalty)) + penalty
        seats.append(
            {
                "seat": SEATS[seat],
                "player": player,
                "person": seating[player],
                "name": names[seating[player]] if names else None,
                "score": scores[player],
                "penalty_points": lie["penalty_points"][seat],
                "hand": hand,
                "hand_count": len(hand),
                "melds": [meld_json(m, shown) for m in lie["melds"][seat]],
                "flowers": [tile_json(t) for t in lie["flowers"][seat]],
                "river": [tile_json(t) for t in lie["rivers"][seat]],
                "penalty_tiles": penalty,
                "clock_turn": None,
                "clock_hand": None,
            }
        )
    turn = lie["turn"]
    return {
        "state": lie["state"],
        "turn": None if turn is None else SEATS[turn],
        "claim_window": lie["state"] in WINDOWS,
        "calls": lie["calls"],
        "wall": lie["wall"],
        "seats": seats,
    }


def _entry(played: Played, count: int) -> dict:
    result, winners = result_of(played)
    return {
        "number": played.number,
        "result": result,
        "winners": winners,
        "started": played.started,
        "ended": played.ended,
        "steps": count,
    }


def _acted(row: Row) -> bool:
    """A RefereeActed record: who did the step before it, not a step of its own."""
    return row.kind == "device" and row.data().get("type") == "RefereeActed"
