"""`mjtable simulate`: four simulated players play hands straight against the engine.

No hardware, no clock: the time of each input advances by a fixed step. The same seed gives
the same games. Every input is checked against the table's invariants, and every mistake a
player makes on purpose must come back as the right alert.
"""

import argparse
import json
import math
import random
import sys
import time
from collections import Counter

from tqdm import tqdm

from engine import events as ev
from engine import invariants, tiles
from engine.seats import LETTERS
from engine.session import Session
from engine.wall import build_walls
from firmware import cli_args
from firmware.journal.failures import JournalError
from firmware.journal.store import Journal
from firmware.resources import load_ruleset
from firmware.sim.players import EXPECTED_OFFENCE, STANDS, SimPlayer
from firmware.sim.report import print_summary, summary
from firmware.sim.script import next_move, others

STEP = 0.5  # seconds of table time per input: a brisk but human pace
UNTIMED_STUCK = 180.0  # a rule book without time limits: stuck after WSOM's hand budget
MAX_SLOW = 600.0  # seconds per discard of --slow-seat: ten minutes is already no game
# the summary's count of each hand's end (the sheet's result); CCM's "game over": the game
# ended in the hand, two players left without chips (seed 004 第一條三十一)
ENDS = {"win": "wins", "draw": "draws", "game over": "cut_short"}


def add_parser(commands) -> None:
    p = commands.add_parser("simulate")
    p.add_argument(
        "--ruleset",
        type=cli_args.path,
        default="wsom2006",
        help="wsom2006 or ccm2012 (or a TOML file)",
    )
    p.add_argument("--hands", type=cli_args.hands, default=16, help="hands to play (default 16)")
    p.add_argument("--seed", type=cli_args.seed, default=1, help="seed of shuffles and players")
    p.add_argument(
        "--mistakes",
        type=_rate,
        default=0.0,
        metavar="RATE",
        help="chance per decision that a player breaks a rule on purpose (0..1)",
    )
    p.add_argument(
        "--slow-seat",
        type=_slow_seat,
        metavar="SEAT[:SECONDS]",
        help="the player first seated at SEAT (E S W N) takes SECONDS (default 20) per discard",
    )
    p.add_argument("--json", action="store_true", help="print one JSON summary line")
    p.add_argument(
        "--journal",
        type=cli_args.path,
        metavar="PATH",
        help="journal every hand, input and output to PATH (SQLite, see firmware/journal/store.py)",
    )
    p.set_defaults(run=run)


def _slow_seat(text: str) -> tuple[int, float]:
    seat, _, seconds = text.partition(":")
    if seat not in ("E", "S", "W", "N"):
        raise argparse.ArgumentTypeError(f"SEAT is one of E S W N, not {seat[:20]!r}")
    value = cli_args.number(seconds, 0, MAX_SLOW, "SECONDS", True) if seconds else 20.0
    return LETTERS.index(seat), value


def _rate(text: str) -> float:
    return cli_args.number(text, 0, 1, "RATE")


class Game:
    """Drives one session of simulated hands and keeps the counts for the summary."""

    def __init__(self, ruleset, seed: int, mistake_rate: float, slow=None, journal=None):
        self.ruleset = ruleset
        self.journal = journal  # firmware.journal.store.Journal or None
        self.rng = random.Random(f"shuffle-{seed}")
        self.session = Session(ruleset)
        self.players = [
            SimPlayer(p, random.Random(f"player-{seed}-{p}"), mistake_rate) for p in range(4)
        ]
        self.t = 0.0
        self.counts: Counter[str] = Counter()
        self.alerts_by_rule: Counter[str] = Counter()
        self.mistakes: Counter[str] = Counter()
        self.caught: Counter[str] = Counter()
        self.violations: list[str] = []
        self.slow = slow  # (player, seconds per discard) or None
        self.penalties: list[dict[str, str | int]] = []
        self.stuck: list[str] = []  # hands that did not move on for the longest limit (issue 12)
        self.stuck_after = longest_limit(ruleset)
        self.position: tuple = ()
        self.moved_at = 0.0  # table time the hand last moved on

    def apply(self, table, event) -> list:
        self.t += STEP
        if self.journal is not None:
            self.journal.input(event)  # before the engine sees it (DESIGN.md)
        out = table.apply(event)
        if self.journal is not None:
            self.journal.outputs(out)
        self.counts["events"] += 1 + len(out)
        for o in out:
            if isinstance(o, ev.Alert):
                self.counts["alerts"] += 1
                self.alerts_by_rule[o.rule] += 1
        for problem in table.check_invariants():
            self.violations.append(f"hand {self.session.hand_number}: {problem} after {event}")
        position = invariants.position(table)
        if position != self.position:
            self.position, self.moved_at = position, self.t
        return out

    def try_mistake(self, table, player, situation) -> None:
        made = player.mistake(table, self.t, situation)
        if not made:
            return
        name, event = made
        if name == "false_win" and (
            table.last_draw == "claim"
            or table.referee.no_win[player.seat]
            or table.score_for(player.seat, None, table.hands[player.seat][-1]).legal
        ):
            return
        if name == "claim_without_tiles" and (
            table.referee.no_calls[player.seat] or table.wall.live_count == 0
        ):
            return  # refused for another reason than a false call
        before = table.state, table.turn, [list(h) for h in table.hands]
        out = self.apply(table, event)
        self.mistakes[name] += 1
        named = {o.penalty["offence"] for o in out if isinstance(o, ev.Alert) and o.penalty}
        after = table.state, table.turn, [list(h) for h in table.hands]
        stood = name in STANDS and any(isinstance(o, ev.Drew) for o in out)
        if named & EXPECTED_OFFENCE[name] and (stood or before == after):
            self.caught[name] += 1
        for alert in (o for o in out if isinstance(o, ev.Alert) and o.id in table.referee.pending):
            self.rule(table, alert)

    def rule(self, table, alert: ev.Alert) -> None:
        """The referee at the table rules on the alert at once, and agrees (a demo day's floor
        referee comes later: firmware/venue/day_referee.py)."""
        self.apply(table, ev.Ruling(self.t, None, alert.id, True))

    def play_hand(self) -> None:
        ids = tiles.physical_set(self.ruleset.table_rules.flowers)
        self.rng.shuffle(ids)
        table = self.session.new_table(build_walls(ids, self.ruleset.table_rules.stacks_per_side))
        if self.journal is not None:
            self.journal.hand(
                self.ruleset.name,
                self.session.hand_number,
                table.walls,
                self.t,
                table.chips,
                table.doubling,
                table.last_deal,
            )
        seat_player = [self.players[self.session.player_at(s)] for s in range(4)]
        for p, player in enumerate(seat_player):
            player.seat = p
        self.position, self.moved_at = invariants.position(table), self.t
        while not table.ended:
            self.step(table, seat_player)
            if self.t - self.moved_at > self.stuck_after:
                # The referee would void it: the same dealer deals again.
                self.stuck.append(f"hand {self.session.hand_number}: stuck in {table.state}")
                self.session.hand_number -= 1
                return
        for penalty in table.referee.applied:
            if penalty.points:
                self.penalties.append(
                    {
                        "seat": LETTERS[self.session.player_at(penalty.seat)],
                        "rule": penalty.rule,
                        "points": penalty.points,
                        "hand": self.session.hand_number,
                    }
                )
        row = self.session.record(table)
        if self.journal is not None:
            self.journal.checkpoint()  # the hand is in the main file: a copy of it holds it
        self.counts[ENDS[row.result]] += 1
        if sum(row.changes) != 0:
            self.violations.append(f"hand {row.number}: score changes sum to {sum(row.changes)}")
        if self.ruleset.table_rules.start_chips is not None and min(row.totals) < 0:
            self.violations.append(f"hand {row.number}: chips below zero {row.totals}")
        if self.session.chips_unaccounted():
            self.violations.append(f"hand {row.number}: {self.session.chips_unaccounted()}")

    def roll(self) -> tuple[int, ...]:
        """The two dice the roller throws now (a day's table draws them from its seal)."""
        return (self.rng.randint(1, 6), self.rng.randint(1, 6))

    def step(self, table, seat_player) -> None:
        """The next move of the play script (firmware/sim/script.py), as engine inputs, with the
        players' mistakes on purpose before it."""
        move = next_move(table)
        if move.what == "roll":
            self.apply(table, ev.DiceRolled(self.t, move.seat, self.roll()))
        elif move.what == "draw":
            other = seat_player[(move.seat + self.rng.randint(1, 3)) % 4]
            self.try_mistake(table, other, "others_turn")
            self.try_mistake(table, seat_player[move.seat], "draw")
            if table.state == "draw":  # unless his draw from the wrong place stood
                self.apply(table, ev.TileDrawn(self.t, move.seat))
        elif move.what == "owed":
            self.apply(table, ev.TileDrawn(self.t, move.seat))
        elif move.what == "flower" and move.tile is not None:
            self.apply(table, ev.FlowerExposed(self.t, move.seat, move.tile))
        elif move.what == "turn":
            self._turn(table, seat_player[move.seat], move.seat)
        else:
            for seat in others(move.seat):
                if not move.robbing:
                    self.try_mistake(table, seat_player[seat], "call")
                call = seat_player[seat].call(table, self.t, move.robbing)
                if call:
                    self.apply(table, call)
            self.apply(table, ev.ClaimWindowClosed(self.t, None))

    def _turn(self, table, player, turn: int) -> None:
        """The player in turn moves; the --slow-seat player takes his seconds to discard."""
        self.try_mistake(table, player, "own_turn")
        move = player.turn(table, self.t)
        slow = self.slow is not None and self.session.player_at(turn) == self.slow[0]
        if slow and isinstance(move, ev.TileDiscarded):
            start = max(table.clocks.started[turn], table.clocks.free_until)
            self.t = max(self.t, start + self.slow[1] - STEP)
            move = ev.TileDiscarded(self.t + STEP, turn, move.tile)
        self.apply(table, move)

    def summary(self, hands: int, seconds: float) -> dict:
        """The run's counts (firmware/sim/report.py), one JSON line with --json."""
        return summary(self, hands, seconds)


def longest_limit(ruleset) -> float:
    """The rule book's longest time limit, in seconds of table time: a hand that does not
    move on for that long is stuck."""
    timing = ruleset.table_rules.timing
    if timing is None:
        return UNTIMED_STUCK
    limits = (
        timing.discard_limit,
        timing.first_discard_limit,
        timing.hand_limit,
        timing.call_limit,
    )
    finite = [x for x in limits if x is not None and math.isfinite(x)]
    return max(finite, default=UNTIMED_STUCK)


def run(args) -> int:
    ruleset = load_ruleset(args.ruleset)
    if not args.journal:
        return _play(args, ruleset, None)
    try:
        journal = Journal(args.journal)
    except JournalError as err:
        print(f"mjtable simulate: --journal: {err}", file=sys.stderr)
        return 2
    with journal:
        return _play(args, ruleset, journal)


def play_hands(game, hands: int, name: str, quiet: bool) -> None:
    """Play `hands` hands of `game`, with a progress bar on a terminal unless `quiet`."""
    for _ in tqdm(
        range(hands),
        desc=f"{name} hands",
        unit="hand",
        disable=quiet or not sys.stderr.isatty(),
        file=sys.stderr,
    ):
        game.play_hand()


def _play(args, ruleset, journal) -> int:
    game = Game(ruleset, args.seed, args.mistakes, args.slow_seat, journal)
    start = time.perf_counter()
    play_hands(game, args.hands, ruleset.name, quiet=args.json)
    summary = game.summary(args.hands, time.perf_counter() - start)
    if args.json:
        print(json.dumps(summary))
    else:
        print_summary(summary, game.violations + game.stuck, game.session.sheet)
    return 0
