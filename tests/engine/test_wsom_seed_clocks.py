"""WSOM's time limits at the table as seed 000 (the Chinese rule book) sets them, 打牌時限:

1. 「每一局內，各家有整局合計3分鐘的打牌時間。逾時者每15秒（或不足15秒）罰扣5分。」
2. 「每一次打牌，選手有15秒的時間。逾時者每15秒（或不足15秒，逐次分開計）罰扣5分。」
3. 「計時的方法：如果是摸牌，則由上家打牌起計；如果是鳴牌，則由所鳴的牌打出起計。
   到自己打牌（以及鳴牌時亮明明張）為止。開槓時，補槓後便算作另一巡。」

Table times come with the inputs (a fake clock, never a sleep): `at` sets the next one.
"""

import pytest

from engine import events as ev
from engine.clocks import Clocks
from tests.support.tablekit import E, Game, N, S, W, of

WSOM_DICE = ((3, 4), (2, 3))  # the deal is at 2.0: the preparation is free until 17.0


def at(game: Game, t: float) -> None:
    """The next input comes at table time t (Game.apply adds its 1 s first)."""
    game.clock = t - 1.0


def penalties(game: Game, seat: int) -> list[tuple[str, int]]:
    return [(p.offence, p.points) for p in of(game.log, ev.PenaltyApplied) if p.seat == seat]


def test_a_discard_exactly_15_seconds_after_the_last_is_within_the_limit(wsom):
    """Seed 000 打牌時限 2 (「逾時者」: only time beyond the 15 s), RULES.md 3.12, A-W14: South
    discards exactly 15.0 s after East's discard, at table times 18.2 and 33.2, whose float
    difference is 15.000000000000004: no overtime."""
    game = Game(wsom, WSOM_DICE, hands=["C", "", "", ""])
    game.start()
    at(game, 18.2)
    game.discard(E, "C")
    game.close()
    game.draw(S)
    at(game, 33.2)
    game.ok(ev.TileDiscarded, S, tile=game.table.hands[S][-1])
    assert penalties(game, S) == []


def test_three_minutes_used_exactly_are_within_the_hand_budget(wsom):
    """Seed 000 打牌時限 1, RULES.md 3.12: 25 turns of 7.2 s are 180.000 s, exactly the
    shipped budget (their float sum is 180.00000000000023): no overtime; one more
    millisecond is one started block over."""
    clocks = Clocks(wsom.table_rules.timing)
    clocks.deal(-100.0)  # the preparation long over
    for turn in range(25):
        clocks.start(S, 30.0 * turn)
        assert clocks.discard(S, 30.0 * turn + 7.2) == []
    clocks.start(S, 1000.0)
    assert [(o.limit, o.blocks) for o in clocks.discard(S, 1000.001)] == [("hand", 1)]


def concealed_kong(game: Game) -> None:
    """East's dealt 14 hold EEEE: he declares the kong."""
    game.kong(E, "E E E E")


def added_kong(game: Game) -> None:
    """East pungs South's C, discards; the round comes back and East draws the fourth C, which
    he adds to his pung (nobody robs it)."""
    game.discard(S, "C")
    game.claim(E, "pung", "C C")
    game.close()
    game.ok(ev.TileDiscarded, E, tile=game.table.hands[E][-1])
    game.close()
    for seat in (S, W, N):
        game.draw(seat)
        game.ok(ev.TileDiscarded, seat, tile=game.table.hands[seat][-1])
        game.close()
    game.draw(E)
    game.kong(E, "C")
    game.close()


def melded_kong(game: Game) -> None:
    """East claims South's C to his concealed CCC (大明槓)."""
    game.discard(S, "C")
    game.claim(E, "kong", "C C C")
    game.close()


KONGS = {
    "concealed": (["EEEE", "", "", ""], {}, concealed_kong),
    "added": (["C C 1m", "C", "", ""], {4: "C"}, added_kong),
    "melded": (["C C C 1m", "C", "", ""], {}, melded_kong),
}


def kong_turn(wsom, kind: str) -> tuple[Game, float]:
    """East has made a kong of `kind` and owes its replacement; the table time from which
    the turn he made it in counts (seed 000 打牌時限 3 and 4: from the discard before his
    draw, or the discard he claimed; the first 15 s after the deal are free)."""
    hands, draws, make = KONGS[kind]
    game = Game(wsom, WSOM_DICE, hands=hands, draws=draws)
    game.start()
    if kind != "concealed":  # East opens; South has the C to discard on his turn
        game.discard(E, "1m")
        game.close()
        game.draw(S)
    make(game)
    clocks = game.table.clocks
    return game, max(clocks.started[E] or 0.0, clocks.free_until)


@pytest.mark.parametrize("kind", list(KONGS))
def test_time_before_a_kong_counts_in_the_turn_and_the_hand(wsom, kind):
    """Seed 000 打牌時限 3 「開槓時，補槓後便算作另一巡」, RULES.md 3.12: the turn a kong is made in
    runs to the replacement; its time is not lost. East draws the replacement 20 s into
    his turn, then discards 1 s later: 5 points for the first turn, none for the second,
    and 21 s of his hand's 3 minutes used."""
    game, began = kong_turn(wsom, kind)
    at(game, began + 20.0)
    assert game.draw(E).replacement
    game.apply(ev.TileDiscarded, E, tile=game.table.hands[E][-1])
    assert penalties(game, E) == [("overtime_discard", 5)]
    assert game.table.clocks.used[E] == 21.0


@pytest.mark.parametrize("kind", list(KONGS))
def test_the_replacement_starts_another_turn_of_15_seconds(wsom, kind):
    """Seed 000 打牌時限 3 「補槓後便算作另一巡」: 14 s before the replacement and 14 s after it are
    two turns, each within its 15 s, not one of 28 s; the hand counts all 28."""
    game, began = kong_turn(wsom, kind)
    at(game, began + 14.0)
    game.draw(E)
    at(game, began + 28.0)
    game.ok(ev.TileDiscarded, E, tile=game.table.hands[E][-1])
    assert penalties(game, E) == []
    assert game.table.clocks.used[E] == 28.0


def test_a_kong_never_gives_back_the_hand_budget(wsom):
    """Seed 000 打牌時限 1, 3 and 5 (「會同時雙重適用」): East thinks 170 s before his kong
    (11 started blocks over that turn's 15 s), then takes 15 s after the replacement, within
    that turn: 185 s of his 3 minutes used, one started block over the hand budget too."""
    game, began = kong_turn(wsom, "concealed")
    at(game, began + 170.0)
    game.draw(E)
    at(game, began + 185.0)
    game.apply(ev.TileDiscarded, E, tile=game.table.hands[E][-1])
    assert penalties(game, E) == [("overtime_discard", 55), ("overtime_hand", 5)]


def test_the_time_before_a_kong_is_charged_when_its_replacement_wins(wsom):
    """Seed 000 打牌時限 3 「補槓後便算作另一巡」: East thinks 20 s before his kong; the replacement
    completes his hand (嶺上開花) and he wins on it. No discard of his brings the first turn's
    overtime, so the win does: 5 points, as if he had discarded."""
    game = Game(wsom, WSOM_DICE, hands=["EEEE 123m 456m 789m 1p", "", "", ""], replacements=["1p"])
    game.start()
    concealed_kong(game)
    began = max(game.table.clocks.started[E] or 0.0, game.table.clocks.free_until)
    at(game, began + 20.0)
    assert game.draw(E).replacement
    game.apply(ev.WinDeclared, E)
    assert game.table.state == "won"
    assert penalties(game, E) == [("overtime_discard", 5)]
