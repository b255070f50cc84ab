"""Why each CCM 2012 payment is what it is (issue 33): the reason of each transfer of a hand's
settlement and the rule book's article for it (seed 004, its items by their headings: a public
text names no bare number), and the transfers of one payment due as it was paid, short of
chips or held outside the table.
"""

from engine.rulesets.ccm2012.settlement import ADDED, CONCEALED, FLOWER, MELDED, Payments, transfers
from engine.transfers import Transfer

DISCARD_WIN = "discard_win"  # the discarder pays 2T
SELF_DRAW_WIN = "self_draw_win"  # each of the three pays T
ROBBED_KONG_WIN = "robbed_kong_win"  # the konger pays 3T
LIABLE_WIN = "liable_win"  # 包付: one pays 3T for all three
KONGS = {  # a kong's kind (settlement.kong_payments, HandState.spot) -> its reason
    MELDED: "melded_kong",  # the feeder pays 12
    ADDED: "added_kong",  # each of three pays 4 (A-C12)
    CONCEALED: "concealed_kong",  # each of three pays 6
    FLOWER: "flower_kong",  # each of three pays 8
}
CHASE = "chase"  # 追牌: the first of the four pays 4 to each of the three
PENALTY_EACH = "penalty_each"  # the offender pays each of the other three
PENALTY_TO = "penalty_to"  # all the points to the player the offence disadvantaged
DEAD_POINTS = "dead_points"  # taken out of the table, paid to nobody
CHIPLESS_FINE = "chipless_fine"  # a win off a chip-less player: his score and 10 to each

_KONG_RULE = "RULES.md 4.10 (第一條十五, 三十六 現場匯)"
RULES = {
    DISCARD_WIN: "RULES.md 4.11 (第九條 四(一) 點和)",
    SELF_DRAW_WIN: "RULES.md 4.11 (第九條 四(二) 自摸)",
    ROBBED_KONG_WIN: "RULES.md 4.11 (第九條 四(二) 搶槓和牌由槓牌者一家支付)",
    LIABLE_WIN: "RULES.md 4.12 (第一條三十四 包付)",
    **{reason: _KONG_RULE for reason in KONGS.values()},
    CHASE: "RULES.md 4.10 (第一條三十七 追牌現場匯)",
    PENALTY_EACH: "RULES.md 4.15 (第三章 第一條 二(二) 均分給其他三家)",
    PENALTY_TO: "RULES.md 4.15 (第一條三十八 罰分：判給明顯虧損方)",
    DEAD_POINTS: "RULES.md 4.15 (第一條三十八 罰分：盤外的死分)",
    CHIPLESS_FINE: "RULES.md 4.11 (第一條三十八 付分：對無分者和牌)",
}


def win_reason(liable: int | None, discarder: int | None, robbed: bool) -> str:
    """The case of win_payments (RULES.md 4.11, 4.12) a win is paid under."""
    if liable is not None:
        return LIABLE_WIN
    if discarder is None:
        return SELF_DRAW_WIN
    return ROBBED_KONG_WIN if robbed else DISCARD_WIN


def paid_lines(
    due: Payments, moved: Payments | None, reason: str, column: str, doubled: bool
) -> list[Transfer]:
    """The transfers of a payment `due` in `column`, as it `moved` (settlement.pay: a payer
    short of chips pays what he has, 付完為止 A-C14), or as due (`moved` None: held outside
    the table, seed 004 第一條三十二)."""
    payers = sum(1 for s in range(4) if due[s] < 0)
    lines = []
    for payer, payee, amount in transfers(due):
        paid = amount
        if moved is not None:  # one payer, or one payee: each transfer is one seat's move
            paid = moved[payee] if payers == 1 and payee is not None else -moved[payer]
        line = Transfer(payer, payee, paid, reason, RULES[reason], column, doubled, paid < amount)
        lines.append(line)
    return lines
