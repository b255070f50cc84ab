"""`mjtable verify`'s checks of what follows from the play (issue 17, issue 35,
docs/fairness.md): each hand's dealer's side, that each hand row begins with the chips the
session had after the hands before it, the dice source of each hand against the table's
dice, the electronic dice and the seat drawing recomputed from what the table committed to.
"""

import json
from typing import Any

from engine import events as ev
from engine.dealing import REFEREE_ROLL
from engine.session import Session
from engine.stage import take_seats
from firmware.journal import draws
from firmware.journal.replay import ReplayError, journaled_seatings, replay


def dealer_sides(source, rows, hands, chained: bool, fail) -> list[int | None]:
    """Each hand's dealer's side (the lane East's wall is), as the session had it; None for
    every hand when the journal does not replay as it is (any side is taken then). Each hand
    row's chips, doubling and last deal checked against the session's after the hands before
    (a hand cut out of the middle and the rest re-signed leaves them wrong, in CCM and WSOM)."""
    count = len(hands)
    if not chained or not count:
        return [None] * count
    try:
        result = replay(source)
    except ReplayError as err:
        fail(f"replay: {err}")
        return [None] * count
    if len(result.played) != count:  # cannot be: one Played per hand row
        return [None] * count
    if result.mismatches and result.first is not None:
        fail(
            f"{result.first.describe()}: the tiles dealt and drawn do not follow the walls "
            f"({result.mismatches} outputs differ)"
        )
        return [None] * count  # the hands' results, so who dealt, are not the journal's
    session = Session(result.played[0].table.ruleset)
    seatings = journaled_seatings(rows)
    sides: list[int | None] = []
    for played, hand in zip(result.played, hands, strict=True):
        if not played.voided:
            take_seats(session, seatings)
        sides.append(session.dealer)
        chips, doubling, last_deal = session.start()
        began = (hand.chips, hand.doubling, hand.last_deal)
        if began != (chips, doubling, last_deal) and began != _start_then(
            source, rows, hand, played.voided
        ):
            fail(
                f"row {hand.seq}: hand {hand.number} begins with chips {hand.chips}, doubling "
                f"{hand.doubling}, last deal {hand.last_deal}; the session after the hands "
                f"before it has {chips}, {doubling}, {last_deal}"
            )
        if played.table.ended and not played.voided:
            session.hand_number = played.number
            session.record(played.table)
    return sides


def check_dice(hands, header: ev.SessionOpened | None, fail) -> list[str]:
    """Each hand's dice sources, as `mjtable verify` reports them ("1 electronic"); with a
    header, each roll's source is the table's dice (or the referee's throw for East, seed
    000 開門 6) and each electronic roll is the one drawn from the hand's seal and its press."""
    said = []
    for hand in hands:
        sources = []
        for seq, roll in hand.rolls:
            sources.append(roll.source)
            if header is None:
                continue
            if roll.source not in (header.dice, REFEREE_ROLL):
                fail(
                    f"row {seq}: hand {hand.number}'s dice say {roll.source}; the table's "
                    f"dice are {header.dice} (its header)"
                )
            elif roll.source == "electronic" and hand.reveal is not None:
                _, revealed = hand.reveal
                drawn = draws.dice(revealed.nonce, revealed.digest, roll.t, len(roll.dice))
                if tuple(roll.dice) != drawn:
                    fail(
                        f"row {seq}: hand {hand.number}'s electronic dice {list(roll.dice)} "
                        f"are not those drawn from its seal and the press, {list(drawn)}"
                    )
        said.append(f"{hand.number} {'+'.join(dict.fromkeys(sources)) or 'none'}")
    return said


def check_seats(rows, records: dict[int, ev.Event], fail) -> None:
    """Each header's commitment to its seat secret; each drawing by the table recomputed from
    the secret and its time; each close showing the secret of the session it closes."""
    opened: ev.SessionOpened | None = None
    for i, record in records.items():
        seq = rows[i].seq
        if isinstance(record, ev.SessionOpened):
            opened = record
            if _digest(record.seats_secret) != record.seats_digest:
                fail(f"row {seq}: the header's seat secret does not give its digest")
        elif opened is None:
            continue
        elif isinstance(record, ev.SeatsDrawn) and record.source == "electronic":
            drawn = draws.seats(opened.seats_secret, opened.session, record.t)
            if tuple(record.winds) != drawn:
                fail(
                    f"row {seq}: the seats drawn {list(record.winds)} are not those the "
                    f"session's secret and the drawing's time give, {list(drawn)}"
                )
        elif isinstance(record, ev.SessionClosed) and record.seats_secret != opened.seats_secret:
            fail(f"row {seq}: the close shows another seat secret than its header's")


def _digest(secret: str) -> str | None:
    try:
        return draws.digest_of(secret)
    except ValueError:
        return None


class _Before:
    """The journal as it stood before row `seq`, its chain already checked: what the table
    knew when it wrote that row."""

    def __init__(self, source, seq: int):
        self.source, self.seq, self.path = source, seq, source.path

    def verify(self) -> None:
        return None

    def rows(self):
        return (row for row in self.source.rows() if row.seq < self.seq)


def _start_then(source, rows, hand, voided: bool) -> tuple | None:
    """A hand row's chips, doubling and last deal as the session had them when the row was
    written: a ruling made late on the hand before (issue 36, journaled after this row) is
    on that hand's settlement but was not yet in these chips. None when no late ruling
    follows the row (the journal's whole replay said it already)."""
    late = any(row.seq > hand.seq and _late_ruling(row.json) for row in rows if row.kind == "input")
    if not late:
        return None
    try:
        before: Any = _Before(source, hand.seq)  # read as a journal is, as an Export is
        result = replay(before)
    except ReplayError:
        return None
    session = Session(result.played[0].table.ruleset) if result.played else None
    if session is None:
        return None
    seatings = journaled_seatings(rows)
    for played in result.played:
        if not played.voided:
            take_seats(session, seatings)
        if played.table.ended and not played.voided:
            session.hand_number = played.number
            session.record(played.table)
    if not voided:
        take_seats(session, seatings)
    return session.start()


def _late_ruling(text: str) -> bool:
    """An input row's JSON is a Ruling naming its hand: made after that hand had ended."""
    data = json.loads(text)
    return data.get("type") == "Ruling" and data.get("hand") is not None
