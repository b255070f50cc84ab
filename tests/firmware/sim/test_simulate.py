"""Thousands of simulated hands in each rule book: tiles conserved, hand sizes right, scores
summing to zero (the table invariants), every deliberate mistake caught by the right alert,
and the same seed giving the same games."""

import json
import subprocess
import sys

import pytest

from firmware.resources import load_ruleset
from firmware.sim.simulate import Game
from tests.conftest import REPO


def play(ruleset: str, hands: int, seed: int, mistakes: float = 0.0) -> Game:
    game = Game(load_ruleset(ruleset), seed, mistakes)
    for _ in range(hands):
        game.play_hand()
    return game


# Not a rule broken: the table proposes the follow-tile exemption for the discarder to claim,
# and asks the referee whether a self-drawn Nine Gates's drawn tile was kept apart, or a CCM
# single-tile win's (單放, issue 30 item 12: the simulated players' draws pass no rack reader).
PROPOSALS = ("RULES.md 1.3", "RULES.md 2.2", "RULES.md 4.9.2")


@pytest.mark.slow  # a soak: half the suite's time
@pytest.mark.parametrize("ruleset", ["wsom2006", "ccm2012"])
def test_thousand_hands_keep_every_invariant(ruleset):
    """RULES.md 3.1/4.1: 136/144 tiles, each in one place; 13 or 14 tiles a hand (kongs as 3);
    every hand's score changes sum to zero; CCM chips are conserved and never below zero
    (A-C14); honest players draw no alert but the follow-tile exemption's proposal (1.3), the
    Nine Gates question (2.2) and the 單放 one (4.9.2).
    2000 hands over eight seeds."""
    for seed in range(8):
        game = play(ruleset, 250, seed)
        assert game.violations == []
        assert game.counts["wins"] + game.counts["draws"] + game.counts["cut_short"] == 250
        start = game.ruleset.table_rules.start_chips or 0  # CCM: 100 chips each (4.13)
        for chips in [game.session.scores] + [g["chips"] for g in game.session.games]:
            assert sum(chips) == 4 * start and (not start or min(chips) >= 0)
        broken = {r: n for r, n in game.alerts_by_rule.items() if r not in PROPOSALS}
        assert broken == {}  # honest players break no rule


@pytest.mark.slow  # a second or more: out of the one-minute fast run, in CI's full run
@pytest.mark.parametrize("ruleset", ["wsom2006", "ccm2012"])
def test_every_mistake_is_caught_and_play_goes_on(ruleset):
    """RULES.md 3.6/3.7/3.11, 4.6/4.7, seed 000 摸牌時的犯規 1: drawing out of turn, a second
    draw (wrong count), a call without the tiles, a false win and a draw from the wrong place
    in the wall each get the alert naming their rule; the hand goes on to its end."""
    game = play(ruleset, 40, 7, mistakes=0.05)
    assert set(game.mistakes) == {
        "draw_out_of_turn",
        "wrong_draw",
        "wrong_count",
        "claim_without_tiles",
        "false_win",
    }
    assert game.caught == game.mistakes
    assert game.violations == []
    assert game.counts["wins"] + game.counts["draws"] + game.counts["cut_short"] == 40


@pytest.mark.slow  # a second and more: CI's full run
def test_simulated_players_win_hands():
    """The simulated players play toward a win: most WSOM hands end in a legal win."""
    game = play("wsom2006", 40, 3)
    assert game.counts["wins"] >= 20
    assert all(row.result == "win" or row.changes == (0, 0, 0, 0) for row in game.session.sheet)


@pytest.mark.slow  # about twenty seconds: CI's full run
def test_ccm_players_aim_for_fans_and_win_most_hands():
    """Issue 13 Done-when: the simulated CCM players aim for fans (RULES.md 4.7: no fan, no
    win), so at least 60% of hands end in a win, and the honest players still keep every
    invariant and draw no alert but the referee's 單放 question (4.9.2, issue 30 item 12)."""
    wins = 0
    for seed in (1, 2, 3, 4):
        game = play("ccm2012", 50, seed)
        wins += game.counts["wins"]
        assert game.violations == [] and set(game.alerts_by_rule) <= {"RULES.md 4.9.2"}
    assert wins >= 120  # of 200 hands


@pytest.mark.slow  # a second or more: out of the one-minute fast run, in CI's full run
def test_same_seed_same_games_through_the_cli():
    """`mjtable simulate --seed S` repeats: two runs print the same summary (but speed)."""

    def run():
        out = subprocess.run(
            [
                sys.executable,
                "-m",
                "firmware.cli",
                "simulate",
                "--hands",
                "6",
                "--seed",
                "11",
                "--json",
                "--mistakes",
                "0.02",
            ],
            cwd=REPO,
            capture_output=True,
            text=True,
            check=True,
        ).stdout
        summary = json.loads(out)
        summary.pop("hands_per_second")
        return summary

    first = run()
    assert first == run()
    assert first["hands"] == 6 and first["invariant_violations"] == 0


def test_slow_seat_wsom():
    """RULES.md 3.12: a player taking 20 s per discard runs 5 s over the 15-s limit every
    time: one started block, 5 points, and more once his 180 s for the hand are spent; only
    he is penalised, and only in multiples of 5."""
    game = Game(load_ruleset("wsom2006"), 3, 0.0, slow=(1, 20.0))
    for _ in range(4):
        game.play_hand()
    assert game.penalties and {p["seat"] for p in game.penalties} == {"S"}
    assert all(p["points"] % 5 == 0 and p["rule"] == "RULES.md 3.12" for p in game.penalties)
    assert {p["hand"] for p in game.penalties} == {1, 2, 3, 4}
    assert sum(p["points"] for p in game.penalties) == -game.session.sheet[-1].totals[1] + sum(
        row.changes[1] for row in game.session.sheet
    )


def test_slow_seat_ccm():
    """RULES.md 4.14-4.15: a player taking 12 s per discard runs over the 10-s limit every
    time: a warning, then 10 and 20 to each of the others; only he is penalised."""
    game = Game(load_ruleset("ccm2012"), 3, 0.0, slow=(2, 12.0))
    for _ in range(4):
        game.play_hand()
    assert game.penalties and {p["seat"] for p in game.penalties} == {"W"}
    assert all(p["rule"] == "RULES.md 4.14" for p in game.penalties)
    first_hand = [p["points"] for p in game.penalties if p["hand"] == 1]
    assert first_hand[:2] == [10, 20]
