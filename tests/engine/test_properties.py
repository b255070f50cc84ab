"""Properties of the WSOM 2006 scorer on random legal winning hands (RULES.md §1).

Hands are built the way they are laid down (RULES.md §2 JSON form): four random sets (chow,
pung or kong) each either declared (exposed, or a concealed kong) or held concealed, plus a
pair, no kind more than four times; the winning tile is one of the concealed tiles; the win is
a self-draw or a discard with a random discarder and responsible player; the winner's seat is
random. Seven-pairs and thirteen-terminals hands are generated too. Whatever the hand, the
scorer must answer, the answer must not depend on tile order, the limit and payment rules hold
and a legal win has at least one pattern.
"""

from collections import Counter

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine import tiles
from engine.scoring import win_from_json
from firmware.resources import load_ruleset
from tests.support.strategies import a_set

WSOM = load_ruleset("wsom2006")
LIMIT = 320  # RULES.md 1.1
STANDARD_SCORE = 30  # RULES.md 1.3
MINIMUM = 5  # RULES.md 1.1
PROPERTY = settings(max_examples=300, deadline=None)

SEATS = range(4)
EAST = 0


# --- strategies ---------------------------------------------------------------------------------


@st.composite
def how_won(draw, declared: bool, has_kong: bool, robbable: bool = True) -> dict:
    """Winner, self-draw or discard, discarder, responsible player and matching flags; a
    robbed kong only where the winner holds no other copy of the tile (`robbable`: the konger
    holds the other three, seed 000 搶槓 1)."""
    winner = draw(st.sampled_from(SEATS))
    if draw(st.booleans()):
        flags = [[], ["final_draw"]]
        if has_kong:
            flags += [["kong_replacement"], ["kong_replacement", "final_draw"]]
        if winner == EAST and not declared:
            flags.append(["heaven"])
        return {
            "self_drawn": True,
            "winner_seat_index": winner,
            "discarder_seat_index": None,
            "responsible_seat_index": None,
            "flags": draw(st.sampled_from(flags)),
        }
    discarder = draw(st.sampled_from([s for s in SEATS if s != winner]))
    # Responsible: the discarder, an earlier discarder of the tile (follow-tile exemption) or
    # nobody when the winner discarded it first (RULES.md 1.3).
    responsible = draw(
        st.sampled_from([discarder, None] + [s for s in SEATS if s not in (winner, discarder)])
    )
    flags = [[], ["final_discard"]] + ([["robbing_kong"]] if robbable else [])
    if discarder == EAST and not declared:
        flags.append(["earth"])
    return {
        "self_drawn": False,
        "winner_seat_index": winner,
        "discarder_seat_index": discarder,
        "responsible_seat_index": responsible,
        "flags": draw(st.sampled_from(flags)),
    }


def as_json(concealed: list[int], melds: list[dict], win_tile: int, how: dict) -> dict:
    return {
        "id": "property",
        "concealed": [tiles.NAMES[k] for k in concealed],
        "melds": melds,
        "win_tile": tiles.NAMES[win_tile],
        **how,
    }


@st.composite
def regular_wins(draw) -> dict:
    used = Counter()
    pair = draw(st.integers(0, tiles.KINDS - 1))
    used.update([pair, pair])
    sets = [draw(a_set(used)) for _ in range(4)]
    concealed = [pair, pair] + [k for _, kinds, held in sets if held == "in hand" for k in kinds]
    melds = [
        {
            "type": kind,
            "tiles": [tiles.NAMES[k] for k in kinds],
            "concealed": held == "concealed kong",
        }
        for kind, kinds, held in sets
        if held != "in hand"
    ]
    win_tile = draw(st.sampled_from(concealed))
    concealed.remove(win_tile)
    declared = [k for _, kinds, held in sets if held != "in hand" for k in kinds]
    robbable = win_tile not in concealed + declared
    has_kong = any(kind == "kong" for kind, _, _ in sets)
    how = draw(how_won(declared=bool(melds), has_kong=has_kong, robbable=robbable))
    return as_json(concealed, melds, win_tile, how)


@st.composite
def seven_pairs_wins(draw) -> dict:
    """Seven pairs; four alike may stand as two pairs (config seven_pairs_four_of_a_kind)."""
    # Kinds held four times, as two pairs, if the ruleset allows it (A-W6).
    doubled = draw(st.integers(0, 3 if WSOM.options["seven_pairs_four_of_a_kind"] else 0))
    kinds = draw(
        st.lists(
            st.integers(0, tiles.KINDS - 1), min_size=7 - doubled, max_size=7 - doubled, unique=True
        )
    )
    kinds += kinds[:doubled]
    hand = [k for k in kinds for _ in range(2)]
    win_tile = draw(st.sampled_from(hand))
    hand.remove(win_tile)
    how = how_won(declared=False, has_kong=False, robbable=win_tile not in hand)
    return as_json(hand, [], win_tile, draw(how))


@st.composite
def thirteen_terminals_wins(draw) -> dict:
    hand = [*tiles.TERMINALS_AND_HONOURS, draw(st.sampled_from(tiles.TERMINALS_AND_HONOURS))]
    win_tile = draw(st.sampled_from(hand))
    hand.remove(win_tile)
    how = how_won(declared=False, has_kong=False, robbable=win_tile not in hand)
    return as_json(hand, [], win_tile, draw(how))


def shuffled(hand: dict, rnd) -> dict:
    """The same hand with `concealed`, the melds and each meld's tiles in another order."""
    concealed = list(hand["concealed"])
    rnd.shuffle(concealed)
    melds = [dict(m, tiles=rnd.sample(m["tiles"], len(m["tiles"]))) for m in hand["melds"]]
    rnd.shuffle(melds)
    return dict(hand, concealed=concealed, melds=melds)


# --- what every score must satisfy --------------------------------------------------------------


def score(hand: dict):
    return WSOM.score(win_from_json(hand, WSOM.flags))


def check_score(hand: dict, result) -> None:
    """RULES.md 1.1 (minimum, limits) and 1.3 (payments) on any scored win."""
    if not result.legal:
        # The shape is always a winning shape here, so only the 5-point minimum can refuse it.
        assert "no pattern" in result.reason, result.reason
        assert result.patterns == () and result.total is None and result.payments is None
        return
    points = [p.points for p in result.patterns]
    # 1.1: a legal hand has at least one pattern, so at least 5 points.
    assert points and result.total >= MINIMUM
    # 1.1: listed limit = the single pattern worth >= 320 alone; otherwise compound limit 320.
    if any(p >= LIMIT for p in points):
        assert len(points) == 1 and result.total == points[0], result.patterns
    else:
        assert result.total == min(sum(points), LIMIT), result.patterns
    assert result.total <= LIMIT or len(points) == 1
    # 1.1: at most one pattern of a series, except 3.1 Value Honor (one per set).
    ids = [p.id for p in result.patterns if p.id != "3.1"]
    series = [".".join(i.split(".")[:2]) if i.count(".") == 2 else i for i in ids]
    assert len(series) == len(set(series)), ids
    # 1.3: zero sum, the winner receives 3V, each loser pays V or the 30/30/3V-60 split.
    pay, total, winner = result.payments, result.total, hand["winner_seat_index"]
    assert sum(pay) == 0
    assert pay[winner] == 3 * total
    responsible = hand["responsible_seat_index"]
    if hand["self_drawn"] or responsible is None or total <= STANDARD_SCORE:
        expected = [-total] * 4
    else:
        expected = [-STANDARD_SCORE] * 4
        expected[responsible] = -(3 * total - 2 * STANDARD_SCORE)
    expected[winner] = 3 * total
    assert list(pay) == expected


# --- the properties -----------------------------------------------------------------------------


@PROPERTY
@given(regular_wins())
def test_regular_win_obeys_minimum_limits_and_payments(hand):
    """RULES.md 1.1 (5-point minimum, limit 320, listed limits) and 1.3 (payments) hold for any
    legal regular hand, and the scorer never crashes on one."""
    result = score(hand)
    check_score(hand, result)
    if all(m["concealed"] for m in hand["melds"]):
        # 1.2 Concealed Hand: a regular hand with no claimed set always has a pattern; only a
        # listed limit (1.1) leaves it off the card, or the hand read as Seven Pairs (A-W6: four
        # alike as two pairs, 2222 3333 44 5555m) when that reading scores more (1.1 free
        # arrangement), Seven Pairs taking no 1.2 (A-W8).
        assert result.legal
        ids = [p.id for p in result.patterns]
        if "10.2" in ids:
            counts = Counter([*hand["concealed"], hand["win_tile"]])
            assert not hand["melds"] and all(n % 2 == 0 for n in counts.values()), ids
        else:
            assert "1.2" in ids or result.patterns[0].points >= LIMIT


@pytest.mark.slow  # a second or more: out of the one-minute fast run, in CI's full run
@PROPERTY
@given(regular_wins(), st.randoms(use_true_random=False))
def test_regular_win_score_does_not_depend_on_tile_order(hand, rnd):
    """RULES.md 1.1 free arrangement: the score is that of the hand, whatever order the
    concealed tiles, the melds and the melds' tiles are given in."""
    assert score(shuffled(hand, rnd)) == score(hand)


@PROPERTY
@given(seven_pairs_wins(), st.randoms(use_true_random=False))
def test_seven_pairs_always_wins_at_least_seven_pairs(hand, rnd):
    """RULES.md 1.2 (10.2 Seven Pairs 30) and 1.1 free arrangement: seven pairs is always a legal
    win worth at least 30, never combined with a pattern of a set grouping (5.1.x, 1.1, 1.2,
    4.x); limits, payments and tile order as for any hand."""
    result = score(hand)
    check_score(hand, result)
    assert result.legal and result.total >= 30
    ids = [p.id for p in result.patterns]
    if "10.2" in ids:
        assert not [i for i in ids if i.split(".")[0] in ("4", "5") or i in ("1.1", "1.2")], ids
    assert score(shuffled(hand, rnd)) == result


@PROPERTY
@given(thirteen_terminals_wins(), st.randoms(use_true_random=False))
def test_thirteen_terminals_always_scores_its_160(hand, rnd):
    """RULES.md 1.2 (10.1 Thirteen Terminals 160, not a listed limit): always legal and always
    scored as 10.1 plus only incidental patterns (9.x); limits, payments and tile order as for
    any hand."""
    result = score(hand)
    check_score(hand, result)
    ids = [p.id for p in result.patterns]
    assert result.legal and "10.1" in ids and result.total >= 160
    assert all(i.startswith("9.") for i in ids if i != "10.1"), ids
    assert score(shuffled(hand, rnd)) == result
