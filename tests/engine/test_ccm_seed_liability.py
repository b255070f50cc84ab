"""CCM 2012 at the table as seed 004 has it (issue 13 items 1-4, 7): the 全求獨釣 liability
follows the hung tile and needs four claimed sets (§34 險牌(2)); the table itself tells the
scorer of a last copy, from another player's pung or a robbed added kong (第九條三 8 夾絕張).

Hands are dealt by tests/support/tablekit.py; seats 0..3 = E S W N, East deals; every live draw a
test
reaches is named, so no flower comes up.
"""

from engine import events as ev
from tests.support.ruleskit import with_options
from tests.support.tablekit import E, Game, N, S, W, of

CCM_DICE = (3, 4)
# West's 清龍 in bamboo with a closed 4p-6p: 10 + 門清 8, and 夾絕張 20 on the last 5p.
CLOSED_5P = "46p 123s 456s 789s 99m"


def pung(game, seat, name) -> None:
    """`seat` pungs the discard on the table with his two `name`s."""
    game.claim(seat, "pung", f"{name} {name}")
    game.close()


def dealt(ruleset, hands, **layout) -> Game:
    """A hand dealt and started, every player with chips enough to pay any win in full."""
    game = Game(ruleset, CCM_DICE, hands=hands, **layout)
    game.table.chips = [300] * 4
    game.start()
    return game


def feed(game, seat, name) -> None:
    """`seat` draws (when it is his to) and discards `name`, open to calls."""
    if game.table.state == "draw":
        game.draw(seat)
    game.discard(seat, name)


def pass_on(game, seat, name) -> None:
    """`seat` draws (when it is his to) and discards `name`; nobody calls it."""
    feed(game, seat, name)
    game.close()


def four_pungs(ccm, draws) -> Game:
    """North pungs 2m and 8m from East, 2p and 8p from South (no three in a row from one
    player: no streak liability), discarding C F P W; he is left hanging 5s."""
    north = "2m 2m 8m 8m 2p 2p 8p 8p 5s C F P W"
    game = dealt(ccm, ["2m 8m 5s 7s", "2p 8p", "", north], draws=draws)
    game.discard(E, "2m")
    pung(game, N, "2m")
    pass_on(game, N, "C")
    feed(game, E, "8m")
    pung(game, N, "8m")
    pass_on(game, N, "F")
    pass_on(game, E, "1s")
    feed(game, S, "2p")
    pung(game, N, "2p")
    pass_on(game, N, "P")
    pass_on(game, E, "1p")
    feed(game, S, "8p")
    pung(game, N, "8p")
    pass_on(game, N, "W")
    return game


def win_on(game, seat) -> ev.Won:
    game.ok(ev.ClaimDeclared, seat, claim="win")
    return of(game.close(), ev.Won)[0]


def payments(ccm, game) -> tuple[int, ...]:
    return ccm.settle(game.table.outcome()).payments


FOUR_PUNG_DRAWS = ["9m", "1s", "9p", "1p", "9s"]


def test_liability_on_the_tile_hung_when_the_fourth_set_was_claimed(ccm):
    """Seed 004 §34 險牌(2)「當一家形成全求獨釣…該張牌的前後總計五張相關牌的點炮，均為包牌」:
    East deals into North's hung 5s: 全求獨釣 20 + 對對和 20, East pays 3T alone."""
    game = four_pungs(ccm, FOUR_PUNG_DRAWS + ["3s"])
    feed(game, E, "5s")
    won = win_on(game, N)
    assert {p["id"] for p in won.score["patterns"]} == {"4.8.5", "4.8.7"}
    assert payments(ccm, game) == (-120, 0, 0, 120)


def test_no_liability_once_the_hung_tile_is_changed(ccm):
    """Seed 004 §34 險牌(2)「掛牌方換牌後，點炮方不再包牌，僅處理為點炮」: North draws 7s and
    discards his hung 5s; East's 7s later is an ordinary discard win, 2T."""
    game = four_pungs(ccm, FOUR_PUNG_DRAWS + ["E", "S", "N", "7s", "1m"])
    pass_on(game, E, "E")
    pass_on(game, S, "S")
    pass_on(game, W, "N")
    pass_on(game, N, "5s")
    assert game.table.hung[N] is None
    feed(game, E, "7s")
    won = win_on(game, N)
    assert won.score["total"] == 40
    assert payments(ccm, game) == (-80, 0, 0, 80)


def test_no_liability_with_a_concealed_kong_among_the_four(ccm):
    """Seed 004 §34「當一家形成全求獨釣」, A-C8: a concealed kong is not a set claimed from
    others, so three pungs and a concealed kong are no 全求獨釣 (對對和 20 and the 單吊 4) and
    East's 5s is an ordinary discard win, 2T, beside the kong's 6 from each on the spot."""
    game = dealt(
        ccm,
        ["E 2m 8m 5s", "2p", "", "9s 9s 9s 9s 2m 2m 8m 8m 2p 2p 5s C F"],
        draws=["S", "N", "P", "1s", "9m", "1p", "9p", "3s"],
        replacements=["W"],
    )
    pass_on(game, E, "E")
    pass_on(game, S, "S")
    pass_on(game, W, "N")
    game.draw(N)
    game.kong(N, "9s 9s 9s 9s")
    game.draw(N)
    pass_on(game, N, "P")
    for feeder, name, junk in ((E, "2m", "C"), (E, "8m", "F"), (S, "2p", "W")):
        if feeder == S:
            pass_on(game, E, "1p")
        feed(game, feeder, name)
        pung(game, N, name)
        pass_on(game, N, junk)
    feed(game, E, "5s")
    won = win_on(game, N)
    assert {p["id"]: p["points"] for p in won.score["patterns"]} == {"4.8.5": 20, "4.9.2": 4}
    assert payments(ccm, game) == (-6 - 48, -6, -6, 18 + 48)


def test_last_copy_from_another_players_pung(ccm):
    """Seed 004 第九條三 8 夾絕張「牌池內已經出現碰牌的刻子，剩餘的唯一牌張被夾牌而和牌」: South's
    exposed 5p pung leaves North's 5p the last copy; West wins it on his closed 4p-6p, and the
    table itself tells the scorer: 清龍 10 + 夾絕張 20 + 門清 8, no single-tile 4 (A-C7)."""
    game = dealt(ccm, ["5p", "5p 5p C", CLOSED_5P, "5p"], draws=["E", "S"])
    game.discard(E, "5p")
    pung(game, S, "5p")
    pass_on(game, S, "C")
    pass_on(game, W, "E")
    feed(game, N, "5p")
    won = win_on(game, W)
    assert "last_copy" in won.flags
    assert {p["id"]: p["points"] for p in won.score["patterns"]} == {
        "4.8.2": 10,
        "4.8.8": 20,
        "4.9.7": 8,
    }


def test_robbed_added_kong_is_a_last_copy(ccm):
    """Seed 004 第九條三 8 夾絕張 and 第九條二十一 搶槓: South adds the fourth 5p to his pung;
    West robs it on his closed 4p-6p: the konger's pung holds the other three, so it is
    夾絕張, and South pays 3T = 3 x 38."""
    game = dealt(ccm, ["5p", "5p 5p C", CLOSED_5P, ""], draws=["E", "S", "N", "5p"])
    game.discard(E, "5p")
    pung(game, S, "5p")
    pass_on(game, S, "C")
    pass_on(game, W, "E")
    pass_on(game, N, "S")
    pass_on(game, E, "N")
    game.draw(S)
    game.kong(S, "5p")
    won = win_on(game, W)
    assert "4.8.8" in {p["id"] for p in won.score["patterns"]}
    assert won.score["total"] == 38
    assert payments(ccm, game) == (0, -114, 114, 0)


def three_in_the_rivers(ruleset) -> ev.Won:
    """Three 5p discarded, none claimed; West wins the fourth on his closed 4p-6p."""
    game = dealt(ruleset, ["5p 5p", "5p", CLOSED_5P, "5p"], draws=["E", "S", "N", "1m"])
    game.discard(E, "5p")
    game.close()
    for seat, name in ((S, "5p"), (W, "S"), (N, "5p")):
        pass_on(game, seat, name)
    feed(game, E, "5p")
    return win_on(game, W)


def test_last_copy_needs_a_pung_by_default(ccm):
    """Seed 004 第九條三 8 names a pung on the table (「已經出現碰牌的刻子」): three copies lying
    in the rivers are no 夾絕張 under the default last_copy_from = "pung"; West's closed wait
    takes the single-tile 4 instead."""
    won = three_in_the_rivers(ccm)
    assert {p["id"]: p["points"] for p in won.score["patterns"]} == {
        "4.8.2": 10,
        "4.9.2": 4,
        "4.9.7": 8,
    }


def test_last_copy_from_every_copy_seen_option():
    """Seed 004 第九條三 8, last_copy_from = "seen": the other three copies in sight anywhere
    (here all in the rivers) make the last copy, 夾絕張."""
    won = three_in_the_rivers(with_options(last_copy_from="seen"))
    assert "4.8.8" in {p["id"] for p in won.score["patterns"]}
