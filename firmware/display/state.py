"""The state document of one table: everything the display page draws, built from what the
service holds. The public view is for players and spectators, so it carries no concealed
tile anywhere: not the hands, not a drawn tile, not a concealed kong's faces, not a penalty
proposed but not yet exposed, not in the event log (DESIGN.md firmware/display, issue 6), not
in the text of an alert or a fault (written for the public from public facts, issue 20), and
no seat's shanten or waits, which tell what a concealed hand holds (issue 18). A table that
stopped refereeing says so in both, and why (`not_refereeing`, issue 20 item 7). What the
venue sent (issue 15: the seating's names, its message, a referee on the way) is public, and
so is the sitting's time left with the head referee's notice (RULES.md 4.3; a CCM game's
clock and break instead, seed 004 第五條, firmware/table/game_clock.py), and the walls'
seals (issue 17): a digest tells nothing of the order before its reveal. A hand won is no longer
concealed: the result of the hand (firmware/display/result.py, issue 16) lays the winner's
hand out on both views, and no other seat's.

Seats are the winds of the hand ("E" deals); `player` is the seat a player drew for the
sitting (engine/session.py). Tiles are {"id", "tile", "zh"}: the physical id, the notation of
engine/tiles.py and its Chinese name; a tile seen from the back is {"back": true}.
"""

import math
from dataclasses import dataclass, field

from engine import events as ev
from engine import tiles
from engine.seats import LETTERS as SEATS
from engine.session import Session
from engine.stage import last_hand_seating, standings_of
from engine.table import WINDOWS, Table
from engine.waits import table_waits
from firmware.display.asked import chips_withheld, shown_answer, withhold_chips
from firmware.display.result import hand_result
from firmware.journal.failures import Stopped
from firmware.table.sitting import notice, seconds_left
from firmware.table.venue_notes import VenueNotes
from firmware.texts.faces import meld_json, tile_json
from firmware.texts.notices import (
    alert_text,
    both,
    fault_advice,
    fault_text,
    shuffler_fault,
    stopped,
)
from firmware.texts.public import alert_texts, fault_texts, public_event

# What the public view passes on of the service's records: nothing a record may add (a
# fault's tile, say) reaches a public screen unless it is named here.
ALERT_FIELDS = ("id", "t", "seat", "rule", "message", "needs_ruling", "penalty", "state")
FAULT_FIELDS = ("id", "t", "device", "kind", "message", "advice", "cleared")
SHUFFLER_FIELDS = ("state", "set_in_play", "set_ready", "counts", "fault")


@dataclass
class TableView:
    """What the service knows of its table at one moment (table time `now`)."""

    table_name: str
    session: Session
    table: Table | None  # None between hands
    now: float
    alerts: list[dict] = field(default_factory=list)  # id, t, seat, rule, message,
    #                            needs_ruling, penalty, state (open/applied/waived/acknowledged)
    faults: list[dict] = field(default_factory=list)  # id, t, device, kind, message, advice,
    #                                                    cleared
    log: list[dict] = field(default_factory=list)  # recent events' to_json(), newest last
    shuffler: dict = field(default_factory=dict)  # state, set_in_play, set_ready, counts,
    #                                                    fault
    dice: dict | None = None  # {"dice": [3, 4], "source": "electronic",
    #                                       "break": {"seat": "W", "stacks": 12}}
    waits: list[dict] | None = None  # waits_json(table) while a hand is in play: by seat,
    drawn_against: list[list] | None = None  # and what a tile drawn is checked against
    not_refereeing: Stopped | None = None  # why the table stopped refereeing
    interruption: dict | None = None  # a hand taken up after a power cut (Interruption.to_json)
    venue: VenueNotes = field(default_factory=VenueNotes)  # what the venue asked it to show
    seal: dict | None = None  # the walls' seals (firmware/table/walls.py seal_json): digests only
    game_clock: dict | None = None  # a timed game's (firmware/table/game_clock.py to_json): public
    sheet: dict | None = None  # the score sheet as it stands (firmware/desk/sheet.py): public
    voided: dict | None = None  # the hand voided, the next not dealt yet: "hand", "reason"
    key_fingerprint: str | None = None  # the device key's (issue 35): published on both views


def table_state(view: TableView, referee: bool) -> dict:
    """The document of the referee view (`referee`) or of the public view."""
    session, table = view.session, view.table
    wall = table.wall if table is not None else None
    # where the games have the time (CCM), the venue's minutes are each game's, not the sitting's
    left = seconds_left(view.venue, view.now) if view.game_clock is None else None
    document: dict = {
        "view": "referee" if referee else "public",
        "table": view.table_name,
        "ruleset": session.ruleset.name,
        "ruleset_title": session.ruleset.title,
        "penalties_allocatable": _allocatable(session.ruleset),  # seed 004 §38 一 6
        "t": view.now,
        "hand_number": session.hand_number,
        "round_wind": _round(session.passes),
        # the round the sheet's last hand was played in: the broadcast's winds with its result
        "last_hand_round": _round(session.passes_before) if session.sheet else None,
        "dealer": session.dealer,
        "state": table.state if table is not None else "between_hands",
        "turn": SEATS[table.turn] if table is not None and not table.ended else None,
        "clocks_paused": table is not None and table.clocks.paused_at is not None,
        "dice": view.dice,
        "wall": None
        if wall is None
        else {"live": wall.live_count, "dead": len(wall.dead_wall_tiles)},
        "seats": [_seat(view, seat, referee) for seat in range(4)],
        "last_hand": session.sheet[-1].to_json() if session.sheet else None,
        # issue 16, both views; a hand voided has none (the one before it is not shown again)
        "result": None if view.voided else hand_result(session, table, view.venue.players),
        "voided": view.voided,
        "sheet": view.sheet,  # issue 16 "The score sheet": public (no concealed tile on it)
        "last_hand_seating": last_hand_seating(session),  # its sides' people (seed 004 換位)
        "alerts": [alert_texts(a if referee else _public_alert(a)) for a in view.alerts],
        "faults": [fault_texts(f if referee else _public_fault(f)) for f in view.faults],
        "shuffler": view.shuffler if referee else _public_shuffler(view.shuffler),
        "log": view.log if referee else [public_event(e) for e in view.log],
        "not_refereeing": stopped(view.not_refereeing, referee),
        "interruption": _interruption(view.interruption, referee),
        "venue_message": view.venue.message,
        "referee_on_way": view.venue.referee_on_way,
        "session_seconds_left": left,
        "session_notice": notice(left),
        "seal": view.seal,
        "key_fingerprint": view.key_fingerprint,  # what `mjtable verify --key` is given
        "stage": standings_of(session, view.venue.players),  # seed 004 第十條: the standings
        "scores_asked": shown_answer(view.log, view.now),  # seed 004 三十三 問分's answer
        "game_clock": view.game_clock,  # seed 004 第五條: the game's time left, its break
    } | ({"win_check": win_check(table, view)} if referee else {})
    if referee or not chips_withheld(session, document["stage"]):
        return document
    withheld, asked = withhold_chips(document), document["scores_asked"]  # seed 004 三十三
    if asked is None:
        return withheld
    # the answer's window: the seats' chips with it, hidden by the page at its time (display.js)
    return withheld | {"seats": document["seats"], "chips_until": asked["until"]}


def _round(passes: int) -> str:
    """The round's wind after `passes` deals passed in the game: four make a round."""
    return SEATS[passes // 4 % 4]


def _interruption(interruption: dict | None, referee: bool) -> dict | None:
    """Since when the hand was cut and for how long; the referee sees which tiles lie away
    from where the hand has them (their faces: they may be concealed), the public how many."""
    if interruption is None:
        return None
    told = {k: interruption[k] for k in ("line", "hand", "cut", "seconds")}
    displaced = interruption["displaced"]
    if referee:
        return told | {"displaced": displaced}
    return told | {"out_of_place": len(displaced)}


def waits_json(table: Table, before: list[list] | None = None) -> tuple[list[dict], list[list]]:
    """Each seat's shanten and waits with their values (engine/waits.py), a wait's tile named
    with its Chinese name as the document's tiles are; and each seat's waits when it last held
    13 tiles, which a tile it draws is checked against (`before`: the last of this table)."""
    seats = [
        {
            "shanten": seat["shanten"],
            "waits": [dict(w, zh=tiles.CHINESE[tiles.tile(w["tile"])]) for w in seat["waits"]],
        }
        for seat in (s.to_json() for s in table_waits(table))
    ]
    held = [
        seat["waits"] if _size(table, i) == 13 else (before[i] if before else [])
        for i, seat in enumerate(seats)
    ]
    return seats, held


def _size(table: Table, seat: int) -> int:
    """The seat's tiles as a hand counts them: a kong as three, flowers not at all."""
    plain = sum(not tiles.is_flower(tiles.kind_of(t)) for t in table.hands[seat])
    return plain + 3 * len(table.melds[seat])


def win_check(table: Table | None, view: TableView) -> list[dict] | None:
    """Whether a win is legal and what it is worth, from the winner's waits, before he lays
    his hand out: for each win called on the open window (on the discard, or on the tile of
    a kong being robbed), and for the tile the seat to move has just drawn when it is one of
    the waits he held before the draw (a self-draw he may declare)."""
    if table is None or view.waits is None or view.drawn_against is None:
        return None
    if table.state in WINDOWS:
        seats = [seat for seat, call in sorted(table.calls.items()) if call.claim == "win"]
        robbed = table.added_kong if table.state == "rob_window" else None
        tile, by = (robbed[1] if robbed is not None else table.discards[-1][1]), "discard"
        against = [seat["waits"] for seat in view.waits]
    elif table.in_turn(table.turn) and table.last_draw != "claim":
        seats, tile, by = [table.turn], table.hands[table.turn][-1], "self_draw"
        against = view.drawn_against
    else:
        return None
    name = tiles.NAMES[tiles.kind_of(tile)]
    checks: list[dict] = []
    for seat in seats:
        wait = next((w for w in against[seat] if w["tile"] == name), None)
        if wait is None and by == "self_draw":
            continue  # not a winning tile: no win to check
        value = wait[by] if wait else {"legal": False, "total": None, "patterns": []}
        checks.append(
            {"seat": SEATS[seat], "tile": tile_json(tile), "by": by}
            | value
            | ({} if wait else {"reason": f"{name} does not complete this hand"})
        )
    return checks or None


def _seat(view: TableView, seat: int, referee: bool) -> dict:
    session, table = view.session, view.table
    player, players = session.player_at(seat), view.venue.players
    out: dict = {
        "seat": SEATS[seat],
        "player": player,
        "person": session.seating[player],  # who sits this side (seed 004 換位)
        "name": players[session.seating[player]]["name"] if players else None,  # the venue's
        "score": session.scores[player],
        "penalty_points": 0,
        "river": [],
        "melds": [],
        "flowers": [],
        "penalty_tiles": [],
        "hand_count": 0,
        "clock_turn": None,
        "clock_hand": None,
    }
    if table is not None:
        out["penalty_points"] = penalty_points(table, seat)
        held = table.referee.penalty_tiles[seat]
        out.update(
            river=[tile_json(t) for t in table.rivers[seat]],
            melds=[meld_json(meld, referee) for meld in table.melds[seat]],
            flowers=[tile_json(t) for t in table.flowers[seat]],
            penalty_tiles=[dict(tile_json(t), state=state) for t, state in held.items()],
            hand_count=len(table.hands[seat]),
        )
        out["clock_turn"], out["clock_hand"] = _clocks(table, seat, view.now)
    if referee:
        hand = table.hands[seat] if table is not None else []
        out["hand"] = [tile_json(t) for t in sorted(hand, key=tiles.kind_of)]
        waits = view.waits[seat] if view.waits is not None else {"shanten": None, "waits": []}
        out.update(waits)
    return out


def penalty_points(table, seat: int) -> int:
    """What the penalties applied in this hand change in the seat's score when it is settled
    (WSOM deducts from the offender, RULES.md 3.13; CCM's are paid to the three others)."""
    change = 0
    for penalty in table.referee.applied:
        if penalty.seat == seat:
            change -= penalty.points * (3 if penalty.paid_to_others else 1)
        elif penalty.paid_to_others:
            change += penalty.points
    return change


def _clocks(table: Table, seat: int, now: float) -> tuple[dict, dict | None]:
    """The seat's turn and hand clocks at `now`: seconds left (None when not running out:
    not his turn, or no such limit), the limit, whether it is counting down, and the free
    time (WSOM's preparation after the deal) before it starts to."""
    clocks = table.clocks
    left = clocks.snapshot(now)[seat]
    running = left["running"] and not table.ended
    free = max(0.0, clocks.free_until - now)
    turn = {
        "remaining": _finite(left["turn_left"]),
        "limit": _finite(clocks.turn_limit(seat)),
        "running": running,
        "free": free,
    }
    if clocks.timing.hand_limit is None:
        return turn, None
    return turn, {
        "remaining": left["hand_left"],
        "limit": clocks.timing.hand_limit,
        "running": running,
        "free": free,
    }


def _finite(seconds: float | None) -> float | None:
    """None for no limit: an untimed clock has no number to show (and JSON has no infinity)."""
    return seconds if seconds is not None and math.isfinite(seconds) else None


def _allocatable(ruleset) -> bool:
    """Whether the referee may give a penalty's points to the player it disadvantaged or make
    them dead points (seed 004 §38 一 6; seed 000 has no such choice)."""
    catalogue = ruleset.table_rules.penalties
    return catalogue is not None and catalogue.allocatable


def _only(record: dict, names) -> dict:
    return {name: record.get(name) for name in names}


def _public_alert(alert: dict) -> dict:
    """The named fields, the message the public's own (firmware/texts/notices.py)."""
    out = _only(alert, ALERT_FIELDS)
    out["message"] = alert_text(out)
    if out["penalty"]:
        out["penalty"] = ev.public_penalty(out["penalty"])
    return out


def _public_shuffler(shuffler: dict) -> dict:
    """Its fault is the referee's text ("what happened: what to do"): the public's says
    only that the machine waits for a person."""
    out = _only(shuffler, SHUFFLER_FIELDS)
    return out | {"fault": out["fault"] and shuffler_fault(), "text": both(shuffler_fault)}


def _public_fault(fault: dict) -> dict:
    return _only(fault, FAULT_FIELDS) | {
        "message": fault_text(fault),
        "advice": fault_advice(fault),
    }
