"""A win the referee's ruling on an alert would score again (`Rescoring`), and the seeds'
rule of the drawn tile kept apart until the hand is shown (seed 000 九蓮寶燈自摸規條; seed 004
單放): the alert that asks the referee, or tells him, when a self-drawn win scored with its
drawn tile mixed in would lose a pattern. engine/referee.py numbers the alerts and keeps the
rescorings awaiting a ruling; engine/winning.py scores them again.
"""

from typing import TYPE_CHECKING, NamedTuple

from engine import events as ev
from engine.scoring import Pattern, Score
from engine.seats import letter

if TYPE_CHECKING:
    from engine.referee import Referee


class Rescoring(NamedTuple):
    """A win the referee's ruling on an alert would score again: the discarder's follow-tile
    claim (seed 000 和牌的計分 8) names who pays; the drawn tile mixed in (九蓮寶燈自摸規條) adds
    the scorer's flag for it."""

    result: int  # the win's index in the hand's results
    payer: int | None  # who pays for the win scored again (None: nobody, each pays)
    rule: str  # the rule the alert names
    flags: frozenset[str] = frozenset()  # the scorer's flags the ruling adds


def lost_patterns(score: Score, mixed: Score) -> list[Pattern]:
    """The patterns a win would lose scored with its drawn tile mixed in; none if that would
    be no win at all."""
    kept = {p.id for p in mixed.patterns}
    return [p for p in score.patterns if p.id not in kept] if mixed.legal else []


def drawn_tile_apart(
    referee: "Referee",
    t,
    winner: int,
    score: Score,
    mixed: Score,
    rescoring: Rescoring,
    rule: str,
) -> list[ev.Alert]:
    """The seed's `rule` (九蓮寶燈自摸規條, 單放): a self-drawn win keeps a pattern only if
    the drawn tile was kept apart until shown, which the table did not see: where the win
    scored with the tile mixed in (`mixed`) would lose one, the referee is asked."""
    lost = lost_patterns(score, mixed)
    if not lost:
        return []
    message = (
        f"{letter(winner)}'s self-drawn {lost[0].name} stands only if the drawn tile was "
        f"kept apart until the hand was shown ({rule}): rule 'apply' if it "
        "was mixed into the hand, to score the win without it; 'waive' if it was kept apart"
    )
    section = f"RULES.md {lost[0].id}"  # a pattern's id is its RULES.md section
    return [referee.propose_rescoring(t, message, rescoring._replace(rule=section))]


def drawn_tile_seen(
    referee: "Referee", t, winner: int, score: Score, mixed: Score, rule: str
) -> list[ev.Alert]:
    """The seed's `rule`: the rack reader saw the drawn tile join the hand before the win
    was declared: the win is scored without what that loses, and the referee told why."""
    lost = lost_patterns(score, mixed)
    if not lost:
        return []
    message = (
        f"{letter(winner)}'s drawn tile joined his hand before he declared the win: no "
        f"{lost[0].name} ({rule})"
    )
    return [referee.alert(t, winner, f"RULES.md {lost[0].id}", message)]
