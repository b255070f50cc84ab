"""A hand cut short by a power cut, taken up again where it lay (issue 14).

The journal holds every committed input; replaying them gives the engine's state after the
last one (firmware/journal/replay.py). What it cannot give is where the tiles lie now: players may
have moved some while the table was off, and the readers' last sweeps before the cut were
never seen. So the hand goes on from the engine's state with its clocks paused, the tracking
placed where the engine has each tile, and a full reading of every zone compared with it:
the tiles that lie elsewhere are listed for the referee (face, where the hand has it, where
the readers see it) until they are put back, corrected or the hand is voided. Legal moves the
readers now see (a discard made just before the cut) are read as the moves they are.
"""

import time
from dataclasses import dataclass, replace

from engine import events as ev
from engine.seats import LETTERS, ZONES, side_of, zone
from engine.stage import take_seats
from engine.tiles import NAMES, kind_of
from firmware.journal.replay import journaled_seatings
from firmware.table.venue_notes import VenueNotes

FULL_READING = 3  # sweeps of every zone before the reading counts as full
RECALLED = ("VenueCommand", "HallResumed", "PlayersEntered", "HandVoided")  # what recall takes up


@dataclass(frozen=True)
class Displaced:
    """A tile that does not lie where the hand has it."""

    tile: int
    expected: str  # the zone the engine has it in
    seen: tuple[str, ...]  # the zones the readers see it in (none: not seen)

    def to_json(self) -> dict:
        """The zones by name ("hand_S"): the display words them in its language (issue 33)."""
        return {
            "tile": self.tile,
            "face": NAMES[kind_of(self.tile)],
            "expected": self.expected,
            "seen": list(self.seen),
        }


def placement(table, dealer_side: int, to_deal=None) -> dict[int, str]:
    """Where the engine has each tile of the hand: its walls, racks, rivers and meld areas
    (flowers and kongs lie in the meld area). `to_deal` (engine/moves.py's Interpreter) are
    the tiles dealt to each seat: before the first discard one may still lie in its wall, as
    the deal is taken block by block and the engine deals at once; the tracking reads it as
    the deal when the readers see it in the rack."""
    where: dict[int, str] = {}
    for seat, wall in enumerate(table.walls):
        for tile in wall:
            where[tile] = zone("wall", side_of(seat, dealer_side))
    dealing = to_deal is not None and not table.discards
    for seat in range(4):
        side = side_of(seat, dealer_side)
        for tile in table.hands[seat]:
            if not (dealing and tile in to_deal[seat]):
                where[tile] = zone("hand", side)
        for meld in table.melds[seat]:
            for tile in meld.tiles:
                where[tile] = zone("melds", side)
        for tile in table.flowers[seat]:
            where[tile] = zone("melds", side)
        for tile in table.rivers[seat]:
            where[tile] = zone("river", side)
    return where


class Interruption:
    """The outage a resumed hand came back from, until the referee lets play go on.

    `cut` is the wall-clock time of the journal's last write, `back` when the service came
    back; `t` the table time of the last committed input, from which the clocks go on."""

    def __init__(self, cut: float, back: float, t: float, hand: int):
        self.cut, self.back, self.t, self.hand = cut, back, t, hand
        self.sweeps = dict.fromkeys(ZONES, 0)
        self.seen: dict[str, set[int]] = {z: set() for z in ZONES}
        self.displaced: list[Displaced] = []  # the tiles not where the hand has them

    def line(self) -> str:
        """ "resumed after an interruption at 14:32:05 (2 min 11 s)" """
        minutes, seconds = divmod(self.seconds, 60)
        took = f"{minutes} min {seconds} s" if minutes else f"{seconds} s"
        return (
            f"hand {self.hand} resumed after an interruption at "
            f"{time.strftime('%H:%M:%S', time.localtime(self.cut))} ({took})"
        )

    @property
    def seconds(self) -> int:
        """How long the table was off, to the second."""
        return max(0, round(self.back - self.cut))

    def to_json(self) -> dict:
        """The line and its parts: a display words it in its own language (issue 33), the
        time of the cut as its local time of day (`cut`: seconds since the epoch)."""
        return {"line": self.line(), "hand": self.hand, "cut": self.cut, "seconds": self.seconds}

    def sweep(self, zone_name: str, tiles: set[int]) -> None:
        """A zone's reading: the latest one replaces the one before."""
        self.sweeps[zone_name] += 1
        self.seen[zone_name] = set(tiles)

    @property
    def full(self) -> bool:
        """Every zone has been read enough times to trust what is not seen."""
        return min(self.sweeps.values()) >= FULL_READING

    def compare(self, hands) -> bool:
        """List the tiles of the hand in play (firmware/table/hands.py) that do not lie where it
        has them, once the reading is full; True if the list changed."""
        if hands.table is None:
            return False
        found = self._displaced(hands.table, hands.session.player_at(0), hands.interpreter)
        changed, self.displaced = found != self.displaced, found
        return changed

    def _displaced(self, table, dealer_side: int, interpreter) -> list[Displaced]:
        """A dealt tile may lie in its wall or its rack, a tile laid out for a call not yet
        declared in its meld area (the interpreter's `to_deal` and `exposing`), and the
        discard a chow was shown on in the chower's: he may take it before his discard closes
        the calls (seed 000 吃牌 4; engine/moves.py reads it so), and a hand cut then must
        not list it for ever: no state of a hand is a dead end."""
        if not self.full:
            return []
        held = placement(table, dealer_side)
        in_wall = placement(table, dealer_side, interpreter.to_deal)
        laid = {tile for seat in interpreter.exposing for tile in seat}
        chower, chowed = interpreter.chower, None
        if chower is not None and table.state == "claim_window":
            chowed = table.discards[-1][1]
        found = []
        for tile, expected in sorted(held.items()):
            seen = tuple(z for z in ZONES if tile in self.seen[z])
            allowed = {expected, in_wall[tile]}
            if tile in laid:
                allowed.add(expected.replace("hand", "melds"))
            if tile == chowed:
                allowed.add(zone("melds", side_of(chower, dealer_side)))
            if allowed & set(seen):
                continue
            found.append(Displaced(tile, expected, seen))
        return found


def recall(rows) -> tuple[VenueNotes, dict | None]:
    """What the journal's rows say was noted at the table before a restart, taken up by the
    table itself whatever is attached (issue 29): the venue's notes (the seating and the
    sitting's time, from when it was taken; its message and its pause, unless the table's
    referee lifted it since, HallResumed), the players entered at the desk (PlayersEntered:
    the latest of theirs and the venue's stands), and the hand voided since the last deal
    ({"hand", "reason"}: no result is shown). A referee on the way is not taken up: by now
    he has come."""
    notes, voided = VenueNotes(), None
    for row in rows:
        if row.kind == "hand":
            voided = None
        if row.kind != "device" or not any(f'"{kind}"' in row.json for kind in RECALLED):
            continue
        record = row.event()
        if isinstance(record, ev.HallResumed):
            notes = replace(notes, paused=False)
        elif isinstance(record, ev.PlayersEntered):
            notes = replace(notes, players=record.players)
        elif isinstance(record, ev.HandVoided):
            voided = {"hand": record.hand_number, "reason": record.reason}
        elif (
            isinstance(record, ev.VenueCommand)
            and record.refused is None
            and record.command != "acknowledge"
        ):
            notes = notes.noted(record.command, record.args, None, record.t)
    return notes, voided


def resume_session(hands, t: float, replayed, cut: float | None) -> int:
    """Go on with the session a journal holds (firmware/journal/replay.py's result) in `hands`
    (firmware/table/hands.py): the pending input's outputs journaled (issue 20 item 6: replay
    then matches for good), every finished hand settled again in order, so scores, dealer
    and games are as they were, and the hand left unfinished taken up where it lay. A hand
    the table cannot take up (journaled without its tile set, or followed by another) is
    void, as the referee would have it dealt again. Returns the hands settled."""
    if replayed.recovered is not None:
        hands.journal.outputs(replayed.recovered_outputs)
    hands.faults.records = replayed.last_fault  # one id, one fault, across restarts
    played = replayed.played
    settled = 0
    seatings = journaled_seatings(hands.journal.rows())  # seed 004 換位: each game's seating
    for n, hand in enumerate(played):
        hands.sitting.hand_started(hand.started)  # the game's clock from its first hand
        if hand.voided:
            continue
        take_seats(hands.session, seatings)
        if not hand.table.ended:
            if n == len(played) - 1 and hand.tile_set is not None:
                _take_up(hands, hand, replayed, cut)
                continue
            reason = "the service restarted before the hand ended; it cannot be taken up"
            hands.journal.record(ev.HandVoided(t, None, hand.number, reason))
            hands.out(
                f"hand {hand.number} was not finished when the service stopped and cannot "
                "be taken up (its tile set is not journaled): void, it is dealt again"
            )
            continue
        hands.session.hand_number = hand.number
        hands.sitting.record(hands.session, hand.table, hand.ended)  # ended by time alike
        settled += 1
    if hands.sitting.game is not None:  # a break the referee lifted before the restart
        hands.sitting.game.recall(hands.journal.rows())
    take_seats(hands.session, seatings)  # the next game's, changed before its first hand
    if played and hands.table is None:
        sheet = hands.session.sheet
        hands.session.hand_number = max(row.number for row in sheet) if sheet else 0
    if played and played[-1].tile_set is not None:
        hands.set_in_play = played[-1].tile_set  # on the table, or pushed into the machine
    hands.walls.resume(t, hands.journal.rows(), played, hands.table)  # issue 17
    _sign_last_end(hands, t)
    if (
        hands.table is None
        and hands.wanted is not None
        and len(hands.session.sheet) >= hands.wanted
    ):
        hands.finished()
    if played:
        hands.out(
            f"resumed after hand {max((r.number for r in hands.session.sheet), default=0)}: "
            "scores " + " ".join(f"{LETTERS[p]} {s:+d}" for p, s in enumerate(hands.session.scores))
        )
    return settled


def _take_up(hands, hand, replayed, cut: float | None) -> None:
    """The unfinished hand goes on: its table as replay left it, the interpreter following
    its outputs, the tracking placed where the engine has each tile, the clocks paused from
    the last committed input (the outage never counts) until the referee resumes them."""
    table, t = hand.table, replayed.last_t
    hands.session.hand_number = hand.number
    hands.table, hands.set_in_play, hands.recorded = table, hand.tile_set, False
    hands.interpreter = hands.new_interpreter(table)
    last = hand.outputs[-1].t if hand.outputs else t
    hands.interpreter.outputs(last, hand.outputs)
    dealer_side = hands.session.player_at(0)
    hands.tracker.place(placement(table, dealer_side, hands.interpreter.to_deal))
    hands.interruption = stop = Interruption(
        cut if cut is not None else time.time(), time.time(), t, hand.number
    )
    hands.out(f"{t:9.1f}  {stop.line()}: clocks paused")
    if table.clocks.paused_at is None:
        hands.apply(ev.ClocksPaused(t, None))
    hands.faults.report(
        t,
        "table",
        "interrupted",
        f"{stop.line()}; the clocks are paused",
        "check the tiles the display lists against the hand, have them put back or "
        "correct the tracking, then resume the clocks; or void the hand. A ruling or action "
        "of the last moments that the history does not show was not recorded: make it again",
        key="interrupted",
    )
    hands.publish(hand.outputs)  # the hand's history and alerts, shown again


def _sign_last_end(hands, t) -> None:
    """A cut between a hand's end and its signature, or a hand voided here at start, leaves
    the head of an ended hand unsigned: sign it now, so that every ended hand has its
    signature (issue 17). A hand taken up needs none: the one before it was signed before it
    began."""
    if hands.table is not None:
        return
    number, signed = None, False
    for row in hands.journal.rows():
        if row.kind == "hand":
            number, signed = row.data()["hand_number"], False
        elif row.kind == "device" and row.data().get("type") == "HeadSigned":
            signed = signed or row.data()["hand"] == number
    if number is not None and not signed:
        hands.device_key.sign_journal(hands.journal, t, number)
