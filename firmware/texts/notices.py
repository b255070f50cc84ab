"""The public's words for an alert or a fault (issue 20 item 4).

The engine's alert messages and the devices' fault messages and advice are the referee's: they
may name the tile a player took, the next tiles of the wall or a tile in a hand, and their
numbers (counts, lanes) cannot be told from tile ids. The public view never passes them on: it
writes its own text from the public facts of the record (for an alert the seat, the rule and
the offence of its proposed penalty; for a fault the device and the kind) and a fixed
vocabulary, so no tile can reach it whatever a message says. Seats are spelled
out: a seat's letter would read as a wind tile's name.
"""

import re
import sys

from engine.seats import WORDS
from firmware.journal.failures import Stopped
from firmware.texts import notices_zh as zh
from firmware.texts.citations import article

# What each offence of the rule books (config/rules/*.toml) is, said of the offender.
OFFENCES = {
    "early_draw": "drew out of turn",
    "wrong_count_high": "holds too many tiles",
    "wrong_count_low": "holds too few tiles",
    "empty_call": "called without the tiles for it",
    "wrong_call": "made a wrong call",
    "empty_kong": "declared a kong without the tiles for it",
    "false_win": "declared a false win",
    "incomplete_win": "declared an incomplete win",
    "empty_win": "called a win and withdrew it (空和)",
    "intentional_false_win": "declared a false win on purpose",
    "late_call": "called after the calls were over",
    "late_pung": "called pung late",
    "kong_after_last_tile": "declared a kong after the last tile",
    "penalty_tile_discard": "discarded a dead penalty tile",
    "flower_discarded": "discarded a flower",
    "naming_discard": "named a discard aloud",
    "laying_down_early": "laid the hand down early",
    "overtime_discard": "went over the time to discard",
    "overtime_hand": "went over the time of the hand",
    "serious_overtime": "went far over the time limit",
    "wrong_draw": "drew from the wrong place in the wall",
    "wrong_draw_win": "won on a tile drawn from the wrong place in the wall",
    "timeout": "took a time-out",
    "late": "arrived late",
    "left_table": "left the table during a time-out",
    "absent": "is absent",
    "phone": "let a phone sound",
    "refused_interview": "refused an interview",
    "exposing_opponent": "exposed another player's tiles",
    "exposed": "exposed tiles of his hand",
    "exposed_at_deal": "exposed tiles during the deal",
    "wall_tile_exposed": "turned a wall tile face up",
    "penalty_tile_kept": "kept a penalty tile he must discard",
    "suspicious_gestures": "made suspicious gestures",
    "cheating": "cheated (tiles stolen, hidden or swapped)",
    "signalling": "signalled to another player",
    "disruption": "seriously disrupted the game",
}
# What an alert without an offence is about, by the section of RULES.md it names.
SECTIONS = {
    "1.3": "the payment",
    "3.1": "a flower",
    "3.4": "the dice or the draw from the wall",
    "3.5": "the last tiles of the wall",
    "3.6": "the order of play",
    "3.7": "a call",
    "3.9": "a penalty tile",
    "3.10": "the number of tiles held",
    "3.11": "a call or a win",
    "3.12": "the time limits",
    "4.4": "the dice or the draw from the wall",
    "4.5": "a flower",
    "4.6": "the order of play or a call",
    "4.7": "a win",
    "4.9": "the last tile",
    "4.11": "a win on a player without chips",
    "4.13": "the end of the game",
    "4.14": "the time limits",
    "4.15": "a penalty",
}
# The same, of an alert the referee must rule on: of the dice and the wall's section only a
# tile taken that the wall does not hold needs a ruling (engine/turns.py; a bad roll is just
# refused, a draw from the wrong place stands with its own offence).
RULED = {
    "3.4": "took a tile the wall does not hold",
    "4.4": "took a tile the wall does not hold",
}
# What a fault is, by its device and kind (firmware/table/hands.py, service.py, the shuffler).
FAULTS = {
    ("tracking", "missing"): "a tile has gone missing from the table",
    ("tracking", "two_places"): "a tile is read in two places",
    ("tracking", "foreign"): "a tile not of this table's sets is on the table",
    ("tracking", "unexpected_tile"): "a tile of the set below the table is on it",
    ("tracking", "jump"): "a tile moved without being seen step by step",
    ("tracking", "irregular"): "a tile moved in a way no move of the hand explains",
    ("tracking", "tampering"): "a tile drawn is not the one the walls had there",
    ("shuffler", "favoured"): "the shuffler's walls favour one side",
    ("shuffler", "clustered"): "the shuffler's walls cluster tiles of a kind",
    ("table", "forfeit"): "a player's time-outs reach a forfeit",
    ("shuffler", "jam"): "the shuffler is jammed",
    ("shuffler", "count"): "a wall came up with the wrong number of tiles",
    ("shuffler", "timeout"): "a step of the shuffler took too long",
    ("shuffler", "slow"): "the shuffler is slow",
    ("shuffler", "stacker"): "the walls were stacked unread",
    ("table", "referee"): "a player calls the referee",
    ("table", "raise refused"): "the walls may not rise while a hand is on the table",
    ("table", "hall paused"): "the venue has paused the hall: the next hand waits for it",
    ("table", "time up"): "the sitting's time is up: no new hand begins",
    ("dice", "bad roll"): "the dice were misread",
    ("service", "internal"): "the table's service met an error",
    ("journal disk", "low space"): "the table's disk is running out of space for its record",
    ("venue", "refused"): "the table refused a command from the venue",
    ("reader", "stray buttons"): "a tile reader sends seat buttons this table does not take",
    # issue 36 item 5: a publish the venue's broker refused (firmware/uplink/broker.py), by leaf
    ("uplink", "refused events"): "the venue's broker refuses the table's record",
    ("uplink", "refused sheet"): "the venue's broker refuses the table's score sheet",
    ("uplink", "refused state"): "the venue's broker refuses the table's state",
    ("uplink", "refused status"): "the venue's broker refuses the table's status",
    ("uplink", "refused alerts"): "the venue's broker refuses the table's alerts",
}
# What the players wait for, by the device at fault.
ADVICE = {
    "tracking": "the referee checks the tiles",
    "shuffler": "the technician sees to the shuffler",
    "zone reader": "play waits for the tile reader",
    "stacker reader": "the technician checks the tile reader",
    "reader": "the technician checks the tile reader",
    "table": "the referee sees to it",
    "dice": "roll again",
    "service": "play goes on under the referee's control",
    "journal disk": "the technician sees to the table's disk",
    "venue": "the referee sees to it with the venue's desk",
    "uplink": "the venue's organiser sees to the broker; the table's record waits for it",
}
SHUFFLER_FAULT = "the shuffler has stopped: the technician sees to it"
# The banner of a table that stopped refereeing (firmware/table/storage.py): the public's words by
# its kind; the referee reads the detail. What to do, for each: never "play on".
NOT_REFEREEING = {
    "disk full": "the table's disk is full: it cannot record the game, so it does not referee",
    "write error": "the table's disk failed: it cannot record the game, so it does not referee",
}
STOPPED_ADVICE = {
    False: "play stops: the referee calls the technician",
    True: "stop play and call the technician: from here nothing is refereed or recorded; "
    "the journal holds the hand's record up to the failure",
}
# The sentences the functions below make of these words, by language (notices_zh.py the other).
PHRASES = {
    "table": "The table",
    "unknown offence": "an offence ({name})",
    "problem": "a problem with {what}",
    "some rule": "a rule",
    "refused": "an input was refused",
    "where": " ({article})",
    "ruling": ", the referee rules",
    "alert": "{who}: {what}{where}{ruling}",
    "offline": "the {device} is offline",
    "reader error": "the tile reader reports an error",
    "device fault": "the {device} reports a fault ({kind})",
    "cleared": "cleared: {what}",
    "see to it": "the referee sees to it",
}
LANGUAGES = ("en", "zh")
_SECTION = re.compile(r"\d+\.\d+")


def _words(lang: str):
    """The module holding a language's tables: this one for English."""
    return zh if lang == "zh" else sys.modules[__name__]


def both(text, *args) -> dict:
    """A text in each language of the interface: {"en": ..., "zh": ...}."""
    return {lang: text(*args, lang=lang) for lang in LANGUAGES}


def alert_text(alert: dict, lang: str = "en") -> str:
    """ "North: drew out of turn (RULES.md 3.6), the referee rules"."""
    words = _words(lang)
    seat = alert.get("seat")
    seats = zh.SEATS if lang == "zh" else WORDS
    who = seats[seat] if isinstance(seat, int) and seat in range(4) else None
    rule = str(alert.get("rule") or "")
    section = _SECTION.search(rule)
    offence = (alert.get("penalty") or {}).get("offence", "")
    if offence:
        name = offence.replace("_", " ")
        what = words.OFFENCES.get(offence, words.PHRASES["unknown offence"].format(name=name))
    elif section and alert.get("needs_ruling") and section.group() in RULED:
        what = words.RULED[section.group()]
    elif section:
        about = words.SECTIONS.get(section.group(), words.PHRASES["some rule"])
        what = words.PHRASES["problem"].format(what=about)
    else:
        what = words.PHRASES["refused"]
    return words.PHRASES["alert"].format(
        who=who or words.PHRASES["table"],
        what=what,
        where=words.PHRASES["where"].format(article=article(section.group(), lang))
        if section
        else "",
        ruling=words.PHRASES["ruling"] if alert.get("needs_ruling") else "",
    )


def offence_text(offence: str, lang: str = "en") -> str:
    """A penalty's offence in the page's words: "declared a false win", "詐和"."""
    name = offence.replace("_", " ")
    return _words(lang).OFFENCES.get(offence, name)


def fault_text(fault: dict, lang: str = "en") -> str:
    """ "the zone reader is offline", "cleared: a tile has gone missing from the table"."""
    words = _words(lang)
    device, kind = str(fault.get("device", "")), str(fault.get("kind", ""))
    named = zh.DEVICES.get(device, zh.UNKNOWN_DEVICE) if lang == "zh" else device
    if kind == "offline":
        what = words.PHRASES["offline"].format(device=named)
    elif kind.startswith("error ") and device == "reader":
        what = words.PHRASES["reader error"]
    else:
        unknown = words.PHRASES["device fault"].format(device=named, kind=kind)
        what = words.FAULTS.get((device, kind), unknown)
    return words.PHRASES["cleared"].format(what=what) if fault.get("cleared") else what


def fault_advice(fault: dict, lang: str = "en") -> str:
    """What the public is told to expect; the referee's advice is for the person fixing it."""
    if fault.get("cleared"):
        return ""
    words = _words(lang)
    return words.ADVICE.get(str(fault.get("device", "")), words.PHRASES["see to it"])


def shuffler_fault(lang: str = "en") -> str:
    return _words(lang).SHUFFLER_FAULT


def stopped(stop: Stopped | None, referee: bool) -> dict | None:
    """The banner of a table that stopped refereeing, or None: why, and what to do; the
    public's words in both languages (the referee's `why` is the storage's own, English)."""
    if stop is None:
        return None
    why = stop.why if referee else NOT_REFEREEING[stop.kind]
    return {
        "t": stop.t,
        "kind": stop.kind,
        "message": why,
        "advice": STOPPED_ADVICE[referee],
        "text": {"en": NOT_REFEREEING[stop.kind], "zh": zh.NOT_REFEREEING[stop.kind]},
        "advice_text": {"en": STOPPED_ADVICE[referee], "zh": zh.STOPPED_ADVICE[referee]},
    }
