"""Calls on a discard: which are legal, and who goes first (RULES.md 3.7, 4.6).

Priority is win > pung/kong > chow; among wins, the nearest in turn order after the discarder.
"""

from dataclasses import dataclass

from engine import tiles
from engine.hand import CHOW, KONG, PUNG

CALL_TILES = {CHOW: 2, PUNG: 2, KONG: 3}


@dataclass(frozen=True)
class Call:
    seat: int
    claim: str                       # chow, pung, kong, win
    tiles: tuple[int, ...] = ()      # the caller's own tiles for the meld


def check_call(event, discarder: int, tile: int, hand: list[int],
               chow_allowed: bool) -> tuple[str, str, str] | None:
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
        return "claim", "empty_call", (f"{who} called {claim} without the tiles for it: a "
                                       f"{claim} needs {CALL_TILES[claim]} of his own tiles")
    kinds = sorted(tiles.kind_of(t) for t in own + (tile,))
    if claim == CHOW:
        if not chow_allowed:
            return "chow", "wrong_call", "chow is not allowed in this rule book"
        if seat != (discarder + 1) % 4:
            return "chow", "wrong_call", f"{who} may chow only from the player on his left"
        run = (tiles.is_suited(kinds[0]) and tiles.suit(kinds[0]) == tiles.suit(kinds[2])
               and kinds == [kinds[0], kinds[0] + 1, kinds[0] + 2])
        if not run:
            return "chow", "wrong_call", f"{who}'s tiles and the discard do not make a run"
    elif len(set(kinds)) != 1:
        return "claim", "wrong_call", f"{who}'s tiles do not match the discard for a {claim}"
    return None


def nearest_first(seats: list[int], discarder: int) -> list[int]:
    """Seats in turn order after the discarder: right neighbour, opposite, left."""
    return sorted(seats, key=lambda s: (s - discarder) % 4)
