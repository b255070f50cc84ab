"""A ruling that outlives its hand (issue 36 item 1): the referee, called across the hall,
arrives after the next hand's walls rose. His Ruling (or PenaltyRevoked) names the hand it
belongs to (`hand`); it is journaled as an input like any other and applied to that hand's
table, the last one on the score sheet, whose row is settled again (the penalty on that
hand's row, the session's scores after it), while the hand in play goes on. A replay of the
journal applies it to the hand it names (firmware/journal/replay.py `ruled_on`), so a table
resumed after a power cut and the exported sheet have it as the table had it.

Only the last hand on the sheet, in a game still going, can be ruled on so (Session
settles_again): once a further hand has ended, or its game, its rulings are the head
referee's, outside the table.
"""

from engine import events as ev
from firmware.texts.console import describe


def last_hand(hands):
    """The last hand on the score sheet, (its number, its table), if it can be ruled on yet;
    else None."""
    session = hands.session
    if not session.sheet or session.last is None or not session.settles_again(session.last):
        return None
    return session.sheet[-1].number, session.last


LateInput = ev.Ruling | ev.PenaltyRevoked | ev.WaiveUndone  # the inputs that may name a hand


def apply_late(hands, event: LateInput) -> list[ev.Event] | str:
    """Journal `event` and apply it to the hand it names; its outputs, or why it cannot be."""
    ruled = last_hand(hands)
    if ruled is None or ruled[0] != event.hand:
        return (
            f"hand {event.hand} can no longer be ruled on at the table: only the last hand on "
            "the score sheet, its game still going (the head referee rules on the sheet)"
        )
    table = ruled[1]
    hands.journal.input(event)
    outputs = table.apply(event)
    hands.journal.outputs(outputs)
    for out in outputs:
        line = describe(out, hands.ruleset)
        if line:
            hands.out(f"{out.t:9.1f}  hand {event.hand}: {line}")
    if any(isinstance(out, ev.RESETTLED) for out in outputs):
        hands.settle_again(event.t, table)  # on the sheet already: before it is shown
    hands.publish(outputs)
    return outputs
