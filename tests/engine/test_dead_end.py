"""No state of the table is a dead end (issue 12 item 5; seed 000 摸牌時的犯規 1).

Today's main refused a draw from the wrong place and then waited for a draw that never came;
a caller left holding only dead penalty tiles could discard nothing. The property: random hands
with random mistakes (draws from the wrong place or out of turn, discards of tiles not held,
false calls and wins, kongs and flowers that are none, rulings either way, paused clocks),
played through `engine.table.Table.apply`, and at every state reached some input the referee
can give (a Ruling on a pending alert, ClocksResumed, TableAccepted of the table as it lies,
engine/resync.py) or a legal player move moves the hand on.

"Moves on": the input is accepted and changes the hand's position (engine/invariants.py: its
state, whose turn, where every tile is, what is owed or called), or ends the hand. An input
that changes only the referee's books (a ruling, the clocks) does not, since a table stuck
with an empty book is still stuck.
"""

import copy
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine import events as ev
from engine import invariants, tiles
from engine.table import WINDOWS, Table
from engine.wall import dice_seat
from firmware.resources import load_ruleset
from firmware.sim.simulate import STEP, Game
from tests.support.tablekit import E, as_it_lies
from tests.support.tablekit import Game as TableGame

RULESETS = {name: load_ruleset(name) for name in ("wsom2006", "ccm2012")}
# A copy of a table keeps the rule book's parts (never changed by play) and the objects wired
# to the table (the copy has its own); the state of its clocks and referee is copied in.
KEPT = {"ruleset", "rules", "walls", "machine", "turns", "winning", "calling"}
PARTS = ("clocks", "referee", "touches")
CONFIG = {"catalogue", "timing", "hand", "referee", "rule"}  # what a part is wired to, or reads
WILD = 0.3  # the chance, before each of the players' steps, of a random input too


def clone(table: Table) -> Table:
    """An independent copy: a fresh table on the same walls with the hand's data, its clocks'
    and its referee's copied in (the rules' objects are wired to the table they were made
    with, so a plain deepcopy would act on the original)."""
    fresh = Table(table.ruleset, table.walls, chips=table.chips)
    for name, value in vars(table).items():
        if name not in KEPT and name not in PARTS and not callable(value):
            setattr(fresh, name, copy.deepcopy(value))
    for part in PARTS:
        state = {k: v for k, v in vars(getattr(table, part)).items() if k not in CONFIG}
        vars(getattr(fresh, part)).update(copy.deepcopy(state))
    fresh.machine.set_state(table.state)
    return fresh


def ways_on(table: Table, t: float) -> list[ev.Event]:
    """The legal player moves and the referee's inputs worth trying now, likeliest first."""
    inputs: list[ev.Event] = []
    if table.state == "dice":
        inputs.append(ev.DiceRolled(t, 0, (3, 4)))
    elif table.state == "second_roll":
        inputs.append(ev.DiceRolled(t, dice_seat(sum(table.first_dice), 0), (2, 5)))
    elif table.state in WINDOWS:
        inputs += [ev.ClaimWindowClosed(t, None), ev.TileDrawn(t, table.next_to_draw())]
    elif table.state == "draw":
        inputs.append(ev.TileDrawn(t, table.turn))
    elif table.state == "discard":
        inputs += [ev.TileDrawn(t, s) for s in range(4) if table.owes[s]]
        inputs += [
            ev.FlowerExposed(t, s, x)
            for s in range(4)
            for x in table.hands[s]
            if tiles.is_flower(tiles.kind_of(x))
        ]
        inputs += [ev.WinDeclared(t, table.turn)]
        inputs += [ev.TileDiscarded(t, table.turn, x) for x in table.hands[table.turn]]
    inputs += [ev.Ruling(t, None, a, True) for a in table.referee.pending]
    inputs += [ev.Ruling(t, None, a, False) for a in table.referee.pending]
    inputs.append(ev.ClocksResumed(t, None))
    if table.wall is not None:
        inputs.append(as_it_lies(table, t))
    return inputs


def moves_on(table: Table, t: float) -> ev.Event | None:
    """The first input of `ways_on` that moves the hand on, tried on copies, or None."""
    before = invariants.position(table)
    for event in ways_on(table, t):
        probe = clone(table)
        probe.apply(event)
        if probe.ended or invariants.position(probe) != before:
            return event
    return None


def wild_input(table: Table, rng: random.Random, t: float) -> ev.Event:
    """A random input, most of them mistakes: any seat, any tile of the set."""
    seat = rng.randrange(4)
    hand = table.hands[seat]
    every = tiles.physical_set(table.rules.flowers)
    some = rng.sample(hand, min(len(hand), rng.choice((1, 2, 3, 4)))) if hand else []
    pending = list(table.referee.pending)
    return rng.choice(
        [
            ev.TileDrawn(t, seat, rng.choice(every)),
            ev.TileDrawn(t, seat),
            ev.TileDiscarded(t, seat, rng.choice(every)),
            ev.ClaimDeclared(t, seat, rng.choice(("chow", "pung", "kong", "win")), tuple(some)),
            ev.WinDeclared(t, seat),
            ev.KongDeclared(t, seat, tuple(some)),
            ev.FlowerExposed(t, seat, rng.choice(every)),
            ev.ClaimWindowClosed(t, None),
            ev.ClocksPaused(t, None),
            ev.ClocksResumed(t, None),
            ev.Ruling(t, None, rng.choice(pending) if pending else 1, rng.random() < 0.5),
        ]
    )


class Probed(Game):
    """The simulator's players and their mistakes, random inputs between their steps, and
    after every input the check that the hand can move on."""

    def __init__(self, ruleset, seed: int, mistakes: float):
        super().__init__(ruleset, seed, mistakes)
        self.wild = random.Random(f"wild-{seed}")
        self.dead_ends: list[str] = []

    def apply(self, table, event) -> list:
        out = super().apply(table, event)
        if not table.ended and moves_on(table, self.t) is None:
            self.dead_ends.append(f"{table.state}, turn {table.turn}, after {event}")
        return out

    def step(self, table, seat_player) -> None:
        if table.wall is not None and self.wild.random() < WILD:
            self.apply(table, wild_input(table, self.wild, self.t))
        if not table.ended:
            super().step(table, seat_player)


def play(ruleset: str, seed: int, mistakes: float, hands: int = 1) -> Probed:
    game = Probed(RULESETS[ruleset], seed, mistakes)
    for _ in range(hands):
        game.play_hand()
    return game


@settings(max_examples=3, deadline=None)
@given(st.sampled_from(sorted(RULESETS)), st.integers(0, 10**6), st.sampled_from((0.05, 0.2)))
def test_issue_12_no_reachable_state_is_a_dead_end(ruleset, seed, mistakes):
    """Issue 12 item 5, seed 000 摸牌時的犯規 1: from every state random play with random
    mistakes reaches, some referee input or legal move moves the hand on; and no hand is
    stuck for the rule book's longest time limit."""
    game = play(ruleset, seed, mistakes)
    assert game.dead_ends == [] and game.stuck == []
    assert game.violations == []


@pytest.mark.slow  # every state of 15 hands probed: 15 to 40 s
@pytest.mark.parametrize("ruleset", sorted(RULESETS))
def test_issue_12_no_dead_end_over_many_hands(ruleset):
    """Issue 12 item 5: the same over 15 hands of each rule book, mistakes at 10%."""
    game = play(ruleset, 12, 0.1, hands=15)
    assert game.dead_ends == [] and game.stuck == [] and game.violations == []


def test_issue_12_a_hand_of_only_dead_penalty_tiles_can_still_discard(wsom):
    """Issue 12 item 5 (found by the simulator, seed 000 罰張 2): a player whose tiles are all
    dead penalty tiles (a caller after two empty calls) had no discard at all and the hand
    stopped; one of them goes. With any other tile in hand the rule holds."""
    game = TableGame(wsom, ((3, 4), (2, 5)))
    game.start()
    table = game.table
    for tile in table.hands[E][1:]:
        table.referee.penalty_tiles[E][tile] = "dead"
    refused = game.refused(ev.TileDiscarded, E, tile=table.hands[E][1])
    assert "dead penalty tile" in refused.message
    table.referee.penalty_tiles[E][table.hands[E][0]] = "dead"
    game.ok(ev.TileDiscarded, E, tile=table.hands[E][1])
    assert table.state == "claim_window"


class Idle(Game):
    """A table where, after East's first discard, only the clocks are paused, again and
    again: nobody moves."""

    def step(self, table, seat_player) -> None:
        if table.discards:
            self.apply(table, ev.ClocksPaused(self.t, None))
        else:
            super().step(table, seat_player)  # the dice, the deal, East's first discard


def test_issue_12_a_hand_that_does_not_move_on_is_counted_stuck(wsom):
    """Issue 12 ("a hand that made no progress for the rule book's longest time limit is
    stuck"): WSOM's longest is the hand's 180 s; a hand with only refused inputs past it is
    stuck, counted in the summary, and dealt again."""
    game = Idle(wsom, 3, 0.0)
    assert game.stuck_after == 180
    game.play_hand()
    assert game.stuck == ["hand 1: stuck in claim_window"] and game.summary(1, 1.0)["stuck"] == 1
    assert game.session.hand_number == 0 and game.session.sheet == []
    assert 180 < game.t - game.moved_at <= 180 + 2 * STEP


def test_issue_12_a_short_run_with_mistakes_has_no_hand_stuck(ccm):
    """Issue 12's done-when, small: simulated hands with mistakes (the wrong draw among them,
    seed 000 摸牌時的犯規 1) end every hand, none stuck, no invariant broken; CCM's longest
    limit is the dealer's 20 s first discard."""
    game = Game(ccm, 4, 0.05)
    for _ in range(6):
        game.play_hand()
    summary = game.summary(6, 1.0)
    assert game.stuck_after == 20 and summary["stuck"] == 0
    assert summary["invariant_violations"] == 0 and len(game.session.sheet) == 6
    assert game.mistakes["wrong_draw"] == game.caught["wrong_draw"] > 0
