"""Seats, sides and zones: the one vocabulary of where things are at the table.

A *seat* is a player's wind in this hand, 0..3 = E S W N; East deals. A *side* is a physical
side of the table, 0..3 = E S W N of the table itself: the lanes of the shuffler, the antennas
and the seat buttons are on sides. East sits on the dealer's side this hand, so a seat and a
side differ by `dealer_side`. A *zone* is one area of one side, e.g. "wall_E" or "hand_S":
what one antenna covers.
"""

from typing import Final

LETTERS: Final = "ESWN"  # seats and sides alike, 0..3
WORDS: Final = ("East", "South", "West", "North")
AREAS: Final = ("wall", "hand", "river", "melds")
ZONES: Final = tuple(f"{area}_{letter}" for letter in LETTERS for area in AREAS)
CONCEALED_AREAS: Final = ("wall", "hand")  # what lies there is hidden from the public


def letter(index: object) -> str:
    """The letter of a seat or side, "nobody" for anything else (an alert with no seat)."""
    if isinstance(index, int) and not isinstance(index, bool) and 0 <= index < 4:
        return LETTERS[index]
    return "nobody"


def seat_at(side: int, dealer_side: int) -> int:
    """The seat (wind) of the player on `side` this hand."""
    return (side - dealer_side) % 4


def side_of(seat: int, dealer_side: int) -> int:
    """The side where the player of `seat` sits this hand."""
    return (seat + dealer_side) % 4


def zone(area: str, side: int) -> str:
    """The zone name of an area on a side: zone("river", 1) == "river_S"."""
    return f"{area}_{LETTERS[side]}"


def zone_side(name: str) -> tuple[str, int]:
    """("hand", 2) for "hand_W"."""
    area, _, side = name.partition("_")
    return area, LETTERS.index(side)


def zone_words(name: str) -> str:
    """A zone as the display says it: "the South wall", "East's river"."""
    area, side = zone_side(name)
    who = WORDS[side]
    if area == "wall":
        return f"the {who} wall"
    return f"{who}'s {'hand rack' if area == 'hand' else area}"
