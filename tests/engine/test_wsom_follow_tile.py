"""The follow-tile exemption (跟張免責, RULES.md 1.3; A-W3, A-W4, A-W5) found at the table.

Seed 000, 得分授受法 4: 「跟張免責規條：銃和時，如果由和牌者上一次打出牌起計（包括該張），至出銃
之前，曾有人打出過跟出銃牌同樣的一張牌，則出銃者可以免負「銃家」的責任，以該巡內（和牌者上一次
打牌起）最先打出該張牌的一家為銃家。但如果是由和牌者自己先打出該張牌，則當作沒有銃家，各家分付。」

"The same tile" is the same kind: every discard here is a different physical copy.
Seed 000, 和牌的計分 8: 「提出適用「跟張免責規條」﹐是放銃者的責任。」 So with the shipped
config (A-W3) the table proposes the exemption in an alert and the discarder pays until he
claims it; with
`auto_apply_follow_exemption` on, the payment falls on the seat the seed names.
"""

import copy
import tomllib

from engine import events as ev
from engine.rulesets import build
from tests.conftest import REPO
from tests.support.followkit import (
    FOLLOWED,
    NORTH_WAITS_9P,
    exemption_alerts,
    north_wins_on_south,
    turn,
)
from tests.support.tablekit import WSOM_DICE, E, Game, N, S, W, of

CONFIG = tomllib.loads((REPO / "config" / "rules" / "wsom2006.toml").read_text("utf-8"))


def auto_applied():
    """The rule book with A-W3's switch on: the table applies the exemption itself."""
    config = copy.deepcopy(CONFIG)
    config["options"]["auto_apply_follow_exemption"] = True
    return build(config)


def followed_game(ruleset) -> Game:
    """North discards (his go-around starts), East discards a 9p, South follows with 9p."""
    return Game(ruleset, WSOM_DICE, hands=["", "", "9p", NORTH_WAITS_9P], draws={3: "9p", 4: "9p"})


def test_followed_discard_is_proposed_and_the_discarder_pays_until_he_claims(wsom):
    """跟張免責 with the shipped config (A-W3, seed 和牌的計分 8: claiming is the discarder's job):
    South's 9p follows East's within North's go-around; South pays as discarder and the table
    proposes East, 「該巡內…最先打出該張牌的一家」."""
    out = north_wins_on_south(followed_game(wsom), FOLLOWED)
    [won] = of(out, ev.Won)
    assert (won.seat, won.from_seat) == (N, S)
    assert won.score["total"] == 50 and won.score["payments"] == [-30, -90, -30, 150]
    assert exemption_alerts(out) == [
        "follow-tile exemption (跟張免責): E rather than S would pay for N's win "
        "if the discarder claims it"
    ]


def test_followed_discard_exempts_the_discarder_east_pays():
    """跟張免責, A-W3 applied: 「出銃者可以免負「銃家」的責任」 — East, the first to discard 9p
    since North's last discard, pays the 90 above the standard score; South pays 30."""
    out = north_wins_on_south(followed_game(auto_applied()), FOLLOWED)
    [won] = of(out, ev.Won)
    assert won.score["payments"] == [-90, -30, -30, 150]


def test_winner_discarded_the_kind_first_nobody_is_responsible():
    """跟張免責, A-W4 (the winner's discard is in the window, 「包括該張」): North discards a 9p
    and wins on South's: 「當作沒有銃家，各家分付」, each pays the 50."""
    game = Game(auto_applied(), WSOM_DICE, hands=["", "9p", "", NORTH_WAITS_9P], draws={2: "9p"})
    out = north_wins_on_south(game, [(E, None), (S, None), (W, None), (N, "9p"), (E, None)])
    assert of(out, ev.Won)[0].score["payments"] == [-50, -50, -50, 150]


def test_only_the_go_around_counts():
    """跟張免責: East's 9p came before North's last discard, outside 「由和牌者上一次打出牌起計」;
    South's came after it: South, the first within the go-around, pays for West's 9p."""
    game = Game(auto_applied(), WSOM_DICE, hands=["9p", "9p", "9p", NORTH_WAITS_9P])
    before = [(E, "9p"), (S, None), (W, None), (N, None), (E, None), (S, "9p")]
    game.start()
    for seat, name in before:
        turn(game, seat, name)
    game.draw(W)
    game.discard(W, "9p")
    game.claim(N, "win")
    out = game.apply(ev.ClaimWindowClosed, None)
    assert of(out, ev.Won)[0].score["payments"] == [-30, -90, -30, 150]


def robbed_kong_game(ruleset) -> list:
    """West discards (his go-around starts); North discards 6s, South pungs it and discards C,
    North pungs that and discards; East discards; South adds the drawn 6s, West robs it."""
    game = Game(
        ruleset,
        WSOM_DICE,
        hands=["", "6s 6s C", "123m 456m 789m 45s 99p", "6s CC"],
        draws={4: "6s"},
    )
    game.start()
    turn(game, E)
    turn(game, S)
    turn(game, W)
    game.draw(N)
    game.discard(N, "6s")
    game.claim(S, "pung", "6s 6s")
    game.close()
    game.discard(S, "C")
    game.claim(N, "pung", "C C")
    game.close()
    turn(game, N)
    turn(game, E)
    game.draw(S)
    game.kong(S, "6s")
    game.claim(W, "win")
    return game.apply(ev.ClaimWindowClosed, None)


def test_robbed_kong_follows_an_earlier_discard_a_w5():
    """A-W5 as the seed has it, 搶槓 1: 「搶槓一律算作銃和﹐開槓者放銃」, and 跟張免責 applies
    「銃和時」: North, who discarded a 6s since West's last discard, pays for the robbed kong,
    not South."""
    out = robbed_kong_game(auto_applied())
    [won] = of(out, ev.Won)
    assert (won.seat, won.from_seat) == (W, S) and "robbing_kong" in won.flags
    value = won.score["total"]
    assert won.score["payments"] == [-30, -30, 3 * value, -(3 * value - 60)]
