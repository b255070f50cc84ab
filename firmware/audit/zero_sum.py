"""The rule book's zero-sum check of one hand's line of the score sheet: the one the desk, the
exports (JSON, CSV, PDF) and the venue's round report use (issue 36 item 4), so a signed
sheet and the venue never disagree.

RULES.md 1.3: the hand's payments add up to nothing. A penalty is the rule book's: CCM pays
it to the other players, so the penalty points add up to nothing too, but for the dead points
made of them (seed 004 §38 一 6: paid to nobody); WSOM deducts it from the
offender (seed 000 罰則: 扣分), so its points leave the table by design and are no failure.
CCM's amounts held outside the table until the game's end (seed 004 §32) are payments too:
each adds up to nothing.
"""

from collections.abc import Sequence


def penalties_kept(ruleset) -> bool:
    """Whether the rule book's penalties stay among the table's chips, paid to the others or
    made dead points (CCM), rather than deducted from the offender's score (WSOM)."""
    return ruleset.table_rules.start_chips is not None


def check(
    changes: Sequence[int],
    penalties: Sequence[int],
    dead: int,
    kept: bool,
    held: Sequence[int] | None = None,
) -> dict:
    """One line checked: {"ok", "problems"}, each problem in words. `kept`: the rule
    book's penalties stay among the chips (penalties_kept); `held`: what the hand held
    outside the table, per player (None: not known here)."""
    problems = []
    payments, fines, outside = sum(changes), sum(penalties), sum(held or ())
    if payments:
        problems.append(f"the payments add up to {payments}, not 0")
    if kept and fines + dead:
        problems.append(
            f"the penalties add up to {fines}, not 0"
            + (f" with {dead} dead points" if dead else "")
        )
    if outside:
        problems.append(f"the amounts held outside the table add up to {outside}, not 0")
    return {"ok": not problems, "problems": problems}
