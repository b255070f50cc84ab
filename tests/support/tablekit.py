"""Driving engine.table.Table through a chosen hand, for tests.

`stacked_walls` lays the walls so that the deal, the live draws and the tail replacements give
the tiles a test names. It first walks an identity layout (tile id = place on the table) with
the same break, which tells where each dealt tile, each live draw and each replacement stands;
then it puts the named tiles there and fills the other places from a seeded shuffle.

    hands        four strings in RULES.md notation, seats E S W N ("123m 456p EE"); a hand may
                 name fewer tiles than it is dealt, the rest is filler
    draws        {n: name} (or a list, from draw 0): the n-th live draw from the head, counted
                 over the whole hand; negative n counts back from the last live tile (with no
                 kong or flower replacements, -1 is the seabed)
    replacements {n: name} (or a list): the n-th tile taken from the tail

Filler never puts a flower in a hand; unnamed flowers go to the middle of the live wall.
`Game` wraps a Table with a clock: every input goes through `apply`, and the tile invariants
are checked after every step. Tiles are named by kind ("5p"); `Game.own` finds the ids in a
seat's hand. `wsom_game` and `ccm_game` deal a hand with the rule books' example dice;
`chicken_game` and `as_it_lies` are scenes several packages' tests start from.
"""

import copy
import random

from engine import events as ev
from engine import tiles
from engine.rulebook import Ruleset
from engine.rulesets import build
from engine.table import Table
from engine.wall import Break, Wall, build_walls, table_break, wsom_break
from firmware.resources import load_toml, ruleset_path

E, S, W, N = 0, 1, 2, 3


def break_for(rules, dice) -> Break:
    """The break the dice make: ((a, b), (c, d)) for WSOM's two rolls, (a, b) for one roll."""
    if rules.two_roll_break:
        first, second = dice
        return wsom_break(sum(first), sum(second))
    return table_break(sum(dice), 0, rules.start_offset)


def wall_plan(rules, brk: Break):
    """Where things come from, as flat places (seat * tiles_per_wall + place): the dealt hands,
    every live draw in order (no replacements taken), the replacements in order."""
    size = 4 * 2 * rules.stacks_per_side
    identity = build_walls(list(range(size)), rules.stacks_per_side)
    head = Wall(identity, brk, rules.dead_wall)
    hands = head.deal()
    draws = []
    while head.live_count:
        draws.append(head.draw())
    tail = Wall(identity, brk, rules.dead_wall)
    tail.deal()
    replacements = [tail.draw_replacement() for _ in range(16)]
    return hands, draws, replacements


def _named(spec) -> dict[int, str]:
    if spec is None:
        return {}
    return dict(spec) if isinstance(spec, dict) else dict(enumerate(spec))


def stacked_walls(
    ruleset, dice, hands=("", "", "", ""), draws=None, replacements=None, seed=0
) -> list[list[int]]:
    """Walls (walls[seat] = tile ids as laid) that deal `hands` and give `draws` and
    `replacements` (see the module docstring) under `dice`."""
    rules = ruleset.table_rules
    per_wall = 2 * rules.stacks_per_side
    dealt, live, tail = wall_plan(rules, break_for(rules, dice))
    pool = {kind: [] for kind in range(tiles.KINDS + tiles.FLOWER_KINDS)}
    for tile_id in tiles.physical_set(rules.flowers):
        pool[tiles.kind_of(tile_id)].append(tile_id)
    layout: dict[int, int] = {}  # flat place -> tile id

    def put(place: int, kind: int) -> None:
        if place in layout:
            raise ValueError(f"place {place} is named twice")
        if not pool[kind]:
            raise ValueError(f"no {tiles.NAMES[kind]} left in the set")
        layout[place] = pool[kind].pop(0)

    for seat, text in enumerate(hands):
        kinds = tiles.parse(text)
        if len(kinds) > len(dealt[seat]):
            raise ValueError(f"seat {seat} is dealt {len(dealt[seat])} tiles, not {len(kinds)}")
        for place, kind in zip(dealt[seat], kinds, strict=False):
            put(place, kind)
    for index, name in _named(draws).items():
        put(live[index], tiles.tile(name))
    for index, name in _named(replacements).items():
        put(tail[index], tiles.tile(name))

    rng = random.Random(seed)
    plain = [t for kind, ids in pool.items() if not tiles.is_flower(kind) for t in ids]
    rng.shuffle(plain)
    flowers = [t for kind, ids in pool.items() if tiles.is_flower(kind) for t in ids]
    dealt_places = [p for hand in dealt for p in hand if p not in layout]
    live_places = [p for p in live if p not in layout]
    taken = set(layout) | set(dealt_places) | set(live_places)
    other_places = [p for p in range(4 * per_wall) if p not in taken]  # the dead wall
    filler = plain[: len(dealt_places)]
    rest = plain[len(dealt_places) :]
    filler += rest[: len(rest) // 2] + flowers + rest[len(rest) // 2 :]
    places = dealt_places + live_places + other_places
    assert len(places) == len(filler)
    layout.update(zip(places, filler, strict=True))
    return [[layout[seat * per_wall + i] for i in range(per_wall)] for seat in range(4)]


def snapshot(table: Table):
    """Everything an input may change: compared before and after a refused input."""
    wall = table.wall
    return copy.deepcopy(
        (
            table.state,
            table.turn,
            table.hands,
            table.melds,
            table.flowers,
            table.rivers,
            table.discards,
            table.owes,
            table.calls,
            table.added_kong,
            table.last_draw,
            wall.remaining() if wall else None,
            wall.live_count if wall else None,
        )
    )


class Game:
    """A Table under a chosen deal, with a clock; invariants are checked after every input."""

    def __init__(
        self, ruleset, dice, hands=("", "", "", ""), draws=None, replacements=None, seed=0
    ):
        self.ruleset, self.dice = ruleset, dice
        self.table = Table(ruleset, stacked_walls(ruleset, dice, hands, draws, replacements, seed))
        self.clock = 0.0
        self.log: list[ev.Event] = []

    # -- inputs --------------------------------------------------------------------------

    def apply(self, event_type, seat, **fields) -> list[ev.Event]:
        """One input; the outputs. The table must stay physically consistent."""
        self.clock += 1.0
        out = self.table.apply(event_type(self.clock, seat, **fields))
        self.log += out
        assert self.table.check_invariants() == [], (event_type.__name__, out)
        return out

    def ok(self, event_type, seat, **fields) -> list[ev.Event]:
        """An input the table must accept (no Alert among the outputs)."""
        out = self.apply(event_type, seat, **fields)
        assert not [o for o in out if isinstance(o, ev.Alert)], out
        return out

    def refused(self, event_type, seat, **fields) -> ev.Alert:
        """An input the table must refuse: one Alert, nothing changed."""
        before = snapshot(self.table)
        out = self.apply(event_type, seat, **fields)
        assert len(out) == 1 and isinstance(out[0], ev.Alert), out
        assert snapshot(self.table) == before
        return out[0]

    def start(self) -> list[ev.Event]:
        """The dice: East's roll, then (WSOM) the counted seat's roll."""
        if self.table.rules.two_roll_break:
            first, second = self.dice
            out = self.ok(ev.DiceRolled, E, dice=first)
            breaker = break_for(self.table.rules, self.dice).seat
            return out + self.ok(ev.DiceRolled, breaker, dice=second)
        return self.ok(ev.DiceRolled, E, dice=self.dice)

    def draw(self, seat) -> ev.Drew:
        out = self.ok(ev.TileDrawn, seat)
        drew = [o for o in out if isinstance(o, ev.Drew)]
        assert len(drew) == 1, out
        return drew[0]

    def discard(self, seat, name) -> list[ev.Event]:
        return self.ok(ev.TileDiscarded, seat, tile=self.own(seat, name)[0])

    def claim(self, seat, claim, names="") -> list[ev.Event]:
        return self.ok(ev.ClaimDeclared, seat, claim=claim, tiles=self.own(seat, names))

    def close(self) -> list[ev.Event]:
        return self.ok(ev.ClaimWindowClosed, None)

    def kong(self, seat, names) -> list[ev.Event]:
        return self.ok(ev.KongDeclared, seat, tiles=self.own(seat, names))

    # -- looking at the table --------------------------------------------------------------

    def own(self, seat, names) -> tuple[int, ...]:
        """Ids of the named tiles ("3m 3m" = two different 3m) from `seat`'s hand."""
        hand = list(self.table.hands[seat])
        found = []
        for kind in tiles.parse(names) if isinstance(names, str) else names:
            tile_id = next((t for t in hand if tiles.kind_of(t) == kind), None)
            assert tile_id is not None, (
                f"seat {seat} holds no {tiles.NAMES[kind]}: {tiles.format_tiles(self.kinds(seat))}"
            )
            hand.remove(tile_id)
            found.append(tile_id)
        return tuple(found)

    def kinds(self, seat) -> list[int]:
        return [tiles.kind_of(t) for t in self.table.hands[seat]]

    def play_through(self, until=lambda game: False) -> None:
        """Seat after seat: draw (unless the seat already has a tile to discard), expose and
        replace flowers, discard the newest tile, close the window (nobody calls); until the
        hand ends or `until(game)` holds just before a discard."""
        table = self.table
        while not table.ended:
            seat = table.turn
            if table.state == "draw":
                self.draw(seat)
            while tiles.is_flower(tiles.kind_of(table.hands[seat][-1])):
                self.ok(ev.FlowerExposed, seat, tile=table.hands[seat][-1])
                self.ok(ev.TileDrawn, seat)
                if table.ended:
                    return
            if until(self):
                return
            self.ok(ev.TileDiscarded, seat, tile=table.hands[seat][-1])
            self.close()


def of(events, event_type) -> list:
    """The outputs of one type."""
    return [e for e in events if isinstance(e, event_type)]


# -- hands most tests start from --------------------------------------------------------------

WSOM_DICE = ((3, 4), (2, 3))  # East's 7 counts West, who rolls 5: 12 tail stacks
CCM_DICE = (3, 4)  # the seed's example: 7, the opposite wall, 7th stack


def wsom_game(wsom, **layout) -> Game:
    """A WSOM hand broken by WSOM_DICE and dealt."""
    game = Game(wsom, WSOM_DICE, **layout)
    game.start()
    return game


def ccm_game(ccm, **layout) -> Game:
    """A CCM hand broken by CCM_DICE and dealt."""
    game = Game(ccm, CCM_DICE, **layout)
    game.start()
    return game


def wsom_with(change) -> Ruleset:
    """The WSOM ruleset with one config entry changed, as a head referee would."""
    config = load_toml(ruleset_path("wsom2006"))
    change(config)
    return build(config)


def chicken_game(ruleset, shown: bool = False) -> tuple[Game, ev.Alert]:
    """South pungs East's W (not his wind), then calls win on West's 5m with
    123m 456p 789s 55m [WWW]: a complete hand without a pattern (RULES.md 1.1), laid out if
    `shown`. The game, and the alert of the call."""
    game = wsom_game(ruleset, hands=["W", "W W 123m 456p 789s 5m 7s", "5m", ""])
    game.discard(E, "W")
    game.claim(S, "pung", "W W")
    game.close()
    game.discard(S, "7s")
    game.close()
    game.draw(W)
    game.discard(W, "5m")
    return game, game.refused(ev.ClaimDeclared, S, claim="win", shown=shown)


def as_it_lies(table: Table, t: float) -> ev.TableAccepted:
    """The referee's acceptance of the table as the hand has it."""
    standing = [x for side in table.wall.remaining() for x in side if x is not None]
    return ev.TableAccepted(
        t,
        table.turn,
        tuple(standing),
        tuple(map(tuple, table.hands)),
        tuple(map(tuple, table.rivers)),
        tuple(
            tuple(x for m in table.melds[s] for x in m.tiles) + tuple(table.flowers[s])
            for s in range(4)
        ),
        table.state == "claim_window",
    )
