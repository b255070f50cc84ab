"""The turns of a hand: draws and discards (RULES.md 3.5, 3.6, 4.5, 4.6); the dice and the
deal before them are engine/dealing.py's.

Each check returns None when the input is allowed, else the `Refusal`; each action changes
the hand's state and returns the outputs it makes. The table calls them from its machine.
"""

from collections.abc import Callable
from functools import partial

from engine import events as ev
from engine import tiles
from engine.clocks import Clocks
from engine.hand_state import HandState, Refusal, Spot, seated
from engine.referee import Referee
from engine.rulebook import TableRules
from engine.seats import letter
from engine.wall import Position
from engine.wall_touch import Touches


class Turns:
    """Draws and discards of one hand."""

    def __init__(
        self,
        hand: HandState,
        rules: TableRules,
        referee: Referee,
        clocks: Clocks,
        touches: Touches,
        held_now: Callable[[Spot], bool],
    ):
        """`held_now(spot)`: whether the rule book would hold its payment outside the table
        now (WinRules.held_now)."""
        self.hand, self.rules, self.referee, self.clocks = hand, rules, referee, clocks
        self.touches, self.held_now = touches, held_now

    # -- drawing -------------------------------------------------------------------------

    def live_draw(self, event: ev.TileDrawn) -> Refusal | None:
        if event.seat != self.hand.turn:
            return Refusal(
                "turn",
                f"{letter(event.seat)} drew out of turn: it is {letter(self.hand.turn)}'s draw",
                offence="early_draw",
            )
        return self._in_wall(event)

    def replacement(self, event: ev.TileDrawn) -> Refusal | None:
        seat = seated(event)
        if not self.hand.owes[seat]:
            if seat == self.hand.turn:
                return Refusal(
                    "turn",
                    f"{letter(seat)} drew again before discarding: too many tiles (大相公)",
                    offence="wrong_count_high",
                )
            return Refusal(
                "turn",
                f"{letter(seat)} drew out of turn: it is {letter(self.hand.turn)}'s turn to "
                "discard",
                offence="early_draw",
            )
        return self._in_wall(event)

    def _in_wall(self, event: ev.TileDrawn) -> Refusal | None:
        """A draw of any tile still standing in the wall stands, wherever it was taken from
        (seed 000 摸牌時的犯規 1: 該摸牌當作有效); one the wall does not hold is no draw."""
        if event.tile is None or self.hand.broken_wall.position_of(event.tile) is not None:
            return None
        return Refusal(
            "wall",
            f"{letter(event.seat)} took tile {event.tile}, which the wall does not hold (dealt, "
            "drawn or played already): check the tiles and correct the tracking",
            needs_ruling=True,
        )

    def wall_spent(self) -> bool:
        return self.hand.broken_wall.live_count == 0

    def take_live(self, event: ev.TileDrawn) -> list[ev.Event]:
        hand, wall = self.hand, self.hand.broken_wall
        due = self.touches.due(hand.turn, event.tile)  # the head, or as 摸打規條 5 leaves it
        take_due = wall.draw if due in (None, wall.next_draw_position) else partial(wall.take, due)
        tile, warning = self._take(event, hand.turn, due, take_due)
        hand.hands[hand.turn].append(tile)
        hand.last_draw = "live"
        hand.last_tile_drawn = wall.live_count < self.rules.last_tiles
        return [ev.Drew(event.t, hand.turn, tile, False), *warning]

    def take_replacement(self, event: ev.TileDrawn) -> list[ev.Event]:
        seat, hand, wall = seated(event), self.hand, self.hand.broken_wall
        tile, warning = self._take(
            event, seat, wall.next_replacement_position, wall.draw_replacement
        )
        hand.hands[seat].append(tile)
        hand.owes[seat] -= 1
        hand.last_draw = hand.owed_for[seat]
        hand.last_tile_drawn = wall.live_count < self.rules.last_tiles
        if hand.last_draw == "kong":
            self.clocks.start(seat, event.t)  # a kong's replacement: a new turn
        elif not hand.discards and seat == hand.east:
            self.clocks.start(seat, event.t, first=True)  # the deal ends with the flowers
        return [ev.Drew(event.t, seat, tile, True), *warning]

    def _take(
        self, event: ev.TileDrawn, seat: int, due: Position | None, take_due: Callable[[], int]
    ) -> tuple[int, list[ev.Event]]:
        """The tile drawn: the one `due` (the head, or the tail for a replacement), or the one
        the player took from elsewhere in the wall, which stands with a warning the referee
        confirms or waives (seed 000 摸牌時的犯規 1: waived when the opponents were partly to
        blame, e.g. the wall head pushed too far from the next wall)."""
        wall = self.hand.broken_wall
        taken = None if event.tile is None else wall.position_of(event.tile)
        if taken is None or taken == due:
            self.hand.wrong_draw = None
            return take_due(), []
        tile = wall.take(taken)
        self.hand.wrong_draw = (seat, tile)
        return tile, self.referee.offence(
            event.t,
            seat,
            "wrong_draw",
            f"{letter(seat)} drew from the wrong place: {_place(taken)}, not {_place(due)}; "
            "the draw stands and the next draw still comes from the wall head",
            self.rules.refs.get("wall", ""),
            warning=True,
        )

    def won_on_wrong_draw(self, event: ev.WinDeclared) -> list[ev.Event]:
        """A self-drawn win on a tile drawn from the wrong place stands, with the point penalty
        the rule book proposes for the referee's ruling (seed 000 摸牌時的犯規 1: 如果摸錯牌時
        正好自摸和，便會判罰扣分); nothing when the rule book has no such penalty (CCM)."""
        seat, catalogue = seated(event), self.referee.catalogue
        if self.hand.wrong_draw is None or self.hand.wrong_draw[0] != seat:
            return []
        if catalogue is None or "wrong_draw_win" not in catalogue.offences:
            return []
        return self.referee.offence(
            event.t,
            seat,
            "wrong_draw_win",
            f"{letter(seat)} won by self-draw on a tile drawn from the wrong place",
            self.rules.refs.get("wall", ""),
        )

    # -- discarding ----------------------------------------------------------------------

    def discard(self, event: ev.TileDiscarded) -> Refusal | None:
        seat, hand = seated(event), self.hand
        who = letter(seat)
        if seat != hand.turn:
            return Refusal(
                "turn",
                f"{who} discarded out of turn: it is {letter(hand.turn)}'s turn: too few "
                "tiles (小相公)",
                offence="wrong_count_low",
            )
        if event.tile not in hand.hands[seat]:
            return Refusal("turn", f"tile {event.tile} is not in {who}'s hand", True)
        if hand.owes[seat]:
            return Refusal(hand.owed_for[seat], f"{who} must draw a replacement before discarding")
        spared = self._flower_kong_spared(seat, event.tile)
        if tiles.is_flower(tiles.kind_of(event.tile)) and not spared:
            return Refusal(
                "flower",
                "a flower is never discarded: expose it and "
                "draw a replacement (discarding it makes a dead hand)",
                True,
                "flower_discarded",
            )
        if not self.referee.may_discard(seat, event.tile) and self._may_discard_any(seat):
            offence, message = self.referee.discard_refusal(seat)
            return Refusal("penalty_tile", message, offence=offence)
        if self.referee.mechanical[seat] and event.tile != hand.hands[seat][-1]:
            return Refusal("turn", f"{who} plays mechanically: he discards the tile he drew")
        if hand.holds_flower(seat) and not spared:
            return Refusal(
                "flower",
                f"{who} holds a flower: it is exposed and replaced at once, before the discard",
            )
        if not hand.discards and (any(hand.owes) or any(map(hand.holds_flower, range(4)))):
            return Refusal(
                "flower", "flowers are replaced, East first, before East's first discard"
            )
        return None

    def _flower_kong_spared(self, seat: int, tile: int) -> bool:
        """Seed 004 §32 (A-C4): the flower that would make his flower kong may be discarded
        instead, without the dead hand, when the kong's payment would end the game with him
        not first."""
        return (
            self.rules.discard_flower_kong_at_game_end
            and tiles.is_flower(tiles.kind_of(tile))
            and self.hand.makes_flower_kong(seat, tile)
            and self.held_now(Spot("flower", seat, len(self.hand.discards)))
        )

    def _may_discard_any(self, seat: int) -> bool:
        """He holds a tile he may discard. After a call his other tiles may all be dead penalty
        tiles: then one of them goes, or the hand could never go on (an inference: seed 000
        罰張 2 says 以後不得打出 and does not foresee it)."""
        return any(self.referee.may_discard(seat, t) for t in self.hand.hands[seat])

    def lay_discard(self, event: ev.TileDiscarded) -> list[ev.Event]:
        seat, hand, now = seated(event), self.hand, event.t
        hand.hands[seat].remove(event.tile)
        hand.wrong_draw = None
        self.touches.discarded()
        hand.rivers[seat].append(event.tile)
        hand.discards.append((seat, event.tile))
        hand.discard_times.append(now)
        self.referee.discarded(seat, event.tile)
        hand.calls = {}
        discarded: list[ev.Event] = [ev.Discarded(now, seat, event.tile)]
        return discarded + self._charge(now, seat, self.clocks.discard(seat, now))

    def charge_owing(self, event: ev.Event) -> list[ev.Event]:
        """The hand ends on a self-drawn win: the overtime of the turn a kong ended (seed
        000 打牌時限 3, 補槓後便算作另一巡), which his next discard would have brought, is
        charged now."""
        owing = [(seat, self.clocks.owing(seat)) for seat in range(4)]
        return [o for seat, found in owing for o in self._charge(event.t, seat, found)]

    def _charge(self, now: float, seat: int, overtimes) -> list[ev.Event]:
        """The time penalties for what a turn ran over, per limit (RULES.md 3.12)."""
        out: list[ev.Event] = []
        timing = self.clocks.timing
        for over in overtimes:
            name = "overtime_discard" if over.limit == "discard" else "overtime_hand"
            limit = self.clocks.turn_limit(seat) if over.limit == "discard" else timing.hand_limit
            blocks = (
                "" if over.blocks == 1 else f" ({over.blocks} started {timing.block:g}-s blocks)"
            )
            out += self.referee.offence(
                now,
                seat,
                name,
                f"{letter(seat)} ran {over.seconds:.1f} s "
                f"over the {limit:g}-s {over.limit} limit{blocks}",
                blocks=over.blocks,
            )
        return out

    def discard_before_draw(self, event: ev.TileDiscarded) -> Refusal:
        seat = seated(event)
        when = "before drawing" if seat == self.hand.turn else "out of turn"
        return Refusal(
            "turn",
            f"{letter(seat)} discarded {when}: too few tiles (小相公)",
            offence="wrong_count_low",
        )

    def pass_turn(self, event: ev.ClaimWindowClosed) -> list[ev.Event]:
        """Nobody called the discard: the next player's turn, his clock from the discard."""
        hand = self.hand
        hand.turn = hand.after_discarder
        self.clocks.start(hand.turn, hand.discard_times[-1])
        hand.calls = {}
        return []


def _place(position: Position | None) -> str:
    """A wall position for the referee: whose wall, which stack from its right end."""
    if position is None:
        return "nowhere (the live wall is spent)"
    seat, place = position
    level = "top" if place % 2 == 0 else "bottom"
    return f"{letter(seat)}'s wall, stack {place // 2 + 1} from its right end ({level})"
