"""The score sheet at the desk (issue 16 "The score sheet"): the session's players entered
there, each row confirmed, the referee's signature and the players'.

What the desk holds of it (which rows are confirmed and as what, who signed) is what the
journal's records say, taken up again after a restart, so the sheet on the screen is the one
`mjtable export sheet` makes of the same journal. The session's players are the table's
`venue.players`, one notion fed by the venue's start_session and the desk's PlayersEntered,
the latest standing: the seats, the result and the standings already read them there; the
table takes them up after a restart itself (firmware/table/resume.py), with the hand voided.

Once the referee asks for the players' signatures, until all four have signed or the next
hand's walls rise, a press of a side's 和 button (idle between hands otherwise) signs for the
person on that side, and each may tap his name on the desk instead. After a restart the
referee asks again: the asking is not journaled, the signatures are.
"""

from collections.abc import Callable
from dataclasses import replace

from engine import events as ev
from firmware.audit import zero_sum
from firmware.audit.sheet import withdrawn
from firmware.display import ActionRefused


class SheetBook:
    """The sheet's state at the desk of `service`; `wall_time()` is the time of day (UTC,
    ISO 8601) a player's signature is journaled with."""

    def __init__(self, service, wall_time: Callable[[], str]):
        self.service, self.wall_time = service, wall_time
        self.port = service.commands  # the table's write port (firmware/table/commands.py)
        self.confirmed: dict[int, dict] = {}  # hand -> its row as confirmed
        self.signatures: list[dict] = []  # the referee's: hand, referee, journal_head, wall_time
        self.player_signatures: list[dict] = []  # person, hand, via, journal_head, wall_time
        self.asking: int | None = None  # the hand the players are asked to sign up to
        self.asked_on = None  # the table then: the next hand's walls end the asking
        self._shown: tuple | None = None  # what the document below was made of
        self._document: dict = {}
        self._made: list[tuple] = []  # what each of its rows was made of
        self._recall(self.port.rows())
        self.port.on_signature(self.button)

    def _recall(self, rows) -> None:
        """What the journal says of the sheet: confirmations and signatures."""
        acted_after = None
        for row in rows:
            if row.kind != "device" or not any(f'"{k}"' in row.json for k in RECALLED):
                continue
            record = row.event()
            if isinstance(record, ev.RefereeActed) and acted_after is not None:
                acted_after["wall_time"], acted_after = record.wall_time, None
            elif isinstance(record, ev.ScoreConfirmed):
                self.confirmed[record.hand] = record.row
            elif isinstance(record, ev.SheetSigned):
                acted_after = _signature(record, None)
                self.signatures.append(acted_after)
            elif isinstance(record, ev.PlayerSigned):
                self.player_signatures.append(_without_type(record))
            elif isinstance(record, ev.SignatureWithdrawn):
                signature = withdrawn(self.player_signatures, record.person)
                if signature is not None:
                    self.player_signatures.remove(signature)

    # -- the referee's actions -------------------------------------------------------------

    def players(self, t, body) -> dict:
        """The players by person (P1..P4): journaled, then on every screen."""
        players = tuple(
            {"name": p["name"].strip(), "federation_id": (p.get("federation_id") or "").strip()}
            for p in body["players"]
        )
        players = tuple(p | {"federation_id": p["federation_id"] or None} for p in players)
        self.port.note_venue(lambda notes: replace(notes, players=players))
        return self._record(ev.PlayersEntered(t, None, players))

    def confirm_score(self, t, body) -> dict:
        row = self._row(body["hand"])
        self.confirmed[row.number] = row.to_json()
        self._shown = None
        return self._record(ev.ScoreConfirmed(t, None, row.number, row.to_json()))

    def sign_sheet(self, t, body) -> dict:
        """The referee signs up to `hand` (his PIN checked by the display, never here)."""
        sheet = self.service.status().session.sheet
        rows = tuple(r.to_json() for r in sheet if r.number <= body["hand"])
        if not rows:
            raise ActionRefused("the score sheet has no hand to sign yet")
        head = self.port.head
        record = ev.SheetSigned(t, None, body["hand"], body["referee"], rows, head)
        self.signatures.append(_signature(record, self.wall_time()))
        self._shown = None
        return self._record(record)

    def ask_signatures(self, t, body) -> dict:
        row = self._row(body["hand"])
        status = self.service.status()
        if status.in_play:
            raise ActionRefused("the players sign between hands: a hand is in play")
        self.asking, self.asked_on, self._shown = row.number, status.table, None
        self.port.publish()
        return {"asking": row.number}

    def player_signs(self, t, body) -> dict:
        if self.asked() is None:
            raise ActionRefused("ask for the players' signatures first (between hands)")
        return self._signs(t, body["person"], "screen")

    def withdraw_signature(self, t, body) -> dict:
        """A player's latest signature withdrawn, with the referee's reason (issue 36 item 2:
        tapped for the wrong person), until the referee has signed the sheet after it."""
        from firmware.desk.inputs import reason  # the desk's one check of a written reason

        person = body["person"]
        signature = withdrawn(self.player_signatures, person)
        if signature is None:
            raise ActionRefused(f"P{person + 1} has no signature on the sheet to withdraw")
        if any(
            s["hand"] >= signature["hand"] and (s["wall_time"] or "") > signature["wall_time"]
            for s in self.signatures
        ):
            raise ActionRefused(
                f"the referee has signed the sheet since P{person + 1} signed: the signature "
                "stands (the head referee's)"
            )
        why = reason(body, "withdrawing a signature")
        self.player_signatures.remove(signature)
        self._shown = None
        return self._record(ev.SignatureWithdrawn(t, None, person, signature["hand"], why))

    # -- the players' buttons ---------------------------------------------------------------

    def button(self, t, side: int) -> bool:
        """A side's 和 button between hands: the signature of the person there while the
        players are asked to sign (True: the press is taken), else nothing of the sheet's."""
        if self.asked() is None:
            return False
        person = self.service.status().session.seating[side]  # the side a player drew is his
        if person not in self.signed_now():
            self._signs(t, person, "button")
        return True

    def asked(self) -> int | None:
        """The hand the players are asked to sign up to, until all four have or the next
        hand's walls rise."""
        if self.asking is None:
            return None
        status = self.service.status()
        if status.table is not self.asked_on or status.in_play:
            return None
        return None if len(self.signed_now()) == 4 else self.asking

    def signed_now(self) -> set[int]:
        return {s["person"] for s in self.player_signatures if s["hand"] == self.asking}

    def _signs(self, t, person: int, via: str) -> dict:
        head, hand = self.port.head, self.asked()
        assert hand is not None  # only while the players are asked
        record = ev.PlayerSigned(t, None, person, hand, via, head, self.wall_time())
        self.player_signatures.append(_without_type(record))
        self._shown = None
        return self._record(record)

    def _row(self, number: int):
        sheet = self.service.status().session.sheet
        row = next((r for r in sheet if r.number == number), None)
        if row is None:
            raise ActionRefused(f"hand {number} is not on the score sheet yet")
        return row

    def _record(self, record) -> dict:
        self.port.record(record)
        return record.to_json()

    # -- the document ------------------------------------------------------------------------

    def document(self, session, players) -> dict:
        """The sheet as it stands, for both views (nothing on it is concealed): each row of
        session.sheet with the names by column, the zero-sum check, confirmed or not and
        changed since; the players, the signatures, and whether the players are asked.
        Every update of both views carries it and the pages' backlogs hold a hundred updates
        each, so it is made again only when what it is made of has changed, and a row that
        has not changed stays the same object: the sheet is held once, not once an update
        (issue 32 item 4: a copy of it in each held update grew 427 KB a hand)."""
        asked = self.asked()
        made_of = (tuple(session.sheet), len(session.games), tuple(session.seating), players, asked)
        if self._shown is not None and self._shown[0] is session and self._shown[1:] == made_of:
            return self._document
        before, made_before = self._document.get("rows", []), self._made
        rows: list[dict] = []
        self._made = []
        penalties_kept = zero_sum.penalties_kept(session.ruleset)
        for record, seating in zip(session.sheet, _seatings(session), strict=True):
            confirmed = self.confirmed.get(record.number)
            made = (record, confirmed, seating, players)
            i = len(rows)
            if i < len(made_before) and all(
                a is b or a == b for a, b in zip(made_before[i], made, strict=True)
            ):
                rows.append(before[i])  # made of the same: not made again (a day's sheet)
            else:
                row = _row(record, seating, confirmed, players, penalties_kept)
                kept = before[i] if i < len(before) else None
                rows.append(kept if kept == row else _sharing(row, rows[-1] if rows else None))
            self._made.append(made)
        self._shown = (session, *made_of)
        self._document = {
            "rows": rows,
            "players": [dict(p) for p in players] if players else None,
            "signatures": list(self.signatures),
            "player_signatures": list(self.player_signatures),
            "asking": asked,
            "signed_now": sorted(self.signed_now()) if asked else [],
        }
        return self._document


RECALLED = ("ScoreConfirmed", "SheetSigned", "PlayerSigned", "SignatureWithdrawn", "RefereeActed")


def _row(record, seating, confirmed: dict | None, players, penalties_kept: bool) -> dict:
    """One row of the document: the hand's line, the names by column, its zero-sum check,
    confirmed or not and changed since."""
    row = record.to_json()
    return row | {
        "names": [players[p]["name"] if players else f"P{p + 1}" for p in seating],
        "zero_sum": zero_sum.check(record.changes, record.penalties, record.dead, penalties_kept),
        "confirmed": confirmed is not None,
        "changed_since_confirmed": confirmed is not None and confirmed != row,
    }


def _sharing(row: dict, above: dict | None) -> dict:
    """The row, with its names and its check the row above's own objects where they are
    equal: a day's sheet holds them once, not once a row (issue 32 item 4)."""
    for key in ("names", "zero_sum"):
        if above is not None and row[key] == above[key]:
            row[key] = above[key]
    return row


def _seatings(session) -> list[list[int]]:
    """The person on each column of each row: its game's seating (seed 004 換位)."""
    out: list[list[int]] = []
    for game in session.games:
        out += [list(game["seating"])] * game["hands"]
    out = out[: len(session.sheet)]
    return out + [list(session.seating)] * (len(session.sheet) - len(out))


def _signature(record: ev.SheetSigned, wall_time: str | None) -> dict:
    return {
        "hand": record.hand,
        "referee": record.referee,
        "journal_head": record.journal_head,
        "wall_time": wall_time,
    }


def _without_type(record) -> dict:
    return {k: v for k, v in record.to_json().items() if k not in ("type", "seat")}
