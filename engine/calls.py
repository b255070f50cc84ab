"""Calls, kongs and flowers at the table (RULES.md 3.7, 4.5, 4.6), as a part of the Table.

What a call may be (check_call) and who goes first (nearest_first) are plain functions; the
`Calls` part of the Table records the calls on an open window, grants the best, and makes
kongs and flower replacements. Priority is win > pung/kong > chow; among wins, the nearest in
turn order after the discarder.
"""

from dataclasses import dataclass

from engine import events as ev
from engine import tiles
from engine.hand import CHOW, KONG, PUNG, Meld

CALL_TILES = {CHOW: 2, PUNG: 2, KONG: 3}


@dataclass(frozen=True)
class Call:
    seat: int
    claim: str  # chow, pung, kong, win
    tiles: tuple[int, ...] = ()  # the caller's own tiles for the meld


def check_call(
    event, discarder: int, tile: int, hand: list[int], chow_allowed: bool
) -> tuple[str, str, str] | None:
    """None if the call can be made; else (situation, offence, message) for the referee:
    calling without the tiles is an empty call (空鳴/空碰), with the wrong ones a wrong call
    (誤鳴/錯碰)."""
    seat, claim, own = event.seat, event.claim, tuple(event.tiles)
    who = "ESWN"[seat]
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


def nearest_first(seats: list[int], discarder: int) -> list[int]:
    """Seats in turn order after the discarder: right neighbour, opposite, left."""
    return sorted(seats, key=lambda s: (s - discarder) % 4)


def seat_name(seat) -> str:
    return "ESWN"[seat] if isinstance(seat, int) and 0 <= seat < 4 else "nobody"


@dataclass(frozen=True)
class ExposedMeld:
    kind: str  # chow, pung, kong
    tiles: tuple[int, ...]  # physical ids, the claimed one included
    concealed: bool = False  # a concealed kong
    claimed: int | None = None  # the tile taken from another seat
    from_seat: int | None = None

    def as_meld(self) -> Meld:
        return Meld(self.kind, tuple(tiles.kind_of(t) for t in self.tiles), self.concealed)


class Calls:
    """The Table's calls, kongs and flowers (transitions callbacks by name)."""

    def call_after_window(self, e) -> bool:
        event = e.kwargs["event"]
        return self._refuse(
            event,
            "claim",
            f"{seat_name(event.seat)} called {event.claim} after the calls on that tile were over",
            offence="late_call",
        )

    def claim_ok(self, e) -> bool:
        event = e.kwargs["event"]
        if self.state == "rob_window":
            konger, tile = self.added_kong
            if event.claim != "win":
                return self._refuse(
                    event,
                    "kong",
                    "only a win may be called on a tile added to a kong (robbing the kong)",
                )
            return self._win_call_ok(event, konger, tile, robbing=True)
        seat, tile = self.discards[-1]
        if event.claim == "win":
            return self._win_call_ok(event, seat, tile, robbing=False)
        if self.referee.no_calls[event.seat]:
            return self._refuse(
                event, "claim", f"{seat_name(event.seat)} has lost the right to call this hand"
            )
        if self.wall.live_count == 0:
            return self._refuse(event, "last_tile", "the last discard may only be won on")
        problem = check_call(event, seat, tile, self.hands[event.seat], self.rules.chow_allowed)
        if problem:
            situation, offence, message = problem
            return self._refuse(event, situation, message, True, offence, event.tiles)
        if self.referee.in_call(event.seat, event.tiles):
            return self._refuse(
                event,
                "penalty_tile",
                "a penalty tile may not go into a called set",
                True,
                "wrong_call",
                event.tiles,
            )
        if event.claim in (PUNG, KONG) and self.clocks.call_is_late(
            self.discard_times[-1], event.t
        ):
            return self._refuse(
                event,
                "claim",
                f"{seat_name(event.seat)} called {event.claim} "
                f"more than {self.rules.timing.call_limit:g} s after the "
                "discard (延時碰牌)",
                offence="late_pung",
            )
        return True

    def record_claim(self, e) -> None:
        event = e.kwargs["event"]
        self.calls[event.seat] = Call(event.seat, event.claim, event.tiles)

    def has_winners(self, e) -> bool:
        return any(c.claim == "win" for c in self.calls.values())

    def has_granted_call(self, e) -> bool:
        return any(c.claim in (PUNG, KONG, CHOW) for c in self.calls.values())

    def expose_call(self, e) -> None:
        calls = sorted(self.calls.values(), key=lambda c: c.claim == CHOW)  # pung/kong first
        call = calls[0]
        seat, tile = self.discards[-1]
        self.rivers[seat].remove(tile)
        for t in call.tiles:
            self.hands[call.seat].remove(t)
        meld = ExposedMeld(call.claim, tuple(sorted(call.tiles + (tile,))), False, tile, seat)
        self.melds[call.seat].append(meld)
        self.turn, self.calls_made, self.last_draw = call.seat, True, "claim"
        self.clocks.start(call.seat, self.discard_times[-1])
        self._emit(ev.Claimed(self._now, call.seat, call.claim, meld.tiles, tile, seat))
        self.claims_log.append((call.seat, seat, tuple(tiles.kind_of(t) for t in meld.tiles)))
        if call.claim == KONG:
            self.kongs.append((call.seat, "melded", seat))
            self._owe(call.seat, "kong")
            self._emit(ev.Konged(self._now, call.seat, "melded", meld.tiles))
        self.calls = {}

    # -- kongs and flowers -----------------------------------------------------------------

    def kong_ok(self, e) -> bool:
        event = e.kwargs["event"]
        seat = event.seat
        if seat != self.turn or self.owes[seat]:
            return self._refuse(
                event, "turn", f"{seat_name(seat)} may kong only on his own turn, after drawing"
            )
        if self.referee.no_calls[seat]:
            return self._refuse(
                event, "kong", f"{seat_name(seat)} has lost the right to kong this hand"
            )
        if self.last_draw == "claim":
            return self._refuse(event, "kong", "no kong right after a chow or pung: discard first")
        if self.wall.live_count == 0 and not self.rules.kong_after_last_tile:
            return self._refuse(
                event,
                "last_tile",
                "no kong after drawing the last tile",
                offence="kong_after_last_tile",
            )
        if not set(event.tiles) <= set(self.hands[seat]) or len(set(event.tiles)) != len(
            event.tiles
        ):
            return self._refuse(
                event,
                "kong",
                f"{seat_name(seat)} declared a kong with tiles he does not hold (空槓)",
                True,
                "empty_kong",
            )
        kinds = {tiles.kind_of(t) for t in event.tiles}
        if len(kinds) != 1 or tiles.is_flower(next(iter(kinds))):
            return self._refuse(event, "kong", "a kong is four of one kind")
        if len(event.tiles) == 4:
            return True
        if len(event.tiles) == 1 and any(
            m.kind == PUNG and tiles.kind_of(m.tiles[0]) in kinds for m in self.melds[seat]
        ):
            return True
        return self._refuse(
            event,
            "kong",
            "a kong is four concealed tiles, or one tile added to one's own exposed pung",
        )

    def is_added_kong(self, e) -> bool:
        return len(e.kwargs["event"].tiles) == 1

    def offer_added_kong(self, e) -> None:
        event = e.kwargs["event"]
        self.added_kong = (event.seat, event.tiles[0])
        self.calls = {}

    def complete_added_kong(self, e) -> None:
        seat, tile = self.added_kong
        kind = tiles.kind_of(tile)
        index = next(
            i
            for i, m in enumerate(self.melds[seat])
            if m.kind == PUNG and tiles.kind_of(m.tiles[0]) == kind
        )
        old = self.melds[seat][index]
        self.hands[seat].remove(tile)
        self.melds[seat][index] = ExposedMeld(
            KONG, tuple(sorted(old.tiles + (tile,))), False, old.claimed, old.from_seat
        )
        self.added_kong, self.calls_made = None, True
        self.kongs.append((seat, "added", None))
        self._owe(seat, "kong")
        self._emit(ev.Konged(self._now, seat, "added", self.melds[seat][index].tiles))

    def make_concealed_kong(self, e) -> None:
        event = e.kwargs["event"]
        for t in event.tiles:
            self.hands[event.seat].remove(t)
        self.melds[event.seat].append(ExposedMeld(KONG, tuple(sorted(event.tiles)), True))
        self.referee.konged(event.seat, event.tiles)
        self.kongs.append((event.seat, "concealed", None))
        self._owe(event.seat, "kong")
        self.calls_made = True
        self._emit(ev.Konged(self._now, event.seat, "concealed", tuple(sorted(event.tiles))))

    def flower_ok(self, e) -> bool:
        event = e.kwargs["event"]
        if not self.rules.flowers:
            return self._refuse(event, "flower", "this rule book has no flowers")
        if event.tile not in self.hands[event.seat] or not tiles.is_flower(
            tiles.kind_of(event.tile)
        ):
            return self._refuse(
                event,
                "flower",
                f"{seat_name(event.seat)} has no flower {event.tile} in hand",
                needs_ruling=True,
            )
        if event.seat != self.turn and self.discards:
            return self._refuse(event, "flower", "a flower is exposed on one's own turn")
        if not self.discards:
            earlier = next(
                (
                    s
                    for s in range(event.seat)
                    if self.owes[s] or any(tiles.is_flower(tiles.kind_of(t)) for t in self.hands[s])
                ),
                None,
            )
            if earlier is not None:
                return self._refuse(
                    event,
                    "flower",
                    f"opening flowers are replaced East "
                    f"first, then S, W, N: {seat_name(earlier)} goes before "
                    f"{seat_name(event.seat)}",
                )
        return True

    def _owe(self, seat: int, why: str) -> None:
        """A kong or flower is replaced from the tail before the player may discard."""
        self.owes[seat] += 1
        self.owed_for[seat] = why

    def expose_flower(self, e) -> None:
        event = e.kwargs["event"]
        self.hands[event.seat].remove(event.tile)
        self.flowers[event.seat].append(event.tile)
        kinds = {tiles.kind_of(t) - tiles.KINDS for t in self.flowers[event.seat]}
        group = (tiles.kind_of(event.tile) - tiles.KINDS) // 4
        if {4 * group + i for i in range(4)} <= kinds:
            self.flower_kongs.append(event.seat)  # 花槓: all four of one group (A-C3)
        self._owe(event.seat, "flower")
        self._emit(ev.FlowerReplaced(self._now, event.seat, event.tile))
