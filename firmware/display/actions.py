"""What each referee action takes (issue 6): its fields, each checked before the action
reaches the table, and a body it cannot take named by its field (HTTP 422). Numbers stay
below MAX_ID and names are short printable text, so what passes is what the journal can
hold (issue 20).
"""

from engine import tiles
from engine.seats import LETTERS
from firmware.bus.contract import FEDERATION_ID_LENGTH, NAME_LENGTH

TILE_IDS = 4 * tiles.KINDS + tiles.FLOWER_KINDS
MAX_ID = 2**53  # ids and hand numbers stay below it: exact in JSON, and in the journal
MAX_TEXT = 200  # characters of a name
MAX_SECONDS = 86_400  # a timed offence (暫停, lateness) lasts at most a day


def _count(value) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and 0 <= value < MAX_ID


def _text(value) -> bool:
    """Printable text: no control character, no lone surrogate (which the journal refuses)."""
    return isinstance(value, str) and 0 < len(value.strip()) <= MAX_TEXT and value.isprintable()


def _players(value) -> bool:
    """Four {"name", "federation_id"} by person: a name of 1..NAME_LENGTH printable
    characters, an optional federation id of printable text (as the venue's, issue 16)."""
    return (
        isinstance(value, list)
        and len(value) == 4
        and all(
            isinstance(p, dict)
            and p.keys() <= {"name", "federation_id"}
            and _text(p.get("name"))
            and len(p["name"]) <= NAME_LENGTH
            and (
                p.get("federation_id") in (None, "")
                or (_text(p["federation_id"]) and len(p["federation_id"]) <= FEDERATION_ID_LENGTH)
            )
            for p in value
        )
    )


FIELDS = {  # what each field must be, and how a wrong one is named
    "alert": (_count, "an alert id (a whole number)"),
    "fault": (_count, "a fault id (a whole number)"),
    "apply": (lambda v: isinstance(v, bool), "true (apply the penalty) or false (waive it)"),
    "tile": (lambda v: _count(v) and v < TILE_IDS, f"a physical tile id 0..{TILE_IDS - 1}"),
    "zone": (_text, "the name of a zone (wall, river, meld area, rack), printable text"),
    "hand": (lambda v: _count(v) and v >= 1, "a hand number (1, 2, ...)"),
    "referee": (_text, f"the referee's name, printable text of at most {MAX_TEXT} characters"),
    "reason": (_text, f"why, printable text of at most {MAX_TEXT} characters"),
    "seat": (lambda v: _count(v) and v < 4, "a seat 0..3 (E S W N of the hand)"),
    "offence": (
        lambda v: _text(v) and v.isidentifier() and v.isascii(),
        "the name of an offence of the rule book's [penalties], e.g. 'timeout'",
    ),
    "stacks": (
        lambda v: _count(v) and v < 72,
        "the tail stacks before the head, counted from the right end of the seat's wall, 0..71",
    ),
    "seconds": (lambda v: _count(v) and 1 <= v <= MAX_SECONDS, f"whole seconds 1..{MAX_SECONDS}"),
    "dice": (
        lambda v: isinstance(v, list) and len(v) == 2 and all(_count(d) and 1 <= d <= 6 for d in v),
        "the two dice the referee threw, each 1..6, e.g. [3, 5]",
    ),
    "winds": (
        lambda v: isinstance(v, list) and sorted(v) == [0, 1, 2, 3] and all(_count(w) for w in v),
        "the wind each side's player drew, E S W N order, as 0..3 (E S W N), each once",
    ),
    "to": (
        lambda v: v in tuple(LETTERS) or (_count(v) and v < 4),
        "the seat paid the penalty's points, E S W N or 0..3 (seed 004 §38 一 6)",
    ),
    "dead": (lambda v: isinstance(v, bool), "true (the penalty's points are dead points) or false"),
    "seating": (
        lambda v: isinstance(v, list) and sorted(v) == [0, 1, 2, 3] and all(_count(p) for p in v),
        "the person (0..3, the seat he drew for the stage) on each side, E S W N order, each once",
    ),
    "players": (
        _players,
        f'four {{"name", "federation_id"}}, P1..P4: each name 1..{NAME_LENGTH} printable '
        f"characters, each federation id optional, printable, at most {FEDERATION_ID_LENGTH}",
    ),
    "person": (lambda v: _count(v) and v < 4, "a person 0..3 (P1..P4)"),
    "pin": (_text, "the referee's PIN, typed again to sign"),
    "tiles": (
        lambda v: (
            isinstance(v, list) and 0 < len(v) <= 14 and all(_count(t) and t < TILE_IDS for t in v)
        ),
        f"a list of 1 to 14 physical tile ids 0..{TILE_IDS - 1}",
    ),
}
ACTIONS = {  # action -> its fields; ack takes exactly one of its two
    "ack": ("alert", "fault"),
    "rule": ("alert", "apply", "reason", "tiles", "to", "dead", "hand"),  # tiles: the penalty
    # tiles he chooses; to / dead: who is paid its points (seed 004 §38 一 6); reason: why
    # (issue 16); hand: the hand before's alert, the next one dealt (issue 36)
    "revoke": ("alert", "reason", "hand"),  # a penalty applied under the alert, lifted
    "undo_waive": ("alert", "reason", "hand"),  # a Waive taken back (issue 36 item 2)
    "report": ("seat", "offence", "seconds", "tiles"),  # an offence the referee saw (issue 12)
    "roll": ("dice",),  # East's second roll, thrown by the referee (seed 000 開門 6)
    "draw_seats": ("winds",),  # 執位 (seed 000): the table draws, or the referee enters the tiles
    "change_seats": ("seating",),  # 換位 between games (seed 004): the table's, or entered
    "ask_scores": ("seat",),  # 問分 (seed 004 三十三): the seat of the player asking
    "wall_touched": ("seat",),  # the next player touched the wall head (seed 000 摸打規條 2)
    "new_session": (),  # issue 19: the next session of the data directory, between hands
    "dealer_kept": ("seat",),  # the wrong dealer keeps the deal (seed 000 做錯莊, case 3)
    "break_made": ("seat", "stacks"),  # the wrong break stands (seed 000 開錯門)
    "pause": (),
    "resume": (),
    "correct": ("tile", "zone"),
    "confirm_score": ("hand",),
    "void_hand": ("reason",),  # a hand is lost only by the referee's word, with his reason
    "redeal": ("reason",),  # the referee's re-deal, before all four discard (配牌時的犯規 7)
    "remove_excess": ("seat",),  # long at the deal: excess back at random (配牌時的犯規 6)
    "accept_table": ("reason",),  # the hand goes on from the table as it lies (issue 20), why
    # in the referee's words (issue 36 item 3)
    "retry": (),  # the shuffler's cycle again after its fault, put right (issue 29)
    "sign_sheet": ("hand", "pin", "referee"),  # pin: checked by the display, never passed on
    "players": ("players",),  # the session's players entered at the desk (issue 16)
    "ask_signatures": ("hand",),  # the players sign up to that hand, by button or screen
    "player_signs": ("person",),  # a player's tap on the desk
    "withdraw_signature": ("person", "reason"),  # his latest, tapped wrong (issue 36)
}
# The fields an action may lack.
OPTIONAL = {
    "rule": ("tiles", "to", "dead", "hand"),
    "revoke": ("hand",),
    "undo_waive": ("hand",),
    "report": ("seconds", "tiles"),
    "roll": ("dice",),
    "draw_seats": ("winds",),
    "change_seats": ("seating",),
    "sign_sheet": ("referee",),  # an enrolled referee's own name stands
}


def body_problem(action: str, body) -> tuple[str, str] | None:
    """(field, message) for a body the action cannot take, or None."""
    if not isinstance(body, dict):
        return "body", "the body must be a JSON object"
    allowed = ACTIONS[action]
    for name in body:
        if name not in allowed:
            return (
                name,
                f"{action} takes no field {_shown(name)} "
                f"(it takes: {', '.join(allowed) or 'nothing'})",
            )
    if action == "ack":
        if len(body) != 1:
            return "alert", "ack names exactly one of 'alert' or 'fault'"
    else:
        for name in allowed:
            if name not in body and name not in OPTIONAL.get(action, ()):
                return name, f"{action} needs the field {name!r}: {FIELDS[name][1]}"
    for name, value in body.items():
        valid, meaning = FIELDS[name]
        if not valid(value):
            given = "" if name == "pin" else f", not {_shown(value)}"  # a PIN is never echoed
            return name, f"field {name!r} must be {meaning}{given}"
    return None


def _shown(value) -> str:
    """A value as a message quotes it: a long one cut short."""
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."
