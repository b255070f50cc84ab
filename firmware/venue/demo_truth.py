"""What the fleet's venue receives, checked against the simulation's truth (issue 15,
firmware/venue/demo.py). The simulation knows every concealed tile, so each message the venue's
board takes is looked through: a concealed tile id (a draw, the deal, a concealed kong's
faces), a concealed field by its name, or four ids in a row of a wall's order, anywhere in a
payload, is a concealed leak; the public state holds no tile at all.
"""

import time
from collections import deque
from dataclasses import dataclass
from itertools import pairwise

from engine import events as ev
from firmware.bus.contract import MESSAGE_BYTES, decode, parse_topic
from firmware.venue.board import TableBoard, VenueBoard

TILE_KEYS = frozenset(
    {"tile", "tiles", "hands", "walls", "wall", "melds", "claimed_tile", "win_tile", "rivers"}
)
WALLS_KEPT = 4  # hands whose wall order a table's messages are checked against


@dataclass(frozen=True)
class Secret:
    """What a journal row's public form must not carry: its concealed `fields` by name, and
    its concealed tile ids under any key of a tile."""

    fields: frozenset[str]
    tiles: frozenset[int]


def secret_of(event: ev.Event) -> Secret | None:
    """The concealed part of an event (its HIDDEN fields; a concealed kong's faces)."""
    names = {n for n in type(event).HIDDEN if getattr(event, n) not in (None, ())}
    if (isinstance(event, ev.Konged) and event.kind == "concealed") or (
        isinstance(event, ev.KongDeclared) and len(event.tiles) != 1
    ):
        names.add("tiles")
    if not names:
        return None
    return Secret(frozenset(names), frozenset(_ints([getattr(event, n) for n in names])))


def _ints(value) -> list[int]:
    if isinstance(value, list | tuple):
        return [i for v in value for i in _ints(v)]
    return [value] if type(value) is int else []


class Truth:
    """One table's concealed facts, by journal row, and its latest walls' order."""

    def __init__(self):
        self.secrets: dict[int, Secret] = {}
        self.orders: deque[set[tuple[int, int]]] = deque(maxlen=WALLS_KEPT)

    def hand(self, seq: int, walls) -> None:
        self.secrets[seq] = Secret(frozenset({"walls"}), frozenset())
        self.orders.append({pair for wall in walls for pair in pairwise(wall)})

    def row(self, seq: int, event: ev.Event) -> None:
        secret = secret_of(event)
        if secret is not None:
            self.secrets[seq] = secret

    def leaks(self, leaf: str, body: dict) -> bool:
        """Whether the message (`leaf` of the topic, its JSON `body`) shows a concealed fact."""
        lists: list[list[int]] = []
        tiles: set[int] = set()
        _walk(body, None, lists, tiles)
        if any(self._in_order(run) for run in lists):
            return True
        if leaf == "state":
            return bool(tiles) or _has_tile_key(body)  # the public state holds no tile
        if leaf == "alerts":
            return self._shows(body.get("seq"), body)
        rows = body.get("rows") if leaf == "events" else None
        return isinstance(rows, list) and any(
            self._shows(row.get("seq"), row.get("event")) for row in rows if isinstance(row, dict)
        )

    def _shows(self, seq, shown) -> bool:
        """Whether the public form `shown` of row `seq` shows what that row conceals."""
        secret = self.secrets.get(seq) if type(seq) is int else None
        if secret is None:
            return False
        lists: list[list[int]] = []
        tiles: set[int] = set()
        _walk(shown, None, lists, tiles)
        named = isinstance(shown, dict) and bool(secret.fields & shown.keys())
        return named or bool(secret.tiles & tiles)

    def _in_order(self, run: list[int]) -> bool:
        """Four or more ids that lie next to each other, in a wall's order either way."""
        steps = list(pairwise(run))
        return any(
            all(s in order for s in steps) or all((b, a) in order for a, b in steps)
            for order in self.orders
        )


def _walk(value, key, lists: list[list[int]], tiles: set[int]) -> None:
    """Collect the lists of four or more ids and the ids under a tile's key."""
    if isinstance(value, dict):
        for k, v in value.items():
            _walk(v, k, lists, tiles)
    elif isinstance(value, list):
        if len(value) >= 4 and all(type(v) is int for v in value):
            lists.append(value)
        for v in value:
            _walk(v, key, lists, tiles)
    elif type(value) is int and key in TILE_KEYS:
        tiles.add(value)


def _has_tile_key(value) -> bool:
    if isinstance(value, dict):
        return any(k in TILE_KEYS or _has_tile_key(v) for k, v in value.items())
    return isinstance(value, list) and any(_has_tile_key(v) for v in value)


class FleetBoard(VenueBoard):
    """The venue's board (firmware/venue/board.py) that also checks each message it takes
    against the fleet's truth, and times each row from its commit to the board holding it."""

    def __init__(self, venue: str, records=None):
        """`records`: the venue's (firmware/venue/records.py; None: kept in memory)."""
        super().__init__(venue, records=records)
        self.fleet: dict = {}  # name -> firmware.venue.demo.FleetTable
        self.leaks = 0
        self.latencies: list[float] = []  # seconds, one per row taken (not its duplicates)

    def follow(self, tables: list) -> None:
        self.fleet.update((table.name, table) for table in tables)

    def take(self, topic: str, payload: bytes | str) -> bool:
        changed = super().take(topic, payload)
        try:
            name, leaf = parse_topic(topic, self.venue)
            body = decode(payload, MESSAGE_BYTES)
        except ValueError:
            return changed  # counted as malformed by the board
        table = self.fleet.get(name)
        if table is not None and table.truth.leaks(leaf, body):
            self.leaks += 1
        return changed

    def _row(self, table: TableBoard, session_id: str, row: dict) -> bool:
        new = super()._row(table, session_id, row)
        truth = self.fleet.get(table.name)
        if new and truth is not None and row["seq"] < len(truth.committed):
            self.latencies.append(time.monotonic() - truth.committed[row["seq"]])
        return new

    def holds_all(self) -> bool:
        """Whether every row each table committed is on the board."""
        for name, table in self.fleet.items():
            board = self.tables.get(name)
            log = board and board.sessions.get(table.journal.session_id)
            if not log or log.seqs.runs != [[1, table.journal.seq]]:
                return False
        return True
