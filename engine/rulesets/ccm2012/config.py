"""The entries of config/rules/ccm2012.toml, checked whole before the rule book is built:
each number within a range a tournament table can play (issue 20 item 8)."""

from engine.rulebook import DEAD_WALL, STACKS_PER_SIDE
from engine.rulesets.ccm2012.fans import ADDITIONAL_IDS, FAN_IDS
from engine.schema import Schema, number, one_of, whole

AMOUNT = whole(0, 1000)  # chips a payment or a fine moves
TIMES = whole(1, 10)  # how many times T a payer of a win pays (RULES.md 4.11, 4.12)
TURN = number(1, 600)  # seconds a player may take to discard
# Options the rule book accepts that the table plays one way only: that value and why. Any
# other value is refused at start-up, never silently ignored (issue 13 item 6).
PLAYED_ONLY = {
    "intentional_false_win_tiles_short": (
        2,
        "the table tells one tile short from two or more (A-C19)",
    ),
    "record_hands_from_sensors": (
        True,
        "the table records hands from its sensors; it has no camera to record from (A-C20)",
    ),
    "log_earth_announcement": (
        False,
        "the table senses no announcement, so a 地和 call cannot be logged (A-C21)",
    ),
}
VALUE: Schema = {"name": "text", "chinese": "text", "points": whole(1, 1000)}
SCHEMA: Schema = {
    "ruleset": {"engine": one_of("ccm2012"), "title": "text"},
    "wall": {
        "stacks_per_side": STACKS_PER_SIDE,
        "dead_wall": DEAD_WALL,
        "flowers": "bool",
        "start_offset": whole(0, 17),  # A-C1: stacks further, up to a wall
        "kong_after_last_tile": "bool",
    },
    "options": {
        "flower_kong_flowers_score": "bool",
        "discard_flower_kong_at_game_end": "bool",
        "game_ending_kong": one_of("hold", "void"),
        "penalties_paid": one_of("others", "dead"),
        "chow_allowed": "bool",
        "fourteen_singles_min_gap": whole(1, 8),
        "full_flush_excludes_half_flush": "bool",
        "seven_pairs_excludes_concealed": "bool",
        "single_tile_fans_add_bonus": "bool",
        "last_copy_from": one_of("pung", "seen"),
        "all_melded_allows_concealed_kong": "bool",
        "small_middle_big_same_suit": "bool",
        "last_tile": one_of("final", "go-around"),
        "concealed_needs_self_draw": "bool",
        "added_kong_each_pays": AMOUNT,
        "doubling_factor": whole(1, 4),
        "cap_payments_at_chips": "bool",
        "block_win_from_chipless": "bool",
        "chipless_win_fine_score": one_of("paid", "total"),
        "multiple_winners": "bool",
        "liability_streak": whole(2, 8),
        "penalty_step": whole(1, 100),
        "penalty_cap_per_recipient": whole(0, 1000),
        "intentional_false_win_tiles_short": whole(1, 13),
        "record_hands_from_sensors": "bool",
        "log_earth_announcement": "bool",
        "seven_pairs_four_of_a_kind": "bool",
        "drawn_tile_in_rack_is_in_hand": "bool",
    },
    "timing": {
        "dealer_first_discard_seconds": TURN,
        "discard_seconds": TURN,
        "pung_call_seconds": number(1, 60),
    },
    "chips": {"start": whole(1, 100_000)},
    "game": {
        "rounds": whole(1, 16),
        "minutes": whole(1, 600),  # a game's time (seed 004 第五條: 1 h or 2 h)
        "break_minutes": whole(0, 120),
        "break_after_games": whole(1, 4),
    },
    "stage": {  # seed 004 第三條, 第十條: four games with seat changes, or one without
        "games": (
            lambda v: v in (1, 4) and not isinstance(v, bool),
            "1 (one game, no seat change) or 4 (four, the seats changed after each)",
        ),
        "standard_score": whole(1, 100),
        "qualifiers": whole(1, 2),
    },
    "penalties": "table",
    "fans": {fid: VALUE for fid in FAN_IDS},
    "additional": {aid: VALUE for aid in ADDITIONAL_IDS},
    "payments": {
        "discard": TIMES,
        "self_draw_each": TIMES,
        "robbed_kong": TIMES,
        "liable": TIMES,
        "chipless_win_fine_each": AMOUNT,
    },
    "instant": {
        "melded_kong": AMOUNT,
        "concealed_kong_each": AMOUNT,
        "flower_kong_each": AMOUNT,
        "chase_each": AMOUNT,
    },
}
