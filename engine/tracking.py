"""From reader sweeps to tile movements (DESIGN.md tracking, issue 4).

Each physical tile has one place, a zone, at a time. Reads are imperfect: a tile present may be
missed in a sweep (a dropped read) and a neighbouring antenna may report it (a ghost read). So a
tile is moved only when its new zone has seen it in `confirm` consecutive sweeps of that zone and
its old zone has stopped seeing it since; anything less is filtered and counted, anything odd is
raised as an alert, and nothing is guessed.

The evidence a move needs depends on whether the hand waits for it (`expected`, from the
interpreter): `confirm` sightings for the next tile of the wall into the rack of the seat to
draw, a discard by the seat in turn, a call on the latest discard; one more for any other. Under
heavy noise (issue 32 item 8: 20 % of reads dropped, 5 % of frames with a ghost read) one tile
is ghosted twice in a row on one antenna about 0.2 times a hand, and with its home missing it
once that moved a tile nobody touched, told to no one; such a misread is seldom a move the
hand waits for, and three ghosts in a row come about once in 10^5 hands. When it is one (a
rack's tile ghosted on its river while that seat is to discard), its home's misses tell it
apart: a move needs sightings at the new place and misses at the old, in a row, `confirm` + 2
in all, which a true move has within a sweep of its second sighting. A stay too brief
to confirm (seen in a row more than once) is a step only when the tile's next confirmed place
follows it by legal steps; otherwise the tile is where it is seen and, if no legal step leads
there, the move is a flagged jump, told to the referee: a move on less evidence is never made.
What the tracker accepts and the legal steps are engine/tracking_rules.py; its moves and the
words of its alerts, which never name a concealed tile, engine/tracking_reports.py.
"""

from collections import deque
from collections.abc import Callable
from collections.abc import Set as AbstractSet

from engine import tracking_reports as words
from engine.seats import ZONES
from engine.tracking_reports import Move, TrackingAlert
from engine.tracking_rules import (
    DEFAULT_LEGAL,
    TrackingError,
    check_placements,
    check_zone,
    checked_legal,
    checked_sweep,
    is_legal,
    no_move_expected,
)


class Tracker:
    """Where each physical tile is, from per-antenna sweeps; see the module docstring."""

    def __init__(self, confirm: int = 2, missing_after: int = 8, legal=DEFAULT_LEGAL):
        legal = checked_legal(confirm, missing_after, legal)
        self.confirm, self.missing_after, self.legal = confirm, missing_after, legal
        self.transient_absences = 0  # dropped reads filtered
        self.transient_sightings = 0  # ghost reads filtered
        self.moves = self.flagged = self.alerts = 0
        self._suspended = False
        self._expects: Callable[[int, str, str], bool] = no_move_expected
        self.clear()

    def clear(self) -> None:
        """The hand is over: the tiles went back into the machine; nothing is tracked until
        `place`."""
        self._place: dict[int, str] = {}
        self._unseen: set[int] = set()
        # zone -> tile or tag -> the sweeps of its latest `confirm` + 1 consecutive sightings there
        self._streaks: dict[str, dict] = {zone: {} for zone in ZONES}
        self._start: dict[tuple, int] = {}  # (zone, tile or tag) -> sweep its streak began
        self._seen_in: dict = {}  # tile or tag -> zones whose streak is running
        self._last_seen: dict[tuple, int] = {}  # (zone, tile) -> last sweep of zone seeing it
        # zone -> its latest `missing_after` sweeps
        self._swept = {zone: deque([0], maxlen=self.missing_after) for zone in ZONES}
        self._misses: dict[int, int] = {}  # tile -> consecutive misses in its own zone
        self._missing: set[int] = set()
        self._unexpected: set[int] = set()
        self._raised: dict[tuple, int] = {}  # (kind, zone, tile or tag) -> misses since
        self._passed: dict[int, tuple[str, int]] = {}  # tile -> (zone, sweep) of a brief stay
        self._sweep = 0

    def place(self, placements: dict[int, str]) -> None:
        """The truth at hand start (walls as stacked): tile id -> zone. Clears everything else."""
        check_placements(placements)
        self.clear()
        self._place = dict(placements)
        # Sweeps sent before the walls rose arrive after this: a tile not yet seen where it
        # was placed is not a dropped read.
        self._unseen = set(placements)

    def correct(self, tile: int, zone: str) -> None:
        """The referee says where a tile is: believe it and start over from there."""
        if tile not in self._place:
            raise TrackingError(f"tile {tile} is not on the table in this hand")
        check_zone(zone)
        self._place[tile] = zone
        self._misses[tile] = 0
        self._missing.discard(tile)
        self._passed.pop(tile, None)
        self._seen_in.pop(tile, None)
        for zone_streaks in self._streaks.values():
            zone_streaks.pop(tile, None)

    def where(self, tile: int) -> str | None:
        return self._place.get(tile)

    def layout(self) -> dict[int, str]:
        """Every tile's zone: the table as it lies, as far as the tracking knows it."""
        return dict(self._place)

    def suspend(self, t: float) -> None:
        """The reader is lost: no sweeps, so no absence means anything until it is back."""
        self._suspended = True

    def resume(self, t: float) -> None:
        """The reader is back: positions are re-established from fresh sweeps only."""
        self._suspended = False
        for streaks in self._streaks.values():
            streaks.clear()
        self._start.clear()
        self._seen_in.clear()
        self._misses.clear()
        self._passed.clear()

    def sweep(
        self,
        t: float,
        zone: str,
        tiles: set[int],
        unknown: AbstractSet[bytes] = frozenset(),
        expected: Callable[[int, str, str], bool] | None = None,
    ) -> list:
        """One antenna's complete read: the tiles (ids) and unregistered tags it sees now.
        `expected(tile, source, target)`: does the hand wait for that move now (None: for
        none)? Returns the Moves and TrackingAlerts it settles, in a deterministic order."""
        tiles, unknown = checked_sweep(t, zone, tiles, unknown)
        if self._suspended or not self._place:
            return []
        self._expects = expected or no_move_expected
        self._sweep += 1
        self._swept[zone].append(self._sweep)
        out = []
        for tile in sorted(tiles - self._place.keys()):
            if tile not in self._unexpected:
                self._unexpected.add(tile)
                out.append(
                    self._alert(
                        t, "unexpected_tile", zone, tile, None, words.unexpected_tile(tile, zone)
                    )
                )
        tiles &= self._place.keys()
        self._count(zone, tiles | unknown)
        for tag in sorted(unknown):
            if self._confirmed(zone, tag) and ("foreign", zone, tag) not in self._raised:
                out.append(
                    self._alert(t, "foreign", zone, None, tag, words.foreign(zone), raised=True)
                )
        for tile in sorted(tile for tile, home in self._place.items() if home == zone):
            if tile in tiles:
                if self._misses.get(tile) and tile not in self._missing | self._unseen:
                    self.transient_absences += 1
                out += self._found(t, tile, zone)
                self._unseen.discard(tile)
                self._misses[tile] = 0
            else:
                self._misses[tile] = self._misses.get(tile, 0) + 1
                out += self._settle(t, tile) or self._check_missing(t, tile)
        for tile in sorted(tiles):
            if self._seen_in[tile] != {self._place[tile]}:
                out += self._settle(t, tile)
        return out

    def _count(self, zone, seen):
        """Extend or break the streaks of this zone; raised alerts clear once their cause has
        been gone for `confirm` sweeps."""
        streaks = self._streaks[zone]
        for key in [key for key in streaks if key not in seen]:
            sightings = len(streaks.pop(key))
            away = isinstance(key, bytes) or self._place[key] != zone
            if sightings < self.confirm and away:
                self.transient_sightings += 1
            if sightings > 1 and away and not isinstance(key, bytes):
                self._passed[key] = (zone, self._start[zone, key])
            del self._start[zone, key]
            self._seen_in[key].discard(zone)
        for key in seen:
            if key not in streaks:
                streaks[key] = deque(maxlen=self.confirm + 1)
                self._start[zone, key] = self._sweep
                self._seen_in.setdefault(key, set()).add(zone)
            streaks[key].append(self._sweep)
            self._last_seen[zone, key] = self._sweep
        for raised in [raised for raised in self._raised if raised[1] == zone]:
            self._raised[raised] = 0 if raised[2] in seen else self._raised[raised] + 1
            if self._raised[raised] >= self.confirm:
                del self._raised[raised]

    def _confirmed(self, zone, key, need: int = 0) -> bool:
        return len(self._streaks[zone].get(key, ())) >= (need or self.confirm)

    def _need(self, tile, home, zone) -> int:
        """Sightings in a row the move needs: one more if the hand does not wait for it."""
        return self.confirm if self._expects(tile, home, zone) else self.confirm + 1

    def _left(self, tile, home, zone, need) -> bool:
        """Has the old zone swept since the first of the new zone's `need` latest sightings,
        and not seen the tile since (a ghost read just before a real move does not count)?
        And is the evidence, sightings there and misses at home in a row, at least
        `confirm` + 2 (issue 32 item 8: two ghost reads of a tile on its seat's river with
        one drop at home between, three, moved a tile nobody touched while its seat was to
        discard; a true move gets the fourth within a sweep)?"""
        streak = self._streaks[zone][tile]
        first = streak[-need]
        return (
            self._swept[home][-1] > first
            and self._last_seen.get((home, tile), 0) < first
            and len(streak) + self._misses.get(tile, 0) >= self.confirm + 2
        )

    def _settle(self, t, tile) -> list:
        """Move the tile if exactly one other zone has confirmed it and its zone has let it go;
        a tile confirmed in two places stays put and is raised once."""
        home = self._place[tile]
        confirmed = sorted(
            zone
            for zone in self._seen_in.get(tile, ())
            if zone != home and self._confirmed(zone, tile)
        )
        gone = [
            zone
            for zone in confirmed
            if self._confirmed(zone, tile, need := self._need(tile, home, zone))
            and self._left(tile, home, zone, need)
        ]
        if len(gone) == 1:
            return self._move(t, tile, gone[0])
        if gone:  # let go by its zone but confirmed in several others: no guess
            pairs = [(gone[0], zone) for zone in gone[1:]]
        elif self._confirmed(home, tile):  # its zone saw it `confirm` times while read elsewhere
            pairs = [
                (home, zone)
                for zone in confirmed
                if self._streaks[home][tile][-self.confirm] > self._start[zone, tile]
            ]
        else:
            pairs = []
        return [
            self._alert(
                t, "two_places", zone, tile, None, words.two_places(tile, first, zone), raised=True
            )
            for first, zone in pairs
            if ("two_places", zone, tile) not in self._raised
        ]

    def _check_missing(self, t, tile) -> list:
        """Missing: unseen by its zone for `missing_after` sweeps and by every other zone over
        the same time (a tile read elsewhere, even unsteadily, is on the table)."""
        home = self._place[tile]
        window = self._swept[home][0]
        if (
            tile in self._missing
            or self._misses[tile] < self.missing_after
            or any(self._last_seen.get((zone, tile), 0) >= window for zone in ZONES if zone != home)
        ):
            return []
        self._missing.add(tile)
        return [self._alert(t, "missing", home, tile, None, words.missing(tile, home))]

    def _move(self, t, tile, target) -> list:
        source = self._place[tile]
        self._place[tile] = target
        self._misses[tile] = 0
        out = self._found(t, tile, target)
        passed, since = self._passed.pop(tile, (source, 0))
        if (
            passed not in (source, target)
            and since > self._last_seen.get((source, tile), 0)
            and is_legal(self.legal, source, passed)
            and is_legal(self.legal, passed, target)
        ):  # a brief stay the tile's legal path went through
            self.moves += 2
            return out + [Move(t, tile, source, passed), Move(t, tile, passed, target)]
        legal = is_legal(self.legal, source, target)
        self.moves += 1
        out.append(Move(t, tile, source, target, flagged=not legal))
        if not legal:
            self.flagged += 1
            out.append(self._alert(t, "jump", target, tile, None, words.jump(tile, source, target)))
        return out

    def _found(self, t, tile, zone) -> list:
        """A tile reported missing is seen again: "found", so its alert can be closed."""
        if tile not in self._missing:
            return []
        self._missing.discard(tile)
        return [TrackingAlert(t, "found", zone, tile, None, words.found(tile, zone))]

    def _alert(self, t, kind, zone, tile, tag, message, raised=False) -> TrackingAlert:
        """An alert; a `raised` one is not repeated until its cause has gone from the zone."""
        if raised:
            self._raised[kind, zone, tag if tile is None else tile] = 0
        self.alerts += 1
        return TrackingAlert(t, kind, zone, tile, tag, message)
