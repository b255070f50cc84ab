"""`mjtable score`: validate and score declared wins, as JSON lines or for a person."""

import json
import sys

from engine.rulesets.wsom2006 import FLAG_RULES
from engine.scoring import WinError, win_from_json
from engine.seats import LETTERS as SEATS
from firmware import cli_args
from firmware.resources import load_ruleset
from firmware.score import ccm as score_ccm
from firmware.score import typed as score_typed


def add_parser(commands) -> None:
    p = commands.add_parser(
        "score",
        description="Score winning hands. JSON lines in the shape of "
        "wsom_examples.jsonl from --json FILE (or - for stdin), one result "
        "line each; or one typed hand such as "
        "'123m 456p 789s EE [PPP]' (or in Chinese, '一二三萬 四五六餅 東東') with --win, "
        "for a readable breakdown.",
    )
    p.add_argument(
        "hand",
        nargs="?",
        help="typed hand without the winning tile; [..] an exposed meld, (..) a concealed kong",
    )
    p.add_argument(
        "--json", type=cli_args.path, metavar="FILE", help="JSON lines to score ('-' for stdin)"
    )
    p.add_argument(
        "--ruleset",
        type=cli_args.path,
        default="wsom2006",
        help="ruleset name or TOML file (default: wsom2006)",
    )
    p.add_argument("--win", metavar="TILE", help="the winning tile of a typed hand")
    p.add_argument("--seat", default="E", choices=list(SEATS), help="the winner's compass seat")
    p.add_argument(
        "--dealer",
        default="E",
        choices=list(SEATS),
        help="the compass seat of this hand's dealer (default E: a seat is then its wind)",
    )
    how = p.add_mutually_exclusive_group()
    how.add_argument("--self-drawn", action="store_true", help="the winner drew the tile")
    how.add_argument("--discarder", choices=list(SEATS), help="who discarded the tile")
    p.add_argument(
        "--robbed-kong",
        choices=list(SEATS),
        metavar="SEAT",
        help="won by robbing this seat's kong (搶槓): the konger pays as the discarder; in CCM "
        "also with --self-drawn, as seed 004 counts it (搶槓和牌同自摸)",
    )
    exemption = p.add_mutually_exclusive_group()
    exemption.add_argument(
        "--follow-tile",
        choices=list(SEATS),
        metavar="SEAT",
        help="follow-tile exemption (跟張免責, RULES.md 1.3): the seat that first discarded "
        "the winning kind since the winner's last discard; it pays, or nobody if the winner",
    )
    exemption.add_argument(
        "--responsible",
        choices=[*SEATS, "none"],
        metavar="SEAT",
        help="who pays for the discard as the referee ruled it (default the discarder; "
        "'none': each pays the value)",
    )
    p.add_argument(
        "--flag",
        action="append",
        default=[],
        help="a win flag (repeatable); WSOM's: "
        + ", ".join(f"{flag} {words[2]}" for flag, words in FLAG_RULES.items())
        + "; CCM's below",
    )
    p.add_argument(
        "--flowers",
        default="",
        help=f"the winner's flowers (CCM), e.g. '1f 6f' or '春 蘭': {score_ccm.FLOWER_WORDS}",
    )
    score_ccm.add_arguments(p)
    p.set_defaults(run=run)


def run(args) -> int:
    ruleset = load_ruleset(args.ruleset)
    if args.json is not None:
        if args.hand is not None:
            print("mjtable score: give either a typed hand or --json, not both", file=sys.stderr)
            return 2
        return _score_lines(ruleset, args.json)
    if args.hand is None or args.win is None:
        print("mjtable score: give a typed hand with --win TILE, or --json FILE", file=sys.stderr)
        return 2
    try:
        print(score_typed.typed_card(ruleset, args))
    except WinError as err:
        print(f"mjtable score: {err}", file=sys.stderr)
        return 2
    return 0


def _score_lines(ruleset, source: str) -> int:
    """One result line per input line; a bad line is reported on stderr with its number and
    the rest go on. Lines are read as bytes and decoded one at a time, so a byte that is not
    UTF-8 costs its own line only."""
    try:
        stream = sys.stdin.buffer if source == "-" else open(source, "rb")  # noqa: SIM115
    except OSError as err:
        print(f"mjtable score: --json {source}: cannot read: {err.strerror}", file=sys.stderr)
        return 2
    status = 0
    with stream:
        for number, raw in enumerate(stream, 1):
            problem = _score_line(ruleset, number, raw)
            if problem:
                print(f"mjtable score: {problem}", file=sys.stderr)
                status = 2
    return status


def _score_line(ruleset, number: int, raw: bytes) -> str | None:
    """Score one line and print its result; or what is wrong with it, naming the line."""
    name = f"line {number}"
    try:
        line = raw.decode("utf-8")
    except UnicodeDecodeError as err:
        return f"{name}: not UTF-8 text (byte 0x{raw[err.start]:02x} at column {err.start + 1})"
    if not line.strip():
        return None
    try:
        obj = json.loads(line)
    except json.JSONDecodeError as err:
        return f"{name}: not JSON: {err.msg} at column {err.colno}"
    except ValueError:  # the only other: Python's limit on the digits of a whole number
        return f"{name}: a number of more than {sys.get_int_max_str_digits()} digits"
    except RecursionError:
        return f"{name}: nested too deeply to read (a hand is a few levels deep)"
    hand_id = obj.get("id") if isinstance(obj, dict) else None
    if hand_id is not None:
        if not _printable_id(hand_id):
            return f"{name}: id must be a string (UTF-8 text) or a whole number"
        name = f"hand {str(hand_id)[:40]} (line {number})"
    try:
        win = win_from_json(score_ccm.robbing_as_discard(ruleset, obj), ruleset.flags)
    except WinError as err:  # cut short: it may quote a value of any size
        text = str(err)
        return f"{name}: {text if len(text) <= 300 else text[:300] + '...'}"
    except RecursionError:  # nested within Python's limit, but too deep to describe
        return f"{name}: nested too deeply to read (a hand is a few levels deep)"
    problem = score_ccm.contradiction(ruleset, win)
    if problem:
        return f"{name}: contradicts itself: {problem}"
    result = ruleset.score(win).to_json()
    if hand_id is not None:
        result = {"id": hand_id, **result}
    print(json.dumps(result, ensure_ascii=False), flush=True)
    return None


def _printable_id(hand_id) -> bool:
    """An id echoed into the result: a string that is text (no lone surrogate from a \\ud800
    escape, which no output can encode) or a whole number."""
    if isinstance(hand_id, str):
        return not any("\ud800" <= c <= "\udfff" for c in hand_id)
    return isinstance(hand_id, int) and not isinstance(hand_id, bool)
