"""The hand re-aligned with the table as it lies (issue 20, item 5).

After an unplugged reader or a run of bad reads the hand and the table can part: the hand
waits for a move the table made long ago and refuses everything after it. The referee then
accepts the table as it lies (TableAccepted): where the tracking has each tile becomes the
hand's, and play goes on from the player to discard (the one holding a tile more), else from
the player who moved last. Sets the hand did not see made are made from what lies in each meld
area (a pung, a kong, a chow); tiles there that make no set stay in the hand, and those laid
out for calls on the latest discard are calls still (the interpreter declares them).
"""

from collections.abc import Callable
from typing import TYPE_CHECKING

from engine import events as ev
from engine import tiles
from engine.clocks import Clocks
from engine.hand import CHOW, KONG, PUNG
from engine.hand_state import ExposedMeld, HandState, seated
from engine.seats import AREAS, letter, zone_side

if TYPE_CHECKING:
    from engine.table import Table

FEWEST = 10  # tiles a seat holds at the least, sets as 3: 13 less a few replacements owed


def as_it_lies(
    t: float,
    places: dict[int, str],
    seat_at: Callable[[int], int],
    latest: tuple[int, bool],
    calls: set[int],
    arrived: dict[int, int],
) -> ev.TableAccepted:
    """The input accepting the table as it lies (engine/moves.py): `places` each tile's zone,
    `seat_at` the seat on a side, `latest` (seat, his discard?) the latest move read; `calls`
    the tiles laid out for calls on that discard, still their callers' own; `arrived` the
    order the river tiles came in."""
    wall: list[int] = []
    areas: dict[str, list[list[int]]] = {area: [[], [], [], []] for area in AREAS[1:]}
    for tile, name in sorted(places.items()):
        area, side = zone_side(name)
        if area == "wall":
            wall.append(tile)
        else:
            held = area == "melds" and tile in calls
            areas["hand" if held else area][seat_at(side)].append(tile)
    rivers = [sorted(river, key=lambda x: arrived.get(x, -1)) for river in areas["river"]]
    hands, melds = _by_seat(areas["hand"]), _by_seat(areas["melds"])
    return ev.TableAccepted(t, latest[0], tuple(wall), hands, _by_seat(rivers), melds, latest[1])


def _by_seat(parts: list[list[int]]) -> tuple[tuple[int, ...], ...]:
    return tuple(tuple(part) for part in parts)


def accept(table: "Table", event: ev.TableAccepted) -> list[ev.Event]:
    """The referee accepts the table as it lies: the hand goes on from it, in step again."""
    why = "the hand is over" if table.ended else _problem(table, event)
    if why is not None:
        refs = table.rules.refs.get("turn", "")
        return [table.referee.alert(event.t, event.seat, refs, why, False)]
    state, outputs = _realign(table, table.clocks, event, table.rules.last_tiles)
    table.machine.set_state(state)
    table.out_of_step = False
    return outputs


def _problem(hand: HandState, event: ev.TableAccepted) -> str | None:
    """Why the table cannot be accepted as the event has it, or None."""
    if hand.wall is None:
        return "there is no wall on the table yet to accept"
    if event.seat not in range(4) or not all(
        len(part) == 4 for part in (event.hands, event.rivers, event.melds)
    ):
        return "accepting the table names the seat to move and four hands, rivers and meld areas"
    laid = list(event.wall) + [
        x for part in (event.hands, event.rivers, event.melds) for p in part for x in p
    ]
    if len(set(laid)) != len(laid) or set(laid) != set(_places(hand)):
        return "accepting the table needs every tile of the hand, each in one place"
    for s in range(4):
        _, melds, held = _meld_area(hand, s, list(event.hands[s]), list(event.melds[s]))
        size = len(held) + 3 * len(melds)
        if not FEWEST <= size <= 14:
            return (
                f"the table as it lies gives {letter(s)} {size} tiles, counting sets as 3: "
                "put the tiles right or correct the tracking first"
            )
    return None


def _realign(
    hand: HandState, clocks: Clocks, event: ev.TableAccepted, last_tiles: int
) -> tuple[str, list[ev.Event]]:
    """Make the hand the table as it lies; the machine's new state and the outputs
    (`last_tiles`: the rule book's count of the wall's last tiles, A-C10)."""
    before, wall, seat = _places(hand), hand.broken_wall, seated(event)
    wall.realign(set(event.wall))
    known = set(hand.discards)
    for s in range(4):
        laid = list(event.rivers[s])
        kept = [x for x in hand.rivers[s] if x in laid]
        hand.rivers[s] = kept + [x for x in laid if x not in kept]
        for x in hand.rivers[s]:
            if (s, x) not in known:
                hand.discards.append((s, x))
                hand.discard_times.append(event.t)
        area = _meld_area(hand, s, list(event.hands[s]), list(event.melds[s]))
        hand.flowers[s], hand.melds[s], hand.hands[s] = area
    sizes = [len(hand.hands[s]) + 3 * len(hand.melds[s]) for s in range(4)]
    drawn = [s for s in range(4) if sizes[s] >= 14]  # he is to discard, whatever came last
    seat = drawn[0] if drawn else seat
    discarded = event.discarded and not drawn and bool(hand.rivers[seat])
    hand.calls, hand.added_kong, hand.owes = {}, None, [0, 0, 0, 0]
    for s in range(4):
        clocks.stop(s)
    if discarded:
        latest = (seat, hand.rivers[seat][-1])
        index = hand.discards.index(latest)
        del hand.discards[index], hand.discard_times[index]
        hand.discards.append(latest)
        hand.discard_times.append(event.t)  # the next turn's clock runs from now
        hand.turn, state = seat, "claim_window"
    else:
        opening = not hand.discards  # East holds the turn until his first discard
        hand.turn, state = hand.east if opening else seat, "discard"
        for s in range(4):
            due = (14 if s == hand.turn else 13) - sizes[s]
            if due > 0:
                hand.owes[s] = due
                hand.owed_for[s] = "flower" if _new_flower(before, hand, s) else "kong"
        clocks.start(hand.turn, event.t, first=opening)
    hand.last_tile_drawn = wall.live_count < last_tiles
    after = _places(hand)
    moved = sum(1 for tile, place in after.items() if before.get(tile) != place)
    return state, [ev.HandRealigned(event.t, hand.turn, state, moved)]


def _new_flower(before: dict, hand: HandState, seat: int) -> bool:
    """The seat's meld area has a flower the hand did not have there: his replacement is
    owed for it."""
    return any(before.get(x) != ("melds", seat) for x in hand.flowers[seat])


def _meld_area(
    hand: HandState, seat: int, held: list[int], area: list[int]
) -> tuple[list[int], list[ExposedMeld], list[int]]:
    """The seat's flowers and sets as his meld area shows them, and his hand as his rack
    does, with the tiles of the area that make no set."""
    flowers = [x for x in area if tiles.is_flower(tiles.kind_of(x))]
    kept_flowers = [x for x in hand.flowers[seat] if x in flowers]
    kept = [m for m in hand.melds[seat] if set(m.tiles) <= set(area)]
    loose = [x for x in area if x not in flowers and not any(x in m.tiles for m in kept)]
    for n, meld in enumerate(kept):  # a tile added to a pung: the added kong
        added = [x for x in loose if meld.kind == PUNG and _kind(x) == _kind(meld.tiles[0])]
        if added:
            grown = tuple(sorted(meld.tiles + (added[0],)))
            kept[n] = ExposedMeld(KONG, grown, False, meld.claimed, meld.from_seat)
            loose.remove(added[0])
    made, left = _sets(loose)
    return kept_flowers + [x for x in flowers if x not in kept_flowers], kept + made, held + left


def _sets(loose: list[int]) -> tuple[list[ExposedMeld], list[int]]:
    """Pungs and kongs of one kind, then chows, from the loose tiles of a meld area; the
    tiles that make none."""
    rest = sorted(loose, key=_kind)
    made = []
    for kind in sorted({_kind(x) for x in rest}):
        same = [x for x in rest if _kind(x) == kind]
        if len(same) >= 3:
            made.append(ExposedMeld(KONG if len(same) == 4 else PUNG, tuple(same[:4])))
            rest = [x for x in rest if x not in same[:4]]
    while (chow := _chow(rest)) is not None:
        made.append(ExposedMeld(CHOW, chow))
        rest = [x for x in rest if x not in chow]
    return made, rest


def _chow(rest: list[int]) -> tuple[int, ...] | None:
    """Three tiles of one suit in a run, the lowest first, or None."""
    for x in rest:
        kind = _kind(x)
        run = [next((y for y in rest if _kind(y) == kind + k), -1) for k in (1, 2)]
        if tiles.is_suited(kind) and tiles.rank(kind) <= 7 and -1 not in run:
            return (x, *run)
    return None


def _kind(tile: int) -> int:
    return tiles.kind_of(tile)


def _places(hand: HandState) -> dict[int, tuple[str, int]]:
    """Each tile of the hand -> (area, seat), the walls' as ("wall", -1)."""
    places = {
        x: ("wall", -1) for part in hand.broken_wall.remaining() for x in part if x is not None
    }
    for s in range(4):
        places.update({x: ("hand", s) for x in hand.hands[s]})
        places.update({x: ("river", s) for x in hand.rivers[s]})
        places.update({x: ("melds", s) for x in hand.flowers[s]})
        places.update({x: ("melds", s) for m in hand.melds[s] for x in m.tiles})
    return places
