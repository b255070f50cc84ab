"""Who pays what for a WSOM win (RULES.md 1.3), and who is responsible for a discard."""

from engine.scoring import Win
from engine.tiles import kind_of


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
