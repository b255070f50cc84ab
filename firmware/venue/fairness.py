"""The venue watches every table's shuffler from what the tables publish (issue 17).

Each table seals its walls before the dice and reveals them after the hand (firmware/
fairness.py); the uplink sends both, with the hand's dice and moves, in their public form.
From those rows alone the venue, for each table:

- checks the reveal: its order and nonce must give its digest (`reveal_matches`), and that
  digest must be the one the table sealed before the hand's dice. Either failing is an alert
  for the organiser at once;
- recomputes the hand's starting hands and draws in turn by physical side from the revealed
  walls and the dice (engine/deal.py, the rigged chips' own arithmetic) and feeds them to a
  `ShuffleWatch` of its own: the statistics the table runs on itself (firmware/audit/
  shuffle_watch.py), so an alarm here reads as one there, "the shuffler's walls favour the S
  side's draws over the last 12 hands (a fair table raises this alarm about once in …)";
- feeds the same scores to the tests of the player who sat at each side (firmware/venue/
  persons.py), known across the venue's tables by the names the desk entered
  (PlayersEntered) and the seats they took (SeatsChanged): a cheat who changes seats or
  tables is followed.

What the venue can check that a table cannot: a table's detector runs on the table, so
whoever rigged its shuffler can switch it off, or silence its fault; the venue's runs on the
venue's server, over the walls the table sealed before the dice and cannot change after. A
tampered table that stops reporting its own fault is still caught, and a table that reveals
walls other than those it sealed is caught at once.

The rows say which seat East holds but not on which physical side he sits (the dealer side),
so the venue finds it from the walls: of the four sides East could sit on, the one whose deal
holds the most of the tiles each seat was seen to discard or meld. A hand with no such tile
(voided before a discard) is not watched. Rows are taken in the order they arrive, as the
uplink sends them; a row that fills a gap late (sent again on the venue's `resend`) is kept
from the watch by the board, its hand watched without it.
"""

from engine import events as ev
from engine import tiles
from engine.deal import draws_by_side, starting_hands
from engine.rulebook import TableRules
from engine.seats import LETTERS
from firmware.audit.shuffle_watch import DRAWS, ShuffleWatch, neighbours, side_scores
from firmware.journal import seals as fairness
from firmware.resources import ConfigError, load_ruleset
from firmware.venue.persons import PlayerWatch, player_name

ALARMS_KEPT = 20  # per table, the latest: the organiser's summary, not the journal


class TableWalls:
    """One table's walls as the venue has seen them, and its watch."""

    def __init__(self):
        self.watches: dict[int, ShuffleWatch] = {}  # by the set's tile count
        self.hands = 0  # hands whose starting hands the venue recomputed and watched
        self.unwatched = 0  # hands revealed that could not be (no dice seen, no discard)
        self.bad_reveals = 0
        self.alarms: list[dict] = []
        self.sealed: str | None = None  # the latest seal's digest
        self.hand: dict | None = None  # the hand on the table, as its rows told it
        self.players: list[dict | None] = [None] * 4  # by person, as the desk entered them
        self.seating = [0, 1, 2, 3]  # by side, the person who sits there

    def summary(self) -> dict:
        return {
            "hands_watched": self.hands,
            "hands_not_watched": self.unwatched,
            "bad_reveals": self.bad_reveals,
            "alarms": self.alarms,
        }


class VenueFairness:
    """Every table's walls, fed the rows the board takes (`row`)."""

    def __init__(self):
        self.tables: dict[str, TableWalls] = {}
        self.players = PlayerWatch()  # every table's players, by name
        self._rules: dict[str, TableRules] = {}

    def summary(self) -> dict:
        """Per table: hands watched and not, reveals that failed, the latest alarms."""
        return {name: walls.summary() for name, walls in self.tables.items()}

    def row(self, table: str, row: dict) -> list[tuple[int | None, str]]:
        """One journal row of `table` (docs/uplink.md's public form): the alerts it raises,
        each (physical side or None, text), one a side (the organiser's grid keys them so)."""
        walls = self.tables.setdefault(table, TableWalls())
        event, kind = row["event"], row["kind"]
        hand = walls.hand
        if kind == "hand":
            walls.hand = {
                "number": event.get("hand_number"),
                "ruleset": event.get("ruleset"),
                "digest": walls.sealed,
                "dice": None,
                "shown": [],
            }
        elif event.get("type") in ("PlayersEntered", "SeatsChanged"):
            _seat(walls, event)
        elif event.get("type") == "WallSealed":
            walls.sealed = event.get("digest")
        elif event.get("type") == "WallRevealed":
            walls.hand = None
            return self._revealed(table, walls, hand, event)
        elif hand is not None and kind == "output":
            _follow(hand, event)
        return []

    def _revealed(self, name: str, walls: TableWalls, hand, event: dict):
        number, problem = (hand["number"] if hand else "?"), ""
        revealed = _matching(event)
        if revealed is None:
            problem = "do not give their digest: the reveal proves nothing"
        elif hand and hand["digest"] and revealed.digest != hand["digest"]:
            problem = f"are not those sealed before its dice ({fairness.shown(hand['digest'])})"
        if revealed is None or problem:
            walls.bad_reveals += 1
            text = f"table {name}: the walls revealed after hand {number} {problem}"
            return [(None, f"{text}; keep the table's journal")]
        found = self._deal(hand, revealed)
        if found is None:
            walls.unwatched += 1
            return []
        dealer, by_side, lanes, drawn = found
        count = sum(map(len, lanes))
        if count not in walls.watches:
            walls.watches[count] = ShuffleWatch(count)
        walls.hands += 1
        by_seat = [by_side[(dealer + seat) % 4] for seat in range(4)]
        draws = [drawn[(dealer + seat) % 4] for seat in range(4)]
        scores = side_scores(dealer, by_seat, draws)
        seated = [player_name(walls.players[p], name, p) for p in walls.seating]
        table_alarms = walls.watches[count].scored(scores, neighbours(lanes))
        said = {(a.what, a.lower, a.side) for a in table_alarms}
        player_alarms = [  # a player's alarm the side he sat at raised too says nothing more
            a
            for a in self.players.hand(count, seated, scores)
            if (a.what, a.lower, a.side) not in said
        ]
        texts: dict[int | None, list[str]] = {}
        for alarm in [*table_alarms, *player_alarms]:
            text = f"table {name}: {alarm.message()}, by the venue's own check of its walls"
            walls.alarms = [
                *walls.alarms,
                {
                    "hand": number,
                    "side": _letter(alarm.side),
                    "player": alarm.player,
                    "test": alarm.what,
                    "worse": alarm.lower,
                    "fair_run": round(alarm.fair_run),
                    "hands": alarm.hands,
                    "text": text,
                },
            ][-ALARMS_KEPT:]
            texts.setdefault(alarm.side, []).append(text)
        return [(side, "; ".join(said_there)) for side, said_there in texts.items()]

    def _deal(self, hand, revealed: ev.WallRevealed):
        """(East's side, the starting hands by side, the lanes, the draws in turn by side) of a
        revealed hand; None when
        the rows do not say enough: no hand or dice seen, a rule book the venue lacks, no tile
        shown to place East by."""
        if not hand or not hand["dice"] or not hand["shown"]:
            return None
        rules = self._rules_of(hand["ruleset"])
        if rules is None:
            return None
        dice = hand["dice"]
        rolls = tuple((dice[i], dice[i + 1]) for i in range(0, len(dice) - 1, 2))
        try:
            lanes = fairness.lanes_of(revealed.walls)
            order = [tile for lane in lanes for tile in lane]
            if sorted(order) != tiles.physical_set(len(order) == 144) or len(rolls) != (
                2 if rules.two_roll_break else 1
            ):
                return None
            deals = [starting_hands(order, dealer, rolls, rules) for dealer in range(4)]
        except (TypeError, ValueError):
            return None
        held = [
            sum(tile in deal[(dealer + seat) % 4] for seat, tile in hand["shown"])
            for dealer, deal in enumerate(deals)
        ]
        best = max(held)
        if best == 0 or held.count(best) > 1:
            return None
        dealer = held.index(best)
        return dealer, deals[dealer], lanes, draws_by_side(order, dealer, rolls, rules, DRAWS)

    def _rules_of(self, name) -> TableRules | None:
        """A table's rule book by its name (config/rules), read once; None for one the venue
        lacks (a name, never a path: the name comes from the bus; only those found are kept,
        so strange names cannot fill the memory)."""
        if not isinstance(name, str) or "/" in name or name.endswith(".toml"):
            return None
        if name not in self._rules:
            try:
                self._rules[name] = load_ruleset(name).table_rules
            except ConfigError:
                return None
        return self._rules[name]


def _matching(event: dict) -> ev.WallRevealed | None:
    """A reveal as the bus carried it, if its order and nonce give its digest."""
    try:
        revealed = ev.from_json(event)
        if isinstance(revealed, ev.WallRevealed) and fairness.reveal_matches(revealed):
            return revealed
    except (ev.EventError, TypeError, ValueError):
        pass
    return None


def _follow(hand: dict, event: dict) -> None:
    """What a hand's outputs say of its deal: the dice of the break, and tiles each seat
    showed from its hand (discards, the tiles of its melds but the one claimed)."""
    kind, seat = event.get("type"), event.get("seat")
    if kind == "WallBroken":
        dice = event.get("dice")
        if isinstance(dice, list) and all(isinstance(d, int) and 1 <= d <= 6 for d in dice):
            hand["dice"] = dice
    elif isinstance(seat, int) and 0 <= seat < 4 and len(hand["shown"]) < 200:
        if kind == "Discarded":
            shown = [event.get("tile")]
        elif kind == "Claimed" and isinstance(event.get("tiles"), list):
            shown = [t for t in event["tiles"] if t != event.get("claimed_tile")]
        else:
            return
        hand["shown"] += [(seat, t) for t in shown if isinstance(t, int)]


def _seat(walls: TableWalls, event: dict) -> None:
    """The desk's players (by person) or a new seating (by side, the person there), when the
    row holds a sound one; the next hand is theirs."""
    players, seating = event.get("players"), event.get("seating")
    if isinstance(players, list) and len(players) == 4:
        walls.players = [p if isinstance(p, dict) else None for p in players]
    elif isinstance(seating, list) and sorted(seating) == [0, 1, 2, 3]:
        walls.seating = list(seating)


def _letter(side: int | None) -> str | None:
    return None if side is None else LETTERS[side]
