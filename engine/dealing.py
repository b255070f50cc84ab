"""The start of a hand: the dice, the break and the deal (RULES.md 3.4, 4.4), and the
referee's rulings that let a wrong start stand: the wrong dealer keeping the deal, the wrong
break standing (seed 000 配牌時的犯規 2, 3). The turns after it are engine/turns.py's.

Each check returns None when the input is allowed, else the `Refusal`; each action changes
the hand's state and returns the outputs it makes. The table calls them from its machine.
"""

from engine import events as ev
from engine.clocks import Clocks
from engine.deal import break_of
from engine.hand_state import HandState, Refusal
from engine.referee import Referee
from engine.rulebook import TableRules
from engine.seats import letter
from engine.wall import Break, Wall, wsom_break

REFEREE_ROLL = "referee"  # DiceRolled.source of a roll the referee throws
ASKED_FOR = "seed 000 開門 6: an opponent may ask the referee to throw it for East"


class Dealing:
    """Dice, break and deal of one hand."""

    def __init__(self, hand: HandState, rules: TableRules, referee: Referee, clocks: Clocks):
        self.hand, self.rules, self.referee, self.clocks = hand, rules, referee, clocks

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


def _roll_problem(event: ev.DiceRolled) -> Refusal | None:
    if len(event.dice) != 2 or not all(1 <= d <= 6 for d in event.dice):
        return Refusal("dice", f"a roll is two dice 1..6, not {event.dice}")
    return None
