"""Driving engine.moves.Interpreter as the service does, for tests (issue 4; issue 12's
deal order): `Hand` a dealt hand whose tile movements and buttons become inputs, `Deal` a hand
being dealt from the walls block by block."""

from engine import events as ev
from engine.deal_order import blocks
from engine.moves import Interpreter, Irregular
from engine.seats import LETTERS as SIDES
from engine.seats import side_of, zone
from engine.tampering import Tampering
from tests.support.tablekit import WSOM_DICE, E, Game, break_for

CLAIM_WINDOW = 2.0


class Hand:
    """A dealt hand, its table and its Interpreter, wired as firmware/table/hands.py wires them."""

    def __init__(self, ruleset, dice, dealer_side: int, settle: float = 0.0, **layout):
        self.game = Game(ruleset, dice, **layout)
        self.table = self.game.table
        self.dealer_side = dealer_side
        self.interp = Interpreter(self.table, dealer_side, claim_window=CLAIM_WINDOW, settle=settle)
        self.outputs: list[ev.Event] = []
        rules = self.table.rules
        if rules.two_roll_break:
            first, second = dice
            self.apply(
                [
                    ev.DiceRolled(0.0, E, first),
                    ev.DiceRolled(0.5, break_for(rules, dice).seat, second),
                ]
            )
        else:
            self.apply([ev.DiceRolled(0.0, E, dice)])

    def zone(self, kind: str, seat: int) -> str:
        return f"{kind}_{SIDES[(seat + self.dealer_side) % 4]}"

    def wall_of(self, tile: int) -> str:
        return self.zone("wall", next(s for s in range(4) if tile in self.table.walls[s]))

    def apply(self, inputs) -> list[ev.Event]:
        """Apply the inputs (not the Irregular notes) and follow the engine, as the service."""
        out = []
        for event in inputs:
            if isinstance(event, Irregular):
                continue
            produced = self.table.apply(event)
            self.interp.outputs(event.t, produced)
            out += produced
        self.outputs += out
        return out

    def move(self, t, tile, source, target) -> list:
        """One confirmed movement: what it meant (returned), applied to the table."""
        inputs = self.interp.move(t, tile, source, target)
        self.apply(inputs)
        return inputs

    def poll(self, t) -> list:
        inputs = self.interp.poll(t)
        self.apply(inputs)
        return inputs

    def press_win(self, t, seat) -> list:
        inputs = self.interp.button(t, (seat + self.dealer_side) % 4, "win")
        self.apply(inputs)
        return inputs

    def deal(self, t=1.0) -> list:
        """Every dealt tile from its wall to its hand rack, in the order of the deal (seed 000
        配牌 1-3); what the movements meant."""
        meant = []
        for block in blocks(self.table.hands):
            for tile in sorted(block.tiles):
                meant += self.move(t, tile, self.wall_of(tile), self.zone("hand", block.seat))
        return meant

    def draw(self, t, seat) -> list:
        """The seat takes the next live tile from the wall into his hand."""
        wall = self.table.wall
        tile = wall.tile_at(wall.next_draw_position)
        return self.move(t, tile, self.wall_of(tile), self.zone("hand", seat))

    def discard(self, t, seat, tile=None) -> list:
        tile = self.table.hands[seat][-1] if tile is None else tile
        return self.move(t, tile, self.zone("hand", seat), self.zone("river", seat))

    def lay_out(self, t, seat, tile_ids) -> list:
        meant = []
        for tile in tile_ids:
            meant += self.move(t, tile, self.zone("hand", seat), self.zone("melds", seat))
        return meant

    def own(self, seat, names) -> tuple[int, ...]:
        return self.game.own(seat, names)

    def of(self, event_type) -> list:
        return [o for o in self.outputs if isinstance(o, event_type)]


DEALER_SIDE = 1


class Deal:
    """A hand broken and dealt by the engine, its tiles still in the walls."""

    def __init__(self, ruleset, dice=WSOM_DICE):
        self.game = Game(ruleset, dice)
        self.table = self.game.table
        self.interp = Interpreter(self.table, DEALER_SIDE, claim_window=2.0)
        self.interp.outputs(0.0, self.game.start())
        self.blocks = blocks(self.table.hands)
        self.t = 1.0

    def take(self, seat: int, tile: int) -> list:
        """The seat takes the tile from its wall into his rack: what it meant."""
        self.t += 0.1
        wall = next(s for s in range(4) if tile in self.table.walls[s])
        source = zone("wall", side_of(wall, DEALER_SIDE))
        meant = self.interp.move(self.t, tile, source, zone("hand", side_of(seat, DEALER_SIDE)))
        for event in meant:
            if not isinstance(event, (Irregular, Tampering)):
                self.interp.outputs(self.t, self.table.apply(event))
        return meant

    def take_block(self, seat: int, n: int) -> list:
        return self.take_block_of(self.blocks[n], seat)

    def take_block_of(self, block, seat: int | None = None) -> list:
        """The block's tiles taken by its seat (or `seat`): what they meant."""
        taker = block.seat if seat is None else seat
        return [m for tile in sorted(block.tiles) for m in self.take(taker, tile)]


def irregular(meant) -> list[Irregular]:
    return [m for m in meant if isinstance(m, Irregular)]
