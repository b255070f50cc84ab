"""Win shapes, decompositions and waits of engine/hand.py (RULES.md 1.1 composition rules).

The three winning shapes are four sets and a pair, seven pairs and thirteen terminals; a set is a
chow, pung or kong, and a kong only exists when declared. The last test compares our win check
with the riichi `mahjong` package on thousands of hands.
"""

import random
from collections import Counter

import pytest

from engine import hand, tiles
from engine.hand import (
    CHOW,
    KONG,
    PAIR,
    PUNG,
    counts,
    decompositions,
    is_seven_pairs,
    is_thirteen_orphans,
    is_win,
    waits,
)


def c(text: str) -> bytearray:
    """The 34 counts of a hand typed as in RULES.md (`123m 456p EE`)."""
    return counts(tiles.parse(text))


def groups(*spec: str) -> tuple:
    """A decomposition written as `pung 1m`, `chow 4p`, `pair E` (lowest tile of the group)."""
    return tuple(sorted((kind, tiles.tile(name)) for kind, name in (s.split() for s in spec)))


def readings(text: str) -> set:
    return {tuple(sorted(d)) for d in decompositions(c(text))}


def names(kinds) -> list[str]:
    return [tiles.NAMES[k] for k in kinds]


# --- decompositions -----------------------------------------------------------------------------


def test_triplets_and_sequences_are_both_readings():
    """RULES.md 1.1 free arrangement: 111222333m can be three pungs or three identical chows,
    and the scorer needs both readings to pick the better one."""
    assert readings("111222333m 456m 99s") == {
        groups("pung 1m", "pung 2m", "pung 3m", "chow 4m", "pair 9s"),
        groups("chow 1m", "chow 1m", "chow 1m", "chow 4m", "pair 9s"),
    }


def test_pair_position_gives_different_readings():
    """RULES.md 1.1 free arrangement: 11123444m is 11 + 123 + 444 or 111 + 234 + 44; the pair
    (and so the wait and the pattern) differs between the two groupings."""
    assert readings("11123444m 567p 999s") == {
        groups("pair 1m", "chow 1m", "pung 4m", "chow 5p", "pung 9s"),
        groups("pung 1m", "chow 2m", "pair 4m", "chow 5p", "pung 9s"),
    }


def test_honours_only_form_pungs_and_the_pair():
    """RULES.md 1.1: honour tiles have no sequences, so EEE SSS CC is read one way only."""
    assert readings("123m 789p EEE SSS CC") == {
        groups("chow 1m", "chow 7p", "pung E", "pung S", "pair C")
    }


def test_a_hand_that_does_not_split_has_no_reading():
    """RULES.md 1.1: a hand that is not four sets and a pair has no decomposition."""
    assert readings("124m 456p 789s EEE CC") == set()
    assert readings("123m 456p 789s E S W N C") == set()


def test_concealed_four_of_a_kind_is_a_pung_plus_a_tile_never_a_kong():
    """RULES.md 1.2 (4.3 Kongs) and 3.7: a kong exists only when declared, so four concealed 1m
    in 1111m 23m are a pung and a chow."""
    assert readings("1111m 23m 456p 789s 55s") == {
        groups("pung 1m", "chow 1m", "chow 4p", "chow 7s", "pair 5s")
    }
    # Four honours alike cannot be split at all while concealed.
    assert readings("EEEE 123m 456p 789s 5s") == set()
    assert not is_win(c("EEEE 123m 456p 789s 5s"))


def test_every_reading_uses_exactly_the_hand_and_never_a_kong():
    """RULES.md 1.1: each grouping is four sets and one pair made of the concealed tiles, with
    no kong among them (3.7), on many constructed winning hands."""
    rng = random.Random(20060)
    checked = 0
    for _ in range(500):
        hand = random_regular_hand(rng)
        found = decompositions(counts(hand))
        assert found, f"{tiles.format_tiles(hand)} is four sets and a pair but has no reading"
        for reading in found:
            kinds = [kind for kind, _ in reading]
            assert KONG not in kinds
            assert kinds.count(PAIR) == 1 and len(kinds) == 5
            rebuilt = Counter()
            for kind, first in reading:
                rebuilt.update(
                    {CHOW: [first, first + 1, first + 2], PUNG: [first] * 3, PAIR: [first] * 2}[
                        kind
                    ]
                )
            assert rebuilt == Counter(hand), tiles.format_tiles(hand)
            checked += 1
    assert checked >= 500


# --- is_win -------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "hand, melds",
    [
        ("123m 456p 789s EEE CC", 0),  # four sets and a pair
        ("111m 999m 111p 999p EE", 0),  # all pungs
        ("23m 4m 55s", 3),  # beside three declared sets
        ("PP", 4),  # four declared sets and the pair
        ("11m 22p 33s EE SS CC PP", 0),  # seven pairs
        ("1m 9m 1p 9p 1s 9s E S W N C F P P", 0),  # thirteen terminals
    ],
    ids=["standard", "all-pungs", "three-melds", "four-melds", "seven-pairs", "thirteen"],
)
def test_the_three_winning_shapes(hand, melds):
    """RULES.md 1.1: regular hands, seven pairs and thirteen terminals are the winning shapes."""
    assert is_win(c(hand), melds)


@pytest.mark.parametrize(
    "hand, melds",
    [
        ("123m 456p 789s EEE C F", 0),  # no pair
        ("123m 456p 789s EE CC", 0),  # one tile short of a set
        ("123m 456p 789s EEE CC", 1),  # a set too many beside the meld
        ("11m 22p 33s EE", 2),  # pairs beside melds are not seven pairs
        ("11m 22p 33s EE SS CCC P", 0),  # six pairs and a triplet
        ("1m 9m 1p 9p 1s 9s E S W N C F 2m 2m", 0),  # a 2m instead of the 13th terminal
        ("1m 9m 1p 9p 1s 9s E S W N C F F F", 0),  # one kind missing, two extra
    ],
    ids=[
        "no-pair",
        "short",
        "too-many",
        "pairs-beside-melds",
        "pairs-and-triplet",
        "thirteen-with-simple",
        "thirteen-missing-kind",
    ],
)
def test_non_winning_hands(hand, melds):
    """RULES.md 1.1: only those three shapes may win; anything else is refused."""
    assert not is_win(c(hand), melds)


def test_seven_pairs_with_four_alike_follows_the_option():
    """RULES.md A-W6: four identical concealed tiles count as two of the seven pairs only when the
    option allows it."""
    hand = c("1111m 33m 55m 77p 99p 22s")
    assert is_seven_pairs(hand, four_as_two_pairs=True)
    assert is_win(hand, four_as_two_pairs=True)
    assert not is_seven_pairs(hand, four_as_two_pairs=False)
    assert not is_win(hand, four_as_two_pairs=False)


def test_seven_pairs_and_thirteen_terminals_need_the_exact_tiles():
    """RULES.md 1.2 (10.1, 10.2): seven pairs are seven pairs; thirteen terminals are one of each
    terminal and honour plus one duplicate, 14 tiles in all."""
    assert is_seven_pairs(c("11m 22p 33s EE SS CC PP"))
    assert not is_seven_pairs(c("11m 22p 333s EE SS CC P"))
    assert is_thirteen_orphans(c("1m 9m 1p 9p 1s 9s E S W N C F P 9s"))
    assert not is_thirteen_orphans(c("1m 9m 1p 9p 1s 9s E S W N C F P"))  # 13 tiles
    assert not is_thirteen_orphans(c("1m 9m 1p 9p 1s 9s E S W N C F 5m 5m"))


# --- waits --------------------------------------------------------------------------------------


@pytest.mark.parametrize("suit", "mps")
def test_nine_gates_waits_on_all_nine_tiles_of_its_suit(suit):
    """RULES.md 1.2 (2.2 Nine Gates): 1112345678999 of one suit is a nine-way wait."""
    assert names(waits(c(f"1112345678999{suit}"))) == [f"{r}{suit}" for r in range(1, 10)]


def test_thirteen_terminals_thirteen_way_wait():
    """RULES.md 1.2 (10.1): one of each terminal and honour waits on any of the thirteen."""
    assert waits(c("1m 9m 1p 9p 1s 9s E S W N C F P")) == list(tiles.TERMINALS_AND_HONOURS)


def test_thirteen_terminals_single_wait():
    """RULES.md 1.2 (10.1): with a duplicate already held, only the missing kind completes it."""
    assert names(waits(c("1m 1m 9m 1p 9p 1s 9s E S W N C F"))) == ["P"]


def test_seven_pairs_single_wait():
    """RULES.md 1.2 (10.2): six pairs and a single wait on the single's pair."""
    assert names(waits(c("11m 33m 55m 77p 99p 22s 4s"))) == ["4s"]


def test_seven_pairs_wait_with_four_alike_follows_the_option():
    """RULES.md A-W6: 1111m, four pairs and a single wait on that single only when four alike
    may stand as two pairs."""
    hand = c("1111m 33m 55m 77p 99p 4s")
    assert names(waits(hand, four_as_two_pairs=True)) == ["4s"]
    assert waits(hand, four_as_two_pairs=False) == []


def test_two_sided_wait_beside_declared_melds():
    """RULES.md 1.1: 23m completes with 1m or 4m, concealed alone or beside declared sets."""
    assert names(waits(c("23m 456p 789p 234s 55s"))) == ["1m", "4m"]
    assert names(waits(c("23m 55s"), melds=3)) == ["1m", "4m"]


def test_no_wait_on_a_fifth_tile():
    """RULES.md 3.1: there are four tiles of each kind, so a hand that only a fifth 1m would
    complete is not waiting at all."""
    assert waits(c("1111m 456p 789p 234s")) == []


# --- differential test against the riichi `mahjong` package ---------------------------------------


def random_regular_hand(rng: random.Random, sets: int = 4) -> list[int]:
    """`sets` random chows/pungs and a pair, no kind more than four times."""
    while True:
        hand = []
        for _ in range(sets):
            if rng.random() < 0.5:
                start = 9 * rng.randrange(3) + rng.randrange(7)
                hand += [start, start + 1, start + 2]
            else:
                hand += [rng.randrange(tiles.KINDS)] * 3
        hand += [rng.randrange(tiles.KINDS)] * 2
        if max(Counter(hand).values()) <= 4:
            return hand


def random_seven_pairs(rng: random.Random) -> list[int]:
    return [k for k in rng.sample(range(tiles.KINDS), 7) for _ in range(2)]


def random_thirteen(rng: random.Random) -> list[int]:
    return [*tiles.TERMINALS_AND_HONOURS, rng.choice(tiles.TERMINALS_AND_HONOURS)]


def random_deal(rng: random.Random, kinds, size: int) -> list[int]:
    """`size` tiles drawn from four copies of each of `kinds`."""
    return rng.sample([k for k in kinds for _ in range(4)], size)


def test_is_win_agrees_with_riichi_mahjong_package():
    """RULES.md 1.1 winning shapes, cross-checked with mahjong.agari.Agari().is_agari, which knows
    the same three shapes (with four alike never two pairs: our A-W6 option off)."""
    pytest.importorskip("mahjong")
    from mahjong import constants
    from mahjong.agari import Agari

    # Same numbers and winds; the dragons differ: ours C F P (red green white), riichi's
    # haku hatsu chun (white green red).
    to_riichi = list(range(tiles.EAST))
    to_riichi += [constants.EAST, constants.SOUTH, constants.WEST, constants.NORTH]
    to_riichi += [constants.CHUN, constants.HATSU, constants.HAKU]
    assert [to_riichi[k] for k in (tiles.RED, tiles.GREEN, tiles.WHITE)] == [
        constants.CHUN,
        constants.HATSU,
        constants.HAKU,
    ]
    agari = Agari()

    rng = random.Random(2006)
    hands = []  # (concealed tiles, declared melds beside them)
    for _ in range(2000):
        hands.append((random_deal(rng, range(tiles.KINDS), 14), 0))
    for _ in range(1500):  # one suit (plus a few honours): far more of these are wins
        suit = rng.randrange(3)
        kinds = list(range(9 * suit, 9 * suit + 9)) + rng.sample(range(27, 34), rng.randrange(3))
        melds = rng.randrange(4)
        hands.append((random_deal(rng, kinds, 14 - 3 * melds), melds))
    for _ in range(1500):
        melds = rng.randrange(5)
        shape = rng.random()
        if shape < 0.1 and not melds:
            hand = random_seven_pairs(rng)
        elif shape < 0.2 and not melds:
            hand = random_thirteen(rng)
        else:
            hand = random_regular_hand(rng, 4 - melds)
        hands.append((hand, melds))
        near = list(hand)  # the same hand with one tile swapped: mostly not a win
        near[rng.randrange(len(near))] = rng.randrange(tiles.KINDS)
        if max(Counter(near).values()) <= 4:
            hands.append((near, melds))

    disagreements, wins = [], 0
    for hand, melds in hands:
        ours = counts(hand)
        theirs = [0] * 34
        for kind, n in enumerate(ours):
            theirs[to_riichi[kind]] = n
        expected = agari.is_agari(theirs)
        wins += expected
        if is_win(ours, melds, four_as_two_pairs=False) != expected:
            disagreements.append(
                f"{tiles.format_tiles(hand)} + {melds} melds: riichi says {expected}"
            )
    assert not disagreements, f"{len(disagreements)} disagreements, e.g. {disagreements[:5]}"
    assert 1500 < wins < len(hands) - 2000, "the sample should hold many wins and non-wins"


def test_the_suit_shapes_kept_are_bounded_and_stay_right(monkeypatch):
    """Issue 32 item 4 (flat memory over a table's days): the win check's table of suit
    shapes stops growing once it holds SHAPES_KEPT, and what it answers does not change."""
    rng = random.Random(32)
    hands = []
    for _ in range(400):
        kept = [0] * 34
        for kind in rng.sample(range(34), 5):
            kept[kind] = rng.choice((1, 2, 3))
        hands.append(kept)
    unbounded = [hand._standard_size(kept) for kept in hands]
    assert -1 in unbounded and any(size > 0 for size in unbounded)
    monkeypatch.setattr(hand, "SHAPES_KEPT", 64)
    monkeypatch.setattr(hand, "_SHAPES", {})
    for kept, size in zip(hands, unbounded, strict=True):
        assert hand._standard_size(kept) == size
        assert len(hand._SHAPES) <= 64
