"""A rigged shuffler caught by its walls (issue 17, "A rigged shuffler is caught"): the
statistics of firmware/audit/shuffle_watch.py over walls built by the rigged machine's own chip
(drivers/sim/mechanism.py) and dealt by the engine, and a whole rigged table."""

import random

import pytest

from drivers.sim.mechanism import LEVELS, ProgramChip, Rigging
from engine import tiles
from firmware.audit.shuffle_watch import FAIR_HANDS, Cusum, ShuffleWatch, mean_run
from firmware.bench.fairness import deal
from firmware.cli import main
from firmware.resources import load_ruleset
from firmware.run.cli import parse_faults
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
            assert "favour the S side (p = " in alarms[0].message()
            assert alarms[0].p < 1e-4
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
        if any(alarm.side is None for alarm in alarms):
            assert "cluster tiles of a kind" in alarms[-1].message()
            return
    pytest.fail("clustered walls not flagged")


def test_each_test_meets_its_stated_false_alarm_rate():
    """Issue 17: the false-alarm rate is stated: each CUSUM's threshold gives a fair
    shuffler at least FAIR_HANDS hands between alarms (the exact chain), so the five tests
    together stay under 1 per 10 000 hands; a lower threshold would not."""
    for tile_count in (136, 144):
        watch = ShuffleWatch(tile_count)
        tests = [*watch.sides, watch.walls]
        for cusum in tests:
            assert cusum.fair_run >= FAIR_HANDS > mean_run(tuple(cusum.pmf), cusum.k, cusum.h - 1)
        assert sum(10_000 / cusum.fair_run for cusum in tests) <= 1


def test_p_is_the_fair_chance_of_hands_this_good():
    """The p of an alarm: the fair chance of scoring at least as much over as many hands."""
    cusum = Cusum([0.5, 0.25, 0.25], 0.5, 100)
    assert cusum.tail(1, 1) == pytest.approx(0.5)
    assert cusum.tail(2, 4) == pytest.approx(0.25**2)
    assert cusum.tail(2, 3) == pytest.approx(2 * 0.25 * 0.25 + 0.25**2)


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
    assert favoured and "the shuffler's walls favour the S side (p = " in favoured[0]["message"]
    assert summary["faults_injected"]["rigged"] == summary["hands"] + 1  # and the next walls
