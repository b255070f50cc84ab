"""A sitting of four players: hands in turn, dealer rotation, running scores, the score sheet.

Players are 0..3 in the seats they drew; each hand the Table numbers seats by wind, East
dealing, so the player in seat s is (dealer + s) % 4. WSOM passes the deal after every hand
(RULES.md 3.1); CCM keeps it with a dealer who wins and doubles every score change while he
continues (RULES.md 4.11, A-C13), and passes it otherwise, exhaustive draws included.

A half-session (seed 000 記分卡: one score card each, two rounds, 八局) is here each run of
HALF_SESSION_HANDS hands on the sheet: 1-8, 9-16, ... of one journal (`mjtable run`; the
players change tables after it, 半場（兩圈）後換台). The points of the offences with a
`session_limit` (暫停, lateness, engine/reports.py) add up over it; beyond the limit a forfeit
is proposed (半場內因暫停或遲到而扣分超過150分者 ... 作棄權論). A report the referee entered
after a hand's end is carried into the next hand (`carried`).
"""

from dataclasses import dataclass, field, replace

from engine import events as ev
from engine.rulebook import HandOutcome, Ruleset
from engine.table import Table


@dataclass(frozen=True)
class HandRecord:
    """One line of the score sheet."""

    number: int
    dealer: int  # the player who was East
    result: str  # "win", "draw" or "game over" (CCM: cut short by the game's end, 第一條三十一)
    winners: tuple[int, ...]  # players, in payment order
    changes: tuple[int, ...]  # per player: the hand's payments (sum zero)
    totals: tuple[int, ...]  # per player, after this hand
    penalties: tuple[int, ...] = (0, 0, 0, 0)  # per player: penalty points
    doubled: bool = False
    dead: int = 0  # penalty points paid to nobody (CCM dead points, seed 004 §38 一 6)
    east: int | None = None  # the player who kept the deal as East, not his (seed 000 做錯莊 3)

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
            "dead": self.dead,
            "east": self.east,
        }


HALF_SESSION_HANDS = 8


@dataclass(frozen=True)
class Forfeit:
    """A forfeit proposed to the referee: a player's 暫停 and lateness over the limit."""

    player: int
    points: int
    limit: int
    hand: int


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
    conduct: list[int] = field(default_factory=lambda: [0] * 4)  # per player, this half-session
    conduct_before: tuple[int, ...] = (0, 0, 0, 0)  # before the last hand recorded added its
    passes_before: int = 0  # deals passed in its game when the last hand recorded was dealt
    forfeits: list[Forfeit] = field(default_factory=list)
    last: Table | None = None  # the hand last recorded, whose held reports the next carries
    # CCM seat changes between games (RULES.md 4.3): the person sitting on each side (E S W N)
    # in this game; each game's is kept with its result
    seating: list[int] = field(default_factory=lambda: [0, 1, 2, 3])
    # CCM: payments held outside the table until the game ends (seed 004 §32), per player
    held: list[tuple[int, ...]] = field(default_factory=list)
    last_held: list[tuple[int, ...]] = field(default_factory=list)  # of the last hand recorded

    def __post_init__(self):
        if not self.scores:
            self.scores = [self.ruleset.table_rules.start_chips or 0] * 4

    def player_at(self, seat: int) -> int:
        return (self.dealer + seat) % 4

    def new_table(self, walls: list[list[int]]) -> Table:
        """The next hand, on walls laid by the shuffler (walls[seat], seat 0 = East). The
        game's time running out reaches it as an input (ev.GameTimeUp, RULES.md 4.3)."""
        self.hand_number += 1
        return Table(self.ruleset, walls, *self.start())

    def start(self) -> tuple[list[int] | None, bool, bool]:
        """What the next hand begins with: each seat's chips (None: a rule book without),
        whether it is doubled, whether it is the game's last deal (4.13). `mjtable verify`
        checks each hand row against it (issue 35)."""
        chips = None
        if self.ruleset.table_rules.start_chips is not None:
            chips = [self.scores[self.player_at(seat)] for seat in range(4)]
        return chips, self.doubling, bool(self.ruleset.game_end(self.scores, self.passes + 1))

    def record(self, table: Table, time_up: bool = False) -> HandRecord:
        """Settle a finished hand: scores, the sheet, who deals next, whether the game ends
        (`time_up`, or the table told so: the game's time ran out before this hand ended,
        RULES.md 4.3)."""
        if not table.ended:
            raise ValueError("the hand is not over")
        outcome = table.outcome()
        changes, penalties, held = self._payments(outcome, self.dealer)
        self.held += held
        self.last_held = held
        for player in range(4):
            self.scores[player] += changes[player] + penalties[player]
        if len(self.sheet) % HALF_SESSION_HANDS == 0:
            self.conduct = [0] * 4
        self.conduct_before, self.passes_before = tuple(self.conduct), self.passes
        self._conduct(outcome.penalties, self.dealer)
        self.last = table
        winners = tuple(self.player_at(result.winner) for result in outcome.results)
        row = HandRecord(
            self.hand_number,
            self.dealer,
            "win" if winners else "game over" if outcome.game_over else "draw",
            winners,
            tuple(changes),
            tuple(self.scores),
            tuple(penalties),
            self.doubling,
            -sum(penalties) if self.ruleset.table_rules.start_chips is not None else 0,  # chips
            self.player_at(outcome.east) if outcome.east else None,
        )
        self.sheet.append(row)
        self._next_dealer(dealer_won=any(result.winner == 0 for result in outcome.results))
        self._game_end(time_up or outcome.time_up)
        return row

    def _payments(self, outcome: HandOutcome, dealer: int):
        """Per player, East being `dealer`: the hand's payments, its penalty points (the
        fines for winning off a chip-less player among them), and what it held outside."""
        settled = self.ruleset.settle(outcome)

        def by_player(per_seat) -> list[int]:
            return [per_seat[(player - dealer) % 4] for player in range(4)]

        held = [tuple(by_player(payments)) for payments in settled.held]
        return by_player(settled.payments), by_player(settled.penalties), held

    def settles_again(self, table: Table) -> bool:
        """The table's hand is the last recorded, in a game still going: its row may change."""
        return bool(self.sheet) and self.last is table and len(self.sheet) != self.game_first_row

    def settle_again(self, table: Table) -> HandRecord:
        """The last hand's row settled again from its table, once an input to the ended table
        changed its results (a win scored again by the referee's ruling: the follow-tile
        claim, seed 000 和牌的計分 8; the drawn tile mixed in, 九蓮寶燈自摸規條; a penalty
        revoked, issue 16): the row's changes taken back and the new ones recorded, same
        number, its conduct points counted again. Who deals next does not change: the
        winners are the same; nor does a forfeit proposed, told to the head referee."""
        if not self.settles_again(table):
            raise ValueError("only the last hand recorded, in a game still going, settles again")
        row = self.sheet[-1]
        outcome = table.outcome()
        changes, penalties, _ = self._payments(outcome, row.dealer)
        self.conduct, told = list(self.conduct_before), len(self.forfeits)
        self._conduct(outcome.penalties, row.dealer)
        del self.forfeits[told:]  # a forfeit proposed stays proposed (the head referee's)
        for player in range(4):
            self.scores[player] += (
                changes[player] + penalties[player] - row.changes[player] - row.penalties[player]
            )
        self.sheet[-1] = replace(
            row, changes=tuple(changes), totals=tuple(self.scores), penalties=tuple(penalties)
        )
        return self.sheet[-1]

    def ended_game(self, table: Table) -> bool:
        """The table's hand is the last recorded, and its game ended with it."""
        return bool(self.sheet) and self.last is table and len(self.sheet) == self.game_first_row

    def settle_after_game(self, table: Table) -> dict:
        """The amounts the last hand, which ended its game, holds now beyond those it held
        when recorded (a penalty of its win's confirmation applied since, seed 004 第三章 第二條
        七(二) 先計分不罰分，局結後罰分) added after the game's end to its 局分, like §32's.
        The ended game's record."""
        if not self.ended_game(table):
            raise ValueError("only the last hand recorded, which ended its game, is settled so")
        _, _, held = self._payments(table.outcome(), self.sheet[-1].dealer)
        late, self.last_held = held[len(self.last_held) :], held
        game = self.games[-1]
        game["chips"] = self.ruleset.release_held(list(game["chips"]), late)
        game["held"] = [game["held"][p] + sum(x[p] for x in late) for p in range(4)]
        return game

    def carried(self) -> list[ev.ViolationReported]:
        """The reports held after the last recorded hand's end, for the next hand: each
        player's seat in it (the dealer has moved on since)."""
        if self.last is None or not self.sheet:
            return []
        dealer = self.sheet[-1].dealer
        return [
            replace(report, seat=(dealer + report.seat - self.dealer) % 4, between_hands=True)
            for report in self.last.referee.held
            if report.seat is not None  # never None: the table checks the seat first
        ]

    def _conduct(self, applied, dealer: int) -> None:
        """Add up the half-session's conduct points of a hand East being `dealer`; propose
        a forfeit once over the limit."""
        catalogue = self.ruleset.table_rules.penalties
        for penalty in applied:
            offence = catalogue.offences.get(penalty.offence) if catalogue else None
            if offence is None or offence.session_limit is None:
                continue
            player = (dealer + penalty.seat) % 4
            before = self.conduct[player]
            self.conduct[player] += penalty.points
            if before <= offence.session_limit < self.conduct[player]:
                self.forfeits.append(
                    Forfeit(player, self.conduct[player], offence.session_limit, self.hand_number)
                )

    def _dead(self) -> int:
        """The dead points paid in this game (CCM, seed 004 §38 一 6)."""
        return sum(row.dead for row in self.sheet[self.game_first_row :])

    def chips_unaccounted(self) -> str:
        """CCM 4.13: the chips of the game in play (or of the game this hand ended) with its
        dead points add up to what it began with (the amounts held outside the table sum to
        zero); what does not, in words, or ""."""
        start = self.ruleset.table_rules.start_chips
        if start is None:
            return ""
        ended = self.games and self.game_first_row == len(self.sheet)
        chips, dead = (
            (self.games[-1]["chips"], self.games[-1]["dead"])
            if ended
            else (self.scores, self._dead())
        )
        if sum(chips) + dead == 4 * start:
            return ""
        return f"chips {list(chips)} and {dead} dead points are not the {4 * start} dealt"

    def _next_dealer(self, dealer_won: bool) -> None:
        if dealer_won and self.ruleset.table_rules.dealer_repeats:
            self.doubling = True
        else:
            self.dealer, self.doubling = (self.dealer + 1) % 4, False
            self.passes += 1

    def _game_end(self, time_up: bool = False) -> None:
        """When the rule book ends the game (CCM 4.13) the next one starts with fresh chips
        and East again."""
        reason = self.ruleset.game_end(self.scores, self.passes, time_up)
        if reason:
            rules = self.ruleset.table_rules
            self.games.append(
                {
                    "hands": len(self.sheet) - self.game_first_row,
                    "ended": reason,
                    "chips": self.ruleset.release_held(list(self.scores), self.held),
                    "held": [sum(p[player] for p in self.held) for player in range(4)],
                    "dead": self._dead(),
                    "seating": list(self.seating),
                }
            )
            self.held = []
            self.scores = [rules.start_chips or 0] * 4
            self.dealer, self.doubling, self.passes = 0, False, 0
            self.game_first_row = len(self.sheet)
