"""China Competition Mahjong 2012: shapes, fans, additional points and payments (RULES.md §4).

`score(win)` reads the hand every way it can (free arrangement), keeps the reading worth the
most, and refuses a hand with no fan: additional points alone make no win (RULES.md 4.7).
T = fans + additional points; the payments are those of the win alone (4.11). Kongs, 追牌,
包付, chips and the end of the game are the session's, through the pure functions of
`settlement`, `liability` and `game_end`.
"""

import json
from dataclasses import replace

from engine import seats, tiles
from engine.clocks import Timing
from engine.hand_state import Spot
from engine.penalties import COMMON, Catalogue
from engine.rulebook import (
    WIN_UNTIL_A_LATER_WINS,
    HandOutcome,
    Settlement,
    TableRules,
    check_walls,
)
from engine.rulesets.ccm2012.config import PLAYED_ONLY, SCHEMA
from engine.rulesets.ccm2012.fans import additional, facts, fans
from engine.rulesets.ccm2012.game_end import ends_game, game_over, is_first, release_held
from engine.rulesets.ccm2012.hand_settlement import settle_hand
from engine.rulesets.ccm2012.ledger import Due, Ledger, dues, run
from engine.rulesets.ccm2012.readings import CLOSED, EDGE, ON_PAIR, readings, waits
from engine.rulesets.ccm2012.settlement import Rates, win_payments
from engine.schema import ConfigError, check_schema
from engine.scoring import MIXED, Pattern, Score, Win, robbed_tile_held

REFS = {
    "dice": "RULES.md 4.4",
    "wall": "RULES.md 4.4",
    "turn": "RULES.md 4.6",
    "claim": "RULES.md 4.6",
    "chow": "RULES.md 4.6 (A-C5)",
    "kong": "RULES.md 4.6",
    "last_tile": "RULES.md 4.9 (A-C10)",
    "flower": "RULES.md 4.5",
    "win": "RULES.md 4.7",
    "penalty_tile": "RULES.md 4.15",
    "chips": "RULES.md 4.11 (A-C14)",
    "game_end": "RULES.md 4.13",
}
# RULES.md 4.9, 4.11; drawn_tile_mixed: 單放 (seed 004 第一條二十四), no single-tile win
SELF_DRAW_FLAGS = ("kong_replacement", "flower_replacement", MIXED)
SINGLE_TILE_WAITS = (CLOSED, EDGE, ON_PAIR)  # 夾, 邊張, 單吊 (seed §17)


class Ccm2012:
    """The CCM 2012 scorer; values and options from config/rules/ccm2012.toml.

    Flags of a win: kong_replacement (槓上開花), flower_replacement (補花和牌), last_tile (a
    last tile, A-C10, options.last_tile: 妙手回春 drawn, 海底撈月 on its discard), robbing_kong
    (the discarder is the konger, whose pung holds the other three: a last copy too), last_copy
    (絕張: the table saw the other three as options.last_copy_from says; the scorer also sees
    it when the pung is the winner's own). `responsible` is WSOM's and is not read: 包付 is
    settled by `liability`.
    """

    name = "ccm2012"
    flags = frozenset({*SELF_DRAW_FLAGS, "last_tile", "robbing_kong", "last_copy"})

    def __init__(self, config: dict):
        check_schema(config, SCHEMA)
        self.title = config["ruleset"]["title"]
        self.config = config
        self.options = config["options"]
        self.values = {
            pid: Pattern(pid, entry["name"], entry["points"])
            for section in ("fans", "additional")
            for pid, entry in config[section].items()
        }
        self.rates = Rates.from_config(config)
        for option, (played, why) in PLAYED_ONLY.items():
            if self.options[option] != played:
                raise ConfigError(
                    f"options.{option}: only {json.dumps(played)} is supported: {why}"
                )
        penalties = Catalogue(
            config["penalties"],
            paid_to_others=self.options["penalties_paid"] == "others",
            required=COMMON + ("late_pung", "flower_discarded", "intentional_false_win"),
            allocatable=True,
        )
        step, cap = self.options["penalty_step"], self.options["penalty_cap_per_recipient"]
        for name, offence in penalties.offences.items():
            for points in offence.points:
                if points % step or points > cap:
                    raise ConfigError(
                        f"penalties.{name}.points: {points} is not a multiple "
                        f"of {step} up to {cap} a recipient (A-C18)"
                    )
        wall, timing = config["wall"], config["timing"]
        check_walls(wall, wall["flowers"])
        self.table_rules = TableRules(
            stacks_per_side=wall["stacks_per_side"],
            dead_wall=wall["dead_wall"],
            flowers=wall["flowers"],
            two_roll_break=False,
            start_offset=wall["start_offset"],
            chow_allowed=self.options["chow_allowed"],
            multiple_winners=self.options["multiple_winners"],
            kong_after_last_tile=wall["kong_after_last_tile"],
            auto_exemption=None,
            dealer_repeats=True,
            doubling_factor=self.options["doubling_factor"],
            last_tiles={"final": 1, "go-around": 4}[self.options["last_tile"]],
            start_chips=config["chips"]["start"],
            block_win_from_chipless=self.options["block_win_from_chipless"],
            chipless_win_fine_each=self.rates.chipless_win_fine_each,
            chipless_win_fine_times=(
                (self.rates.discard, self.rates.robbed_kong)
                if self.options["chipless_win_fine_score"] == "paid"
                else (1, 1)
            ),
            discard_flower_kong_at_game_end=self.options["discard_flower_kong_at_game_end"],
            touch_and_win=WIN_UNTIL_A_LATER_WINS,  # 第一條三十五: 此時第一家反悔和牌無效
            drawn_tile_rule="seed 004 第一條二十四 單放, 第八條一",
            drawn_tile_in_rack_mixed=self.options["drawn_tile_in_rack_is_in_hand"],
            heaven_cancelled_by_kong=False,
            earth_cancelled_by_call=False,
            win_flags={
                "last_tile_draw": "last_tile",
                "last_tile_discard": "last_tile",
                "kong_replacement": "kong_replacement",
                "flower_replacement": "flower_replacement",
                "robbing_kong": "robbing_kong",
                f"last_copy_{self.options['last_copy_from']}": "last_copy",
            },
            timing=Timing(
                discard_limit=timing["discard_seconds"],
                first_discard_limit=timing["dealer_first_discard_seconds"],
                hand_limit=None,
                free_after_deal=0.0,
                block=float("inf"),
                call_limit=timing["pung_call_seconds"],
            ),
            penalties=penalties,
            refs=REFS,
        )

    def contradiction(self, win: Win) -> str:
        """What a declared win says against itself (mjtable score exits 2 on it), or ""."""
        for flag in SELF_DRAW_FLAGS:
            if flag in win.flags and not win.self_drawn:
                return f"{flag} (RULES.md 4.9) needs a self-drawn win"
        if "robbing_kong" in win.flags:
            if win.self_drawn:
                return "robbing_kong (RULES.md 4.11) needs the konger as discarder_seat_index"
            if robbed_tile_held(win):
                return (
                    f"robbing_kong: the konger holds the other three {tiles.NAMES[win.win_tile]}"
                    ", so the winner cannot hold one (RULES.md 4.11)"
                )
        return ""

    def score(self, win: Win) -> Score:
        problem = self.contradiction(win)
        if problem:
            return Score(False, reason=problem)
        found = readings(win, self.options)
        if not found:
            return Score(
                False, reason="not a winning hand: none of the eight shapes of RULES.md 4.7"
            )
        hand = facts(win, self.options)
        one_wait = any(r.wait in SINGLE_TILE_WAITS for r in found) and waits(win, self.options) == {
            win.win_tile
        }
        best = None
        for reading in found:
            ids = fans(reading, hand, self.options, one_wait)
            if not ids:
                continue
            ids += additional(reading, hand, win, self.options, one_wait, ids)
            total = sum(self.values[i].points for i in ids)
            if best is None or total > best[1]:
                best = ids, total
        if best is None:
            return Score(
                False,
                reason="no fan, no win (無番禁和牌): the shape is complete but "
                "has none of the 12 fans of RULES.md 4.8; additional points alone "
                "do not make a win (RULES.md 4.7)",
            )
        ids, total = best
        payments = win_payments(
            self.rates, total, win.winner, win.discarder, "robbing_kong" in win.flags
        )
        return Score(True, self._patterns(ids), total, payments)

    def _patterns(self, ids: list[str]) -> tuple[Pattern, ...]:
        """Fans then additional points in RULES.md order; the flowers as one line."""
        flowers = ids.count("4.9.1")
        ordered = sorted(set(ids), key=lambda i: [int(n) for n in i.split(".")])
        return tuple(
            replace(
                self.values[i],
                name=f"{self.values[i].name} x{flowers}",
                points=flowers * self.values[i].points,
            )
            if i == "4.9.1"
            else self.values[i]
            for i in ordered
        )

    def follow_exemption(self, discards, winner: int, robbed: bool) -> int | None:
        """CCM has no follow-tile exemption: the discarder (or konger) pays (4.11)."""
        return discards[-1][0]

    def game_end(self, chips: list[int], deals_passed: int, time_up: bool = False) -> str | None:
        """RULES.md 4.13: two players without chips, the game's rounds played (a round is
        four deals passed), or its time up (the hand in play finished)."""
        scheduled = deals_passed >= 4 * self.config["game"]["rounds"]
        return game_over(chips, scheduled_done=scheduled, time_up=time_up)

    def win_banned(self, outcome: HandOutcome) -> str:
        """RULES.md 4.13 (seed §32): a win that would end the game (two players left without
        chips once the hand is settled with it, the game's time up, or the deal passing in
        the game's last deal) is not allowed to a player who would not be first after it: he
        plays on. Once time is up a winning dealer's 連莊 does not outlive the game (第五條
        滿足規定時間後的最後一次成牌或荒牌，比賽結束): he too must be first."""
        result, chips = outcome.proposed, outcome.chips
        if result is None or chips is None:
            return ""
        settled = self.settle(outcome)
        changes, penalties = settled.payments, settled.penalties
        after = [c + changes[s] + penalties[s] for s, c in enumerate(chips)]
        keeps = result.winner == 0 and self.table_rules.dealer_repeats
        if not ends_game(after, outcome.time_up, outcome.last_deal, keeps) or is_first(
            after, result.winner
        ):
            return ""
        return (
            f"this win would end the game with {seats.letter(result.winner)} not first "
            f"({after[result.winner]} chips against {max(after)}): he plays on"
        )

    def _ledger(self, outcome: HandOutcome, spot=None) -> tuple[list[Due], Ledger]:
        """What was due on the spot in the hand (and `spot` besides), and how it was paid."""
        cap = self.options["penalty_cap_per_recipient"]
        noted = outcome.spot + ((spot,) if spot else ())
        due = dues(self.rates, cap, noted, outcome.discards, outcome.doubling)
        void = self.options["game_ending_kong"] == "void"
        return due, run(self.rates, outcome.chips or (0,) * 4, due, void)

    def chips_now(self, outcome: HandOutcome) -> tuple[int, ...] | None:
        """The chips after what the hand has paid on the spot so far (RULES.md 4.10)."""
        return None if outcome.chips is None else self._ledger(outcome)[1].chips

    def spot_held(self, outcome: HandOutcome, spot: Spot) -> bool:
        """Seed §32: paying `spot` now would end the game with its maker not first."""
        if outcome.chips is None:
            return False
        return self._ledger(outcome, spot)[1].moved[-1] is None

    def release_held(self, chips: list[int], held: list[tuple[int, ...]]) -> list[int]:
        """Seed §32 「局結後累積得分」: the held amounts added once the game is over."""
        return list(release_held(self.rates, chips, held))

    def settle(self, outcome: HandOutcome) -> Settlement:
        """A hand's chip changes per seat and their transfers (ccm2012/hand_settlement.py)."""
        due, ledger = self._ledger(outcome)
        return settle_hand(self.rates, self.options, self.table_rules, outcome, due, ledger)
