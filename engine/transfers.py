"""A hand's settlement as transfers, each with its reason (issue 33: the draw and win panels
say why each payment is what it is): who pays whom how much, and by which rule. The rule book
that settles the hand makes them in the same pass as its per-seat figures (Settlement.lines),
so a referee checking a sheet reads the figures' own reasons, never a second computation.
"""

from typing import NamedTuple

# the sheet's columns a transfer falls in: the hand's payments, its penalties, or held outside
# the table until the game ends (CCM 4.13, seed 004 第一條三十二)
PAYMENT, PENALTY, HELD = "payments", "penalties", "held"


class Transfer(NamedTuple):
    """One payment of a settlement: `payer` gives `amount` to `payee` (None: to nobody, WSOM's
    deducted points or CCM's dead points); `reason` names the rule book's case, `rule` cites it.
    `doubled`: 倍打 doubled it (CCM A-C13); `short`: the payer paid the chips he had left,
    less than was due (付完為止, A-C14)."""

    payer: int
    payee: int | None
    amount: int
    reason: str
    rule: str
    column: str = PAYMENT
    doubled: bool = False
    short: bool = False


def net(lines, column: str) -> tuple[int, ...]:
    """What the transfers of one column change per seat, E S W N: the figure they explain."""
    change = [0, 0, 0, 0]
    for line in lines:
        if line.column == column:
            change[line.payer] -= line.amount
            if line.payee is not None:
                change[line.payee] += line.amount
    return tuple(change)
