"""The tracking's score against the simulated truth, folded hand by hand (firmware/
tracking_score.py): the same figures as comparing the whole session's moves at its end."""

import random
from collections import Counter

from firmware.sim.tracking_score import TrackingScore
from firmware.table.status import TrackedHand


def whole_session(truth: dict[int, Counter], tracked: dict[int, TrackedHand], hands: int):
    """`mjtable run`'s summary as it was: every move of the session kept, compared at the end."""
    true = Counter((h, *m) for h, moves in truth.items() if h <= hands for m in moves.elements())
    seen = Counter((h, *m) for h, t in tracked.items() if h <= hands for m in t.moves.elements())
    flagged_tiles = {(h, tile) for h, t in tracked.items() for tile in t.flagged}
    right, wrong = true & seen, seen - true
    missed = true - right
    flagged = sum(n for key, n in missed.items() if key[:2] in flagged_tiles)
    return {
        "true_moves": true.total(),
        "inferred_right": right.total(),
        "flagged": flagged,
        "inferred_wrong": wrong.total(),
        "missed": missed.total() - flagged,
    }


def test_folded_hand_by_hand_the_figures_are_the_whole_sessions():
    """Issue 20 item 11: a long session keeps a hand or two of moves, not the day's, and its
    figures are those of the whole-session comparison: each side (the players' truth, the
    service's tracking) records its moves as they come and moves on to the next hand at its
    own pace, and the hand the run's end cut short is not counted."""
    rng = random.Random(7)
    truth: dict[int, Counter] = {}
    tracked: dict[int, TrackedHand] = {}
    steps: dict[str, list] = {"truth": [], "tracked": []}  # each side's moves, in order
    for hand in range(1, 41):
        truth[hand], tracked[hand] = Counter(), TrackedHand(hand)
        moves = [(rng.randrange(144), "wall_0", f"hand_{rng.randrange(4)}") for _ in range(30)]
        steps["truth"] += [(hand, move) for move in moves]
        for move in moves[3:]:  # three missed: told to the referee or not
            steps["tracked"].append((hand, move, None))
        steps["tracked"] += [(hand, None, tile) for tile, _, _ in moves[:3] if rng.random() < 0.5]
        if rng.random() < 0.3:  # and a move inferred wrong
            steps["tracked"].append((hand, (rng.randrange(144), "river_0", "melds_1"), None))
    score, kept = TrackingScore(), 0
    sides = {"truth": (0, Counter(), Counter()), "tracked": TrackedHand(0)}
    while steps["truth"] or steps["tracked"]:
        side = rng.choice([name for name in steps if steps[name]])
        hand, *what = steps[side].pop(0)
        if side == "truth":
            sides["truth"] = (hand, truth[hand], Counter())
            truth[hand][what[0]] += 1
        else:
            sides["tracked"] = tracked[hand]
            if what[0] is not None:
                tracked[hand].moves[what[0]] += 1
            else:
                tracked[hand].flagged.add(what[1])
        score.follow(sides["tracked"], sides["truth"])
        kept = max(kept, len(score.truth), len(score.tracked))
    figures = score.summary(39)
    assert kept <= 3 and figures == whole_session(truth, tracked, 39)
    assert figures["missed"] and figures["flagged"] and figures["inferred_wrong"]


def test_a_voided_hand_and_its_redeal_are_scored_as_one_number():
    """Issue 20 item 11: hand 2 is voided and dealt again under the same number: both deals'
    moves are weighed together, as the whole-session comparison did."""
    score = TrackingScore()
    voided = Counter({(5, "wall_0", "hand_0"): 1})
    tracked = TrackedHand(2, Counter(voided))
    score.follow(TrackedHand(1), (1, Counter(), Counter()))
    score.follow(tracked, (2, voided, Counter()))
    tracked.moves[(9, "wall_1", "hand_1")] += 1  # the redeal, same objects: same number
    voided[(9, "wall_1", "hand_1")] += 1
    score.follow(tracked.of(2), (2, voided, Counter()))
    score.follow(TrackedHand(3), (3, Counter({(1, "wall_2", "hand_2"): 1}), Counter()))
    assert score.summary(2) == {
        "true_moves": 2,
        "inferred_right": 2,
        "flagged": 0,
        "inferred_wrong": 0,
        "missed": 0,
    }


def test_a_call_taken_back_after_the_players_win_is_no_move_inferred_wrong():
    """Issue 32 item 8: a player laid out a pung on the discard another won on, and took it
    back once the hand was over for the players; the service, which had read the win press
    before that discard (a win on the tile before, refused), tracked the take-back. The
    players made that move: it is not inferred wrong. A move nobody made still is."""
    laid = Counter({(61, "hand_W", "melds_W"): 1, (67, "hand_W", "melds_W"): 1})
    back = Counter({(61, "melds_W", "hand_W"): 1, (67, "melds_W", "hand_W"): 1})
    tracked = TrackedHand(3, laid + back + Counter({(5, "wall_N", "hand_S"): 1}))
    score = TrackingScore()
    score.follow(tracked, (3, laid, back))
    score.follow(TrackedHand(4), (4, Counter(), Counter()))
    assert score.summary(3) == {
        "true_moves": 2,
        "inferred_right": 2,
        "flagged": 0,
        "inferred_wrong": 1,
        "missed": 0,
    }
