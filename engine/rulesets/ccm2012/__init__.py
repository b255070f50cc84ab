"""China Competition Mahjong 2012: the winning shapes of RULES.md 4.7.

Fans, additional points and payments (RULES.md 4.8-4.13) are not scored yet: a win of a legal
shape is reported legal but unscored (total and payments null), so a CCM table can deal, play
and track while saying plainly that the referee must count the hand.
"""

from engine.hand import counts, is_fourteen_singles, is_knitted_straight, is_seven_pairs
from engine.hand import is_standard
from engine.rulesets import TableRules, check_schema
from engine.scoring import Score, Win

SCHEMA = {
    "ruleset": {"engine": ("ccm2012",), "title": str},
    "wall": {"stacks_per_side": int, "dead_wall": int, "flowers": bool, "start_offset": int,
             "kong_after_last_tile": bool},
    "options": {"flower_kong_flowers_score": bool, "discard_flower_kong_at_game_end": bool,
                "chow_allowed": bool, "fourteen_singles_min_gap": int,
                "full_flush_excludes_half_flush": bool, "seven_pairs_excludes_concealed": bool,
                "all_melded_keeps_single_wait": bool, "all_melded_allows_concealed_kong": bool,
                "small_middle_big_same_suit": bool, "last_tile": ("final", "go-around"),
                "concealed_needs_self_draw": bool, "added_kong_each_pays": int,
                "doubling_factor": int, "cap_payments_at_chips": bool,
                "block_win_from_chipless": bool, "multiple_winners": bool,
                "liability_streak": int, "late_penalty_points": int, "penalty_step": int,
                "penalty_cap_per_recipient": int, "intentional_false_win_tiles_short": int,
                "record_hands_from_sensors": bool, "log_earth_announcement": bool,
                "seven_pairs_four_of_a_kind": bool},
    "timing": {"dealer_first_discard_seconds": float, "discard_seconds": float,
               "pung_call_seconds": float},
    "chips": {"start": int},
}
REFS = {"dice": "RULES.md 4.4", "wall": "RULES.md 4.4", "turn": "RULES.md 4.6",
        "claim": "RULES.md 4.6", "chow": "RULES.md 4.6 (A-C5)", "kong": "RULES.md 4.6",
        "last_tile": "RULES.md 4.9 (A-C10)", "flower": "RULES.md 4.5", "win": "RULES.md 4.7"}
UNSCORED = ("unscored: the shape is a legal CCM 2012 win (RULES.md 4.7), but fans and "
            "payments are not counted by this version; the referee counts the hand")


class Ccm2012:
    name = "ccm2012"
    flags = frozenset({"kong_replacement", "flower_replacement", "last_tile", "robbing_kong"})

    def __init__(self, config: dict):
        check_schema(config, SCHEMA)
        self.title = config["ruleset"]["title"]
        self.config = config
        self.options = config["options"]
        wall = config["wall"]
        self.table_rules = TableRules(
            stacks_per_side=wall["stacks_per_side"], dead_wall=wall["dead_wall"],
            flowers=wall["flowers"], two_roll_break=False, start_offset=wall["start_offset"],
            chow_allowed=self.options["chow_allowed"],
            multiple_winners=self.options["multiple_winners"],
            kong_after_last_tile=wall["kong_after_last_tile"], auto_exemption=None,
            dealer_repeats=True, doubling_factor=self.options["doubling_factor"],
            heaven_cancelled_by_kong=False, earth_cancelled_by_call=False,
            win_flags={"last_tile_draw": "last_tile", "last_tile_discard": "last_tile",
                       "kong_replacement": "kong_replacement",
                       "flower_replacement": "flower_replacement",
                       "robbing_kong": "robbing_kong"},
            refs=REFS)

    def is_winning_shape(self, win: Win) -> bool:
        """One of the eight shapes of RULES.md 4.7 (thirteen orphans is not one of them)."""
        c = counts(win.concealed + (win.win_tile,))
        if is_standard(c) or is_knitted_straight(c, len(win.melds)):
            return True
        return not win.melds and (
            is_seven_pairs(c, self.options["seven_pairs_four_of_a_kind"])
            or is_fourteen_singles(c, self.options["fourteen_singles_min_gap"]))

    def score(self, win: Win) -> Score:
        if not self.is_winning_shape(win):
            return Score(False, reason="not a winning hand: none of the eight shapes of "
                                       "RULES.md 4.7")
        return Score(True, reason=UNSCORED)
