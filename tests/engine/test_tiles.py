"""The one tile notation of RULES.md (1m..9m, 1p..9p, 1s..9s, E S W N, C F P, 1f..8f) and
the compact typed form people use; bad input names what is wrong."""

import pytest

from engine import tiles


def test_every_kind_has_one_name():
    """RULES.md notation: 34 playing kinds and 8 flowers, each name parsing back to itself."""
    assert len(tiles.NAMES) == 42 == len(set(tiles.NAMES))
    assert [tiles.tile(n) for n in tiles.NAMES] == list(range(42))
    assert tiles.NAMES[tiles.RED] == "C" and tiles.NAMES[tiles.WHITE] == "P"


def test_compact_form_round_trip():
    """DESIGN.md: `123m 456p 789s EEE CC` is accepted where people type hands."""
    kinds = tiles.parse("123m 456p 789s EEE CC 1f")
    assert [tiles.NAMES[k] for k in kinds] == [
        "1m",
        "2m",
        "3m",
        "4p",
        "5p",
        "6p",
        "7s",
        "8s",
        "9s",
        "E",
        "E",
        "E",
        "C",
        "C",
        "1f",
    ]
    assert tiles.format_tiles(kinds) == "123m 456p 789s EEE CC 1f"
    assert tiles.parse("1m2m3m") == tiles.parse("123m")


@pytest.mark.parametrize(
    "text,problem",
    [
        ("0m", "'0m' is not a tile"),
        ("9f", "'9f' is not a tile"),
        ("12x", "cannot read '12x'"),
        ("123m X", "cannot read 'X'"),
    ],
)
def test_bad_tiles_are_named(text, problem):
    """DESIGN.md conventions: bad input gets a clear message naming the problem."""
    with pytest.raises(tiles.TileError, match=problem):
        tiles.parse(text)


def test_physical_sets():
    """RULES.md 3.1 and 4.1: 136 tiles for WSOM, 144 with the eight flowers for CCM."""
    wsom, ccm = tiles.physical_set(False), tiles.physical_set(True)
    assert len(wsom) == 136 and len(ccm) == 144
    assert all(sum(tiles.kind_of(t) == k for t in wsom) == 4 for k in range(34))
    assert sorted(tiles.NAMES[tiles.kind_of(t)] for t in ccm[136:]) == [
        f"{n}f" for n in range(1, 9)
    ]
