"""Calls, kongs and flowers at the table (RULES.md 3.7, 4.5, 4.6).

What a call may be (check_call) and who goes first (nearest_first) are plain functions;
`CallRules` records the calls on an open window, grants the best, and makes kongs and flower
replacements, on the hand's state it is given. Priority is win > pung/kong > chow; among
wins, the nearest in turn order after the discarder.
"""

from engine import events as ev
from engine import tiles
from engine.clocks import Clocks
from engine.hand import CHOW, KONG, PUNG
from engine.hand_state import Call, ExposedMeld, HandState, Refusal, seated
from engine.referee import Referee
from engine.rulebook import TableRules
from engine.seats import letter
from engine.wall_touch import Touches
from engine.winning import WinRules

CALL_TILES = {CHOW: 2, PUNG: 2, KONG: 3}


def check_call(
    event: ev.ClaimDeclared, discarder: int, tile: int, hand: list[int], chow_allowed: bool
) -> tuple[str, str, str] | None:
    """None if the call can be made; else (situation, offence, message) for the referee:
    calling without the tiles is an empty call (空鳴/空碰), with the wrong ones a wrong call
    (誤鳴/錯碰)."""
    seat, claim, own = event.seat, event.claim, tuple(event.tiles)
    who = letter(seat)
    if seat == discarder:
        return "claim", "wrong_call", "a player cannot call his own discard"
    if claim not in CALL_TILES:
        return "claim", "", f"unknown call {claim!r} (chow, pung, kong or win)"
    if len(own) != CALL_TILES[claim] or len(set(own)) != len(own) or not set(own) <= set(hand):
        return (
            "claim",
            "empty_call",
            (
                f"{who} called {claim} without the tiles for it: a "
                f"{claim} needs {CALL_TILES[claim]} of his own tiles"
            ),
        )
    kinds = sorted(tiles.kind_of(t) for t in own + (tile,))
    if claim == CHOW:
        if not chow_allowed:
            return "chow", "wrong_call", "chow is not allowed in this rule book"
        if seat != (discarder + 1) % 4:
            return "chow", "wrong_call", f"{who} may chow only from the player on his left"
        run = (
            tiles.is_suited(kinds[0])
            and tiles.suit(kinds[0]) == tiles.suit(kinds[2])
            and kinds == [kinds[0], kinds[0] + 1, kinds[0] + 2]
        )
        if not run:
            return "chow", "wrong_call", f"{who}'s tiles and the discard do not make a run"
    elif len(set(kinds)) != 1:
        return "claim", "wrong_call", f"{who}'s tiles do not match the discard for a {claim}"
    return None


class CallRules:
    """Calls on a discard or an added kong, kongs on one's turn, flowers."""

    def __init__(
        self,
        hand: HandState,
        rules: TableRules,
        referee: Referee,
        clocks: Clocks,
        wins: WinRules,
        touches: Touches,
    ):
        self.hand, self.rules, self.referee, self.clocks = hand, rules, referee, clocks
        self.wins, self.touches = wins, touches

    def late_call(self, event: ev.ClaimDeclared) -> Refusal:
        return Refusal(
            "claim",
            f"{letter(event.seat)} called {event.claim} after the calls on that tile were over",
            offence="late_call",
        )

    def claim(self, event: ev.ClaimDeclared) -> Refusal | None:
        seat, hand = seated(event), self.hand
        if hand.added_kong is not None:  # the window is on a tile added to a kong
            konger, tile = hand.added_kong
            if event.claim != "win":
                return Refusal(
                    "kong", "only a win may be called on a tile added to a kong (robbing the kong)"
                )
            return self.wins.call(seat, konger, tile, robbing=True, shown=event.shown)
        discarder, tile = hand.discards[-1]
        forfeited = self.touches.forfeits(seat, event.claim)
        if event.claim == "win":
            return forfeited or self.wins.call(seat, discarder, tile, False, event.shown)
        if self.referee.no_calls[seat]:
            return Refusal("claim", f"{letter(seat)} has lost the right to call this hand")
        if forfeited:
            return forfeited
        if hand.broken_wall.live_count == 0:
            return Refusal("last_tile", "the last discard may only be won on")
        problem = check_call(event, discarder, tile, hand.hands[seat], self.rules.chow_allowed)
        if problem:
            situation, offence, message = problem
            return Refusal(situation, message, True, offence, event.tiles)
        if self.referee.in_call(seat, event.tiles):
            return Refusal(
                "penalty_tile",
                "a penalty tile may not go into a called set",
                True,
                "wrong_call",
                event.tiles,
            )
        shown = self.chow_shown()
        if event.claim in (PUNG, KONG) and shown is not None and event.t > shown:
            return Refusal(
                "claim",
                f"{letter(seat)} called {event.claim} after the chow on that discard was "
                "shown: pung and kong rights on it were over (鳴牌優先規條 4)",
                offence="late_call",
            )
        if event.claim in (PUNG, KONG) and self.clocks.call_is_late(
            hand.discard_times[-1], event.t
        ):
            return Refusal(
                "claim",
                f"{letter(seat)} called {event.claim} more than "
                f"{self.clocks.timing.call_limit:g} s after the discard (延時碰牌)",
                offence="late_pung",
            )
        return None

    def chow_shown(self) -> float | None:
        """When the others' pung and kong rights on the latest discard ended, a chow on it
        being shown (seed 000 鳴牌優先規條 4); never sooner than the rule book's wait after the
        discard (吃牌 5: a chow shown too fast leaves them their rights). None: not ended."""
        wait = self.rules.chow_call_wait
        shown = [c.shown_at for c in self.hand.calls.values() if c.claim == CHOW and c.shown_at]
        if wait is None or not shown:
            return None
        return max(shown[0], self.hand.discard_times[-1] + wait)

    def record_claim(self, event: ev.ClaimDeclared) -> list[ev.Event]:
        seat = seated(event)
        self.hand.calls[seat] = Call(
            seat, event.claim, event.tiles, event.t if event.shown else None
        )
        return self.touches.later_win(event.t, seat, event.claim)

    def has_winners(self) -> bool:
        return any(c.claim == "win" for c in self.hand.calls.values())

    def has_granted_call(self) -> bool:
        return any(c.claim in (PUNG, KONG, CHOW) for c in self.hand.calls.values())

    def expose_call(self, event: ev.ClaimWindowClosed) -> list[ev.Event]:
        hand, now = self.hand, event.t
        call = sorted(hand.calls.values(), key=lambda c: c.claim == CHOW)[0]  # pung/kong first
        seat, tile = hand.discards[-1]
        hand.rivers[seat].remove(tile)
        for t in call.tiles:
            hand.hands[call.seat].remove(t)
        meld = ExposedMeld(call.claim, tuple(sorted(call.tiles + (tile,))), False, tile, seat)
        hand.melds[call.seat].append(meld)
        hand.turn, hand.calls_made, hand.last_draw = call.seat, True, "claim"
        self.clocks.start(call.seat, hand.discard_times[-1])
        out: list[ev.Event] = [ev.Claimed(now, call.seat, call.claim, meld.tiles, tile, seat)]
        hand.claims_log.append((call.seat, seat, tuple(tiles.kind_of(t) for t in meld.tiles)))
        if call.claim == KONG:
            hand.paid_now("melded", call.seat, feeder=seat)
            hand.owe(call.seat, "kong")
            out.append(ev.Konged(now, call.seat, "melded", meld.tiles))
        hand.calls = {}
        return out + self.touches.granted(now, call.seat, call.claim)

    # -- kongs and flowers -----------------------------------------------------------------

    def kong(self, event: ev.KongDeclared) -> Refusal | None:
        seat, hand = seated(event), self.hand
        who = letter(seat)
        if not hand.holds_turn(seat):
            return Refusal("turn", f"{who} may kong only on his own turn, after drawing")
        if self.referee.no_calls[seat]:
            return Refusal("kong", f"{who} has lost the right to kong this hand")
        if hand.last_draw == "claim":
            return Refusal("kong", "no kong right after a chow or pung: discard first")
        if hand.broken_wall.live_count == 0 and not self.rules.kong_after_last_tile:
            return Refusal(
                "last_tile", "no kong after drawing the last tile", offence="kong_after_last_tile"
            )
        if not set(event.tiles) <= set(hand.hands[seat]) or len(set(event.tiles)) != len(
            event.tiles
        ):
            return Refusal(
                "kong",
                f"{who} declared a kong with tiles he does not hold (空槓)",
                True,
                "empty_kong",
            )
        kinds = {tiles.kind_of(t) for t in event.tiles}
        if len(kinds) != 1 or tiles.is_flower(next(iter(kinds))):
            return Refusal("kong", "a kong is four of one kind")
        if len(event.tiles) == 4:
            return None
        if len(event.tiles) == 1 and any(
            m.kind == PUNG and tiles.kind_of(m.tiles[0]) in kinds for m in hand.melds[seat]
        ):
            return None
        return Refusal(
            "kong", "a kong is four concealed tiles, or one tile added to one's own exposed pung"
        )

    def offer_added_kong(self, event: ev.KongDeclared) -> list[ev.Event]:
        self.hand.added_kong = (seated(event), event.tiles[0])
        self.hand.calls = {}
        return []

    def complete_added_kong(self, event: ev.ClaimWindowClosed) -> list[ev.Event]:
        """Nobody robbed the kong: the added tile makes it."""
        hand, now = self.hand, event.t
        if hand.added_kong is None:
            raise RuntimeError("no tile was added to a kong")
        seat, tile = hand.added_kong
        kind = tiles.kind_of(tile)
        index = next(
            i
            for i, m in enumerate(hand.melds[seat])
            if m.kind == PUNG and tiles.kind_of(m.tiles[0]) == kind
        )
        old = hand.melds[seat][index]
        hand.hands[seat].remove(tile)
        hand.melds[seat][index] = ExposedMeld(
            KONG, tuple(sorted(old.tiles + (tile,))), False, old.claimed, old.from_seat
        )
        hand.added_kong, hand.calls_made = None, True
        hand.paid_now("added", seat)
        hand.owe(seat, "kong")
        return [ev.Konged(now, seat, "added", hand.melds[seat][index].tiles)]

    def make_concealed_kong(self, event: ev.KongDeclared) -> list[ev.Event]:
        seat, hand = seated(event), self.hand
        for t in event.tiles:
            hand.hands[seat].remove(t)
        hand.melds[seat].append(ExposedMeld(KONG, tuple(sorted(event.tiles)), True))
        self.referee.konged(seat, event.tiles)
        hand.paid_now("concealed", seat)
        hand.owe(seat, "kong")
        hand.calls_made = True
        return [ev.Konged(event.t, seat, "concealed", tuple(sorted(event.tiles)))]

    def flower(self, event: ev.FlowerExposed) -> Refusal | None:
        seat, hand = seated(event), self.hand
        if not self.rules.flowers:
            return Refusal("flower", "this rule book has no flowers")
        if event.tile not in hand.hands[seat] or not tiles.is_flower(tiles.kind_of(event.tile)):
            return Refusal("flower", f"{letter(seat)} has no flower {event.tile} in hand", True)
        if seat != hand.turn and hand.discards:
            return Refusal("flower", "a flower is exposed on one's own turn")
        if not hand.discards:
            earlier = next(
                (s for s in range(seat) if hand.owes[s] or hand.holds_flower(s)),
                None,
            )
            if earlier is not None:
                return Refusal(
                    "flower",
                    f"opening flowers are replaced East first, then S, W, N: "
                    f"{letter(earlier)} goes before {letter(seat)}",
                )
        return None

    def expose_flower(self, event: ev.FlowerExposed) -> list[ev.Event]:
        seat, hand = seated(event), self.hand
        hand.hands[seat].remove(event.tile)
        if hand.makes_flower_kong(seat, event.tile):
            hand.paid_now("flower", seat)  # 花槓: all four of one group (A-C3)
        hand.flowers[seat].append(event.tile)
        hand.owe(seat, "flower")
        return [ev.FlowerReplaced(event.t, seat, event.tile)]
