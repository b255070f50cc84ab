"""The result of the hand last ended, on both views (issue 16 "The result"): each win with its
winner, the winning tile and from whom, the winner's whole hand laid out (a hand won is no
longer concealed: the public sees it too; no other seat's concealed tile), each pattern or
fan in English and Chinese with its points, the total; the payments per seat as the sheet
records them (CCM's amounts held outside the table and dead points too, seed 004 §32, §38 一
6); the penalties settled in the hand in the public's words (firmware/texts/notices.py);
each transfer with its reason, of which the payments are the sums (payment_lines.py).
An exhaustive draw has its payments (CCM's kongs paid on the spot) and no hand.

It is there from the hand's end until the next hand's walls rise (the service's table is then
the new hand), and after a restart between hands (the session's last recorded hand); not
after a void (firmware/display/state.py: the voided hand has none, the one before is over).
"""

from engine import tiles
from engine.seats import LETTERS as SEATS
from engine.session import Session
from engine.stage import last_hand_seating
from engine.table import Table
from firmware.display.payment_lines import payment_lines
from firmware.texts.faces import meld_json, tile_json
from firmware.texts.names import chinese_names
from firmware.texts.notices import alert_text, both


def hand_result(session: Session, table: Table | None, players) -> dict | None:
    """The result document of the hand that ended (`table`, or the session's last recorded
    when there is none on the service), or None while a hand is in play or before the first;
    `players`, the venue's names by person (None without)."""
    ended = table if table is not None else session.last
    if ended is None or not ended.ended:
        return None
    recorded = session.last is ended and bool(session.sheet)
    # once on the sheet, the session's dealer and seating may be the next hand's already
    dealer = session.sheet[-1].dealer if recorded else session.dealer
    seating = (last_hand_seating(session) if recorded else None) or session.seating

    def who(seat: int) -> dict:
        player = (dealer + seat) % 4
        person = seating[player]
        name = players[person]["name"] if players else None
        return {"seat": SEATS[seat], "player": player, "person": person, "name": name}

    outcome = ended.outcome()
    settled = session.ruleset.settle(outcome)
    chinese = chinese_names(session.ruleset)
    chips = session.ruleset.table_rules.start_chips is not None
    return {
        "hand_number": session.sheet[-1].number if recorded else session.hand_number,
        "outcome": "win" if outcome.results else "game over" if outcome.game_over else "draw",
        "state": ended.state,  # won, exhausted, game_over
        "wins": [_win(ended, result, chinese, who) for result in outcome.results],
        "payments": [
            who(seat)
            | {
                "payment": settled.payments[seat],
                "penalty": settled.penalties[seat],
                "held": sum(held[seat] for held in settled.held),
                "change": settled.payments[seat] + settled.penalties[seat],
            }
            for seat in range(4)
        ],
        "dead": -sum(settled.penalties) if chips else 0,  # CCM's dead points (§38 一 6)
        "lines": payment_lines(settled.lines, who, chips),  # each payment's reason (issue 33)
        "penalties": [_penalty(p, chips) for p in ended.referee.applied],
    }


def _win(table: Table, result, chinese: dict[str, str], who) -> dict:
    """One win: who, on what from whom, the hand laid out, its patterns and total."""
    seat, score = result.winner, result.score
    concealed = list(table.hands[seat])
    if result.from_seat is None and result.tile in concealed:
        concealed.remove(result.tile)  # the drawn tile is shown as the winning tile
    by = "self_draw" if result.from_seat is None else "robbed_kong" if result.robbed else "discard"
    return who(seat) | {
        "tile": tile_json(result.tile),
        "by": by,
        "from": None if result.from_seat is None else who(result.from_seat),
        "hand": {
            "concealed": [tile_json(t) for t in sorted(concealed, key=tiles.kind_of)],
            "melds": [meld_json(meld, shown=True) for meld in table.melds[seat]],
            "flowers": [tile_json(t) for t in table.flowers[seat]],
        },
        "patterns": [
            {
                "id": p["id"],
                "name": p["name"],
                "chinese": chinese.get(p["id"], ""),
                "points": p["points"],
            }
            for p in score["patterns"]
        ],
        "total": score["total"],
    }


def _penalty(penalty, chips: bool) -> dict:
    """A penalty applied in the hand: the offence as the public reads it, its points, whom
    they go to: each other player, the one it disadvantaged, or (CCM) nobody, dead points;
    WSOM's are deducted from the offender (RULES.md 3.13)."""
    if penalty.paid_to_others:
        to = "others"
    elif penalty.to is not None:
        to = SEATS[penalty.to]
    else:
        to = "dead" if chips else "deducted"
    said = {"seat": penalty.seat, "rule": penalty.rule, "penalty": {"offence": penalty.offence}}
    return {
        "seat": SEATS[penalty.seat],
        "offence": penalty.offence,
        "text": alert_text(said),
        "texts": both(alert_text, said),  # issue 16 "Every screen": English and Chinese
        "points": penalty.points,
        "to": to,
        "penalty_tiles": len(penalty.penalty_tiles),  # face up once applied (RULES.md 3.9)
    }
