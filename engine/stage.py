"""A CCM stage (輪次): its format, the seats' changes and the standings (seed 004 第三條 賽制,
定位、換位, 第十條, 第十一條, 三十八 局分 and 標準分; RULES.md 4.3, 4.13).

A stage is 4 games (局) of 4 or 2 rounds (圈) with the seats changed after every game, or one
game of 4 rounds without a change; the rounds are [game] rounds, the games [stage] games. The
people are 0..3, the players in the seats they drew for the stage; a game's seating is the
person on each side (E S W N), and nobody sits a side twice in a stage (換座不得重複座位就坐).
A game's chips at its end are its 局分, not carried on; their sum over the stage is the 總局分,
which ranks the table's four. The first (or the first two, `qualifiers`) get the stage's
standard score; the second's total is on record for the comparison of the tables' seconds,
which may let the best of them through as a reserve. Equal totals are equal places (第十一條
總局分相同，並列名次), so all those tied within the qualifying places get the standard score.

Pure: from the rule book's config and the session's games (engine/session.py); `standings_of`,
`last_hand_seating` and `take_seats` read or set a Session's.
"""

from dataclasses import dataclass
from itertools import permutations


@dataclass(frozen=True)
class Format:
    """The stage's format from the rule book: `rounds` a game, `games` a stage."""

    rounds: int
    games: int
    standard_score: int
    qualifiers: int  # who get the standard score at each table: the first, or the first two

    @property
    def seats_change(self) -> bool:
        """Seed 004 第三條: the 16- and 8-round formats change seats, the 4-round one does not."""
        return self.games > 1

    @property
    def name(self) -> str:
        """ "16 rounds (4 games of 4)" """
        return f"{self.rounds * self.games} rounds ({self.games} games of {self.rounds})"


def format_of(ruleset) -> Format | None:
    """The rule book's stage, or None for one without stages (WSOM plays no 局)."""
    config = getattr(ruleset, "config", {})
    if "stage" not in config:
        return None
    stage = config["stage"]
    return Format(
        config["game"]["rounds"], stage["games"], stage["standard_score"], stage["qualifiers"]
    )


def stage_games(games: list[dict], fmt: Format) -> list[dict]:
    """The games ended of the stage the next game belongs to: none at a stage's start."""
    return games[len(games) - len(games) % fmt.games :]


def game_in_stage(games: list[dict], fmt: Format) -> int:
    """The number (1 first) in its stage of the game being played or about to be."""
    return len(stage_games(games, fmt)) + 1


def repeats(seating, earlier) -> list[tuple[int, int]]:
    """(person, side) for each person `seating` puts on a side he sat in an earlier game."""
    return sorted(
        (person, side)
        for side, person in enumerate(seating)
        if any(before[side] == person for before in earlier)
    )


def proposed(current, earlier) -> tuple[int, ...]:
    """The table's seating for the next game: everybody one side on in the order of play (E's
    to S, S's to W, ...), or further, or any seating that repeats nobody's side over the
    stage's `earlier` games, of which there are at most three: a seating of the stage's
    games so far can always be gone on with (a Latin rectangle extends to a square). At a
    stage's start, the seats the players drew for it."""
    if not earlier:
        return (0, 1, 2, 3)
    shifts = [tuple(current[(side - k) % 4] for side in range(4)) for k in (1, 2, 3)]
    return next(tuple(s) for s in [*shifts, *permutations(range(4))] if not repeats(s, earlier))


@dataclass(frozen=True)
class Standing:
    person: int
    points: tuple[int, ...]  # each game's 局分 (his chips at its end), in order
    total: int  # 總局分
    rank: int  # equal totals share a rank (第十一條)
    standard_score: int | None  # once the stage is over: the stage's, or 0

    def to_json(self) -> dict:
        return {
            "person": self.person,
            "points": list(self.points),
            "total": self.total,
            "rank": self.rank,
            "standard_score": self.standard_score,
        }


def standings(games: list[dict], fmt: Format) -> list[Standing]:
    """Per person, by rank: the 局分 of the stage's games so far (the stage last played in),
    the 總局分, the place, and once the stage is over the standard score (第十條)."""
    played = games[(len(games) - 1) // fmt.games * fmt.games :] if games else []
    finished = len(played) == fmt.games
    points: dict[int, list[int]] = {person: [] for person in range(4)}
    for game in played:
        for side, person in enumerate(game["seating"]):
            points[person].append(game["chips"][side])
    totals = {person: sum(p) for person, p in points.items()}
    rows = []
    for person in range(4):
        rank = 1 + sum(1 for other in totals.values() if other > totals[person])
        score = (fmt.standard_score if rank <= fmt.qualifiers else 0) if finished else None
        rows.append(Standing(person, tuple(points[person]), totals[person], rank, score))
    return sorted(rows, key=lambda row: (row.rank, row.person))


def stage_json(games: list[dict], fmt: Format, names=None) -> dict:
    """The standings as the sheet shows them; `names` by person (the venue's), or None.
    `reserve`: with one qualifier a table, the second's 總局分 on record for the comparison of
    the tables' seconds (第十條 第二名備案總局分); none where the first places are tied.
    `tied_at_cut`: more share the qualifying places than qualify, all of them given the
    standard score (並列名次): the competition's rules may decide otherwise."""
    rows = standings(games, fmt)
    finished = bool(rows[0].points) and len(rows[0].points) == fmt.games
    qualified = [row.person for row in rows if row.standard_score]
    reserve = [
        {"person": row.person, "total": row.total}
        for row in rows
        if finished and fmt.qualifiers == 1 and row.rank == 2
    ]
    return {
        "format": fmt.name,
        "games": fmt.games,
        "played": len(rows[0].points),
        "finished": finished,
        "standard_score": fmt.standard_score,
        "qualifiers": fmt.qualifiers,
        "players": [
            row.to_json() | {"name": names[row.person]["name"] if names else None} for row in rows
        ],
        "qualified": qualified,
        "tied_at_cut": len(qualified) > fmt.qualifiers,
        "reserve": reserve,
    }


def standings_of(session, players=None) -> dict | None:
    """The stage's standings (stage_json) for the sheet and the summaries;
    `players`: the venue's names by person. None for a rule book without stages."""
    fmt = format_of(session.ruleset)
    return None if fmt is None else stage_json(session.games, fmt, players)


def last_hand_seating(session) -> list[int] | None:
    """The seating of the game the sheet's last row is of: its row is by side; None before."""
    if not session.sheet:
        return None
    in_this_game = len(session.sheet) > session.game_first_row
    return list(session.seating) if in_this_game else list(session.games[-1]["seating"])


def take_seats(session, seatings: dict[int, tuple[int, ...]]) -> None:
    """On resume: the seating journaled for the game about to be recorded, if any."""
    seating = seatings.get(len(session.games) + 1)
    if seating is not None:
        session.seating = list(seating)
