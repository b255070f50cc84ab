"""The wrong break the referee says stands at the desk, journaled (issue 30 item 4; seed 000
配牌時的犯規 2 開錯門, 開門 3, 王牌與海底牌 1).

The interpreter gives the hand a BreakMade when it sees the deal taken from a break near the
dice's stand (tests/engine/test_deal_order.py); the referee can say it at the desk
(`break_made`: the wall counted from and the tail stacks). Either way it is an input of the
journal: the replay gives the same outputs, and a hand taken up after a restart goes on from
the break made, not the dice's.
"""

import pytest

from engine import events as ev
from engine.wall import Break, Wall, wsom_break
from firmware.display import ActionRefused
from firmware.journal.replay import replay
from firmware.journal.store import Journal
from tests.support.deskkit import DeskedTable
from tests.support.servicekit import Clock, act


def test_seed_000_開錯門_the_referee_enters_the_break_made_and_a_restart_keeps_it(tmp_path):
    """Issue 30 item 4: the desk's `break_made` journals the BreakMade input; the wall is
    re-based on it (its head, kong tail and 14 dead tiles); the journal replays to the same
    outputs, and after a restart the hand taken up goes on from the break made, the
    interpreter expecting its deal."""
    path, clock = tmp_path / "j.sqlite", Clock()
    dice = wsom_break(3 + 4, 2 + 5)  # DeskedTable's rolls
    made = Break(dice.seat, dice.stacks + 2)
    with Journal(path) as journal:
        table = DeskedTable(journal, clock)
        table.new_hand("A")
        answer = act(table.desk, "break_made", {"seat": made.seat, "stacks": made.stacks})
        assert answer["done"] == "break_made"
        assert [e["type"] for e in answer["events"]] == ["Rebased"]
        (row,) = [r.data() for r in journal.rows() if r.kind == "input"][-1:]
        assert (row["type"], row["seat"], row["stacks"]) == ("BreakMade", made.seat, made.stacks)
        walls = table.service.hands.table.walls
    expected = Wall(walls, made, 14)
    dealt = expected.deal(0)
    with Journal(path, readonly=True) as journal:
        assert replay(journal).mismatches == 0
    with Journal(path) as journal:
        again = DeskedTable(journal, clock, replay(journal))
        hands = again.service.hands
        wall = hands.table.wall
        assert [sorted(h) for h in hands.table.hands] == [sorted(h) for h in dealt]
        assert wall.next_draw_position == expected.next_draw_position
        assert wall.next_replacement_position == expected.next_replacement_position
        assert wall.dead_wall_tiles == expected.dead_wall_tiles
        assert hands.interpreter.to_deal == [set(h) for h in dealt]


def test_seed_000_開錯門_the_desk_says_why_a_break_made_is_refused(tmp_path):
    """Seed 000 配牌時的犯規 2: the break stands at the deal; entered after a tile beyond it has
    moved, the desk's answer says why, and nothing changes."""
    with Journal(tmp_path / "j.sqlite") as journal:
        table = DeskedTable(journal, Clock())
        table.new_hand("A")
        hands = table.service.hands
        east = hands.table.hands[0][-1]
        hands.apply(ev.TileDiscarded(table.clock.t, 0, east))
        head = hands.table.wall.next_draw_position
        with pytest.raises(ActionRefused, match=r"開錯門.*beyond the deal"):
            act(table.desk, "break_made", {"seat": 1, "stacks": 9})
        assert hands.table.wall.next_draw_position == head
