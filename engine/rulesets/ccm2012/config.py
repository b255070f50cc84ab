"""The entries of config/rules/ccm2012.toml, checked whole before the rule book is built."""

from engine.rulesets.ccm2012.fans import ADDITIONAL_IDS, FAN_IDS
from engine.schema import Schema, one_of

VALUE: Schema = {"name": "text", "chinese": "text", "points": "int"}
SCHEMA: Schema = {
    "ruleset": {"engine": one_of("ccm2012"), "title": "text"},
    "wall": {
        "stacks_per_side": "int",
        "dead_wall": "int",
        "flowers": "bool",
        "start_offset": "int",
        "kong_after_last_tile": "bool",
    },
    "options": {
        "flower_kong_flowers_score": "bool",
        "discard_flower_kong_at_game_end": "bool",
        "chow_allowed": "bool",
        "fourteen_singles_min_gap": "int",
        "full_flush_excludes_half_flush": "bool",
        "seven_pairs_excludes_concealed": "bool",
        "all_melded_keeps_single_wait": "bool",
        "all_melded_allows_concealed_kong": "bool",
        "small_middle_big_same_suit": "bool",
        "last_tile": one_of("final", "go-around"),
        "concealed_needs_self_draw": "bool",
        "added_kong_each_pays": "int",
        "doubling_factor": "int",
        "cap_payments_at_chips": "bool",
        "block_win_from_chipless": "bool",
        "multiple_winners": "bool",
        "liability_streak": "int",
        "late_penalty_points": "int",
        "penalty_step": "int",
        "penalty_cap_per_recipient": "int",
        "intentional_false_win_tiles_short": "int",
        "record_hands_from_sensors": "bool",
        "log_earth_announcement": "bool",
        "seven_pairs_four_of_a_kind": "bool",
    },
    "timing": {
        "dealer_first_discard_seconds": "number",
        "discard_seconds": "number",
        "pung_call_seconds": "number",
    },
    "chips": {"start": "int"},
    "game": {"rounds": "int"},
    "penalties": "table",
    "fans": {fid: VALUE for fid in FAN_IDS},
    "additional": {aid: VALUE for aid in ADDITIONAL_IDS},
    "payments": {
        "discard": "int",
        "self_draw_each": "int",
        "robbed_kong": "int",
        "liable": "int",
        "chipless_win_fine_each": "int",
    },
    "instant": {
        "melded_kong": "int",
        "concealed_kong_each": "int",
        "flower_kong_each": "int",
        "chase_each": "int",
    },
}
