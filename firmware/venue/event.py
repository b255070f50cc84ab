"""The event across its rounds (issue 36 item 2): the seating plan, which round the hall plays,
each round's standings kept once it is over, and the event's results in the shape ranking
bodies take (place, name, federation id, country, points, games) as CSV and JSON.

A round begins when the venue sends its `start_session` to every table of the plan: each
table's round starts after the hand it had then (a table that starts a new journal session
for the round starts from nothing), so a table that plays its rounds in one session still
has each round's own score (firmware/venue/standings.py).

The event's points are each rule book's competition chapter: WSOM's total of the scores won
and lost over the rounds ("以多局的得分及失分合計﹐來覺得勝負名次", seed 000, 麻將的目的與流程),
its best FINALISTS going on to the final (seed 000 比賽介紹: the two days' rounds "決出晉級決賽
的十六名選手"); CCM's standard points earned in each stage, then the 總局分 (seed 004 第三條
"以四局總分確定名次", 第十條, 第十一條).
"""

import csv
import io
import json
from pathlib import Path

from firmware.venue.board import TableBoard, VenueBoard
from firmware.venue.points import DEFAULT_STAGE, Stage
from firmware.venue.seating import Plan, Player, start_session
from firmware.venue.standings import csv_cell, places, round_over, standings

FINALISTS = 16  # seed 000 比賽介紹: 決出晉級決賽的十六名選手
RESULT_COLUMNS = ("place", "name", "federation_id", "country", "points", "games")
MORE_COLUMNS = ("book", "score", "finalist")  # what ranks ties, and WSOM's final


class RoundRefused(Exception):
    """A round the organiser cannot start now, and why."""


class Event:
    """The event the venue's `board` plays, ranked by `stage` (CCM's standard points)."""

    def __init__(self, board: VenueBoard, stage: Stage = DEFAULT_STAGE):
        self.board, self.stage = board, stage
        self.plan: Plan | None = None
        self.round = 0  # the round the hall plays (0: none begun)
        self.closed: dict[int, list[dict]] = {}  # round -> its final standings

    def seat(self, plan: Plan) -> None:
        """The organiser's plan (imported or drawn): the rounds not yet begun are seated by it."""
        self.plan = plan

    def seating(self, number: int, minutes: int | None = None) -> dict[str, dict]:
        """Each table's start_session arguments for round `number`, by table, once the
        round before is over (its standings kept); RoundRefused, saying why not."""
        plan = self.plan
        if plan is None:
            raise RoundRefused("no seating plan: import one or make the draw first")
        if number not in plan.rounds:
            raise RoundRefused(
                f"the plan has no round {number} (its rounds: {sorted(plan.rounds)})"
            )
        if number <= self.round:
            raise RoundRefused(f"round {number} has begun already: the next is {self.round + 1}")
        if self.round and not self.close():
            raise RoundRefused(f"round {self.round} is not over: every table signs its sheet first")
        return {table: start_session(four, minutes) for table, four in plan.rounds[number].items()}

    def begun(self, number: int, tables) -> None:
        """Round `number`'s start_session went to `tables`: each one's round starts after its
        latest hand (a table not heard of yet, from its first)."""
        self.round = number
        for name in tables:
            table = self.board.tables.get(name)
            if table is not None:
                _mark(table)
        self.board.version += 1

    def summary(self) -> dict:
        """For the dashboard: the plan's rounds, the round played, the rounds kept."""
        plan = self.plan
        return {
            "planned": sorted(plan.rounds) if plan else [],
            "tables": len(plan.rounds.get(self.round + 1, {})) if plan else 0,
            "round": self.round,
            "over": sorted(self.closed),
        }

    def close(self) -> bool:
        """Keep the round's standings once every table has finished it; whether it is kept."""
        if self.round in self.closed:
            return True
        if not self.round or not round_over(self.board):
            return False
        self.closed[self.round] = standings(self.board, self.stage)
        return True

    def results(self) -> list[dict]:
        """The event's ranking over the rounds kept: a line a player, best first within his
        rule book (CCM's first), equal points (and CCM's 總局分) sharing the place."""
        ranked = []
        totals = self._totals()
        for book in sorted({b for b, _ in totals}):
            lines = [line for (b, _), line in totals.items() if b == book]
            if book == "WSOM":  # its points are the scores won and lost
                for line in lines:
                    line["points"] = line["score"]
            tie_break = book == "CCM"  # 第十一條: equal standard points, then 總局分
            order = [(line["points"], line["score"] if tie_break else 0) for line in lines]
            for line, place in zip(lines, places(order), strict=True):
                line["place"] = place
                line["finalist"] = place <= FINALISTS if book == "WSOM" else None
            ranked += sorted(lines, key=lambda line: (line["place"], line["name"]))
        return ranked

    def _totals(self) -> dict[tuple[str, str], dict]:
        """(book, player's key) -> his standard points, score and rounds played, added up."""
        countries = {k: p.country for k, p in self.plan.everyone().items()} if self.plan else {}
        totals: dict[tuple[str, str], dict] = {}
        for number in sorted(self.closed):
            for seated in self.closed[number]:
                key = Player(seated["name"], seated["federation_id"], None).key
                line = totals.setdefault(
                    (seated["book"], key),
                    {
                        "book": seated["book"],
                        "name": seated["name"],
                        "federation_id": seated["federation_id"],
                        "country": countries.get(key),
                        "points": 0,
                        "score": 0,
                        "games": 0,
                    },
                )
                line["games"] += 1
                line["score"] += seated["score"]
                line["points"] += seated["standard_points"] or 0
        return totals

    def report(self) -> dict:
        """The results as one JSON document, with the rounds they count."""
        return {
            "v": 1,
            "venue": self.board.venue,
            "rounds": sorted(self.closed),
            "playing": self.round if self.round not in self.closed else None,
            "results": self.results(),
        }

    def write(self, folder: Path) -> Path:
        """The results as `<venue>-results.csv` and `.json` in `folder`; the CSV's path."""
        folder.mkdir(parents=True, exist_ok=True)
        path = folder / f"{self.board.venue}-results.csv"
        path.write_text(results_csv(self.results()), encoding="utf-8")
        path.with_suffix(".json").write_text(
            json.dumps(self.report(), ensure_ascii=False, indent=1), encoding="utf-8"
        )
        return path


def _mark(table: TableBoard) -> None:
    """The table's round starts after its latest hand, with the scores it has now."""
    state = table.state
    hand = state["hand_number"] if state else 0
    table.round_start = (table.session, hand, list(state["scores"]) if state else [])


def results_csv(lines: list[dict]) -> str:
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(RESULT_COLUMNS + MORE_COLUMNS)
    for line in lines:
        writer.writerow([csv_cell(line[c]) for c in RESULT_COLUMNS + MORE_COLUMNS])
    return out.getvalue()
