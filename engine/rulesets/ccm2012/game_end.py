"""局結: when a CCM game ends, and the ban on ending it "non-victoriously" (RULES.md 4.13).

Seed §32: near the end, a player who would not be first may not end the game by winning, nor
by a kong; the amounts of a kong or a penalty that would end it so are held outside the table
and added after the game (engine/rulesets/ccm2012/ledger.py, where seed §15's "the kong scores
nothing" is the option).
"""

from engine.rulesets.ccm2012.settlement import Payments, Rates, pay


def chipless(chips) -> int:
    """How many players have no chips left."""
    return sum(1 for c in chips if c <= 0)


def game_over(chips, scheduled_done: bool = False, time_up: bool = False) -> str | None:
    """Why the game has ended after a hand (RULES.md 4.13), or None: two players without
    chips; the scheduled rounds played; the time up (the hand in progress was finished)."""
    if chipless(chips) >= 2:
        return "two players have no chips left (RULES.md 4.13)"
    if scheduled_done:
        return "the scheduled rounds are played (RULES.md 4.13)"
    if time_up:
        return "time is up and the hand in progress is finished (RULES.md 4.3, 4.13)"
    return None


def ends_game(after, time_up: bool, last_deal: bool, dealer_keeps: bool) -> bool:
    """A hand settled to chips `after` ends the game: two players without chips, the game's
    time up (seed 第五條: its last win or draw, whoever wins), or its last deal with the deal
    passing (`dealer_keeps`: a winning dealer keeps it, 連莊)."""
    return chipless(after) >= 2 or time_up or (last_deal and not dealer_keeps)


def is_first(chips, seat: int) -> bool:
    """The seat holds the most chips (a tie for the most counts as first)."""
    return chips[seat] == max(chips)


def win_banned(
    rates: Rates, chips, payments: Payments, winner: int, last_hand: bool = False
) -> bool:
    """Seed §32: the win would end the game (two players left without chips, or it ends the
    last hand of the game) and the winner would not be first after it: he must play on."""
    after, _ = pay(rates, chips, [payments])
    return (chipless(after) >= 2 or last_hand) and not is_first(after, winner)


def ends_game_unwon(after, actor: int) -> bool:
    """Seed §32: chips `after` a kong's or a penalty's payment would end the game (two players
    without chips) with its maker (the konger, the penalised player) not first."""
    return chipless(after) >= 2 and not is_first(after, actor)


def release_held(rates: Rates, chips, held: list[Payments]) -> tuple[int, ...]:
    """The game's final chips: the held amounts added after it ended, in the order held."""
    return pay(rates, chips, held)[0]
