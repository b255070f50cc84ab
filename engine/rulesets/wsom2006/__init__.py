"""World Series of Mahjong 2006: scoring by the 44 patterns and the payments (RULES.md §1)."""

from engine import tiles
from engine.clocks import Timing
from engine.hand_state import Spot
from engine.penalties import COMMON, Catalogue
from engine.rulebook import (
    DEAD_WALL,
    STACKS_PER_SIDE,
    HandOutcome,
    Settlement,
    TableRules,
    check_walls,
)
from engine.rulesets.wsom2006.patterns import arrangement_patterns, arrangements, hand_patterns
from engine.rulesets.wsom2006.payments import deducted, hand_payments, responsible_seat, win_lines
from engine.schema import Schema, check_schema, number, one_of, whole
from engine.scoring import MIXED, Pattern, Score, Win, robbed_tile_held
from engine.seats import LETTERS, letter
from engine.transfers import PAYMENT, PENALTY, net

# fmt: off
PATTERN_IDS = [
    "1.1", "1.2", "1.3", "2.1.1", "2.1.2", "2.2", "3.1", "3.2.1", "3.2.2", "3.3.1", "3.3.2",
    "3.3.3", "3.3.4", "3.4", "4.1", "4.2.1", "4.2.2", "4.2.3", "4.3.1", "4.3.2", "4.3.3", "4.3.4",
    "5.1.1", "5.1.2", "5.1.3", "5.1.4", "6.1", "6.2.1", "6.2.2", "7.1", "7.2.1", "7.2.2", "8.1.1",
    "8.1.2", "8.1.3", "8.1.4", "9.1.1", "9.1.2", "9.2", "9.3", "9.4.1", "9.4.2", "10.1", "10.2",
]
# fmt: on
PER_SET = "3.1"  # Value Honor scores once per qualifying set; every other pattern once

SCHEMA: Schema = {
    "ruleset": {"engine": one_of("wsom2006"), "title": "text"},
    "scoring": {
        "minimum_points": whole(0, 1000),  # A-W16: 0, a hand with no pattern is a Chicken Hand
        "chicken_points": whole(1, 1000),
        "limit": whole(1, 10_000),
        "standard_score": whole(0, 10_000),
    },
    "options": {
        "auto_apply_follow_exemption": "bool",
        "exemption_window_includes_winner_discard": "bool",
        "exemption_on_robbed_kong": "bool",
        "seven_pairs_four_of_a_kind": "bool",
        "thirteen_terminals_greater_terminals": "bool",
        "concealed_hand_on_irregular": "bool",
        "heaven_cancelled_by_kong": "bool",
        "earth_cancelled_by_call": "bool",
        "chicken_declaration": one_of("strict", "whole_hand", "assisted"),
        "break_mode": one_of("manual", "table"),
        "multiple_winners": "bool",
    },
    "timing": {
        "discard_seconds": number(1, 600),
        "hand_seconds": number(1, 7200),
        "preparation_seconds": number(0, 600),
        "penalty_block_seconds": number(1, 600),
        "overtime_strictly_over": "bool",
        "forfeit_threshold": whole(0, 10_000),  # 0: no forfeit for time
        "chow_call_seconds": number(0, 10),
    },
    "penalties": "table",
    "wall": {
        "stacks_per_side": STACKS_PER_SIDE,
        "dead_wall": DEAD_WALL,
        "kong_after_seabed": "bool",
        "final_draw_with_win_on_kong": "bool",
    },
    "patterns": {
        pid: {"name": "text", "chinese": "text", "points": whole(1, 10_000)} for pid in PATTERN_IDS
    },
}

FLAG_RULES = {  # flag: (needs a self-draw?, RULES.md reference, the seed's name)
    "final_draw": (True, "9.1.1", "海底撈月"),
    "kong_replacement": (True, "9.2", "嶺上開花"),
    "heaven": (True, "9.4.1", "天和"),
    "final_discard": (False, "9.1.2", "河底撈魚"),
    "robbing_kong": (False, "9.3", "搶槓"),
    "earth": (False, "9.4.2", "地和"),
    # the drawn tile mixed into the hand before it was shown apart: no Nine Gates (2.2)
    MIXED: (True, "2.2", "九蓮寶燈自摸規條"),
}


REFS = {
    "dice": "RULES.md 3.4",
    "wall": "RULES.md 3.4",
    "turn": "RULES.md 3.6",
    "claim": "RULES.md 3.7",
    "chow": "RULES.md 3.7",
    "kong": "RULES.md 3.7",
    "last_tile": "RULES.md 3.5",
    "flower": "RULES.md 3.1",
    "win": "RULES.md 3.11",
    "exemption": "RULES.md 1.3",
    "penalty_tile": "RULES.md 3.9",
}


def series(pattern_id: str) -> str:
    """The series a pattern belongs to: `2.1` for 2.1.1 and 2.1.2; `2.2` for itself."""
    parts = pattern_id.split(".")
    return ".".join(parts[:2]) if len(parts) == 3 else pattern_id


class Wsom2006:
    """The WSOM 2006 scorer, its values and options from config/rules/wsom2006.toml."""

    name = "wsom2006"
    flags = frozenset(FLAG_RULES)

    def __init__(self, config: dict):
        check_schema(config, SCHEMA)
        self.title = config["ruleset"]["title"]
        self.config = config
        self.scoring = config["scoring"]
        self.options = config["options"]
        self.patterns = {
            pid: Pattern(pid, entry["name"], entry["points"])
            for pid, entry in config["patterns"].items()
        }
        self._series = {pid: series(pid) for pid in self.patterns}
        options, wall, timing = self.options, config["wall"], config["timing"]
        check_walls(wall, flowers=False)
        self.table_rules = TableRules(
            stacks_per_side=wall["stacks_per_side"],
            dead_wall=wall["dead_wall"],
            flowers=False,
            two_roll_break=options["break_mode"] == "manual",
            start_offset=0,
            chow_allowed=True,
            multiple_winners=options["multiple_winners"],
            kong_after_last_tile=wall["kong_after_seabed"],
            auto_exemption=options["auto_apply_follow_exemption"],
            heaven_cancelled_by_kong=options["heaven_cancelled_by_kong"],
            earth_cancelled_by_call=options["earth_cancelled_by_call"],
            wrong_dealer_keeps_deal=True,
            wrong_break_stands=True,
            final_draw_with_win_on_kong=wall["final_draw_with_win_on_kong"],
            refuse_false_win_quietly=options["chicken_declaration"] == "assisted",
            unshown_false_win_is_empty=options["chicken_declaration"] == "strict",
            chow_call_wait=timing["chow_call_seconds"],
            # 分開放好 says apart, not where: one apart at the rack's end is in the rack too
            drawn_tile_rule="seed 000 九蓮寶燈自摸規條",
            timing=Timing(
                discard_limit=timing["discard_seconds"],
                first_discard_limit=timing["discard_seconds"],
                hand_limit=timing["hand_seconds"],
                free_after_deal=timing["preparation_seconds"],
                block=timing["penalty_block_seconds"],
                strictly_over=timing["overtime_strictly_over"],
                kong_ends_turn=True,  # seed 000 打牌時限 3: 補槓後便算作另一巡
            ),
            penalties=Catalogue(
                config["penalties"],
                paid_to_others=False,
                required=COMMON
                + ("overtime_hand", "serious_overtime", "penalty_tile_discard", "empty_win"),
            ),
            forfeit_threshold=timing["forfeit_threshold"],
            win_flags={
                "last_tile_draw": "final_draw",
                "last_tile_discard": "final_discard",
                "kong_replacement": "kong_replacement",
                "robbing_kong": "robbing_kong",
                "heaven": "heaven",
                "earth": "earth",
            },
            refs=REFS,
        )
        self._order = {pid: _numbering(pid) for pid in self.patterns}

    def score(self, win: Win) -> Score:
        """Validate and score a declared win: the best single arrangement, limits, payments."""
        problem = self.contradiction(win)
        if problem:
            return Score(False, reason=problem)
        candidates = arrangements(win, self.options["seven_pairs_four_of_a_kind"])
        if not candidates:
            return Score(
                False,
                reason="not a winning hand: the tiles do not form four sets "
                "and a pair, seven pairs or thirteen terminals "
                "(RULES.md 1.1)",
            )
        held = hand_patterns(win)
        best = max(
            (self._value(arrangement_patterns(arr, win, held, self.options)) for arr in candidates),
            key=lambda scored: scored[1],
        )
        chosen, total = best
        if not chosen:
            if self.scoring["minimum_points"] > 0:
                return Score(
                    False,
                    reason="no pattern: a hand needs at least "
                    f"{self.scoring['minimum_points']} points to win (RULES.md 1.1); "
                    "the declaration is a false win (錯和, RULES.md 3.11)",
                )
            chosen = (Pattern("0", "Chicken Hand", self.scoring["chicken_points"]),)
            total = chosen[0].points
        payments = hand_payments(total, win, self.scoring["standard_score"])
        return Score(True, chosen, total, payments)

    def settle(self, outcome: HandOutcome) -> Settlement:
        """A hand's score changes per seat: the winner's payments (1.3), and penalty points
        deducted from the offender only (3.13); each the sum of its transfers."""
        standard = self.scoring["standard_score"]
        lines = [
            line
            for result in outcome.wins
            for line in win_lines(
                result.score["payments"], result.winner, result.from_seat, standard
            )
        ]
        lines += [deducted(penalty) for penalty in outcome.penalties if penalty.points]
        return Settlement(net(lines, PAYMENT), net(lines, PENALTY), (), tuple(lines))

    def follow_exemption(self, discards, winner: int, robbed: bool) -> int | None:
        """RULES.md 1.3 跟張免責 with the window of A-W4 and the robbed kong of A-W5."""
        return responsible_seat(
            discards,
            winner,
            robbed,
            self.options["exemption_window_includes_winner_discard"],
            self.options["exemption_on_robbed_kong"],
        )

    def game_end(self, chips: list[int], deals_passed: int, time_up: bool = False) -> str | None:
        """WSOM plays the sessions the tournament schedules; no hand ends them (3.1)."""
        return None

    def win_banned(self, outcome: HandOutcome) -> str:
        """WSOM has no game a win could end."""
        return ""

    def chips_now(self, outcome: HandOutcome) -> None:
        """WSOM plays for points, not chips."""
        return None

    def spot_held(self, outcome: HandOutcome, spot: Spot) -> bool:
        """WSOM pays nothing on the spot and has no game to end."""
        return False

    def release_held(self, chips: list[int], held: list[tuple[int, ...]]) -> list[int]:
        """WSOM holds nothing outside the table."""
        return chips

    def _value(self, ids: list[str]) -> tuple[tuple[Pattern, ...], int]:
        """Series exclusivity, then the listed and compound limits (RULES.md 1.1)."""
        best: dict[str, Pattern] = {}
        per_set = []
        for pid in ids:
            found = self.patterns[pid]
            if pid == PER_SET:
                per_set.append(found)
                continue
            kept = best.get(self._series[pid])
            if kept is None or found.points > kept.points:
                best[self._series[pid]] = found
        chosen = sorted([*best.values(), *per_set], key=lambda p: self._order[p.id])
        limit = self.scoring["limit"]
        listed = [p for p in chosen if p.points >= limit]
        if listed:
            top = max(listed, key=lambda p: p.points)
            return (top,), top.points
        total = sum(p.points for p in chosen)
        return tuple(chosen), min(total, limit)

    def contradiction(self, win: Win) -> str:
        """What a declared win says against itself (mjtable score exits 2 on it), or ""."""
        won = "self-drawn" if win.self_drawn else f"on {letter(win.discarder)}'s discard"
        for flag in sorted(win.flags):
            needs_self_draw, ref, name = FLAG_RULES[flag]
            if needs_self_draw != win.self_drawn:
                how = "a self-drawn win" if needs_self_draw else "a win on another's tile"
                return f"{flag} ({name}, {ref}) needs {how}, but the win is {won}"
        if "heaven" in win.flags and win.winner != win.east:
            return f"heaven (天和, 9.4.1) is East's win; the winner is {LETTERS[win.winner]}"
        if "earth" in win.flags and (win.winner == win.east or win.discarder != win.east):
            return (
                "earth (地和, 9.4.2) is a non-East win on East's first discard; the winner is "
                f"{LETTERS[win.winner]}, {won}"
            )
        if "robbing_kong" in win.flags and robbed_tile_held(win):
            return (
                f"robbing_kong (搶槓, 9.3): the konger holds the other three "
                f"{tiles.NAMES[win.win_tile]}, but the winner holds a {tiles.NAMES[win.win_tile]}"
            )
        return ""


def _numbering(pattern_id: str) -> tuple:
    """The order of a score card: an irregular hand's own pattern first, then RULES.md order
    (3.1 before 3.2.1, 9.4.2 before 10.1)."""
    return (not pattern_id.startswith("10."), [int(n) for n in pattern_id.split(".")])
