"""The referee's answers to errors of the deal at the desk (seed 000 配牌時的犯規 1, 6, 7).

A re-deal (洗牌重配, rule 7) is his remedy for an error that cannot be put right: the hand is
void, the tiles shuffled again, the same East rolls again. It is not the void of a machine or
tracking fault (`void_hand`, firmware/table/hands.py): it is refused once all four players have
discarded (engine/deal_order.py), and its journal row says it is a re-deal. A player found
long at the deal before his first discard (配牌相公, rule 6) has the excess taken from his rack
at random and put back into the wall, with the rule book's point penalty. A roll after the
break (rule 1) is answered with what he may do: the engine deals at the break.
"""

import secrets

from engine import events as ev
from engine.deal_order import redeal_refusal
from engine.reports import REFUSED
from engine.seats import letter, side_of, zone
from firmware.display import ActionRefused

REDEAL = "re-deal ordered by the referee (seed 000 配牌時的犯規 7)"
DICE_RULE = "seed 000 配牌時的犯規 1"
LONG = "deal_count_long"  # the rule book's offence for 配牌相公 found long
LONG_RULE = "seed 000 配牌時的犯規 6"


def redeal(service, t, body) -> dict:
    """Void the hand in play for a re-deal, with the referee's reason (a HandVoided row)."""
    status = service.status()
    if not status.in_play:
        raise ActionRefused("no hand is in play")
    refusal = redeal_refusal(status.table.discards)
    if refusal is not None:
        raise ActionRefused(refusal)
    return {"redealt": service.commands.void(t, f"{REDEAL}: {body['reason']}")}


def dice_stand(service) -> None:
    """Refuse the referee's roll once the wall is broken, saying what he may do instead: a
    wrong roll noticed at once is put right by a re-deal before the first tile of the deal
    is taken; after it, the dice stand."""
    status = service.status()
    if status.table is None or status.table.state in ("dice", "second_roll"):
        return
    if status.deal_begun:
        raise ActionRefused(f"the dice stand: the players have begun taking the deal ({DICE_RULE})")
    raise ActionRefused(
        "the dice have been read and the wall broken: if the roll was wrong, order a re-deal "
        f"(redeal) before the first tile of the deal is taken; after that the dice stand "
        f"({DICE_RULE})"
    )


def remove_excess(service, t, body) -> dict:
    """配牌相公 found long: the tiles his rack holds beyond those the hand gives him, picked
    at random (`secrets`) and put back into the walls they came from (journaled corrections
    of the tracking), and the penalty (a journaled report). Then the referee accepts the
    table as it lies. Refused after his first discard: then it is 相公 as the hand plays."""
    status, port, seat = service.status(), service.commands, body["seat"]
    if not status.in_play:
        raise ActionRefused("no hand is in play")
    table, dealer = status.table, status.session.player_at(0)
    catalogue = service.ruleset.table_rules.penalties
    if catalogue is None or LONG not in catalogue.offences:
        raise ActionRefused(f"the rule book {service.ruleset.name} has no offence {LONG!r}")
    if any(s == seat for s, _ in table.discards):
        raise ActionRefused(
            f"{letter(seat)} has discarded: a wrong count is no longer put right, it is played "
            f"as 大相公 ({LONG_RULE})"
        )
    rack = zone("hand", side_of(seat, dealer))
    held = sorted(tile for tile, place in port.layout().items() if place == rack)
    excess = len(held) - len(table.hands[seat])
    if excess <= 0:
        due = len(table.hands[seat])
        raise ActionRefused(
            f"{letter(seat)}'s rack holds {len(held)} tiles, no more than his {due}"
        )
    outputs = port.apply(ev.ViolationReported(t, seat, LONG))
    refusal = next((o for o in outputs if isinstance(o, ev.Alert) and REFUSED in o.message), None)
    if refusal is not None:
        raise ActionRefused(refusal.message)
    for tile in secrets.SystemRandom().sample(held, excess):
        laid = table.wall.laid_at(tile) if table.wall is not None else None
        wall = laid[0] if laid is not None else 0
        port.correct(t, tile, zone("wall", side_of(wall, dealer)))
    port.publish()
    return {"removed": excess, "events": [o.to_json() for o in outputs]}
