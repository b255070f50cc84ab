"""Who pays what for a WSOM win (RULES.md 1.3), and who is responsible for a discard."""

from engine.scoring import Win
from engine.tiles import kind_of
from engine.transfers import PENALTY, Transfer

# The cases of seed 000 計分系統 得分授受法 (RULES.md 1.3), each a Transfer's reason, with the
# heading of the seed's item it falls under (a heading, not the item's number: a public text
# names no bare number, tests/firmware/display/test_public_texts.py)
SELF_DRAW_EACH = "self_draw_each"  # 2 自摸各家分付: each pays the value
SMALL_HAND_EACH = "small_hand_each"  # 3: a discard win up to the standard score, each pays it
STANDARD_SHARE = "standard_share"  # 3: above it, each non-responsible player pays the standard
DISCARDER_REST = "discarder_rest"  # 3 銃家包付餘數: the discarder pays the rest of 3 x value
FOLLOW_TILE_REST = "follow_tile_rest"  # 4 跟張免責: the first to discard the tile pays the rest
NO_DISCARDER_EACH = "no_discarder_each"  # 4: the winner discarded it first, each pays the value
DEDUCTED = "deducted"  # RULES.md 3.13: penalty points deducted from the offender, paid to nobody
SELF_DRAW_ITEM, DISCARD_ITEM, FOLLOW_TILE_ITEM = "自摸各家分付", "出銃包付大牌", "跟張免責規條"
HEADINGS = {
    SELF_DRAW_EACH: SELF_DRAW_ITEM,
    SMALL_HAND_EACH: DISCARD_ITEM,
    STANDARD_SHARE: DISCARD_ITEM,
    DISCARDER_REST: DISCARD_ITEM,
    FOLLOW_TILE_REST: FOLLOW_TILE_ITEM,
    NO_DISCARDER_EACH: FOLLOW_TILE_ITEM,
}


def hand_payments(value: int, win: Win, standard_score: int) -> tuple[int, ...]:
    """Each seat's net change, E S W N, for a win worth `value` (A-W2: `<=` is the equal split).

    Self-draw, a win with nobody responsible, or a value up to the standard score: each
    opponent pays the value. Above it the two others pay the standard score and the responsible
    player the rest, so the winner always receives three times the value.
    """
    pay = [0, 0, 0, 0]
    others = [seat for seat in range(4) if seat != win.winner]
    if win.self_drawn or win.responsible is None or value <= standard_score:
        for seat in others:
            pay[seat] = -value
    else:
        for seat in others:
            pay[seat] = -standard_score
        pay[win.responsible] = -(3 * value - 2 * standard_score)
    pay[win.winner] = 3 * value
    return tuple(pay)


def win_lines(
    payments: tuple[int, ...], winner: int, from_seat: int | None, standard_score: int
) -> list[Transfer]:
    """The transfers of a win's `payments` (as hand_payments made them, stored with its score)
    to the winner, in turn order after him, each with its case: the responsible player is the
    one who pays more than the others, the discarder or, by the exemption, another."""
    payers = [(winner + offset) % 4 for offset in (1, 2, 3)]
    amounts = [-payments[seat] for seat in payers]
    uneven, top = len(set(amounts)) > 1, max(amounts)
    lines = []
    for seat, amount in zip(payers, amounts, strict=True):
        if from_seat is None:
            reason = SELF_DRAW_EACH
        elif uneven and amount == top:
            reason = DISCARDER_REST if seat == from_seat else FOLLOW_TILE_REST
        elif uneven:
            reason = STANDARD_SHARE
        else:
            reason = SMALL_HAND_EACH if amount <= standard_score else NO_DISCARDER_EACH
        rule = f"RULES.md 1.3 ({HEADINGS[reason]})"
        lines.append(Transfer(seat, winner, amount, reason, rule))
    return lines


def deducted(penalty) -> Transfer:
    """A penalty's points, deducted from the offender and paid to nobody (RULES.md 1.3, 3.13:
    行為守則 扣分), under the rule of its offence."""
    return Transfer(penalty.seat, None, penalty.points, DEDUCTED, penalty.rule, PENALTY)


def responsible_seat(
    discards: list[tuple[int, int]],
    winner: int,
    robbed_kong: bool = False,
    include_winner_discard: bool = True,
    exemption_on_robbed_kong: bool = False,
) -> int | None:
    """The seat that pays for a discard win under the follow-tile exemption (跟張免責).

    `discards` are the hand's (seat, physical tile) discards in order, the winning tile last
    (for a robbed kong: the added tile, by the konger). Within the window from the winner's
    most recent discard (A-W4: included) to the winning discard, the first to have discarded
    a tile of the winning kind (another copy, never the same tile) is responsible; if that is
    the winner himself nobody is. A-W5: with the option off a robbed kong is no discard and
    the konger pays.
    """
    *earlier, (discarder, win_tile) = discards
    if robbed_kong and not exemption_on_robbed_kong:
        return discarder
    own = [i for i, (seat, _) in enumerate(earlier) if seat == winner]
    start = (own[-1] if include_winner_discard else own[-1] + 1) if own else 0
    for seat, tile in earlier[start:]:
        if kind_of(tile) == kind_of(win_tile):
            return None if seat == winner else seat
    return discarder
