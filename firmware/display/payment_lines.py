"""Why each payment of the result panel is what it is (issue 33): the settlement's transfers
as the rule book made them with its figures (engine/transfers.py, Settlement.lines), carried
by the result document for result.js to show under each seat's figure. Nothing is worked out
again here: each line is one transfer, its words come from the page's one vocabulary.
"""

from engine.transfers import Transfer
from firmware.texts.citations import cite
from firmware.texts.notices import both


def payment_lines(lines: tuple[Transfer, ...], who, chips: bool) -> list[dict]:
    """Each transfer: the payer, the payee (or, paid to nobody, "dead" points under a rule book
    played with chips, CCM seed 004 第一條三十八 (一) 6, else "deducted", WSOM RULES.md 3.13),
    the amount, the reason's code, the sheet's column (payments, penalties, held), whether
    倍打 doubled it or the payer was short of chips, and the rule book's article."""
    nobody = "dead" if chips else "deducted"
    return [
        {
            "payer": who(line.payer),
            "payee": nobody if line.payee is None else who(line.payee),
            "amount": line.amount,
            "reason": line.reason,
            "column": line.column,
            "doubled": line.doubled,
            "short": line.short,
            "rule": line.rule,
            "rule_text": both(cite, line.rule),  # the rule book's article (issue 33)
        }
        for line in lines
    ]
