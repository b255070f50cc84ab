"""What the players' hands do, as game inputs: tile movements and buttons read in the light
of the hand's state.

The tracker (engine/tracking.py) says which physical tile went from which zone to which; this
module says what that means at this moment of the hand: a tile from a wall into a hand is a
draw (or part of the deal), from a hand into its river a discard, from a hand into its meld
area a flower, a kong, or the tiles of a call, and a claimed discard taken from a river ends
the calls; a tile from a wall straight into a river or meld area, its rack's reads dropped,
is the draw and then what followed it. Movements that mean nothing legal are returned as
`Irregular` for the referee, never dropped. Zones are physical sides of the table (E S W N);
seats are the winds of this hand, so the dealer's side is seat 0.
"""

from dataclasses import dataclass, replace
from itertools import count

from engine import events as ev
from engine import resync, tampering, tiles
from engine.deal_order import DealOrder, order_of
from engine.hand import CHOW
from engine.hand_state import seated
from engine.laying import (
    call_kind,
    called_before,
    chow_pending,
    own_kong,
    shown_chow,
    still_laying,
)
from engine.ordering import HOLD, WAIT, Step, Waiting
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


class Interpreter:
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

    @property
    def chower(self) -> int | None:
        """Who showed a chow on the open window: the hand's calls say (so a hand taken up
        after a power cut knows it as well as the one that saw it shown)."""
        calls = self.table.calls.values()
        return next((c.seat for c in calls if c.claim == CHOW and c.shown_at is not None), None)

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
        if src == "wall" and dst in ("river", "melds") and self._his_to_draw(seat, tile):
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
        """Does the hand wait for this movement now: a tile of the deal or the wall's next one
        (or the replacement owed: one seen before its flower or kong waits for it) into the
        rack of the seat to take it, or on from there (a flower drawn and laid out at once), a
        discard, flower, kong or call by the seat in turn or on an open window, the latest
        discard claimed, a call taken back? The tracking asks one sighting more of any other
        (engine/tracking.py, issue 32 item 8): a misread is almost never a move anyone is due
        to make."""
        table, wall = self.table, self.table.wall
        if table.ended or table.out_of_step or wall is None:
            return False
        src, src_side = zone_side(source)
        dst, dst_side = zone_side(target)
        seat = self.seat(dst_side)
        if src == "wall" and dst in ("river", "melds"):  # the rack's reads dropped between
            return self.expects(tile, source, zone("hand", dst_side))
        if src == "wall" and dst == "hand":
            head, tail = wall.next_draw_position, wall.next_replacement_position
            robbing = table.state == "rob_window" and table.next_to_draw() == seat
            return (
                tile in self.to_deal[seat]
                or (tile == wall.tile_at(head) and seat in (table.live_drawer(), table.turn))
                or (tile == wall.tile_at(tail) and (table.owes_replacement(seat) or robbing))
            )
        if src == "river" and dst == "melds":
            return bool(table.discards) and table.discards[-1][1] == tile
        if src_side != dst_side:
            return False
        if src == "hand" and dst in ("river", "melds"):
            return seat in (table.turn, table.live_drawer()) or table.state in WINDOWS
        return src == "melds" and dst == "hand" and tile in self.exposing[seat]

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
        if (
            self.table.state in ("claim_window", "rob_window")
            and self.window_opened is not None
            and t - self.window_opened >= self.claim_window
            and (
                not (still_laying(self.table, self.exposing) or self._chow_to_show())
                or t - self.window_opened >= self.claim_window + WAIT
            )
            and not chow_pending(self.table, self.chower, self.exposing, self.laid_at)
        ):
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

    def _close_calls(self, t: float, declared: int | None = None) -> list:
        """Declare the calls laid out on the open window (but the seat's `declared` with
        them), then close it."""
        table = self.table
        if table.state not in ("claim_window", "rob_window") or table.out_of_step:
            return []
        inputs = []
        if table.state == "claim_window":
            discarder, discard = table.discards[-1]
            for seat in range(4):
                laid = self.exposing[seat]
                if laid and seat not in (discarder, declared) and seat not in table.calls:
                    at = min(self.laid_at.get(seat, t), t)  # called when he laid it out
                    inputs.append(ev.ClaimDeclared(at, seat, call_kind(laid, discard), tuple(laid)))
        self.window_opened = None
        return inputs + [ev.ClaimWindowClosed(t, None)]

    def _own_kong(self, t: float, seat: int) -> list:
        """Four of a kind laid out on one's turn, or one tile added to one's exposed pung."""
        if self.table.out_of_step:
            return []
        group = own_kong(self.table, seat, self.exposing[seat], self.declared)
        if group is None:
            return []
        self.declared.add(group)
        return [ev.KongDeclared(t, seat, group)]

    def _no_replacement(self, t: float) -> list:
        """A replacement owed when no live tile is left: the reach for it ends the hand."""
        table, wall = self.table, self.table.wall
        owing = [s for s in range(4) if table.owes_replacement(s)]
        return [ev.TileDrawn(t, owing[0], None)] if owing and wall and not wall.live_count else []

    # -- a chow: shown, then its caller's discard (seed 000 吃牌 4, 鳴牌優先規條 4) ---------

    def _chow_shown(self, t: float, seat: int) -> list:
        """A chow shown is declared at once: the others' pung and kong rights end with it.
        One whose caller discarded first (seed 000 吃牌 4 allows it: 容許先打牌、後亮出明順)
        is done now: the rights ended at his discard, his time ran until the showing."""
        shown = (
            None
            if self.chower is not None or seat in self.table.calls
            else shown_chow(self.table, seat, self.exposing[seat], t)
        )
        if shown is None:
            return []
        discard = self.waiting.discard_of(seat)
        if discard is None:
            return [shown]
        return [replace(shown, t=min(discard.t, t)), *self._chow_done(t, replace(discard, t=t))]

    def _chow_to_show(self) -> bool:
        """The next player discarded while the calls were open: a chow he may show after
        his discard (吃牌 4) keeps them open a while longer, as a meld half laid out does."""
        table = self.table
        return table.state == "claim_window" and self.waiting.holds_discard(table.after_discarder)

    def _chow_done(self, t: float, discard: ev.TileDiscarded) -> list:
        """The chower discards: the chow is done, the calls close (it is granted unless a
        call before it outranks it), then his discard; a win called meanwhile ends the hand
        on the chowed tile, and this discard is none."""
        closing = self._close_calls(t, declared=seated(discard))
        winning = any(c.claim == "win" for c in self.table.calls.values())
        return closing if winning else closing + [discard]

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

    def _his_to_draw(self, seat: int, tile: int) -> bool:
        """The tile is the seat's draw: his next, his replacement from the tail if he owes one
        (or will, his kong not robbed), else the next from the head (his turn may not be read
        yet); or any tile still in the wall when the draw is his, which stands as a draw from
        the wrong place (seed 000 摸牌時的犯規 1)."""
        table, wall = self.table, self.table.wall
        if wall is None:
            return False
        robbing = table.state == "rob_window" and table.next_to_draw() == seat
        replacing = table.owes_replacement(seat) or robbing
        end = wall.next_replacement_position if replacing else wall.next_draw_position
        drawing = replacing or seat in (table.live_drawer(), table.next_to_draw())
        return tile == wall.tile_at(end) or (drawing and wall.position_of(tile) is not None)

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
