"""What the players' hands do, as game inputs: tile movements and buttons read in the light
of the hand's state.

The tracker (engine/tracking.py) says which physical tile went from which zone to which; this
module says what that means at this moment of the hand: a tile from a wall into a hand is a
draw (or part of the deal), from a hand into its river a discard, from a hand into its meld
area a flower, a kong, or the tiles of a call, and a claimed discard taken from a river ends
the calls; a tile from a wall straight into a river or meld area, its rack's reads dropped,
is the draw and then what followed it. Movements that mean nothing legal are returned as
`Irregular` for the referee, never dropped. Zones are physical sides of the table (E S W N);
seats are the winds of this hand, so the dealer's side is seat 0. The calls on an open window
are engine/open_calls.py's; which movement the hand waits for, engine/expecting.py's.
"""

from dataclasses import dataclass
from itertools import count

from engine import events as ev
from engine import resync, tampering, tiles
from engine.deal_order import DealOrder, order_of
from engine.expecting import expects, his_to_draw
from engine.hand_state import seated
from engine.laying import called_before
from engine.open_calls import OpenCalls
from engine.ordering import HOLD, Step, Waiting
from engine.seats import LETTERS, letter, seat_at, side_of, zone, zone_side, zone_words
from engine.table import WINDOWS, Table
from engine.wall import Break


@dataclass(frozen=True)
class Irregular:
    """A movement the hand's state cannot explain; the message never names a hidden tile."""

    t: float
    side: int
    message: str
    tile: int | None = None


class Interpreter(OpenCalls):
    """Turns movements and buttons into inputs for one hand's `table` (read, never changed).

    `dealer_side` is the physical side where East sits; `claim_window` how long calls on a
    discard stay open (seconds, from the table profile); `settle` how long the tracking takes
    to confirm a movement, so that a button is read only once the moves made before it are
    known (a button is seen at once, a tile only after a few sweeps). Once the hand has
    refused a move the table made (`table.out_of_step`), nothing more is given it until the
    referee accepts the table as it lies (`accept`): the alert is raised once, not at every
    turn after it.
    """

    def __init__(self, table: Table, dealer_side: int, claim_window: float, settle: float = 0.0):
        self.table, self.dealer_side, self.claim_window = table, dealer_side, claim_window
        self.settle = settle
        self.to_deal: list[set[int]] = [set(), set(), set(), set()]
        self.deal_order: DealOrder | None = None  # the deal as the players take it
        self.broken: Break | None = None  # the dice's break
        self.exposing: list[list[int]] = [[], [], [], []]  # tiles laid out, not yet an input
        self.window_opened: float | None = None
        self.held_wins: dict[int, float] = {}  # seat -> when he pressed win
        self.waiting = Waiting(table)  # draws, discards and flowers seen early
        self.laid_at: dict[int, float] = {}  # seat -> when his first tile was laid out
        self.declared: set[tuple[int, ...]] = set()  # the kongs declared, each once
        self.racked: dict[int, int] = {}  # seat -> his latest draw read in his rack (單放)
        self.latest = (0, False, 0.0)  # (seat, into his river?, when) of the latest move read
        self.arrived: dict[int, int] = {}  # river tile -> when it came, in order
        self._arrivals = count()

    def seat(self, side: int) -> int:
        return seat_at(side, self.dealer_side)

    def side(self, seat: int) -> int:
        return side_of(seat, self.dealer_side)

    # -- what the engine did -------------------------------------------------------------

    def outputs(self, t: float, outputs) -> None:
        """Follow the engine: the deal to expect, when calls opened, which exposures it used."""
        for out in outputs:
            if isinstance(out, ev.WallBroken) and out.seat is not None:
                self.broken = Break(out.seat, out.stacks)
            elif isinstance(out, ev.Dealt):
                self.to_deal = [set(h) for h in out.hands]
                self.deal_order = order_of(self.table, self.broken, out.hands, self.side, Irregular)
            elif isinstance(out, ev.Rebased) and self.deal_order is not None:
                self.deal_order.rebase(out.hands)  # the break made stands (開錯門)
                self.to_deal = [set(h) - self.deal_order.taken for h in out.hands]
            elif isinstance(out, (ev.Claimed, ev.Konged)):
                seat = seated(out)
                self.exposing[seat] = [x for x in self.exposing[seat] if x not in out.tiles]
            elif isinstance(out, ev.HandRealigned):
                self.window_opened = None
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
            if self.deal_order is not None and self.deal_order.concerns(tile, seat, table):
                return self.deal_order.take(t, seat, tile, table, self.to_deal)
            self.latest, self.racked[seat] = (seat, False, t), tile
            draw = ev.TileDrawn(t, seat, tile)
            if not table.out_of_step and self.waiting.replacement_early(draw):
                self.waiting.hold(t, draw)  # its flower or kong first (issue 32 item 8)
                return []
            seen = tampering.seen(t, table, self.to_deal[seat], seat, tile, self.side)
            return seen + self._in_turn(t, draw)
        order = self.deal_order
        if src == "hand" and dst == "wall" and order and order.put_back(tile, self.to_deal):
            return []  # the deal's error put right before the break stands
        if src == "hand" and dst == "wall" and self.waiting.drop_draw(tile):
            return []  # a ghost read of a draw, put right
        if src == "hand" and dst == "river" and src_side == dst_side:
            self.latest, self.arrived[tile] = (seat, True, t), next(self._arrivals)
            if seat == self.chower and seat in table.calls:
                return self._chow_done(t, ev.TileDiscarded(t, seat, tile))
            return self._in_turn(t, ev.TileDiscarded(t, seat, tile))
        if src == "hand" and dst == "melds" and src_side == dst_side:
            if table.state not in WINDOWS:
                self.latest = (seat, False, t)  # on his turn: not a call on a discard
            if tiles.is_flower(tiles.kind_of(tile)):
                return self._in_turn(t, ev.FlowerExposed(t, seat, tile))
            if not self.exposing[seat]:
                self.laid_at[seat] = t
            self.exposing[seat].append(tile)
            return self._chow_shown(t, seat) or self._own_kong(t, seat)
        if (
            src == "melds"
            and dst == "hand"
            and src_side == dst_side
            and tile in self.exposing[seat]
        ):
            self.exposing[seat].remove(tile)  # a call taken back before it was granted
            return []
        if src == "river" and dst == "melds":
            self.latest = (seat, False, t)
            return self._discard_taken(t, seat, tile)
        if src == "wall" and dst in ("river", "melds") and his_to_draw(table, seat, tile):
            rack = zone("hand", dst_side)  # the rack's reads were dropped in between
            drawn, then = self.move(t, tile, source, rack), self.move(t, tile, rack, target)
            self.racked.pop(seat, None)  # never read in his rack: kept apart, or not seen
            if drawn and not then:  # the draw goes now: what followed it, right after it
                then = self.waiting.following(tile)
            return drawn + then
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

    def expects(self, tile: int, source: str, target: str) -> bool:
        """Does the hand wait for this movement now (engine/expecting.py)?"""
        return expects(self.table, self.to_deal, self.exposing, self.seat, tile, source, target)

    def button(self, t: float, side: int, name: str) -> list:
        """A seat's win button: a self-drawn win on its turn, else a call to win.

        A player calls on a discard he sees; the table sees it a moment later, once the
        readers confirm it. So every press is read `settle` seconds late, and one the hand's
        state still cannot take is held up to `HOLD` seconds, until the discard (or the
        player's own draw) is seen."""
        if name != "win":
            return []
        self.held_wins[self.seat(side)] = t
        return [] if self.table.out_of_step else self._held_wins(t)

    def poll(self, t: float) -> list:
        """Held moves and then win presses that now make sense (a press on the discard after
        the moves before it), a kong laid out before its draw was read, a replacement the
        spent wall cannot give, and the calls closed once their time is over."""
        if self.table.out_of_step or self.table.ended:
            return []  # nothing is in order until the table is accepted as it lies
        turn = self.table.turn
        inputs = (
            self._held_moves(t)
            or self._held_wins(t)
            or (self._own_kong(t, turn) if self.exposing[turn] else [])
            or self._no_replacement(t)
        )
        if self._calls_over(t):
            inputs += self._close_calls(t)
        return inputs

    def _held_wins(self, t: float) -> list:
        """The win presses read now. A press with the hand laid out (all his concealed tiles
        but one, at least one) is a win shown: wrong, it is 錯和; else 空和 (seed 000 錯鳴 6, 7).
        A self-drawn win whose drawn tile was read in his rack joined his hand (seed 004 單放)."""
        table = self.table
        inputs: list[ev.Event] = []
        for seat, pressed in sorted(self.held_wins.items()):
            if t - pressed < self.settle:
                continue
            laid = len(self.exposing[seat])
            shown = laid >= max(1, len(table.hands[seat]) - 1)
            mixed_in = bool(table.hands[seat]) and self.racked.get(seat) == table.hands[seat][-1]
            if table.state in ("claim_window", "rob_window"):
                inputs.append(ev.ClaimDeclared(t, seat, "win", shown=shown))
            elif table.in_turn(seat) or t - pressed >= HOLD:  # else the engine says why not
                inputs.append(ev.WinDeclared(t, seat, shown, mixed_in))
            else:
                continue
            del self.held_wins[seat]
        return inputs

    def _in_turn(self, t: float, event: Step) -> list:
        """A draw, a discard or a flower, or None yet: one seen before the move that comes
        before it at the table waits for it (engine/ordering.py)."""
        if self.table.out_of_step:
            return []
        if not self.waiting.in_order(event):
            self.waiting.hold(t, event)
            return []
        return self._taken(t, event)

    def _held_moves(self, t: float) -> list:
        event = self.waiting.take(t)
        return [] if event is None else self._taken(t, event)

    def _taken(self, t: float, event: Step) -> list:
        """A move for the engine; a draw ends the calls on the latest discard first. A call
        laid out before the next player's draw reached his rack takes the discard first:
        he took up the wall head meanwhile (seed 000 摸打規條 5) and puts the tile back: his
        draw waits, dropped when the tile is back (one never put back goes to the engine
        after its wait, which refuses it for the referee)."""
        if not isinstance(event, ev.TileDrawn):
            return [event]
        if not called_before(self.table, self.exposing, seated(event)):
            return self._close_calls(t) + [event]
        self.waiting.hold(t, event)
        return [ev.WallTouched(t, event.seat), *self._close_calls(t)]

    # -- helpers -------------------------------------------------------------------------

    def _no_replacement(self, t: float) -> list:
        """A replacement owed when no live tile is left: the reach for it ends the hand."""
        table, wall = self.table, self.table.wall
        owing = [s for s in range(4) if table.owes_replacement(s)]
        return [ev.TileDrawn(t, owing[0], None)] if owing and wall and not wall.live_count else []

    def _discard_taken(self, t: float, seat: int, tile: int) -> list:
        table = self.table
        if table.state == "claim_window" and table.discards and table.discards[-1][1] == tile:
            if seat == self.chower:
                return []  # the chow's tile: a win may still come until he discards
            return self._close_calls(t)  # the claimer's hand on the discard ends the calls
        if any(tile in m.tiles for m in table.melds[seat]):
            return []  # the call was granted: the tile follows it
        return [
            Irregular(
                t,
                self.side(seat),
                f"{letter(seat)} ({LETTERS[self.side(seat)]} side) took a tile from a river "
                "without a granted call",
                tile,
            )
        ]

    def accept(self, t: float, places: dict[int, str]) -> ev.TableAccepted:
        """The referee's input accepting the table as it lies, from the tracking's zone of
        each tile (issue 20). The hand goes on from the table: what waited is dropped, and
        of what was laid out only the calls on the latest discard are still calls."""
        seat, discarded, since = self.latest
        self.exposing = [
            laid if discarded and s != seat and self.laid_at.get(s, -1) >= since else []
            for s, laid in enumerate(self.exposing)
        ]
        self.waiting.clear()
        calls = {x for laid in self.exposing for x in laid}
        return resync.as_it_lies(t, places, self.seat, (seat, discarded), calls, self.arrived)
