"""`mjtable verify FILE [--public-key HEX_OR_FILE]`: is this the journal the table wrote, and
were its hands dealt from the walls it sealed? (issue 17, docs/fairness.md)

FILE is a journal (opened read-only, as `mjtable replay` opens it) or its export (`mjtable
journal export`). Offline, with nothing but the file and the table's public key, it checks:
the hash chain; every HeadSigned's signature, and that the head it signs is the chain's hash
of the row before it; that every hand that ended has its head signed after it and that no
hand is missing from the numbering; that every hand's walls were sealed before its row and
its dice, revealed after its end, that the reveal gives the seal's digest and that its lanes,
East's on the dealer's side, are the walls of the hand row; and, replaying every input
(firmware/journal/replay.py), that the tiles dealt and drawn follow those walls. Without
--public-key the journal's own key is used, and the summary says so: a forger can sign with
a key of his own, so the key to trust is the one the table's owner published. Issue 35 adds
the journal's own integrity (firmware/audit/verify_trail.py: the signed session header,
signed to the last row, no seal unrevealed, an export's row count) and what follows from
the play (firmware/audit/verify_play.py: chips, the dice source of each hand, the electronic
dice and the seats recomputed).

Exit status: 0 all good (a closed session, signed to its last row); 1 a line per failure
(each naming its row); 2 a file it cannot read; 3 nothing found wrong, but the journal alone
cannot say it is whole: it is open (its rows after the last signature named) or written
before session headers.
"""

import sys
from dataclasses import dataclass, field
from pathlib import Path

from engine import events as ev
from engine.tiles import NAMES, kind_of
from firmware import cli_args
from firmware.audit import verify_anchors
from firmware.audit.export_file import open_file
from firmware.audit.verify_play import check_dice, check_seats, dealer_sides
from firmware.audit.verify_trail import ENDS, Trail, check_trail
from firmware.journal.chain import Row
from firmware.journal.device_key import signature_holds
from firmware.journal.failures import JournalError
from firmware.journal.seals import lanes_of, reveal_matches
from firmware.journal.signing import HAND_END


def add_parser(commands) -> None:
    p = commands.add_parser("verify")
    p.add_argument("file", type=cli_args.path, metavar="FILE", help="a journal or its export")
    p.add_argument(
        "--public-key",
        metavar="HEX_OR_FILE",
        help="the table's Ed25519 public key, 64 hex digits or a file holding them "
        "(default: the key the journal's own signatures carry)",
    )
    verify_anchors.add_arguments(p)  # --anchors, --key (issue 35)
    p.set_defaults(run=run)


@dataclass
class Hand:
    """A hand row and what followed it, by row number."""

    seq: int
    number: int
    walls: list
    tile_set: str | None
    chips: list | None = None  # as its row begins it, with doubling and last_deal
    doubling: bool = False
    last_deal: bool = False
    end: int | None = None  # its Won, ExhaustiveDraw, GameEnded or HandVoided
    dice: int | None = None  # its first DiceRolled
    rolls: list[tuple[int, ev.DiceRolled]] = field(default_factory=list)
    reveal: tuple[int, ev.WallRevealed] | None = None
    signed: bool = False


@dataclass
class Report:
    rows: int = 0
    hands: int = 0
    signatures: int = 0
    seals: int = 0
    key: str | None = None
    key_from_file: bool = False
    failures: list[str] = field(default_factory=list)
    trail: Trail = field(default_factory=Trail)
    dice: list[str] = field(default_factory=list)  # each hand's dice sources


def check(source, public_key: str | None = None) -> Report:
    """Every check of the module's docstring over `source` (a Journal or an Export)."""
    rows = list(source.rows())
    report = Report(rows=len(rows), key=public_key, key_from_file=public_key is None)
    fail = report.failures.append
    broken = source.verify()
    if broken:
        fail(f"{broken}")
    declared = getattr(source, "declared_rows", None)
    if declared is not None and declared != len(rows):
        fail(f"the export's header says {declared} rows and it holds {len(rows)}: cut or added")
    hands: list[Hand] = []
    seals: dict[str, int] = {}  # digest -> its WallSealed's row
    records: dict[int, ev.Event] = {}  # the device rows' events, by index
    for i, row in enumerate(rows):
        try:
            data = row.data()
            hand = hands[-1] if hands else None
            if row.kind == "hand":
                hand = Hand(row.seq, data["hand_number"], data["walls"], data.get("tile_set"))
                hand.chips, hand.doubling = data.get("chips"), data.get("doubling", False)
                hand.last_deal = data.get("last_deal", False)
                _numbering(hands[-1] if hands else None, hand, fail)
                hands.append(hand)
            elif row.kind == "device":
                records[i] = row.event()
                _record(rows, i, records[i], hand, seals, report)
            elif hand is not None:
                _played(row, data, hand)
        except (ValueError, TypeError, KeyError, AttributeError) as err:
            fail(f"row {row.seq}: not a {row.kind} row of its kind ({err})")
    report.trail = check_trail(rows, records, source.session_id, fail)
    check_seats(rows, records, fail)
    report.dice = check_dice(hands, report.trail.header, fail)
    sides = dealer_sides(source, rows, hands, broken is None, fail)
    for hand, side in zip(hands, sides, strict=True):
        report.hands += 1
        if hand.end is not None and not hand.signed:
            fail(f"row {hand.end}: hand {hand.number} ended, and no signature of the head follows")
        if hand.tile_set is not None and hand.end is not None:
            report.seals += _seal(hand, side, seals, fail)
    return report


def _played(row: Row, data: dict, hand: Hand) -> None:
    """The hand's dice, the row they were first rolled in, and where it ended."""
    if row.kind == "input" and data.get("type") == "DiceRolled":
        hand.dice = hand.dice or row.seq
        roll = row.event()
        assert isinstance(roll, ev.DiceRolled)
        hand.rolls.append((row.seq, roll))
    elif row.kind == "output" and data.get("type") in ENDS:
        hand.end = hand.end or row.seq


def _record(rows: list[Row], i: int, record, hand: Hand | None, seals, report: Report) -> None:
    """A device row: a seal, a reveal, a signature (checked at once), a void."""
    if isinstance(record, ev.WallSealed):
        seals.setdefault(record.digest, rows[i].seq)
    elif isinstance(record, ev.HeadSigned):
        report.signatures += 1
        report.key = report.key or record.public_key
        _signature(rows, i, record, report.key, report.failures.append)
        if hand is not None and hand.end and record.hand == hand.number:
            hand.signed = True
    elif hand is None:
        return
    elif isinstance(record, ev.HandVoided):
        hand.end = hand.end or rows[i].seq
    elif isinstance(record, ev.WallRevealed) and hand.end:
        hand.reveal = hand.reveal or (rows[i].seq, record)


def _numbering(last: Hand | None, hand: Hand, fail) -> None:
    """A hand follows the one before it, or is that one dealt again (after a void)."""
    before = last.number if last else 0
    if not before <= hand.number <= before + 1:
        fail(f"row {hand.seq}: hand {hand.number} follows hand {before}: hands are missing")


def _signature(rows: list[Row], i: int, signed: ev.HeadSigned, key: str, fail) -> None:
    row = rows[i]
    whose = f"hand {signed.hand}'s" if signed.what in ("", HAND_END) else f"the {signed.what}"
    if i == 0 or signed.head != rows[i - 1].hash:
        fail(
            f"row {row.seq}: {whose} signed head is not the chain's hash of the "
            "row before it (a row before it was changed, added or removed)"
        )
    if not signature_holds(signed, key):
        fail(f"row {row.seq}: {whose} signature does not verify with the key")


def _seal(hand: Hand, side: int | None, seals: dict[str, int], fail) -> int:
    """The hand's walls against their seal and reveal; 1 for a seal checked."""
    number = hand.number
    if hand.reveal is None:
        fail(f"row {hand.end}: hand {number} ended and its walls were never revealed")
        return 0
    at, revealed = hand.reveal
    sealed_at = seals.get(revealed.digest)
    if sealed_at is None:
        fail(f"row {at}: hand {number}'s revealed walls were never sealed")
        return 0
    if sealed_at > hand.seq:
        fail(f"row {sealed_at}: hand {number}'s walls were sealed after they were dealt")
    if hand.dice is not None and hand.dice < sealed_at:
        fail(f"row {hand.dice}: hand {number}'s dice were rolled before its walls were sealed")
    if not reveal_matches(revealed):
        fail(f"row {at}: hand {number}'s revealed walls do not give the digest of row {sealed_at}")
    lanes = lanes_of(revealed.walls)
    names = [(name, tile) for lane in revealed.walls for name, _, tile in lane]
    if any(name != NAMES[kind_of(tile)] for name, tile in names):
        fail(f"row {at}: hand {number}'s revealed walls name a tile by another kind")
    sides = range(4) if side is None else [side]
    if revealed.tile_set != hand.tile_set or not any(
        hand.walls == [lanes[(s + seat) % 4] for seat in range(4)] for s in sides
    ):
        fail(f"row {hand.seq}: hand {number}'s walls are not those revealed in row {at}")
    return 1


def public_key_of(text: str) -> str:
    """64 hex digits, given or in the file named (JournalError naming the problem)."""
    given = text.strip()
    if not _is_key(given):
        try:
            given = Path(text).read_text(encoding="utf-8").strip()
        except (OSError, UnicodeDecodeError) as err:
            problem = f"neither 64 hex digits nor a file ({err})"
            raise JournalError(f"--public-key {text}: {problem}") from None
        if not _is_key(given):
            raise JournalError(f"--public-key {text}: the file does not hold 64 hex digits")
    return given.lower()


def _is_key(text: str) -> bool:
    return len(text) == 64 and all(c in "0123456789abcdefABCDEF" for c in text)


def run(args) -> int:
    try:
        key = public_key_of(args.public_key) if args.public_key else None
        source = open_file(args.file)
        try:
            report = check(source, key)
            report.failures += verify_anchors.failures(args, source)
            report.key_from_file &= not args.key  # checked against the published key
        finally:
            source.close()
    except JournalError as err:
        print(f"mjtable verify: {err}", file=sys.stderr)
        return 2
    for line in report.failures:
        print(line)
    whose = "none" if report.key is None else f"{report.key[:16]}…"
    if report.key_from_file and report.key:
        whose += " (from the file itself: compare it with the table's published key)"
    counts = (
        f"{report.rows} rows, {report.hands} hands, {report.signatures} signatures, "
        f"{report.seals} seals checked; public key {whose}"
    )
    if report.dice:
        print(f"dice by hand: {', '.join(report.dice)}")
    if report.failures:
        print(f"{args.file}: {len(report.failures)} failures; {counts}", file=sys.stderr)
        return 1
    state = report.trail.state()
    if state is not None:
        print(f"{args.file}: {state}; nothing else found wrong: {counts}")
        return 3
    print(f"{args.file}: all good: {counts}")
    return 0
