"""`mjtable key show [--profile P] [--data-dir DIR] [--journal FILE]`: the table's device key,
published (issue 35). A journal's signatures prove only that someone with a key signed it; the
key to trust is the one the table's owner publishes before the day, which the venue pins
(firmware/venue/pins.py, from its enrolment list) and a referee or player compares with
`mjtable verify --key`. This prints its fingerprint (firmware/journal/device_key.py
`fingerprint`), the public key in hex and the file, never the private key; the same
fingerprint is on the referee view, the public view's footer, the selftest, the score sheet
and the table's status on the bus.

`--journal FILE`: the key beside that journal (the simulated table's, a test's). A table that
has never run has no key yet: said, exit 1, and none is made here. Exit 2: a key refused
(mode, garbled; firmware/journal/device_key.py says why).
"""

import sys
from pathlib import Path

from firmware import cli_args
from firmware.journal.device_key import DeviceKeyError, key_path, load
from firmware.table.profile import load_profile
from firmware.table.sessions import add_table_options, data_dir


def add_parser(commands) -> None:
    p = commands.add_parser("key")
    what = p.add_subparsers(dest="what", required=True, metavar="ACTION")
    show = what.add_parser("show", help="the device key's fingerprint and public key")
    add_table_options(show)
    show.add_argument(
        "--journal", type=cli_args.path, metavar="FILE", help="the key beside this journal"
    )
    show.set_defaults(run=run)


def table_key_path(profile, folder: str | None, journal: str | None = None) -> Path:
    """Where the table's key is: the profile's [journal] device_key, else beside `journal`,
    else in the sessions' folder (`folder`: --data-dir), beside the journals."""
    beside = Path(journal) if journal else data_dir(profile, folder) / "journal"
    return key_path(profile, beside)


def selftest_line(profile, folder: str | None) -> str:
    """The selftest's line naming the key (`mjtable selftest`'s header)."""
    path = table_key_path(profile, folder)
    if not path.exists():
        return f"device key: none yet at {path} (made at the first start)"
    try:
        return f"device key: {load(path).fingerprint} ({path})"
    except DeviceKeyError as err:
        return f"device key: refused: {err}"


def run(args) -> int:
    profile = load_profile(args.profile)  # refused by firmware/cli.py, exit 2
    path = table_key_path(profile, args.data_dir, args.journal)
    if not path.exists():
        print(
            f"mjtable key show: no device key at {path} yet: the table makes it at its first "
            "start (mjtable run)",
            file=sys.stderr,
        )
        return 1
    try:
        key = load(path)
    except DeviceKeyError as err:
        print(f"mjtable key show: {err}", file=sys.stderr)
        return 2
    print(f"fingerprint {key.fingerprint}")
    print(f"public_key {key.public_hex}")
    print(f"file {path}")
    return 0
