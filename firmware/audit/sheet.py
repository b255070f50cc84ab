"""The session's score sheet, as `mjtable export sheet` and the desk's download give it.

The sheet is rebuilt from the journal, opened read-only: its hands replayed as `mjtable replay`
does (firmware/journal/replay.py) and settled in order on a Session, as a resumed table settles them
(firmware/table/resume.py), so a hand the referee has not confirmed is on it too. Beside each row:
the players by name and federation id (the latest of the venue's `start_session` and the
desk's PlayersEntered, else P1..P4), each
penalty with its offence, rule, the referee's reason and whether it was revoked, CCM's dead
points and held amounts, the rule book's zero-sum check (firmware/audit/zero_sum.py)
and whether the referee confirmed it (ScoreConfirmed) and who signed the sheet (SheetSigned:
the referee, with the time of day of the RefereeActed after it; PlayerSigned: each player).
The desk's download (/api/referee/sheet.csv, .json, .pdf) serves the same document.

A CCM game ended by its time (seed 004 第五條) is not journaled as such: a hand whose next hand
was dealt fresh chips, though it left them otherwise, ended its game, as the table's game
clock had it (one ended so by the journal's last hand is not known to have ended).

The document names the journal by its file's name only (where it lies on the machine is
nobody's business), and the table by the name its hand rows give, with each hand's round
(the prevailing wind), the time of day it began (UTC) and its wins: the winner, the
discarder (None: self-drawn), the value (WSOM's points, CCM's fans) and its patterns.

The command line and the formats' choice are firmware/audit/cli.py; the CSV is sheet_csv.py.
"""

import os
from dataclasses import dataclass

from engine import events as ev
from engine.seats import LETTERS
from engine.session import HandRecord, Session
from engine.stage import take_seats
from firmware.audit import zero_sum
from firmware.journal.device_key import fingerprint
from firmware.journal.replay import Played, journaled_seatings, replay
from firmware.journal.store import Journal

FORMAT = "mjtable score sheet 1"  # the JSON document's "sheet"
MEDIA = {"csv": "text/csv; charset=utf-8", "json": "application/json", "pdf": "application/pdf"}


class ExportError(Exception):
    """The export cannot be made or written (a PDF without its font, a file that exists, a
    PDF for a terminal): one line saying why."""


# -- the sheet -----------------------------------------------------------------------------


@dataclass
class Hand:
    """One hand of the journal as the session had it: who dealt, the deals passed in the game
    and the scores before it, its journal rows (its hand row first); once it ended, its
    sheet row, its game's seating (the person on each side) and what it held outside the
    table (CCM, seed 004 §32; None for a rule book without)."""

    played: Played
    rows: list
    dealer: int
    passes: int
    scores: list[int]
    record: HandRecord | None = None
    seating: list[int] | None = None
    held: list[int] | None = None


def by_hand(rows) -> list[list]:
    """The journal's rows cut at each hand row (those before the first hand are dropped)."""
    hands: list[list] = []
    for row in rows:
        if row.kind == "hand":
            hands.append([])
        if hands:
            hands[-1].append(row)
    return hands


def settled(result, rows) -> tuple[Session | None, list[Hand]]:
    """The session with every finished hand recorded in order (`result`: replay's), and each
    hand as it had it."""
    if not result.played:
        return None, []
    session = Session(result.played[0].table.ruleset)
    fresh = session.ruleset.table_rules.start_chips
    seatings = journaled_seatings(rows)
    hands = [
        Hand(played, hand_rows, 0, 0, [])
        for played, hand_rows in zip(result.played, by_hand(rows), strict=True)
    ]
    _late_to_their_hands(hands)
    for n, hand in enumerate(hands):
        hand.dealer, hand.passes, hand.scores = session.dealer, session.passes, list(session.scores)
        if hand.played.voided or not hand.played.table.ended:
            continue
        take_seats(session, seatings)
        session.hand_number = hand.played.number
        following = hands[n + 1].rows[0].data().get("chips") if n + 1 < len(hands) else None
        before, games = list(session.held), len(session.games)
        hand.seating = list(session.seating)
        hand.record = session.record(hand.played.table, _timed_out(session, hand, following))
        if fresh is not None:
            owed = [sum(p[i] for p in before) for i in range(4)]
            if len(session.games) > games:
                hand.held = [session.games[-1]["held"][i] - owed[i] for i in range(4)]
            else:
                hand.held = [sum(p[i] for p in session.held[len(before) :]) for i in range(4)]
    return session, hands


def _late_to_their_hands(hands: list[Hand]) -> None:
    """A ruling made after the next hand was dealt (its `hand`, issue 36) moves to its hand's
    rows from those it was journaled among, as the replay applied it."""
    for hand in hands:
        for row in [r for r in hand.rows if r.kind == "input" and _late(r.data())]:
            target = next(
                (h for h in reversed(hands) if h.played.number == row.data()["hand"]), hand
            )
            hand.rows.remove(row)
            target.rows.append(row)


def _late(data: dict) -> bool:
    named = data.get("type") in ("Ruling", "PenaltyRevoked", "WaiveUndone")
    return named and data.get("hand") is not None


def _timed_out(session: Session, hand: Hand, following) -> bool:
    """The game's time was up at this hand's end (seed 004 第五條), which the journal does not
    say: the next hand was dealt fresh chips (`following`, its hand row's) though this one
    left them otherwise. Of no matter where the game ended by chips or rounds (4.13)."""
    fresh = session.ruleset.table_rules.start_chips
    if fresh is None or following != [fresh] * 4:
        return False
    outcome = hand.played.table.outcome()
    settled = session.ruleset.settle(outcome)
    chips = outcome.chips or ()
    after = [c + p + f for c, p, f in zip(chips, settled.payments, settled.penalties, strict=True)]
    return after != [fresh] * 4


def sheet(path) -> dict:
    """The score sheet the journal at `path` holds, as one JSON document."""
    with Journal(path, readonly=True) as journal, journal.snapshot():
        result = replay(journal)
        rows = list(journal.rows())
    records = [r.event().to_json() for r in rows if r.kind == "device"]
    players = players_of([r.event() for r in rows if r.kind == "device"])
    session, hands = settled(result, rows)
    confirmed = {d["hand"]: d["row"] for d in records if d["type"] == "ScoreConfirmed"}
    signatures = [
        {k: v for k, v in d.items() if k not in ("type", "seat", "rows")}
        | {"wall_time": _acted_at(records, n)}
        for n, d in enumerate(records)
        if d["type"] == "SheetSigned"
    ]
    player_signatures: list[dict] = []
    for d in records:
        if d["type"] == "PlayerSigned":
            kept = {k: v for k, v in d.items() if k not in ("type", "seat")}
            player_signatures.append(kept | {"name": _name(players, d)})
        elif d["type"] == "SignatureWithdrawn":  # tapped for the wrong person (issue 36)
            signature = withdrawn(player_signatures, d["person"])
            if signature is not None:
                player_signatures.remove(signature)
    lines = [_line(h, players, confirmed, signatures) for h in hands if h.record is not None]
    last = result.played[-1] if result.played else None
    heads = [d for d in records if d["type"] == "HeadSigned"]  # the last: what the key signed
    return {
        "sheet": FORMAT,
        "journal": os.path.basename(os.fspath(path)),
        "table": next((h.rows[0].data().get("table") for h in reversed(hands)), None),
        "session_id": journal.session_id,
        "ruleset": session.ruleset.name if session else None,
        "ruleset_title": session.ruleset.title if session else None,
        "players": players,
        "hands": lines,
        "games": session.games if session else [],
        "signatures": signatures,
        "player_signatures": player_signatures,
        "zero_sum": all(h["zero_sum"]["ok"] for h in lines),
        "in_play": last.number if last and not last.table.ended and not last.voided else None,
        "key_fingerprint": fingerprint(heads[-1]["public_key"]) if heads else None,
        "final_head": heads[-1]["head"] if heads else None,
    }


def players_named(record) -> tuple[dict, ...] | None:
    """The session's players a journaled record names: the desk's PlayersEntered, or a
    start_session the venue's bus had taken; None for any other."""
    if isinstance(record, ev.PlayersEntered):
        return record.players
    if (
        isinstance(record, ev.VenueCommand)
        and record.command == "start_session"
        and record.refused is None
    ):
        return tuple(
            {"name": p["name"], "federation_id": p["federation_id"]} for p in record.args["players"]
        )
    return None


def entered_players(records) -> tuple[dict, ...] | None:
    """The latest players the records (events) name, None when none has."""
    named = (players_named(record) for record in reversed(records))
    return next((players for players in named if players is not None), None)


def players_of(records) -> list[dict]:
    """The session's players (the latest entered), else P1..P4 without ids."""
    players = entered_players(records)
    if players is None:
        return [{"name": f"P{n}", "federation_id": None} for n in range(1, 5)]
    return [{"name": p["name"], "federation_id": p["federation_id"]} for p in players]


def withdrawn(signatures: list[dict], person: int) -> dict | None:
    """The latest signature of `person`: the one a SignatureWithdrawn takes back."""
    return next((s for s in reversed(signatures) if s["person"] == person), None)


def _acted_at(records: list[dict], n: int) -> str | None:
    """The time of day of the referee's action whose record is the `n`th (its RefereeActed
    follows it, issue 16, after the head signed at once, issue 35), None in a journal from
    before."""
    acted = next((r for r in records[n + 1 :] if r["type"] != "HeadSigned"), None)
    return acted["wall_time"] if acted and acted["type"] == "RefereeActed" else None


def _name(players: list[dict], signed: dict) -> str:
    return players[signed["person"]]["name"]


def _line(hand: Hand, players, confirmed: dict, signatures: list[dict]) -> dict:
    """The sheet's row of a finished hand with the names by column, its offences, the zero-sum
    check (firmware/audit/zero_sum.py), confirmation and signatures."""
    record, seating = hand.record, hand.seating
    assert record is not None and seating is not None
    row = record.to_json()
    names = [players[person]["name"] for person in seating]  # by the row's column (side)
    ids = [players[person]["federation_id"] for person in seating]
    kept = zero_sum.penalties_kept(hand.played.table.ruleset)
    as_confirmed = confirmed.get(record.number)
    return row | {
        "round": LETTERS[hand.passes // 4 % 4],
        "started": hand.rows[0].data().get("wall_time"),
        "wins": _wins(hand),
        "names": names,
        "federation_ids": ids,
        "seating": seating,
        "held": hand.held,
        "offences": _offences(hand),
        "zero_sum": zero_sum.check(record.changes, record.penalties, record.dead, kept, hand.held),
        "confirmed": as_confirmed is not None,
        "changed_since_confirmed": as_confirmed is not None and as_confirmed != row,
        "signed_by": [s["referee"] for s in signatures if s["hand"] >= record.number],
    }


def _wins(hand: Hand) -> list[dict]:
    """The hand's wins by player (the row's column), as last scored (a WinRescored's score
    replaces its Won's): winner, discarder (None: self-drawn), value and patterns."""
    wins: dict[int, dict] = {}
    for o in (o.to_json() for o in hand.played.outputs):
        if o["type"] == "Won":
            wins[o["seat"]] = {"from_seat": o["from_seat"], "score": o["score"]}
        elif o["type"] == "WinRescored" and o["seat"] in wins:
            wins[o["seat"]]["score"] = o["score"]

    def player(seat):
        return None if seat is None else (hand.dealer + seat) % 4

    return [
        {
            "winner": player(seat),
            "discarder": player(win["from_seat"]),
            "value": win["score"]["total"],
            "patterns": [[p["name"], p["points"]] for p in win["score"]["patterns"]],
        }
        for seat, win in wins.items()
    ]


def _offences(hand: Hand) -> list[dict]:
    """The hand's penalties, in force or revoked, by player, with the referee's reasons."""
    rulings = [
        r.data() for r in hand.rows if r.kind == "input" and r.data().get("type") == "Ruling"
    ]
    reasons = {r["alert"]: r.get("reason", "") for r in rulings}
    dead = {r["alert"] for r in rulings if r.get("dead")}
    outputs = [o.to_json() for o in hand.played.outputs]
    lifted = {o["alert"]: o.get("reason", "") for o in outputs if o["type"] == "PenaltyLifted"}

    def player(seat):
        return None if seat is None else (hand.dealer + seat) % 4

    return [
        {
            "player": player(o["seat"]),
            "offence": o["offence"],
            "rule": o["rule"],
            "points": o["points"],
            "effect": o["effect"],
            "to": player(o["to"]),
            "dead": o["alert"] in dead,
            "reason": reasons.get(o["alert"], ""),
            "revoked": o["alert"] in lifted,
            "revoked_reason": lifted.get(o["alert"]),
        }
        for o in outputs
        if o["type"] == "PenaltyApplied"
    ]
