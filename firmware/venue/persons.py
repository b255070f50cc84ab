"""The venue's tests that follow a player, not a side (issue 35): a machine can favour the
person its owner seated there, and a cheat who changes seats every few hands (or tables)
spreads his advantage over every side's tests at once. These run at the venue, which sees
every table: the same scores as the sides' tests (firmware/audit/shuffle_watch.py), taken
by the player who sat at that side in that hand, whichever table. Players are known by
their federation id, else their name, as the desk entered them (PlayersEntered); a player
the session does not name is "P2 of table T7" (his place in the table's session).

Only the favouring tests: two per player, starting hands and draws, each with the false
alarm rate of the table's own tests, so a table's four players add eight tests.
"""

from firmware.audit.cusum import Cusum
from firmware.audit.shuffle_watch import FAIR_HANDS, SCORES, Alarm, fair_distributions, score_tests


class PlayerWatch:
    """Per player and set size, the favouring tests, fed each hand's scores by side."""

    def __init__(self, fair_run: float = FAIR_HANDS):
        self.fair_run = fair_run
        self.tests: dict[tuple[str, int], dict[tuple[str, bool], Cusum]] = {}

    def hand(self, tile_count: int, seated: list[str], by_side: list[tuple[int, int]]):
        """One hand: the player at each side (E S W N) and its (hand, draw) scores; the
        alarms, naming the player and the side he last sat at."""
        alarms = []
        for side, (player, scores) in enumerate(zip(seated, by_side, strict=True)):
            key = (player, tile_count)
            if key not in self.tests:
                fair = fair_distributions(tile_count)
                self.tests[key] = score_tests(fair, self.fair_run, both_ways=False)
            for (what, lower), cusum in self.tests[key].items():
                fired = cusum.add(scores[SCORES.index(what)])
                if fired:
                    alarms.append(Alarm(what, lower, cusum.fair_run, fired, side, player))
        return alarms


def player_name(entered: dict | None, table: str, person: int) -> str:
    """How the venue knows the person `person` (0..3) of a table's session: the federation
    id the desk entered (the same player under two spellings of his name is one player),
    else his name, else the table and his place in it."""
    if isinstance(entered, dict):
        for field in ("federation_id", "name"):
            value = entered.get(field)
            if isinstance(value, str) and value.strip():
                return value.strip()
    return f"P{person + 1} of table {table}"
