"""A sitting of four players: hands in turn, dealer rotation, running scores, the score sheet.

Players are 0..3 in the seats they drew; each hand the Table numbers seats by wind, East
dealing, so the player in seat s is (dealer + s) % 4. WSOM passes the deal after every hand
(RULES.md 3.1); CCM keeps it with a dealer who wins and doubles every score change while he
continues (RULES.md 4.11, A-C13), and passes it otherwise, exhaustive draws included.
"""

from dataclasses import dataclass, field

from engine.rulebook import Ruleset
from engine.table import Table


@dataclass(frozen=True)
class HandRecord:
    """One line of the score sheet."""

    number: int
    dealer: int  # the player who was East
    result: str  # "win" or "draw"
    winners: tuple[int, ...]  # players, in payment order
    changes: tuple[int, ...]  # per player: the hand's payments (sum zero)
    totals: tuple[int, ...]  # per player, after this hand
    penalties: tuple[int, ...] = (0, 0, 0, 0)  # per player: penalty points
    doubled: bool = False

    def to_json(self) -> dict:
        return {
            "number": self.number,
            "dealer": self.dealer,
            "result": self.result,
            "winners": list(self.winners),
            "changes": list(self.changes),
            "totals": list(self.totals),
            "penalties": list(self.penalties),
            "doubled": self.doubled,
        }


@dataclass
class Session:
    ruleset: Ruleset
    dealer: int = 0
    doubling: bool = False
    hand_number: int = 0
    scores: list[int] = field(default_factory=list)  # per player; CCM: chips
    sheet: list[HandRecord] = field(default_factory=list)
    games: list[dict] = field(default_factory=list)  # CCM games ended (RULES.md 4.13)
    passes: int = 0  # deals passed in this game
    game_first_row: int = 0  # its first line on the sheet

    def __post_init__(self):
        if not self.scores:
            self.scores = [self.ruleset.table_rules.start_chips or 0] * 4

    def player_at(self, seat: int) -> int:
        return (self.dealer + seat) % 4

    def new_table(self, walls: list[list[int]], t: float = 0.0) -> Table:
        """The next hand, on walls laid by the shuffler (walls[seat], seat 0 = East)."""
        self.hand_number += 1
        chips = None
        if self.ruleset.table_rules.start_chips is not None:
            chips = [self.scores[self.player_at(seat)] for seat in range(4)]
        last_deal = bool(self.ruleset.game_end(self.scores, self.passes + 1))  # CCM 4.13
        return Table(self.ruleset, walls, self.hand_number, t, chips, self.doubling, last_deal)

    def record(self, table: Table) -> HandRecord:
        """Settle a finished hand: scores, the sheet, who deals next, whether the game ends."""
        if not table.ended:
            raise ValueError("the hand is not over")
        outcome = table.outcome()
        by_seat, fines = self.ruleset.settle(outcome)
        changes, penalties = [0] * 4, [0] * 4
        for seat in range(4):
            changes[self.player_at(seat)] = by_seat[seat]
            penalties[self.player_at(seat)] = fines[seat]
        for player in range(4):
            self.scores[player] += changes[player] + penalties[player]
        winners = tuple(self.player_at(result.winner) for result in outcome.results)
        row = HandRecord(
            self.hand_number,
            self.dealer,
            "win" if winners else "draw",
            winners,
            tuple(changes),
            tuple(self.scores),
            tuple(penalties),
            self.doubling,
        )
        self.sheet.append(row)
        self._next_dealer(dealer_won=any(result.winner == 0 for result in outcome.results))
        self._game_end()
        return row

    def _next_dealer(self, dealer_won: bool) -> None:
        if dealer_won and self.ruleset.table_rules.dealer_repeats:
            self.doubling = True
        else:
            self.dealer, self.doubling = (self.dealer + 1) % 4, False
            self.passes += 1

    def _game_end(self) -> None:
        """When the rule book ends the game (CCM 4.13) the next one starts with fresh chips
        and East again."""
        reason = self.ruleset.game_end(self.scores, self.passes)
        if reason:
            rules = self.ruleset.table_rules
            self.games.append(
                {
                    "hands": len(self.sheet) - self.game_first_row,
                    "ended": reason,
                    "chips": list(self.scores),
                }
            )
            self.scores = [rules.start_chips or 0] * 4
            self.dealer, self.doubling, self.passes = 0, False, 0
            self.game_first_row = len(self.sheet)
