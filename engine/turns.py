"""The turns of a hand: the dice and the deal, draws, discards (RULES.md 3.4-3.6, 4.4-4.6).

Each check returns None when the input is allowed, else the `Refusal`; each action changes
the hand's state and returns the outputs it makes. The table calls them from its machine.
"""

from collections.abc import Callable
from functools import partial

from engine import events as ev
from engine import tiles
from engine.clocks import Clocks
from engine.deal import break_of
from engine.hand_state import HandState, Refusal, Spot, seated
from engine.referee import Referee
from engine.rulebook import TableRules
from engine.seats import letter
from engine.wall import Break, Position, Wall, wsom_break
from engine.wall_touch import Touches

REFEREE_ROLL = "referee"  # DiceRolled.source of a roll the referee throws
ASKED_FOR = "seed 000 開門 6: an opponent may ask the referee to throw it for East"


class Turns:
    """Dice, deal, draws and discards of one hand."""

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

    # -- dice, break and deal ------------------------------------------------------------

    def dice(self, event: ev.DiceRolled) -> Refusal | None:
        if event.seat != 0:
            return Refusal("dice", "East rolls the dice")
        if event.source == REFEREE_ROLL:
            return Refusal("dice", f"the referee throws East's second roll only ({ASKED_FOR})")
        return _roll_problem(event)

    def keep_first_roll(self, event: ev.DiceRolled) -> list[ev.Event]:
        self.hand.first_dice = event.dice
        return []

    def second_roll(self, event: ev.DiceRolled) -> Refusal | None:
        breaker = wsom_break(sum(self.hand.first_dice), 2).seat
        if event.source == REFEREE_ROLL and breaker != 0:
            return Refusal(
                "dice",
                f"the referee throws the second roll only when East breaks the wall ({ASKED_FOR}); "
                f"it is {letter(breaker)}'s",
            )
        if event.seat != breaker:
            return Refusal(
                "dice", f"the second roll is {letter(breaker)}'s, who was counted by East's roll"
            )
        return _roll_problem(event)

    def break_and_deal(self, event: ev.DiceRolled) -> list[ev.Event]:
        hand, dice = self.hand, event.dice
        rolls = (hand.first_dice, dice) if self.rules.two_roll_break else (dice,)
        brk, dice = break_of(rolls, self.rules), sum(rolls, ())
        hand.wall = Wall(hand.walls, brk, self.rules.dead_wall)
        hand.hands = hand.wall.deal(0)
        hand.turn = 0
        self.clocks.deal(event.t)
        return [
            ev.WallBroken(event.t, brk.seat, brk.stacks, dice),
            ev.Dealt(event.t, None, tuple(tuple(h) for h in hand.hands)),
        ]

    def keep_dealer(self, event: ev.DealerKept, ended: bool, state: str) -> list[ev.Event]:
        """The referee's DealerKept: the seat that began the deal keeps it as East of this
        hand (seed 000 配牌時的犯規 3, its third case, engine/deal_order.py). Before the first
        discard the turn is his, his first turn's clock from now; the hand's winds count
        from him (engine/winning.py). Refused, with the reason, where the rule book has no
        such rule, for the right East or no seat, or once the hand is over."""
        seat, hand, why = event.seat, self.hand, ""
        if not self.rules.wrong_dealer_keeps_deal:
            why = "this rule book has no wrong dealer keeping the deal: the referee re-deals"
        elif seat is None or seat not in range(1, 4):
            why = "the wrong dealer who keeps the deal is S, W or N (the right East deals anyway)"
        elif ended:
            why = "the hand is over"
        if why or seat is None:
            refused = f"dealer kept refused (seed 000 配牌時的犯規 3): {why}"
            return [self.referee.alert(event.t, seat, self.rules.refs.get("wall", ""), refused)]
        hand.east = seat
        if not hand.discards and state == "discard":
            hand.turn = seat
            self.clocks.start(seat, event.t, first=True)
        return []

    def break_made(self, event: ev.BreakMade, state: str) -> list[ev.Event]:
        """The break the deal was taken from stands (seed 000 配牌時的犯規 2 開錯門): the wall
        is re-based on it, its head, kong tail and dead wall counted from it (開門 3, 王牌與
        海底牌 1), and the hands are its deal's. Refused, with the reason, where the rule book
        has no such rule, once a tile beyond the deal has moved, or for a break off the table."""
        hand, ref = self.hand, self.rules.refs.get("wall", "")
        ring = 4 * self.rules.stacks_per_side
        why = ""
        if not self.rules.wrong_break_stands:
            why = "this rule book has no wrong break standing: the referee re-deals (redeal)"
        elif state != "discard" or hand.discards or hand.last_draw != "deal" or any(hand.owes):
            why = "a tile beyond the deal has moved: accept the table as it lies"
        elif event.seat not in range(4) or not 0 <= event.stacks < ring:
            why = f"a break is a wall (seat 0..3) and 0..{ring - 1} tail stacks"
        if why or event.seat is None:
            refused = f"break made refused (seed 000 配牌時的犯規 2 開錯門): {why}"
            return [self.referee.alert(event.t, event.seat, ref, refused)]
        brk = Break(event.seat, event.stacks)
        hand.wall = Wall(hand.walls, brk, self.rules.dead_wall)
        hand.hands = hand.wall.deal(0)
        return [ev.Rebased(event.t, brk.seat, brk.stacks, tuple(tuple(h) for h in hand.hands))]

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


def _roll_problem(event: ev.DiceRolled) -> Refusal | None:
    if len(event.dice) != 2 or not all(1 <= d <= 6 for d in event.dice):
        return Refusal("dice", f"a roll is two dice 1..6, not {event.dice}")
    return None
