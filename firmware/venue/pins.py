"""Each table's device key pinned at the venue (issue 35), as ssh pins a host's key.

A table signs its journal with its device key (firmware/journal/device_key.py); a journal
signed again with a fresh key verifies as well as the true one, unless the key to trust is
known beforehand. The venue knows it: the organiser's enrolment list (`mjtable venue
--enrolment FILE`: each table's name and key fingerprint) pins it before the day, and a table
not listed is pinned on first sight, from its `status` on the bus or the first HeadSigned it
sends. Pins are kept on the venue's disk (the records file, firmware/venue/anchors.py), so a
restart of the venue keeps them. A table whose key then differs raises an alarm on the
organiser's dashboard; the pin stays, so every later signature of the other key is out too.
A key replaced on purpose (a new SD card) is pinned again by listing it in the enrolment.

The enrolment list is CSV with a header `table,key_fingerprint`, or JSON: a list of
{"table", "key_fingerprint"} or an object of table to fingerprint.
"""

import csv
import io
import json
import re
import sqlite3
import time
from collections.abc import Callable
from pathlib import Path

from firmware.journal.device_key import fingerprint

FINGERPRINT = re.compile(r"SHA256:[0-9a-f]{64}")  # device_key.fingerprint's form
FIRST_SIGHT, ENROLMENT = "first sight", "enrolment"


class EnrolmentError(ValueError):
    """An enrolment list the venue cannot use; the message names the file and the entry."""


def read_enrolment(path: str | Path) -> dict[str, str]:
    """The enrolment list at `path`: table -> key fingerprint."""
    try:
        text = Path(path).read_text(encoding="utf-8-sig")
    except (OSError, UnicodeDecodeError) as err:
        raise EnrolmentError(f"{path}: cannot read the enrolment list ({err})") from None
    if text.lstrip().startswith(("[", "{")):
        try:
            data = json.loads(text)
        except ValueError as err:
            raise EnrolmentError(f"{path}: not JSON ({err})") from None
        pairs = list(data.items()) if isinstance(data, dict) else data
        if isinstance(data, list):
            pairs = [
                (e.get("table"), e.get("key_fingerprint")) if isinstance(e, dict) else (e, None)
                for e in data
            ]
    else:
        reader = csv.DictReader(io.StringIO(text))
        if not {"table", "key_fingerprint"} <= set(reader.fieldnames or ()):
            raise EnrolmentError(f"{path}: a CSV enrolment list's header is table,key_fingerprint")
        pairs = [(r["table"], r["key_fingerprint"]) for r in reader]
    listed: dict[str, str] = {}
    for number, (table, key) in enumerate(pairs, 1):
        if not isinstance(table, str) or not table.strip():
            raise EnrolmentError(f"{path}: entry {number} names no table")
        if not isinstance(key, str) or not FINGERPRINT.fullmatch(key.strip()):
            raise EnrolmentError(
                f"{path}: table {table[:40]!r}: the key fingerprint is not SHA256: and 64 hex "
                "digits (`mjtable key show` on the table prints it)"
            )
        listed[table.strip()] = key.strip()
    return listed


class KeyPins:
    """The pins kept in `conn` (firmware/venue/anchors.py open_records)."""

    def __init__(self, conn: sqlite3.Connection, clock: Callable[[], float] = time.time):
        self.conn, self.clock = conn, clock
        self.alarmed: set[tuple[str, str, str]] = set()  # (table, key, session) said

    def enrol(self, listed: dict[str, str]) -> None:
        """The organiser's list pins its tables' keys, over any pinned before."""
        self.conn.executemany(
            "INSERT OR REPLACE INTO pins VALUES (?, ?, ?, ?)",
            [(table, key, ENROLMENT, self.clock()) for table, key in listed.items()],
        )

    def pinned(self, table: str) -> tuple[str, str, float] | None:
        """(fingerprint, source, when) of `table`'s pin, if it has one."""
        return self.conn.execute(
            "SELECT key_fingerprint, source, pinned FROM pins WHERE table_name = ?", (table,)
        ).fetchone()

    def seen(self, table: str, key: str, session: str) -> str | None:
        """`table` shows the key `key` (a fingerprint) in `session`: pinned if it has no pin;
        the alarm's text if it differs from the pin (once for each other key and session: a
        new session clears the dashboard's alerts, not this)."""
        pin = self.pinned(table)
        if pin is None:
            self.conn.execute(
                "INSERT INTO pins VALUES (?, ?, ?, ?)", (table, key, FIRST_SIGHT, self.clock())
            )
            return None
        if pin[0] == key or (table, key, session) in self.alarmed:
            return None
        self.alarmed.add((table, key, session))
        when = time.strftime("%Y-%m-%d %H:%M", time.localtime(pin[2]))
        return (
            f"table {table}: its device key changed: pinned {pin[0][:23]}… ({pin[1]}, {when}), "
            f"now {key[:23]}…; what it signs with the new key is not the pinned table's: keep "
            "its journal, check the table; a key replaced on purpose is pinned by the enrolment"
        )

    def head(self, table: str, event: dict, session: str) -> str | None:
        """A HeadSigned row's key, as `seen`."""
        try:
            key = fingerprint(event["public_key"])
        except (KeyError, TypeError, ValueError):
            return None
        return self.seen(table, key, session)
