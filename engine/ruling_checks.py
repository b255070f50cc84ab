"""Why a referee's Ruling on a proposed penalty cannot stand as given, for engine/referee.py:
its points given where the rule book allows no choice, or to the wrong player (seed 004 §38
一 6); its penalty tiles of the wrong number, or not the offender's to give (seed 000 錯鳴 3,
7). Each answers "" when the ruling may stand; the penalty still waits when it may not.
"""

from engine import events as ev
from engine.penalties import Catalogue, Penalty
from engine.penalty_tiles import named_problem


def allocation_problem(catalogue: Catalogue | None, penalty: Penalty, ruling: ev.Ruling) -> str:
    """Why the points cannot go where the ruling gives them (seed 004 §38 一 6: to the
    player the offence disadvantaged, or dead points), or ""."""
    if catalogue is None or not catalogue.allocatable:
        return (
            "this rule book gives no choice of who is paid a penalty (seed 000 行為守則, "
            "RULES.md 3.13: deducted from the offender alone)"
        )
    if not ruling.apply:
        return "a waived penalty pays nobody: a player paid or dead points go with apply"
    if not penalty.points:
        return f"the penalty ({penalty.offence}) has no points to give"
    if ruling.to is not None and ruling.dead:
        return "the points go to the player disadvantaged or are dead points, not both"
    if ruling.to is not None and (ruling.to not in range(4) or ruling.to == penalty.seat):
        return (
            "the points go to another player at the table (E, S, W or N), not the offender "
            "(seed 004 §38 一 6 明顯虧損方)"
        )
    return ""


def choice_problem(penalty: Penalty, ruling: ev.Ruling, hand, held) -> str:
    """Why the referee's penalty tiles cannot stand, or "": as many as the penalty takes,
    each one of the offender's concealed tiles (`hand`) not already a penalty tile (`held`)."""
    chosen = ruling.tiles
    if not ruling.apply:
        return "a waived penalty takes no penalty tiles"
    if len(chosen) != len(penalty.penalty_tiles):
        return f"the penalty takes {len(penalty.penalty_tiles)} penalty tiles, {len(chosen)} named"
    return named_problem(penalty.seat, chosen, hand, held)
