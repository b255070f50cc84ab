"""A deal taken from the wrong break at the simulated table (issue 30 items 3 and 4; seed 000
配牌時的犯規 2 開錯門, 開門 3, 王牌與海底牌 1).

East begins the deal two stacks past the dice's break and the others follow him, each taking
the tiles that break deals him (firmware/sim/script.py, the fault `wrong_break`). The table
sees which stacks were taken: one note for the referee naming 開錯門, no 拿錯牌, no tampering;
once all four have their first four tiles the break made stands and the hand goes on from it,
its head, kong tail and 14 dead tiles the break made's.
"""

import pytest

from engine import events as ev
from engine.wall import Break, Wall
from firmware.sim.world import Faults
from tests.support.simgame import play


def one_hand_off_the_break() -> tuple[list, list, dict]:
    """One hand whose deal is taken two stacks past the dice's break: the referee's faults,
    the engine's outputs, and the table and the tracking as the hand ended."""
    faults: list[ev.Fault] = []
    ended: dict = {}

    def watch(desk, events):
        hands = desk.service.hands
        faults.extend(
            e for e in events if isinstance(e, ev.Fault) and hands.session.hand_number == 1
        )
        table = hands.table
        if table is not None and table.ended and not ended:
            walls = {
                tile for tile, place in hands.tracker.layout().items() if place.startswith("wall")
            }
            ended.update(table=table, in_walls=walls)

    _, _, _, outputs = play(hands=1, seed=3, faults=Faults(wrong_break=1), watch=watch)
    return faults, [o for update in outputs for o in update], ended


@pytest.mark.slow  # one hand of the simulated table in-process, a few seconds
def test_seed_000_開錯門_the_table_names_it_once_and_goes_on_from_the_break_made():
    """Issue 30 items 3 and 4: one fault for the referee, naming 配牌時的犯規 2 開錯門 (no
    拿錯牌, no tampering); the wall re-based on the break made (Rebased, two stacks past the
    dice's); the hand plays to its end with no alert (no draw "from the wrong place"); at its
    end the wall the engine has standing is the one on the table, its 14 dead tiles among it."""
    faults, outputs, ended = one_hand_off_the_break()
    told = [f for f in faults if f.device == "tracking" and f.kind in ("irregular", "tampering")]
    assert [f.kind for f in told] == ["irregular"]
    assert "配牌時的犯規 2 開錯門" in told[0].message and "拿錯牌" not in told[0].message
    broken = next(o for o in outputs if isinstance(o, ev.WallBroken))
    (rebased,) = [o for o in outputs if isinstance(o, ev.Rebased)]
    assert (rebased.seat, rebased.stacks) == (broken.seat, broken.stacks + 2)
    assert not [o for o in outputs if isinstance(o, ev.Alert)]
    assert [o for o in outputs if isinstance(o, (ev.Won, ev.ExhaustiveDraw))]
    table = ended["table"]
    made = Wall(table.walls, Break(rebased.seat, rebased.stacks), table.rules.dead_wall)
    assert [sorted(h) for h in made.deal(0)] == [sorted(h) for h in rebased.hands]
    standing = {t for side in table.wall.remaining() for t in side if t is not None}
    assert standing == ended["in_walls"]
    assert len(table.wall.dead_wall_tiles) == 14 and set(table.wall.dead_wall_tiles) <= standing
