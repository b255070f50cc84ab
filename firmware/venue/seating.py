"""The seating plan of the event (issue 36 item 1): who sits at which table, in which seat, in
each round, so that the venue seats the hall with one `start_session` a table instead of each
table's referee typing four names.

The plan comes as a CSV (`round,table,seat,name,federation_id,country`, UTF-8 with or without
a byte-order mark, the seat E/S/W/N or 東南西北) checked line by line, every problem named by
its line; or the dashboard draws it from a list of players, at random or with no two players
meeting twice across the rounds (a Swiss-like draw some events ask for; the organiser
chooses).
"""

import csv
import io
import random
from dataclasses import dataclass

from engine.seats import LETTERS
from firmware.bus.contract import FEDERATION_ID_LENGTH, NAME_LENGTH, TOPIC_WORD, TOPIC_WORD_WORDS

COLUMNS = ("round", "table", "seat", "name", "federation_id", "country")
SEATS = {letter: i for i, letter in enumerate(LETTERS)} | {
    wind: i for i, wind in enumerate("東南西北")
}
MAX_ROUNDS = 50
MAX_LINES = 4 * 2000 * 10  # a hall of 2000 tables over 10 rounds: more is not a plan
COUNTRY_LENGTH = 60
PROBLEMS_SHOWN = 20  # a plan with many problems: the first ones, and how many more
DRAW_TRIES = 200  # shuffles tried for one round of a draw where no two may meet again


class SeatingError(ValueError):
    """A plan refused, with every problem found (by line where it has one)."""

    def __init__(self, problems: list[str]):
        self.problems = problems
        shown = problems[:PROBLEMS_SHOWN]
        more = len(problems) - len(shown)
        super().__init__("; ".join(shown) + (f"; and {more} more" if more else ""))


@dataclass(frozen=True)
class Player:
    name: str
    federation_id: str | None
    country: str | None

    @property
    def key(self) -> str:
        """Who the player is across the rounds: his federation id, else his name."""
        return f"id:{self.federation_id}" if self.federation_id else f"name:{self.name}"

    def to_json(self) -> dict:
        return {"name": self.name, "federation_id": self.federation_id, "country": self.country}


Tables = dict[str, tuple[Player, ...]]  # table -> its four players, East first


@dataclass(frozen=True)
class Plan:
    """rounds[r] (r from 1): each table's four players by seat."""

    rounds: dict[int, Tables]

    def players(self, round_number: int, table: str) -> tuple[Player, ...] | None:
        return self.rounds.get(round_number, {}).get(table)

    def everyone(self) -> dict[str, Player]:
        """Every player of the event, by key, as the plan last names him."""
        return {
            p.key: p for tables in self.rounds.values() for four in tables.values() for p in four
        }

    def to_json(self) -> dict:
        return {
            str(number): {
                table: [p.to_json() for p in four] for table, four in sorted(tables.items())
            }
            for number, tables in sorted(self.rounds.items())
        }


def start_session(players: tuple[Player, ...], minutes: int | None = None) -> dict:
    """The `start_session` command's arguments (docs/uplink.md): the four by seat."""
    args: dict = {"players": [{"name": p.name, "federation_id": p.federation_id} for p in players]}
    if minutes is not None:
        args["minutes"] = minutes
    return args


def read_plan(data: bytes | str) -> Plan:
    """The plan in `data` (the CSV file's bytes, or its text); SeatingError naming each
    problem by line."""
    if isinstance(data, bytes):
        try:
            data = data.decode("utf-8-sig")
        except UnicodeDecodeError as err:
            raise SeatingError(
                [f"not UTF-8 (byte {err.start}): save the plan as CSV UTF-8"]
            ) from None
    text = data.removeprefix("\ufeff")
    rows = csv.reader(io.StringIO(text, newline=""))
    header = [cell.strip().lower() for cell in next(rows, [])]
    if tuple(header) != COLUMNS:
        raise SeatingError(
            [f"line 1: the header must be {','.join(COLUMNS)}; it is {','.join(header)[:120]!r}"]
        )
    problems: list[str] = []
    seats: dict[tuple[int, str, int], int] = {}  # (round, table, seat) -> its line
    rounds: dict[int, dict[str, list[Player | None]]] = {}
    met: dict[tuple[int, str], int] = {}  # (round, player's key) -> his line
    for line, cells in enumerate(rows, 2):
        if line > MAX_LINES + 1:
            problems.append(f"line {line}: more than {MAX_LINES} seats: not one event's plan")
            break
        if not any(cell.strip() for cell in cells):
            continue
        try:
            number, table, seat, player = _seat(cells)
        except ValueError as err:
            problems.append(f"line {line}: {err}")
            continue
        place = (number, table, seat)
        if place in seats:
            problems.append(
                f"line {line}: round {number} table {table} seat {LETTERS[seat]} is "
                f"given already on line {seats[place]}"
            )
            continue
        if (number, player.key) in met:
            problems.append(
                f"line {line}: {player.name} is seated twice in round {number} (line "
                f"{met[number, player.key]} too)"
            )
            continue
        seats[place], met[number, player.key] = line, line
        rounds.setdefault(number, {}).setdefault(table, [None] * 4)[seat] = player
    for number, tables in sorted(rounds.items()):
        for table, four in sorted(tables.items()):
            empty = [LETTERS[i] for i, p in enumerate(four) if p is None]
            if empty:
                problems.append(
                    f"round {number} table {table}: no player for seat {'/'.join(empty)}"
                )
    if not rounds and not problems:
        problems.append("the plan seats nobody: one line a seat after the header")
    if problems:
        raise SeatingError(problems)
    return Plan(
        {
            n: {t: tuple(p for p in four if p) for t, four in tables.items()}
            for n, tables in rounds.items()
        }
    )


def _seat(cells: list[str]) -> tuple[int, str, int, Player]:
    if len(cells) != len(COLUMNS):
        raise ValueError(f"{len(cells)} cells, not {len(COLUMNS)} ({','.join(COLUMNS)})")
    number_text, table, seat_text, name, federation_id, country = (c.strip() for c in cells)
    if not number_text.isdigit() or not 1 <= int(number_text) <= MAX_ROUNDS:
        raise ValueError(f"round {number_text[:20]!r}: a whole number from 1 to {MAX_ROUNDS}")
    if not TOPIC_WORD.fullmatch(table):
        raise ValueError(f"table {table[:40]!r}: a table's name is {TOPIC_WORD_WORDS}")
    seat = SEATS.get(seat_text.upper())
    if seat is None:
        raise ValueError(f"seat {seat_text[:10]!r}: E, S, W or N (or 東, 南, 西, 北)")
    return int(number_text), table, seat, player(name, federation_id, country)


def player(name: str, federation_id: str = "", country: str = "") -> Player:
    """A player as a start_session carries him (ValueError saying what is wrong)."""
    for what, value, longest in (
        ("name", name, NAME_LENGTH),
        ("federation_id", federation_id, FEDERATION_ID_LENGTH),
        ("country", country, COUNTRY_LENGTH),
    ):
        if not value.isprintable():
            raise ValueError(f"{what} {value[:40]!r}: printable text only")
        if len(value) > longest:
            raise ValueError(f"{what} {value[:40]!r}...: at most {longest} characters")
    if not name:
        raise ValueError("the player's name is empty")
    return Player(name, federation_id or None, country or None)


def draw(
    players: list[Player],
    tables: list[str],
    rounds: int,
    meet_once: bool = False,
    rng: random.Random | None = None,
) -> Plan:
    """Seat `players` (four a table of `tables`) for `rounds` rounds at random; with
    `meet_once`, no two players at one table more than once (SeatingError when the tries
    find no such round: too many rounds for the players)."""
    rng = rng or random.Random()
    if len(players) != 4 * len(tables):
        raise SeatingError(
            [f"{len(players)} players for {len(tables)} tables: four a table, {4 * len(tables)}"]
        )
    keys = [p.key for p in players]
    if len(set(keys)) != len(keys):
        raise SeatingError(["a player is listed twice (the same federation id or name)"])
    met: set[frozenset[str]] = set()
    plan: dict[int, Tables] = {}
    for number in range(1, rounds + 1):
        groups = None
        for _ in range(DRAW_TRIES if meet_once else 1):
            groups = _groups(rng.sample(players, len(players)), met if meet_once else set())
            if groups is not None:
                break
        if groups is None:
            raise SeatingError(
                [
                    f"round {number}: no draw found where no two players meet again "
                    f"({len(players)} players, {rounds} rounds)"
                ]
            )
        met |= {frozenset((a.key, b.key)) for g in groups for a in g for b in g if a != b}
        plan[number] = dict(zip(tables, groups, strict=True))
    return Plan(plan)


def _groups(order: list[Player], met: set[frozenset[str]]) -> list[tuple[Player, ...]] | None:
    """Tables of four filled in turn, each seat by the first player left in `order` who has
    met none of the table (None at a dead end: the caller shuffles again)."""
    left, groups = list(order), []
    while left:
        table: list[Player] = []
        for candidate in list(left):
            if all(frozenset((candidate.key, p.key)) not in met for p in table):
                table.append(candidate)
                left.remove(candidate)
                if len(table) == 4:
                    break
        if len(table) < 4:
            return None
        groups.append(tuple(table))
    return groups
