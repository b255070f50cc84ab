"""A CCM 2012 hand settled: every payment in the order it was due, as transfers with their
reasons (engine/rulesets/ccm2012/reasons.py), and the per-seat figures they add up to.

Kongs, flower kongs, 追牌, penalties and fines on the spot (4.10, 4.15, ledger.py), then the
wins in turn order from the discarder with 包付 (4.11, 4.12) out of the chips left; then the
penalties settled after the wins (第三章 第二條 七(二)), held outside the table when the hand
ends the game; all doubled while a winning dealer continues (A-C13), none beyond a payer's
chips (A-C14).
"""

from engine import tiles
from engine.rulebook import HandOutcome, Settlement, TableRules
from engine.rulesets.ccm2012.fans import all_melded
from engine.rulesets.ccm2012.game_end import ends_game
from engine.rulesets.ccm2012.ledger import Due, Ledger, after_win
from engine.rulesets.ccm2012.liability import Claim, liable_player
from engine.rulesets.ccm2012.reasons import paid_lines, win_reason
from engine.rulesets.ccm2012.settlement import Rates, doubled, pay, win_payments
from engine.transfers import HELD, PAYMENT, PENALTY, net


def settle_hand(
    rates: Rates,
    options: dict,
    rules: TableRules,
    outcome: HandOutcome,
    due: list[Due],
    ledger: Ledger,
) -> Settlement:
    """The hand's (payments, penalties, held) and their transfers, after what was `due` on
    the spot was paid as the `ledger` says."""
    wins = [win_due(rates, options, outcome, result) for result in outcome.wins]
    chips, won = pay(rates, ledger.chips, [win.payments for win in wins])
    late = after_win(rates, options["penalty_cap_per_recipient"], outcome.spot, outcome.doubling)
    keeps = rules.dealer_repeats and any(r.winner == 0 for r in outcome.wins)
    held = list(ledger.held)
    if late and ends_game(chips, outcome.time_up, outcome.last_deal, keeps):
        held, late = held + late, []
    paid = [*ledger.moved, *won, *pay(rates, chips, [d.payments for d in late])[1]]
    doubling = outcome.doubling and rates.doubling_factor != 1
    lines = []
    for d, moved in zip([*due, *wins, *late], paid, strict=True):
        if moved is not None:  # None: held (below), or a kong that scores nothing (§15)
            lines += paid_lines(d.payments, moved, d.reason, d.column, doubling)
    for d in held:
        lines += paid_lines(d.payments, None, d.reason, HELD, doubling)
    return Settlement(
        net(lines, PAYMENT), net(lines, PENALTY), tuple(d.payments for d in held), tuple(lines)
    )


def win_due(rates: Rates, options: dict, outcome: HandOutcome, result) -> Due:
    """What a win is due to be paid, by whom and why: 包付 (4.12) or the case of 4.11."""
    liable = liable_player(
        [Claim(*claim) for claim in outcome.claims],
        result.winner,
        result.from_seat,
        tiles.kind_of(result.tile),
        any(p["id"] == "4.8.10" for p in result.score["patterns"]),
        result.hung if all_melded(outcome.melds[result.winner], options) else None,
        options["liability_streak"],
    )
    payments = tuple(result.score["payments"])
    if liable is not None:
        total = result.score["total"]
        payments = win_payments(
            rates, total, result.winner, result.from_seat, result.robbed, liable
        )
    reason = win_reason(liable, result.from_seat, result.robbed)
    return Due(PAYMENT, result.winner, doubled(rates, payments, outcome.doubling), reason=reason)
