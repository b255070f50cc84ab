"""A rigged shuffler caught by its walls (issue 17, "A rigged shuffler is caught"): the
statistics of firmware/audit/shuffle_watch.py over walls built by the rigged machine's own chip
(drivers/sim/mechanism.py) and dealt by the engine, and a whole rigged table."""

import random

import pytest

from drivers.sim.mechanism import LEVELS, ProgramChip, Rigging
from engine import tiles
from firmware.audit.cusum import Cusum, mean_run
from firmware.audit.shuffle_watch import FAIR_HANDS, ShuffleWatch, about
from firmware.bench.fairness import deal
from firmware.cli import main
from firmware.resources import load_ruleset
from firmware.run.cli import parse_faults
from firmware.venue.persons import PlayerWatch
from tests.support.runkit import rows, run_table

RULES = load_ruleset("wsom2006").table_rules
S = 1


def hands_to_flag(share: float, seed: int, most: int) -> int | None:
    """Hands a machine favouring S on `share` of them takes to be flagged, or None."""
    rng, order = random.Random(f"test-{seed}"), tiles.physical_set(RULES.flowers)
    chip = ProgramChip(Rigging(S, share), RULES, random.Random(f"test-rig-{seed}"))
    watch = ShuffleWatch(len(order))
    for hand in range(1, most + 1):
        rng.shuffle(order)
        stacked, rolls = chip.build(list(order), {hand % 4})
        alarms = watch.hand(*deal(stacked, hand, rolls, RULES, rng))
        assert all(alarm.side == S for alarm in alarms), "only the favoured side is named"
        if alarms:
            assert "favour the S side's starting hands" in alarms[0].message()
            return hand
    return None


@pytest.mark.parametrize("seed", range(5))
def test_a_blatant_rig_is_flagged_within_50_hands(seed):
    """Issue 17, Done when: a test flags a blatant rig within 50 hands, naming the side."""
    assert hands_to_flag(LEVELS["blatant"], seed, 50) is not None


def test_a_medium_rig_is_flagged_within_200_hands():
    """Issue 17: a medium rig flagged within 200 hands."""
    assert hands_to_flag(LEVELS["medium"], 0, 200) is not None


@pytest.mark.slow  # a second and more: CI's full run
def test_fair_walls_raise_no_alarm_at_the_same_thresholds():
    """Issue 17: no false alarm on 3000 fair hands (seeded), the thresholds the rigs meet."""
    rng, order = random.Random("fair"), tiles.physical_set(RULES.flowers)
    watch = ShuffleWatch(len(order))
    for hand in range(1, 3001):
        rng.shuffle(order)
        assert watch.hand(*deal(order, hand, None, RULES, rng)) == [], hand


def test_walls_that_cluster_tiles_of_a_kind_are_flagged():
    """Issue 17: the positions of tile kinds in the walls; a machine that stacks tiles of a
    kind side by side (here in pairs, the pairs shuffled) is caught within 5 hands."""
    rng, order = random.Random("clustered"), tiles.physical_set(RULES.flowers)
    watch = ShuffleWatch(len(order))
    for hand in range(1, 6):
        pairs = [order[i : i + 2] for i in range(0, len(order), 2)]  # ids 4k..4k+3: one kind
        rng.shuffle(pairs)
        clustered = [tile for pair in pairs for tile in pair]
        alarms = watch.hand(*deal(clustered, hand, None, RULES, rng))
        if any(alarm.what == "clusters" for alarm in alarms):
            assert "cluster tiles of a kind" in alarms[-1].message()
            return
    pytest.fail("clustered walls not flagged")


def test_each_test_meets_its_stated_false_alarm_rate():
    """Issue 17, issue 35 Done when: each CUSUM's threshold gives a fair shuffler at least
    FAIR_HANDS hands between alarms (the exact chain; a lower threshold would not), so the
    table's 17 tests and its four players' 8 at the venue together stay under 1 false
    alarm per 10 000 hands."""
    for tile_count in (136, 144):
        watch = ShuffleWatch(tile_count)
        players = PlayerWatch()
        players.hand(tile_count, ["P1", "P2", "P3", "P4"], [(0, 0)] * 4)
        tests = [*watch.tests(), *(t for p in players.tests.values() for t in p.values())]
        assert len(tests) == 4 * 4 + 1 + 4 * 2
        for cusum in tests:
            assert cusum.fair_run >= FAIR_HANDS > mean_run(tuple(cusum.pmf), cusum.k, cusum.h - 1)
        assert sum(10_000 / cusum.fair_run for cusum in tests) <= 1


def test_a_lower_test_watches_for_scores_below_the_fair_ones():
    """Issue 35: a side made worse is caught by the mirror of the favouring test: low
    scores raise it, high ones never do."""
    pmf = [0.25, 0.5, 0.25]
    lower, upper = Cusum(pmf, 0.5, 100, lower=True), Cusum(pmf, 0.5, 100)
    assert lower.k == upper.k and lower.h == upper.h  # the pmf is symmetric
    assert all(lower.add(2) is None for _ in range(1000))
    assert any(lower.add(0) for _ in range(100))


def test_an_alarm_states_the_rate_of_its_test_never_a_p():
    """Issue 35: "a fair table raises this about once in N hands", N the fired test's own
    mean run between false alarms, never a selected p."""
    watch = ShuffleWatch(136)
    alarms = []
    for _ in range(40):  # a side dealt ready hands and useless draws, hand after hand
        alarms += watch.scored([(0, 0), (6, 0), (3, 2), (3, 2)], 5)
    assert alarms, "no alarm"
    for alarm in alarms:
        text = alarm.message()
        assert "p =" not in text and "p=" not in text
        assert f"about once in {about(alarm.fair_run)} hands" in text
    favoured = [a for a in alarms if a.side == S and not a.lower]
    assert favoured and "favour the S side's starting hands" in favoured[0].message()
    spoilt = [a for a in alarms if a.side == 0 and a.lower]
    assert {a.what for a in spoilt} == {"hands", "draws"}
    assert "make worse the E side's draws" in next(a.message() for a in spoilt if a.what == "draws")
    assert about(412_345.6) == "410 000" and about(56_123) == "56 000"


@pytest.mark.parametrize(
    "spec, words",
    [
        ("rigged=X:2", "a side E, S, W or N, not 'X'"),
        ("rigged=S:2", "not '2'"),
        ("rigged=S:0", "above 0 and at most 1"),
        ("rigged=S:nan", "above 0 and at most 1"),
        ("rigged=S", "subtle, medium, blatant"),
        ("rigged=S:loud", "subtle, medium, blatant"),
    ],
)
def test_a_wrong_rig_is_refused_with_what_it_takes(capsys, spec, words):
    """Issue 17: `mjtable run --faults rigged=SIDE:STRENGTH` refuses a bad side or strength
    with exit 2, naming the option and what it takes; nothing is played."""
    with pytest.raises(SystemExit) as refused:
        main(["run", "--port", "0", "--faults", spec])
    line = capsys.readouterr().err.strip().splitlines()[-1]
    assert refused.value.code == 2
    assert "--faults" in line and "rigged" in line and words in line


def test_a_rig_names_a_side_and_a_strength():
    assert parse_faults("rigged=S:blatant").rigged == Rigging(S, 1.0)
    assert parse_faults("jam=1,rigged=N:0.3").rigged == Rigging(3, 0.3)
    assert parse_faults("jam=1").rigged is None


@pytest.mark.slow
def test_a_rigged_table_raises_the_fault_on_the_referees_board(capsys, tmp_path):
    """Issue 17: `mjtable run --faults rigged=S:blatant`: the simulated machine forces the
    dice and stacks walls good for S; the table tells the referee within 50 hands (seed 1:
    at hand 10's deal, so 12 hands are played, some 25 s)."""
    journal = tmp_path / "rigged.sqlite"
    summary, _ = run_table(
        capsys, journal, "--faults", "rigged=S:blatant", "--hands", "12", "--speed", "10000"
    )
    faults = [data for _, data in rows(journal) if data.get("type") == "Fault"]
    favoured = [f for f in faults if f["kind"] == "favoured"]
    assert favoured and "the shuffler's walls favour the S side's" in favoured[0]["message"]
    assert "a fair table raises this alarm about once in" in favoured[0]["message"]
    assert summary["faults_injected"]["rigged"] == summary["hands"] + 1  # and the next walls
