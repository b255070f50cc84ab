"""WSOM payments (RULES.md 1.3), the follow-tile exemption, the ruleset options of RULES.md
§5.1 and the checks on config/rules/wsom2006.toml."""

import copy
import tomllib

import pytest

from engine.rulesets import build
from engine.rulesets.wsom2006.payments import responsible_seat
from engine.schema import ConfigError
from engine.scoring import win_from_text
from engine.tiles import kind_of, physical_set, tile
from tests.conftest import REPO

CONFIG = tomllib.loads((REPO / "config" / "rules" / "wsom2006.toml").read_text("utf-8"))
SEVENTY = "123m 123m 456p 456p 9s"  # 1.1 + 1.2 + 5.1.2 = 70 on 9s


def with_config(change) -> object:
    config = copy.deepcopy(CONFIG)
    change(config)
    return build(config)


def test_seed_payment_example_seventy(wsom):
    """RULES.md 1.3 (seed 000): V = 70 on a discard: 30 + 30 + 150 = 210."""
    score = wsom.score(win_from_text(SEVENTY, "9s", 0, 2))
    assert score.total == 70
    assert score.payments == (210, -30, -150, -30)


def test_self_draw_each_pays_value(wsom):
    """RULES.md 1.3: on a self-draw each opponent pays V."""
    assert wsom.score(win_from_text(SEVENTY, "9s", 3, None)).payments == (-70, -70, -70, 210)


def test_thirty_is_still_the_equal_split(wsom):
    """RULES.md 1.3, A-W2: V <= 30 (Seven Pairs, 30) is shared equally by the three."""
    score = wsom.score(win_from_text("11m 22m 44p 66p 88s 33s E", "E", 0, 1))
    assert score.total == 30 and score.payments == (90, -30, -30, -30)


def test_nobody_responsible_everyone_pays_value(wsom):
    """RULES.md 1.3: when the exemption reaches the winner himself, all pay V."""
    win = win_from_text(SEVENTY, "9s", 0, 2)
    win = type(win)(**{**win.__dict__, "responsible": None})
    assert wsom.score(win).payments == (210, -70, -70, -70)


def test_given_responsible_seat_pays_the_excess(wsom):
    """RULES.md 1.3: the exemption moves 3V - 60 from the discarder to the responsible seat."""
    win = win_from_text(SEVENTY, "9s", 0, 2)
    win = type(win)(**{**win.__dict__, "responsible": 3})
    assert wsom.score(win).payments == (210, -30, -30, -150)


# Follow-tile exemption (跟張免責): discards as (seat, physical tile), the winning discard last.
def d(seat, name, copy=0):
    """`copy` picks one of the kind's four tiles: a follow is the same kind, never the same tile."""
    return seat, [t for t in physical_set(False) if kind_of(t) == tile(name)][copy]


def test_exemption_none_without_earlier_discard():
    """RULES.md 1.3: nobody else discarded the tile in the window: the discarder pays."""
    assert responsible_seat([d(0, "1m"), d(1, "2m"), d(2, "5p")], winner=0) == 2


def test_exemption_first_discarder_in_window_is_responsible():
    """RULES.md 1.3: the first to discard the winning tile in the window is responsible."""
    discards = [d(0, "1m"), d(1, "5p"), d(2, "3s"), d(3, "5p", 1)]
    assert responsible_seat(discards, winner=0) == 1


def test_exemption_reaching_the_winner_means_nobody():
    """RULES.md 1.3, A-W4: the winner's own last discard is in the window: nobody pays more."""
    discards = [d(1, "1m"), d(2, "5p"), d(3, "3s"), d(0, "9m"), d(1, "5p", 1)]
    assert responsible_seat(discards, winner=2) is None


def test_exemption_window_starts_at_winners_last_discard():
    """RULES.md 1.3: a discard before the winner's most recent discard does not count."""
    discards = [
        d(1, "5p"),
        d(2, "1m"),
        d(3, "3s"),
        d(0, "9m"),
        d(1, "2m"),
        d(2, "8s"),
        d(3, "5p", 1),
    ]
    assert responsible_seat(discards, winner=2) == 3
    assert responsible_seat(discards[:3] + [d(3, "5p", 1)], winner=0) == 1


def test_exemption_window_option_excludes_winner_discard():
    """A-W4 option: with the winner's discard left out, it no longer frees the others."""
    discards = [d(2, "5p"), d(3, "3s"), d(1, "5p", 1)]
    assert responsible_seat(discards, winner=2, include_winner_discard=False) == 1


def test_exemption_on_robbed_kong():
    """A-W5 (seed 000: robbing a kong is a discard win by the konger): the exemption applies
    by default; with the option off the konger always pays."""
    discards = [d(0, "1m"), d(1, "5p"), d(2, "5p", 1)]
    assert (
        responsible_seat(discards, winner=0, robbed_kong=True, exemption_on_robbed_kong=True) == 1
    )
    assert responsible_seat(discards, winner=0, robbed_kong=True) == 2
    assert CONFIG["options"]["exemption_on_robbed_kong"] is True


def test_robbing_kong_konger_pays_as_discarder(wsom):
    """RULES.md 1.3, 3.8: robbing a kong is a discard win with the konger responsible."""
    win = win_from_text("123m 456p 789s 11m 24s", "3s", 0, 2, ("robbing_kong",))
    score = wsom.score(win)
    assert [p.id for p in score.patterns] == ["1.1", "1.2", "9.3"]
    assert score.payments == (60, -20, -20, -20)


# Options of RULES.md §5.1.
def test_minimum_zero_lets_a_chicken_hand_win():
    """A-W16: later WSOM editions drop the minimum; a chicken hand wins 1 point."""
    later = with_config(lambda c: c["scoring"].update(minimum_points=0))
    score = later.score(win_from_text("123m 456p 789s 5m [EEE]", "5m", 1, 2))
    assert score.legal and [p.name for p in score.patterns] == ["Chicken Hand"]
    assert score.total == 1 and score.payments == (-1, 3, -1, -1)


def test_pattern_values_come_from_config():
    """A-W1: a head referee sets Pure One-Suit to 100 in the TOML file; no code changes."""
    rs = with_config(lambda c: c["patterns"]["2.1.2"].update(points=100))
    assert rs.score(win_from_text("123p 345p 678p 9p [222p]", "9p", 0, 1)).total == 100


def test_standard_score_option():
    """A-W2: the payment threshold is data (plain Zung Jung uses 25)."""
    rs = with_config(lambda c: c["scoring"].update(standard_score=25))
    assert rs.score(win_from_text(SEVENTY, "9s", 0, 2)).payments == (210, -25, -160, -25)


def test_seven_pairs_four_alike_option():
    """A-W6: with the option off, four alike cannot stand as two pairs."""
    rs = with_config(lambda c: c["options"].update(seven_pairs_four_of_a_kind=False))
    score = rs.score(win_from_text("3333m 55m 66m 88m 11p E", "E", 1, 0))
    assert not score.legal and "not a winning hand" in score.reason


def test_thirteen_terminals_greater_terminals_option():
    """A-W7: with the option on, Thirteen Terminals also earns 8.1.3 (160 + 100)."""
    rs = with_config(lambda c: c["options"].update(thirteen_terminals_greater_terminals=True))
    assert rs.score(win_from_text("19m 19p 19s ESWNCFP", "1m", 3, 0)).total == 260


def test_concealed_hand_on_irregular_option():
    """A-W8: Concealed Hand is not given to Seven Pairs unless the option says so."""
    hand = ("11m 22m 44p 66p 88s 33s E", "E", 0, 1)
    rs = with_config(lambda c: c["options"].update(concealed_hand_on_irregular=True))
    assert rs.score(win_from_text(*hand)).total == 35


# Declared wins the scorer refuses.
def test_not_a_winning_shape(wsom):
    """RULES.md 1.1: only four sets and a pair, seven pairs or thirteen terminals win."""
    score = wsom.score(win_from_text("135m 246p 789s EEWS", "N", 0, 1))
    assert not score.legal and score.total is None and score.payments is None


@pytest.mark.parametrize(
    "flag,self_drawn",
    [
        ("final_draw", False),
        ("kong_replacement", False),
        ("final_discard", True),
        ("robbing_kong", True),
    ],
)
def test_incidental_flag_needs_its_way_of_winning(wsom, flag, self_drawn):
    """RULES.md 1.2 9.x: Final Draw and Win on Kong are self-draws; Final Discard and Robbing
    a Kong are wins on another's tile."""
    win = win_from_text(SEVENTY, "9s", 0, None if self_drawn else 1, (flag,))
    score = wsom.score(win)
    assert not score.legal and flag in score.reason


def test_heaven_is_easts_and_earth_is_not(wsom):
    """RULES.md 1.2 9.4: Heaven is East's win on the dealt tiles; Earth a non-East win on
    East's first discard."""
    assert not wsom.score(win_from_text(SEVENTY, "9s", 1, None, ("heaven",))).legal
    assert not wsom.score(win_from_text(SEVENTY, "9s", 2, 1, ("earth",))).legal


# The config file: a broken file is refused, naming the entry.
@pytest.mark.parametrize(
    "change,message",
    [
        (lambda c: c["scoring"].pop("limit"), "[scoring] limit: missing key"),
        (lambda c: c["options"].update(colour="red"), "[options] colour: unknown key"),
        (
            lambda c: c["scoring"].update(limit="320"),
            "[scoring] limit: expected an integer from 1 to 10000, got '320'",
        ),
        (
            lambda c: c["patterns"]["4.1"].update(points=True),
            "[patterns.4.1] points: expected an integer",
        ),
        (lambda c: c["patterns"].pop("10.2"), "[patterns] 10.2: missing key"),
        (
            lambda c: c["patterns"]["1.1"].update(points=0),
            "[patterns.1.1] points: expected an integer from 1 to 10000, got 0",
        ),
        (
            lambda c: c["options"].update(break_mode="dice"),
            "[options] break_mode: expected one of 'manual', 'table', got 'dice'",
        ),
        (
            lambda c: c["ruleset"].update(engine="mcr"),
            "[ruleset] engine: expected one of 'ccm2012', 'wsom2006', got 'mcr'",
        ),
    ],
)
def test_broken_config_is_refused_naming_the_entry(change, message):
    """DESIGN.md: a broken config gets a clear message, never a crash."""
    with pytest.raises(ConfigError, match=message.replace("[", r"\[").replace(".", r"\.")):
        with_config(change)
