"""What the players' hands do, as game inputs: tile movements and buttons read in the light
of the hand's state.

The tracker (engine/tracking.py) says which physical tile went from which zone to which; this
module says what that means at this moment of the hand: a tile from a wall into a hand is a
draw (or part of the deal), from a hand into its river a discard, from a hand into its meld
area a flower, a kong, or the tiles of a call, and a claimed discard taken from a river ends
the calls. Movements that mean nothing legal are returned as `Irregular` for the referee,
never dropped. Zones are physical sides of the table (E S W N); seats are the winds of this
hand, so the dealer's side is seat 0.
"""

from dataclasses import dataclass, replace

from engine import events as ev
from engine import tiles
from engine.hand import CHOW, KONG, PUNG
from engine.hand_state import seated
from engine.seats import LETTERS, letter, seat_at, side_of, zone_side, zone_words
from engine.table import Table

Step = ev.TileDrawn | ev.TileDiscarded  # a move of the turns, held until it is in order
HOLD = 3.0  # seconds a press or a move seen early waits for what comes before it


@dataclass(frozen=True)
class Irregular:
    """A movement the hand's state cannot explain; the message never names a hidden tile."""

    t: float
    side: int
    message: str
    tile: int | None = None


class Interpreter:
    """Turns movements and buttons into inputs for one hand's `table` (read, never changed).

    `dealer_side` is the physical side where East sits; `claim_window` how long calls on a
    discard stay open (seconds, from the table profile); `settle` how long the tracking takes
    to confirm a movement, so that a button is read only once the moves made before it are
    known (a button is seen at once, a tile only after a few sweeps).
    """

    def __init__(self, table: Table, dealer_side: int, claim_window: float, settle: float = 0.0):
        self.table, self.dealer_side, self.claim_window = table, dealer_side, claim_window
        self.settle = settle
        self.to_deal: list[set[int]] = [set(), set(), set(), set()]
        self.exposing: list[list[int]] = [[], [], [], []]  # tiles laid out, not yet an input
        self.window_opened: float | None = None
        self.held_wins: dict[int, float] = {}  # seat -> when he pressed win
        self.held: list[tuple[float, Step]] = []  # draws and discards seen early

    def seat(self, side: int) -> int:
        return seat_at(side, self.dealer_side)

    def side(self, seat: int) -> int:
        return side_of(seat, self.dealer_side)

    def _where(self, seat: int) -> str:
        return f"{letter(seat)} ({LETTERS[self.side(seat)]} side)"

    # -- what the engine did -------------------------------------------------------------

    def outputs(self, t: float, outputs) -> None:
        """Follow the engine: the deal to expect, when calls opened, which exposures it used."""
        for out in outputs:
            if isinstance(out, ev.Dealt):
                self.to_deal = [set(h) for h in out.hands]
            elif isinstance(out, (ev.Claimed, ev.Konged)):
                seat = seated(out)
                self.exposing[seat] = [x for x in self.exposing[seat] if x not in out.tiles]
        if self.table.state not in ("claim_window", "rob_window"):
            self.window_opened = None
        elif self.window_opened is None:
            self.window_opened = t
        if self.table.state == "rob_window" and self.table.added_kong is not None:
            konger, tile = self.table.added_kong  # the added tile lies on the pung already
            self.exposing[konger] = [x for x in self.exposing[konger] if x != tile]

    # -- what the players did ------------------------------------------------------------

    def move(self, t: float, tile: int, source: str, target: str) -> list:
        """The inputs (and Irregular notes) one confirmed movement means now."""
        table = self.table
        if table.ended:
            return []  # the hand is over: tiles go back to the machine
        src, src_side = zone_side(source)
        dst, dst_side = zone_side(target)
        seat = self.seat(dst_side)
        if src == "wall" and dst == "hand":
            if tile in self.to_deal[seat]:
                self.to_deal[seat].discard(tile)
                return []
            return self._in_turn(t, ev.TileDrawn(t, seat, tile))
        if src == "hand" and dst == "river" and src_side == dst_side:
            return self._in_turn(t, ev.TileDiscarded(t, seat, tile))
        if src == "hand" and dst == "melds" and src_side == dst_side:
            if tiles.is_flower(tiles.kind_of(tile)):
                return [ev.FlowerExposed(t, seat, tile)]
            self.exposing[seat].append(tile)
            return self._own_kong(t, seat)
        if (
            src == "melds"
            and dst == "hand"
            and src_side == dst_side
            and tile in self.exposing[seat]
        ):
            self.exposing[seat].remove(tile)  # a call taken back before it was granted
            return []
        if src == "river" and dst == "melds":
            return self._discard_taken(t, seat, tile)
        if src == "wall" and dst in ("river", "melds"):
            return self._unseen_draw(t, seat, tile, source, target)
        return [
            Irregular(
                t,
                dst_side,
                f"a tile went from {zone_words(source)} to "
                f"{zone_words(target)}, which no move of the hand explains: check "
                "it and correct the tracking",
                tile,
            )
        ]

    def button(self, t: float, side: int, name: str) -> list:
        """A seat's win button: a self-drawn win on its turn, else a call to win.

        A player calls on a discard he sees; the table sees it a moment later, once the
        readers confirm it. So every press is read `settle` seconds late, and one the hand's
        state still cannot take is held up to `HOLD` seconds, until the discard (or the
        player's own draw) is seen."""
        if name != "win":
            return []
        self.held_wins[self.seat(side)] = t
        return self._held_wins(t)

    def poll(self, t: float) -> list:
        """Held win presses that now make sense, and the calls closed once their time is
        over (the table's claim window)."""
        inputs = self._held_wins(t) or self._held_moves(t)
        if (
            self.table.state in ("claim_window", "rob_window")
            and self.window_opened is not None
            and t - self.window_opened >= self.claim_window
            and (not self._laying_out() or t - self.window_opened >= self.claim_window + HOLD)
        ):
            inputs += self._close_calls(t)
        return inputs

    def _laying_out(self) -> bool:
        """A caller has laid out part of a meld: his other tiles are still being read."""
        if self.table.state != "claim_window":
            return False
        discarder, discard = self.table.discards[-1]
        kind = tiles.kind_of(discard)
        for seat, laid in enumerate(self.exposing):
            if not laid or seat == discarder:
                continue
            kinds = sorted([tiles.kind_of(x) for x in laid] + [kind])
            run = len(kinds) == 3 and kinds[0] + 1 == kinds[1] == kinds[2] - 1
            if (len(set(kinds)) > 1 and not run) or len(kinds) < 3:
                return True
        return False

    def _held_wins(self, t: float) -> list:
        table = self.table
        inputs: list[ev.Event] = []
        for seat, pressed in sorted(self.held_wins.items()):
            if t - pressed < self.settle:
                continue
            if table.state in ("claim_window", "rob_window"):
                inputs.append(ev.ClaimDeclared(t, seat, "win"))
            elif table.in_turn(seat):
                inputs.append(ev.WinDeclared(t, seat))
            elif t - pressed >= HOLD:
                inputs.append(ev.WinDeclared(t, seat))  # the engine says why it is wrong
            else:
                continue
            del self.held_wins[seat]
        return inputs

    def _in_turn(self, t: float, event: Step) -> list:
        """A draw or a discard, or None yet: one seen before the move that precedes it at
        the table (a discard whose reads were dropped a sweep or two, then the next
        player's draw) waits up to `HOLD` seconds for it, so the engine sees the hand in
        the order it was played."""
        if not self._in_order(event):
            self.held.append((t, event))
            return []
        return self._close_calls(t) + [event] if isinstance(event, ev.TileDrawn) else [event]

    def _in_order(self, event: Step) -> bool:
        table, seat = self.table, seated(event)
        if isinstance(event, ev.TileDiscarded):
            return table.in_turn(seat)
        return seat == table.next_to_draw() or table.owes_replacement(seat)

    def _held_moves(self, t: float) -> list:
        """A held draw or discard that is now in order, else one that has waited long enough
        (the engine then says what is wrong with it); one at a time, since each changes the
        hand's state."""
        ready = [h for h in self.held if self._in_order(h[1])] or [
            h for h in self.held if t - h[0] >= HOLD
        ]
        if not ready:
            return []
        self.held.remove(ready[0])
        event = replace(ready[0][1], t=t)
        return self._close_calls(t) + [event] if isinstance(event, ev.TileDrawn) else [event]

    # -- helpers -------------------------------------------------------------------------

    def _close_calls(self, t: float) -> list:
        """Declare the calls laid out on the open window, then close it."""
        table = self.table
        if table.state not in ("claim_window", "rob_window"):
            return []
        inputs = []
        if table.state == "claim_window":
            discarder, discard = table.discards[-1]
            for seat in range(4):
                laid = self.exposing[seat]
                if laid and seat != discarder and seat not in table.calls:
                    inputs.append(ev.ClaimDeclared(t, seat, _call_kind(laid, discard), tuple(laid)))
        self.window_opened = None
        return inputs + [ev.ClaimWindowClosed(t, None)]

    def _own_kong(self, t: float, seat: int) -> list:
        """Four of a kind laid out on one's turn, or one tile added to one's exposed pung."""
        table = self.table
        if table.state != "discard" or seat != table.turn:
            return []  # tiles of a call on the open window, declared at its close
        laid = self.exposing[seat]
        kinds = [tiles.kind_of(x) for x in laid]
        for kind in set(kinds):
            group = tuple(x for x in laid if tiles.kind_of(x) == kind)
            pung = any(
                m.kind == PUNG and tiles.kind_of(m.tiles[0]) == kind for m in table.melds[seat]
            )
            if len(group) == 4 or (pung and len(group) == 1):
                return [ev.KongDeclared(t, seat, group)]
        return []

    def _discard_taken(self, t: float, seat: int, tile: int) -> list:
        table = self.table
        if table.state == "claim_window" and table.discards and table.discards[-1][1] == tile:
            return self._close_calls(t)  # the claimer's hand on the discard ends the calls
        if any(tile in m.tiles for m in table.melds[seat]):
            return []  # the call was granted: the tile follows it
        return [
            Irregular(
                t,
                self.side(seat),
                f"{self._where(seat)} took a tile from a river without a granted call",
                tile,
            )
        ]

    def _unseen_draw(self, t, seat, tile, source, target) -> list:
        """A tile seen leaving a wall and next in a river, or (a flower) in a meld area: the
        draw and the discard (or the flower's exposure) of the player whose tile it was to
        draw, the hand read between them dropped; the tracker has told the referee already."""
        table, wall = self.table, self.table.wall
        expected = None
        if wall is not None and table.owes_replacement(seat):
            expected = wall.tile_at(wall.next_replacement_position)
        elif wall is not None and table.live_drawer() == seat:
            expected = wall.tile_at(wall.next_draw_position)
        river = target.startswith("river")
        if expected == tile and (river or tiles.is_flower(tiles.kind_of(tile))):
            then = ev.TileDiscarded(t, seat, tile) if river else ev.FlowerExposed(t, seat, tile)
            return self._close_calls(t) + [ev.TileDrawn(t, seat, tile), then]
        return [
            Irregular(
                t,
                self.side(seat),
                f"a tile went from {zone_words(source)} to "
                f"{zone_words(target)} unseen in between: check it",
                tile,
            )
        ]


def _call_kind(laid: list[int], discard: int) -> str:
    kind = tiles.kind_of(discard)
    if all(tiles.kind_of(x) == kind for x in laid):
        return KONG if len(laid) == 3 else PUNG
    return CHOW
