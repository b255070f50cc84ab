"""A sitting of four players: hands in turn, dealer rotation, running scores, the score sheet.

Players are 0..3 in the seats they drew; each hand the Table numbers seats by wind, East
dealing, so the player in seat s is (dealer + s) % 4. WSOM passes the deal after every hand
(RULES.md 3.1); CCM keeps it with a dealer who wins and doubles every score change while he
continues (RULES.md 4.11, A-C13), and passes it otherwise, exhaustive draws included.
"""

from dataclasses import dataclass, field

from engine.rulesets import Ruleset
from engine.table import Table


@dataclass(frozen=True)
class HandRecord:
    """One line of the score sheet."""
    number: int
    dealer: int                           # the player who was East
    result: str                           # "win" or "draw"
    winners: tuple[int, ...]              # players, in payment order
    changes: tuple[int, int, int, int]    # per player: the hand's payments (sum zero)
    totals: tuple[int, int, int, int]     # per player, after this hand
    penalties: tuple[int, int, int, int] = (0, 0, 0, 0)   # per player: penalty points
    doubled: bool = False
    unscored: bool = False                # a win the ruleset could not count (referee counts)

    def to_json(self) -> dict:
        return {"number": self.number, "dealer": self.dealer, "result": self.result,
                "winners": list(self.winners), "changes": list(self.changes),
                "totals": list(self.totals), "penalties": list(self.penalties),
                "doubled": self.doubled,
                "unscored": self.unscored}


@dataclass
class Session:
    ruleset: Ruleset
    dealer: int = 0
    doubling: bool = False
    hand_number: int = 0
    scores: list[int] = field(default_factory=lambda: [0, 0, 0, 0])
    sheet: list[HandRecord] = field(default_factory=list)

    def player_at(self, seat: int) -> int:
        return (self.dealer + seat) % 4

    def new_table(self, walls: list[list[int]], t: float = 0.0) -> Table:
        """The next hand, on walls laid by the shuffler (walls[seat], seat 0 = East)."""
        self.hand_number += 1
        return Table(self.ruleset, walls, self.hand_number, t)

    def record(self, table: Table) -> HandRecord:
        """Settle a finished hand: scores, the sheet, and who deals next."""
        if not table.ended:
            raise ValueError("the hand is not over")
        factor = self.ruleset.table_rules.doubling_factor if self.doubling else 1
        changes = [0, 0, 0, 0]
        unscored = False
        for _, _, score in table.results:
            if score["payments"] is None:
                unscored = True
                continue
            for seat, amount in enumerate(score["payments"]):
                changes[self.player_at(seat)] += amount * factor
        penalties = self._penalties(table, factor)
        for player in range(4):
            self.scores[player] += changes[player] + penalties[player]
        winners = tuple(self.player_at(seat) for seat, _, _ in table.results)
        row = HandRecord(self.hand_number, self.dealer, "win" if winners else "draw", winners,
                         tuple(changes), tuple(self.scores), tuple(penalties), factor > 1,
                         unscored)
        self.sheet.append(row)
        self._next_dealer(dealer_won=0 in [seat for seat, _, _ in table.results])
        return row

    def _penalties(self, table: Table, factor: int) -> list[int]:
        """WSOM deducts penalty points from the offender only (RULES.md 3.13); CCM has him pay
        them to each of the other three (4.15), doubled with everything else (A-C13)."""
        result = [0, 0, 0, 0]
        for penalty in table.referee.applied:
            offender = self.player_at(penalty.seat)
            if penalty.paid_to_others:
                for player in range(4):
                    result[player] += penalty.points * factor * (-3 if player == offender else 1)
            else:
                result[offender] -= penalty.points
        return result

    def _next_dealer(self, dealer_won: bool) -> None:
        if dealer_won and self.ruleset.table_rules.dealer_repeats:
            self.doubling = True
        else:
            self.dealer, self.doubling = (self.dealer + 1) % 4, False
