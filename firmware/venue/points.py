"""CCM's standard points (標準分) for the round, which is a stage (輪次) of the event.

Seed 004 第十條: after the stage's 局, the total of each player's 局分 (總局分) ranks his
table; its first earns the stage's standard points, and its second has his 總局分 recorded so
that the best seconds across the tables may be promoted as substitutes, with the standard
points too; where a stage promotes two a table, the first two earn them. §三十八(二): the
points are set by the event's level (the 精英賽's top stage 8, the 錦標賽's 9+1), in
principle one more a stage. 第十一條: players rank by standard points, then 總局分, and equal
總局分 share the place (並列名次), which is read here for ties at a table's first and at the
last substitute's place too: all of them earn the points. The seed gives substitutes only for
stages promoting one a table.

The venue's score of a CCM player is his 總局分 less the 100 chips each 局 starts with
(venue_standings.py): the same order wherever the tables play the round's set number of 局.
"""

from dataclasses import dataclass

MAX_STANDARD_POINTS = 99  # the seed's highest is 9+1; more is a typing slip


@dataclass(frozen=True)
class Stage:
    """What the round's CCM tables promote: `per_table` players each, then the best
    `seconds` seconds across the tables, each earning `standard_points`."""

    standard_points: int = 1  # a first stage: one more a stage (§三十八(二))
    per_table: int = 1
    seconds: int = 0

    def __post_init__(self):
        if not 1 <= self.standard_points <= MAX_STANDARD_POINTS:
            raise ValueError(f"standard points from 1 to {MAX_STANDARD_POINTS}")
        if self.per_table not in (1, 2):
            raise ValueError("one or two promoted at each table (seed 004 第十條)")
        if self.seconds < 0:
            raise ValueError("a number of best seconds, 0 or more")
        if self.per_table == 2 and self.seconds:
            raise ValueError(
                "with two promoted at each table the seconds are promoted already: seed 004 "
                "第十條 gives no best seconds then"
            )

    def to_json(self) -> dict:
        return {
            "standard_points": self.standard_points,
            "promote_per_table": self.per_table,
            "promote_seconds": self.seconds,
        }


DEFAULT_STAGE = Stage()  # `mjtable venue`'s, without the options


def award(tables: list[list[dict]], stage: Stage) -> None:
    """Sets each player's `standard_points` and `promoted` ("table": his table's first or
    first two; "best second"; None); `tables` are the CCM tables' players, each with his
    `score` and his `place` at his table."""
    seconds = []
    for players in tables:
        for player in players:
            promoted = player["place"] <= stage.per_table
            player["promoted"] = "table" if promoted else None
            player["standard_points"] = stage.standard_points if promoted else 0
            if player["place"] == stage.per_table + 1:
                seconds.append(player)
    if not stage.seconds or not seconds:
        return
    seconds.sort(key=lambda player: -player["score"])
    last = seconds[min(stage.seconds, len(seconds)) - 1]["score"]
    for player in seconds:
        if player["score"] >= last:
            player["promoted"] = "best second"
            player["standard_points"] = stage.standard_points


def rank_key(player: dict) -> tuple:
    """Standard points first (a WSOM player has none), then the score (第十一條)."""
    return (-(player["standard_points"] or 0), -player["score"])
