"""`mjtable verify FILE --anchors ANCHORS --key FINGERPRINT|FILE` (issue 35): the journal against
what others hold of it, so that its owner, who holds the journal and the device key, cannot
rewrite it after the fact.

- `--key`: the table's key as published (`mjtable key show`, the sheet, the referee view) or
  pinned by the venue (firmware/venue/pins.py): every HeadSigned must carry it. A journal
  signed again with a fresh key fails here, where its own key would pass.
- `--anchors`: the venue's anchors (`mjtable venue anchors export`, firmware/venue/
  anchors.py), every seal and signed head the venue received while the session was played.
  The journal must hold each of its session's anchors at its row: a head it lacks, another
  head (or seal) at an anchored row, or a journal that ends before the last anchor fails.
  So a hand cut out of the middle and the rest signed again with the table's own key, or a
  tail cut off, is caught by anyone who has the hall's file.

Each failure is one line naming the row, as the other checks of firmware/audit/verify.py.
"""

import json
import re
import time
from pathlib import Path

from firmware.journal.device_key import fingerprint
from firmware.journal.failures import JournalError

ANCHORS_FORMAT = "mjtable venue anchors 1"  # the export's "anchors" (firmware/venue/anchors.py)
FINGERPRINT = re.compile(r"SHA256:[0-9a-f]{64}")
PUBLIC_KEY = re.compile(r"\b[0-9a-fA-F]{64}\b")
ROWS_NAMED = 5  # of the rows signed by another key, the first named
ANCHORED = {"seal": ("WallSealed", "digest"), "head": ("HeadSigned", "head")}


def add_arguments(p) -> None:
    p.add_argument(
        "--anchors",
        metavar="FILE",
        help="the venue's anchors (mjtable venue anchors export): the journal must hold each "
        "seal and signed head of its session the venue received, and not end before them",
    )
    p.add_argument(
        "--key",
        metavar="FINGERPRINT_OR_FILE",
        help="the table's published or pinned key: SHA256:<64 hex>, or a file holding it or "
        "the public key (mjtable key show's output); every signature must be by that key",
    )


def failures(args, source) -> list[str]:
    """The lines of the checks asked for (none without --anchors and --key)."""
    if not (args.anchors or args.key):
        return []
    rows = {row.seq: row for row in source.rows()}
    found: list[str] = []
    if args.key:
        found += _key(rows, pinned_key(args.key))
    if args.anchors:
        session = getattr(source, "session_id", None)
        found += _anchors(rows, session, read_anchors(args.anchors))
    return found


def pinned_key(text: str) -> str:
    """The fingerprint given, or in the file named (a fingerprint, or a public key in hex)."""
    if FINGERPRINT.fullmatch(text.strip()):
        return text.strip()
    try:
        held = Path(text).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as err:
        problem = f"neither SHA256:<64 hex digits> nor a file ({err})"
        raise JournalError(f"--key {text}: {problem}") from None
    named = FINGERPRINT.search(held) or PUBLIC_KEY.search(held)
    if named is None:
        raise JournalError(f"--key {text}: the file holds no key fingerprint nor public key")
    value = named.group(0)
    return value if value.startswith("SHA256:") else fingerprint(value.lower())


def read_anchors(path: str) -> list[dict]:
    """The anchors of the venue's export at `path` (JournalError naming the problem)."""
    try:
        document = json.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, ValueError) as err:
        raise JournalError(f"--anchors {path}: cannot read it: {err}") from None
    if not isinstance(document, dict) or document.get("anchors") != ANCHORS_FORMAT:
        raise JournalError(f"--anchors {path}: not the venue's anchors ({ANCHORS_FORMAT})")
    anchors = document.get("rows")
    shape = {"session": str, "seq": int, "kind": str, "value": str}
    if not isinstance(anchors, list) or not all(
        isinstance(a, dict) and all(isinstance(a.get(k), t) for k, t in shape.items())
        for a in anchors
    ):
        raise JournalError(f"--anchors {path}: an anchor lacks its session, seq, kind or value")
    return anchors


def _event(row) -> dict:
    try:
        data = row.data()
    except ValueError:
        return {}
    return data if isinstance(data, dict) else {}


def _key(rows: dict, pinned: str) -> list[str]:
    signed = [(seq, _event(row)) for seq, row in rows.items() if row.kind == "device"]
    signed = [(seq, e) for seq, e in signed if e.get("type") == "HeadSigned"]
    if not signed:
        return [f"no signature in the journal to check against the key {pinned[:23]}…"]
    others: dict[str, list[int]] = {}
    for seq, event in signed:
        try:
            key = fingerprint(event.get("public_key", ""))
        except (TypeError, ValueError):
            key = "no key"
        if key != pinned:
            others.setdefault(key, []).append(seq)
    return [
        f"rows {', '.join(map(str, seqs[:ROWS_NAMED]))}{' …' if len(seqs) > ROWS_NAMED else ''}"
        f" ({len(seqs)} signatures): signed by {key[:23]}…, not the table's key {pinned[:23]}…"
        for key, seqs in others.items()
    ]


def _anchors(rows: dict, session: str | None, anchors: list[dict]) -> list[str]:
    if session is None:
        return ["the journal names no session: the venue's anchors cannot be matched to it"]
    mine = sorted((a for a in anchors if a["session"] == session), key=lambda a: a["seq"])
    if not mine:
        return [
            f"the anchors hold nothing of session {session[:40]!r}: a journal the venue never "
            "saw, or its session id changed"
        ]
    last = max(rows, default=0)
    held: dict[str, int] = {}  # value -> seq, to say where an anchored value went
    for seq, row in rows.items():
        event = _event(row)
        for kind, field in ANCHORED.values():
            if event.get("type") == kind and isinstance(event.get(field), str):
                held.setdefault(event[field], seq)
    found = [_anchor(rows.get(a["seq"]), a, held) for a in mine if a["seq"] <= last]
    beyond = [a for a in mine if a["seq"] > last]
    if beyond:
        end = beyond[-1]
        found.append(
            f"row {last}: the journal ends there, before {len(beyond)} of the venue's anchors "
            f"(the last of row {end['seq']}, received {_when(end.get('received'))}): "
            "rows were cut from its end"
        )
    return [line for line in found if line]


def _anchor(row, anchor: dict, held: dict) -> str | None:
    """The journal's row at an anchor's seq against it; the failure's line, or None."""
    kind, field = ANCHORED.get(anchor["kind"], ("?", "?"))
    event = _event(row) if row is not None else {}
    what = f"hand {anchor.get('hand')}'s signed head" if anchor["kind"] == "head" else "seal"
    where, value = anchor["seq"], anchor["value"]
    if event.get("type") == kind and event.get(field) == value:
        expected = anchor.get("key_fingerprint")
        if kind != "HeadSigned" or not expected:
            return None
        try:
            key = fingerprint(event.get("public_key", ""))
        except (TypeError, ValueError):
            key = "no key"
        if key == expected:
            return None
        return f"row {where}: {what} is signed by {key[:23]}…, the venue's by {expected[:23]}…"
    moved = held.get(value)
    instead = f" (it is at row {moved}: rows before it were added or removed)" if moved else ""
    return (
        f"row {where}: the venue anchored {what} {value[:12]}… here, received "
        f"{_when(anchor.get('received'))}; the journal holds another row{instead}"
    )


def _when(received) -> str:
    if not isinstance(received, int | float):
        return "at a time not said"
    return time.strftime("%Y-%m-%d %H:%M:%S UTC", time.gmtime(received))
