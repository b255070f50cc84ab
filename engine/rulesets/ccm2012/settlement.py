"""CCM 2012 payments: the win (RULES.md 4.11), kongs and 追牌 on the spot (4.10), doubling, and
paying out of chips (4.13, A-C13, A-C14, A-C15).

Pure functions over seats 0..3 (E S W N of the hand). A payment is a net change per seat that
sums to zero, but for dead points (one payer, nobody paid); `pay` moves chips for a list of
them in order, never taking more than a payer holds. The session decides when each applies;
nothing here keeps state.
"""

from dataclasses import dataclass

from engine.chipless import fine_payments

Payments = tuple[int, ...]  # per seat, four amounts that sum to zero
MELDED, CONCEALED, ADDED, FLOWER = "melded", "concealed", "added", "flower"


@dataclass(frozen=True)
class Rates:
    """The numbers of config/rules/ccm2012.toml that payments use."""

    discard: int = 2  # 4.11: the discarder pays this many times T
    self_draw_each: int = 1  # 4.11: each of the three pays this many times T
    robbed_kong: int = 3  # 4.11: the konger pays this many times T
    liable: int = 3  # 4.12: a liable player pays this many times T
    chipless_win_fine_each: int = 10  # A-C14: besides the hand score to the chipless player
    melded_kong: int = 12  # 4.10: the feeder of an exposed kong pays 3 x 4
    added_kong_each: int = 4  # A-C12
    concealed_kong_each: int = 6  # 4.10
    flower_kong_each: int = 8  # 4.10, A-C3
    chase_each: int = 4  # 4.10 追牌: the first discarder pays each of three
    doubling_factor: int = 2  # A-C13
    cap_at_chips: bool = True  # A-C14
    block_win_from_chipless: bool = True  # A-C14

    @classmethod
    def from_config(cls, config: dict) -> "Rates":
        payments, instant, options = config["payments"], config["instant"], config["options"]
        return cls(
            payments["discard"],
            payments["self_draw_each"],
            payments["robbed_kong"],
            payments["liable"],
            payments["chipless_win_fine_each"],
            instant["melded_kong"],
            options["added_kong_each_pays"],
            instant["concealed_kong_each"],
            instant["flower_kong_each"],
            instant["chase_each"],
            options["doubling_factor"],
            options["cap_payments_at_chips"],
            options["block_win_from_chipless"],
        )


def _one_to_all(receiver: int, each: int) -> Payments:
    return tuple(3 * each if s == receiver else -each for s in range(4))


def _one_to_one(payer: int, receiver: int, amount: int) -> Payments:
    return tuple(amount if s == receiver else -amount if s == payer else 0 for s in range(4))


def win_payments(
    rates: Rates,
    total: int,
    winner: int,
    discarder: int | None = None,
    robbed_kong: bool = False,
    liable: int | None = None,
) -> Payments:
    """What a win worth T = `total` moves (RULES.md 4.11, 4.12).

    A liable player (liability.liable_player) pays 3T alone, whatever the win; else a robbed
    konger (`discarder` with `robbed_kong`) pays 3T; a discarder 2T; on a self-draw (flower
    and kong replacements and the last tile included) each of the three pays T.
    """
    if liable is not None:
        return _one_to_one(liable, winner, rates.liable * total)
    if discarder is None:
        return _one_to_all(winner, rates.self_draw_each * total)
    times = rates.robbed_kong if robbed_kong else rates.discard
    return _one_to_one(discarder, winner, times * total)


def kong_payments(rates: Rates, konger: int, kind: str, feeder: int | None = None) -> Payments:
    """A kong paid on the spot (RULES.md 4.10): `melded` (from `feeder`'s discard: he pays 12),
    `added` to an exposed pung (A-C12: each of three pays), `concealed` (6 from each) or
    `flower` (all four of a flower group, A-C3: 8 from each)."""
    if kind == MELDED:
        if feeder is None or feeder == konger:
            raise ValueError("a melded kong is paid by the player who discarded its tile")
        return _one_to_one(feeder, konger, rates.melded_kong)
    each = {
        ADDED: rates.added_kong_each,
        CONCEALED: rates.concealed_kong_each,
        FLOWER: rates.flower_kong_each,
    }.get(kind)
    if each is None:
        raise ValueError(f"unknown kong kind {kind!r} (melded, added, concealed or flower)")
    return _one_to_all(konger, each)


def chase_payer(discards: list[tuple[int, int]]) -> int | None:
    """追牌 (RULES.md 4.10): the seat that pays when the last four discards, (seat, tile) in the
    order made, are one tile discarded by the four players one after another; else None."""
    if len(discards) < 4:
        return None
    last = discards[-4:]
    first = last[0][0]
    if all(tile == last[0][1] and seat == (first + i) % 4 for i, (seat, tile) in enumerate(last)):
        return first
    return None


def chase_payments(rates: Rates, payer: int) -> Payments:
    """追牌: the first of the four pays 4 to each of the other three."""
    return tuple(-3 * rates.chase_each if s == payer else rates.chase_each for s in range(4))


def chipless_win_fine(rates: Rates, winner: int, chipless: int, hand_score: int) -> Payments:
    """A-C14, seed 004 §38 一 5: a win taken off a player with no chips: the winner pays that
    player the hand score and chipless_win_fine_each to each of the three (engine/chipless.py,
    where the table proposes it to the referee)."""
    return fine_payments(winner, chipless, hand_score, rates.chipless_win_fine_each)


def discard_win_blocked(rates: Rates, chips, discarder: int) -> bool:
    """RULES.md 4.11, A-C14: nobody may win on the discard of a player with no chips left.
    A robbed kong counts: its konger pays like a discarder."""
    return rates.block_win_from_chipless and chips[discarder] <= 0


def doubled(rates: Rates, payments: Payments, dealer_continues: bool) -> Payments:
    """A-C13 倍打: every score change while a winning dealer keeps the deal is doubled, once:
    the factor never grows with further repeats."""
    factor = rates.doubling_factor if dealer_continues else 1
    return tuple(factor * p for p in payments)


def counter_clockwise_from(discarder: int, winners) -> list[int]:
    """A-C15: several winners on one discard are paid in turn order after the discarder."""
    return sorted(winners, key=lambda s: (s - discarder) % 4)


def transfers(payments: Payments) -> list[tuple[int, int | None, int]]:
    """(payer, receiver, amount) for a payment with one receiver or one payer.

    One payer and several receivers (追牌, penalties): the receivers in turn order after the
    payer, so that a payer short of chips pays them in order (RULES.md 4.15 "in seat order").
    One payer and no receiver: dead points (seed 004 §38 一 6), receiver None.
    """
    payers = [s for s in range(4) if payments[s] < 0]
    receivers = [s for s in range(4) if payments[s] > 0]
    if len(payers) == 1 and not receivers:
        return [(payers[0], None, -payments[payers[0]])]
    if sum(payments):
        raise ValueError(f"payments {payments} do not sum to zero")
    if len(receivers) == 1:
        return [
            (s, receivers[0], -payments[s]) for s in counter_clockwise_from(receivers[0], payers)
        ]
    if len(payers) == 1:
        return [(payers[0], s, payments[s]) for s in counter_clockwise_from(payers[0], receivers)]
    if payers or receivers:
        raise ValueError(f"payments {payments}: several payers and several receivers")
    return []


def pay(rates: Rates, chips, payments_list) -> tuple[tuple[int, ...], list[Payments]]:
    """Apply payments in order (A-C14: "paid until the 100 are used up"; A-C15: several
    winners in turn order from the discarder). Returns the chips after and what each payment
    actually moved; with `cap_at_chips` nobody pays more than he holds at that moment."""
    chips = list(chips)
    made = []
    for payments in payments_list:
        moved = [0, 0, 0, 0]
        for payer, receiver, amount in transfers(payments):
            if rates.cap_at_chips:
                amount = min(amount, max(chips[payer], 0))
            chips[payer] -= amount
            moved[payer] -= amount
            if receiver is not None:
                chips[receiver] += amount
                moved[receiver] += amount
        made.append(tuple(moved))
    return tuple(chips), made
