"""A rigged shuffler caught by its walls (issue 17, issue 35, VENUE.md §4.1 "program machines").

Sequential tests run over every hand dealt, each a CUSUM (firmware/audit/cusum.py) against
the distribution a fair shuffle gives (simulated once and shipped: shuffle_watch.json, which
`python -m firmware.bench.fair_figures PATH` makes again):

- per physical side, how near ready the 13 tiles it is dealt are (East's first 13): 6 less
  the shanten over four sets and a pair, seven pairs and thirteen orphans, flowers left out;
- per physical side, what its draws do for it: the shanten its starting hand gains from its
  first DRAWS draws in turn (the best hand among those 13 + DRAWS tiles). The draws are those
  the walls and the dice give each seat when nobody claims: a machine that stacks a seat's
  draws cannot foresee the claims, so those are the places it stacks (engine/deal.py);
- each of these both ways: a side favoured, and a side made worse (a machine that spoils the
  other three hands favours the fourth without touching it);
- for the table, how often two tiles of a kind lie next to each other in a wall as stacked:
  a machine that builds walls by placing tiles rather than shuffling them clusters them.

Each test's threshold gives a fair shuffler one alarm in FAIR_HANDS hands on average, and an
alarm says so ("a fair table raises this alarm about once in 410 000 hands"). The seventeen
tests of a table, with the venue's eight a table's players add (firmware/venue/persons.py),
stay under one false alarm per 10 000 hands. An alarm is a fault for the referee; the test
then starts again. The tests follow the hands this process deals: a start after a power cut
begins them afresh.
"""

import itertools
import json
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources

from engine import events as ev
from engine import tiles
from engine.deal import turn_draws
from engine.hand import counts
from engine.seats import LETTERS
from engine.shanten import seven_pairs, standard, thirteen_orphans
from engine.wall import Break
from firmware.audit.cusum import Cusum

DATA = "shuffle_watch.json"
FAIR_HANDS = 400_000  # each test's mean run between false alarms on a fair shuffler
HAND_SHIFT = 0.5  # the shift in 6 - shanten a side's hand tests are tuned to catch
DRAW_SHIFT = 0.5  # the shift in shanten gained by the draws the draw tests are tuned to catch
CLUSTER_SHIFT = 2.0  # the shift in same-kind neighbours per wall the table's test is tuned to
DRAWS = 4  # each side's draws in turn the draw tests follow: its first round of play
SCORES = ("hands", "draws")  # what a side's (or a player's) tests score
WHAT = {"hands": "starting hands", "draws": "draws"}


def shanten(hand) -> int:
    """How many tiles a hand (tile ids, 13 or more) must change to be ready, the best of the
    three shapes; -1 when it holds a whole hand; flowers are no hand tiles."""
    c = counts(k for k in map(tiles.kind_of, hand) if not tiles.is_flower(k))
    return max(-1, min(standard(c), seven_pairs(c), thirteen_orphans(c)))


def hand_score(hand) -> int:
    """A side's starting hand for its tests: 6 - shanten, higher for a better start (0..6)."""
    return 6 - shanten(hand[:13])


def scores(hand, drawn) -> tuple[int, int]:
    """A side's (hand score, draw score): the draw score is the shanten its starting hand
    gains from `drawn` (0..7)."""
    start = list(hand[:13])
    before = shanten(start)
    return 6 - before, max(0, before - shanten(start + list(drawn)))


def side_scores(dealer: int, hands, draws) -> list[tuple[int, int]]:
    """(hand score, draw score) by physical side, from the hands and draws by seat (East
    first) with East on side `dealer`."""
    by_side: list[tuple[int, int]] = [(0, 0)] * 4
    for seat, held in enumerate(hands):
        by_side[(dealer + seat) % 4] = scores(held, draws[seat])
    return by_side


def neighbours(lanes) -> int:
    """Pairs of tiles of one kind side by side in the walls as stacked, lane by lane."""
    return sum(
        tiles.kind_of(a) == tiles.kind_of(b) for lane in lanes for a, b in itertools.pairwise(lane)
    )


@lru_cache(maxsize=4)
def fair_distributions(tile_count: int) -> dict[str, list[float]]:
    """The shipped fair distributions for a set of `tile_count` tiles: "hands" over the hand
    scores 0..6, "draws" over the draw scores, "neighbours" over the counts 0, 1, ..."""
    data = json.loads(resources.files("firmware.audit").joinpath(DATA).read_text(encoding="utf-8"))
    return data["sets"][str(tile_count)]


def score_tests(fair: dict, fair_run: float, both_ways: bool) -> dict[tuple[str, bool], Cusum]:
    """The tests of one side (or player), by (what is scored, made worse): favoured, and made
    worse too when `both_ways`."""
    shifts = {"hands": HAND_SHIFT, "draws": DRAW_SHIFT}
    return {
        (what, lower): Cusum(fair[what], shifts[what], fair_run, lower)
        for what in SCORES
        for lower in ((False, True) if both_ways else (False,))
    }


def about(run: float) -> str:
    """A mean run said as a person reads it: two figures, thin-spaced thousands."""
    rounded = round(run, -len(str(int(run))) + 2) if run >= 100 else round(run)
    return f"{int(rounded):,}".replace(",", " ")


@dataclass(frozen=True)
class Alarm:
    """A test that fired: `what` it scores ("hands", "draws" or "clusters"), whether it
    watches for worse (`lower`), its fair mean run between alarms, the hands it looked back
    over; the physical `side` 0..3 or the `player`'s name, None for the walls' clustering."""

    what: str
    lower: bool
    fair_run: float
    hands: int
    side: int | None = None
    player: str | None = None

    def message(self) -> str:
        rate = f"a fair table raises this alarm about once in {about(self.fair_run)} hands"
        if self.what == "clusters":
            return f"the shuffler's walls cluster tiles of a kind ({rate})"
        verb = "make worse" if self.lower else "favour"
        if self.player is None and self.side is not None:
            whose = f"the {LETTERS[self.side]} side's {WHAT[self.what]}"
        else:
            lately = "" if self.side is None else f", lately at {LETTERS[self.side]}"
            whose = f"the {WHAT[self.what]} of player {self.player} wherever seated{lately},"
        return f"the shuffler's walls {verb} {whose} over the last {self.hands} hands ({rate})"


class ShuffleWatch:
    """The tests of one table's walls, for a set of `tile_count` tiles."""

    def __init__(self, tile_count: int, fair_run: float = FAIR_HANDS):
        fair = fair_distributions(tile_count)
        self.sides = [score_tests(fair, fair_run, both_ways=True) for _ in range(4)]
        self.walls = Cusum(fair["neighbours"], CLUSTER_SHIFT, fair_run)

    def tests(self) -> list[Cusum]:
        return [*(t for side in self.sides for t in side.values()), self.walls]

    def hand(self, dealer: int, hands, lanes, draws) -> list[Alarm]:
        """One hand dealt: `hands` and `draws` by seat (East first) with East on side
        `dealer`; `lanes` the walls as stacked."""
        return self.scored(side_scores(dealer, hands, draws), neighbours(lanes))

    def scored(self, by_side: list[tuple[int, int]], pairs: int) -> list[Alarm]:
        """One hand by its scores: (hand, draws) by side, and its walls' neighbours."""
        alarms = []
        for side, scores in enumerate(by_side):
            for (what, lower), cusum in self.sides[side].items():
                fired = cusum.add(scores[SCORES.index(what)])
                if fired:
                    alarms.append(Alarm(what, lower, cusum.fair_run, fired, side))
        fired = self.walls.add(pairs)
        if fired:
            alarms.append(Alarm("clusters", False, self.walls.fair_run, fired))
        return alarms


def follow(service) -> None:
    """Watch the hands `service` deals (a listener on its outputs); an alarm is a fault on
    the referee's board, which reaches the display and the venue."""
    port = service.commands  # the table's write port (firmware/table/commands.py)
    rules = service.ruleset.table_rules
    watch = ShuffleWatch(len(tiles.physical_set(rules.flowers)))
    broken: list[Break] = []  # the latest break: where the draws come from

    def seen(events) -> None:
        for event in events:
            if isinstance(event, ev.WallBroken) and event.seat is not None:
                broken[:] = [Break(event.seat, event.stacks)]
        dealt = [event for event in events if isinstance(event, ev.Dealt)]
        status = service.status() if dealt else None
        for event in dealt:
            if status is None or status.table is None or not broken:
                continue
            dealer, walls = status.session.player_at(0), status.table.walls
            draws = turn_draws(walls, broken[0], rules.dead_wall, DRAWS)
            for alarm in watch.hand(dealer, event.hands, walls, draws):
                port.report_fault(
                    event.t,
                    "shuffler",
                    "clustered" if alarm.what == "clusters" else "favoured",
                    alarm.message(),
                    "stop play on this table and have the machine inspected; the journal "
                    "holds every wall",
                    transient=True,
                )

    port.subscribe(seen)
