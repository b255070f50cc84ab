"""`mjtable score`: validate and score declared wins, as JSON lines or for a person."""

import json
import sys
import unicodedata
from dataclasses import replace

from engine import tiles
from engine.scoring import Score, Win, WinError, win_from_json, win_from_text
from engine.seats import LETTERS as SEATS
from firmware import cli_args
from firmware.config import load_ruleset


def add_parser(commands) -> None:
    p = commands.add_parser(
        "score",
        help="score winning hands",
        description="Score winning hands. JSON lines in the shape of "
        "wsom_examples.jsonl from --json FILE (or - for stdin), one result "
        "line each; or one typed hand such as "
        "'123m 456p 789s EE [PPP]' with --win, for a readable breakdown.",
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
    p.add_argument("--seat", default="E", choices=list(SEATS), help="the winner's seat")
    how = p.add_mutually_exclusive_group()
    how.add_argument("--self-drawn", action="store_true", help="the winner drew the tile")
    how.add_argument("--discarder", choices=list(SEATS), help="who discarded the tile")
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
        "--flag", action="append", default=[], help="a win flag, e.g. final_draw (repeatable)"
    )
    p.add_argument("--flowers", default="", help="the winner's flowers, e.g. '1f 6f' (CCM)")
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
    if not args.self_drawn and args.discarder is None:
        print(
            "mjtable score: say how the hand won: --self-drawn or --discarder SEAT", file=sys.stderr
        )
        return 2
    unknown = [f for f in args.flag if f not in ruleset.flags]
    if unknown:
        print(
            f"mjtable score: unknown flag {unknown[0]!r} "
            f"(known: {', '.join(sorted(ruleset.flags))})",
            file=sys.stderr,
        )
        return 2
    winner = SEATS.index(args.seat)
    discarder = None if args.self_drawn else SEATS.index(args.discarder)
    problem, responsible = _responsible(args, winner, discarder)
    if problem:
        print(f"mjtable score: {problem}", file=sys.stderr)
        return 2
    try:
        win = win_from_text(args.hand, args.win, winner, discarder, args.flag, args.flowers)
        if responsible != discarder:
            win = replace(win, responsible=responsible)
    except WinError as err:
        print(f"mjtable score: hand {args.hand!r}: {err}", file=sys.stderr)
        return 2
    problem = ruleset.contradiction(win)
    if problem:
        print(f"mjtable score: hand {args.hand!r}: contradicts itself: {problem}", file=sys.stderr)
        return 2
    print(breakdown(win, ruleset.score(win), ruleset.title, chinese_names(ruleset)))
    return 0


def _responsible(args, winner: int, discarder: int | None) -> tuple[str, int | None]:
    """(what is wrong, who pays for the discard) from --follow-tile or --responsible."""
    given = args.follow_tile or args.responsible
    if given is None:
        return "", discarder
    option = "--follow-tile" if args.follow_tile else "--responsible"
    if discarder is None:
        return f"{option}: a self-drawn win has nobody responsible (RULES.md 1.3)", None
    if args.follow_tile:
        first = SEATS.index(args.follow_tile)
        if first == discarder:
            return (
                f"--follow-tile {args.follow_tile}: the discarder discarding the winning kind "
                "first is no exemption; leave the option out",
                None,
            )
        return "", None if first == winner else first
    if args.responsible == "none":
        return "", None
    seat = SEATS.index(args.responsible)
    if seat == winner:
        return f"--responsible {args.responsible}: the winner cannot pay for his own win", None
    return "", seat


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
        win = win_from_json(obj, ruleset.flags)
    except WinError as err:  # cut short: it may quote a value of any size
        text = str(err)
        return f"{name}: {text if len(text) <= 300 else text[:300] + '...'}"
    except RecursionError:  # nested within Python's limit, but too deep to describe
        return f"{name}: nested too deeply to read (a hand is a few levels deep)"
    problem = ruleset.contradiction(win)
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


def chinese_names(ruleset) -> dict[str, str]:
    """Pattern id -> Chinese name, from the config's [patterns] (WSOM) or [fans] and
    [additional] (CCM): a referee reads the names of the rule book."""
    config = ruleset.config
    return {
        pid: entry["chinese"]
        for section in ("patterns", "fans", "additional")
        for pid, entry in config.get(section, {}).items()
    }


def breakdown(win: Win, score: Score, title: str, chinese: dict[str, str]) -> str:
    """The score as a referee reads it off the score card, names in English and Chinese."""
    melds = " ".join(
        ("(" if m.concealed else "[") + tiles.format_tiles(m.tiles) + (")" if m.concealed else "]")
        for m in win.melds
    )
    how = "self-drawn" if win.self_drawn else f"on {SEATS[win.discarder]}'s discard"
    if not win.self_drawn and win.responsible != win.discarder:
        pays = "nobody" if win.responsible is None else SEATS[win.responsible]
        how += f" ({pays} responsible: 跟張免責, RULES.md 1.3)"
    lines = [
        title,
        f"Hand   {tiles.format_tiles(win.concealed)} {melds}".rstrip(),
        f"Win    {tiles.NAMES[win.win_tile]} {how}, winner {SEATS[win.winner]}"
        + (f", flags {' '.join(sorted(win.flags))}" if win.flags else ""),
    ]
    if not score.legal:
        lines.append(f"NOT A LEGAL WIN: {score.reason}")
        return "\n".join(lines)
    if score.total is None:
        lines.append(f"Legal shape, {score.reason}")
        return "\n".join(lines)
    names = [f"{p.name} {chinese.get(p.id, '')}".rstrip() for p in score.patterns]
    width = max(map(_columns, names))
    for p, name in zip(score.patterns, names, strict=True):
        lines.append(f"  {p.id:<6} {name}{' ' * (width - _columns(name))} {p.points:>4}")
    uncapped = sum(p.points for p in score.patterns)
    capped = " (limit)" if uncapped != score.total else ""
    lines.append(f"  {'Total':<6} {'':<{width}} {score.total:>4}{capped}")
    lines.append("Pay    " + "  ".join(f"{SEATS[s]} {score.payments[s]:+d}" for s in range(4)))
    return "\n".join(lines)


def _columns(text: str) -> int:
    """The columns text takes on a terminal: a Chinese character takes two, so points align."""
    return sum(2 if unicodedata.east_asian_width(c) in "WF" else 1 for c in text)
