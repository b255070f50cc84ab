"""The referees enrolled at a table (issue 19): `mjtable referee add NAME` sets a referee's own
secret, `referee list` names them, `referee remove NAME` takes one away.

Each secret is kept as a salted scrypt hash (hashlib.scrypt, a random salt from `secrets`, the
cost parameters beside the hash so they can be raised later), never as the secret itself, in
the data directory's referees file (JSON, mode 0600, replaced atomically: a table that loses
power mid-write keeps the old file whole; written by root, it is given to the data directory's
owner, the service's user). A secret is a PIN of 6 digits or more or a
passphrase of 10 characters or more (display/auth.py's secret_problem), never the shipped PIN.

The display (firmware/web/auth.py) lets an enrolled referee in by his name and his secret,
one hash a try (issue 32 item 3: a try against every record cost one hash per referee), and
names him on his session; with no referee enrolled, the profile's [display] referee_pin, as
before. It reads the file again whenever it changed, so a referee added or removed, or a
new secret, counts without a restart: his sessions and their open streams end.
"""

from __future__ import annotations

import getpass
import hashlib
import hmac
import json
import os
import re
import secrets
import sys
import tempfile
import time
from pathlib import Path

from firmware.table.profile import Profile, load_profile
from firmware.table.sessions import add_table_options, data_dir
from firmware.web.auth import SHIPPED_REFEREE_PIN, secret_problem

FILE = "referees.json"
SCRYPT = {"n": 2**14, "r": 8, "p": 1}  # scrypt paper: interactive logins (16 MiB, 60 ms on x86)
SALT_BYTES = 16
KEY_BYTES = 32
NAME = re.compile(r"[^\s\x00-\x1f\x7f][^\x00-\x1f\x7f]{0,39}")  # printable, 1..40, no lead space
# Hashed for a name nobody has, so that a try costs the same whether the name is enrolled.
DECOY = {"scheme": "scrypt", **SCRYPT, "salt": "00" * SALT_BYTES, "hash": "00" * KEY_BYTES}


class RefereeError(ValueError):
    """A name or a secret refused, or a referees file that cannot be read or written."""


def referees_file(profile: Profile, override: str | None = None) -> Path:
    """The referees file of the table: in its data directory (firmware/table/sessions.py)."""
    return data_dir(profile, override) / FILE


def hashed(secret: str) -> dict:
    """The record kept for `secret`: scrypt's output, its random salt, its cost parameters."""
    salt = secrets.token_bytes(SALT_BYTES)
    return {
        "scheme": "scrypt",
        **SCRYPT,
        "salt": salt.hex(),
        "hash": _scrypt(secret, salt, SCRYPT).hex(),
    }


def _scrypt(secret: str, salt: bytes, cost: dict) -> bytes:
    return hashlib.scrypt(
        secret.encode("utf-8", "surrogatepass"),
        salt=salt,
        n=cost["n"],
        r=cost["r"],
        p=cost["p"],
        maxmem=2**26,
        dklen=KEY_BYTES,
    )


def matches(record: dict, secret: str) -> bool:
    """Whether `secret` is the one `record` was made from (a constant-time compare)."""
    cost = {key: record[key] for key in SCRYPT}
    key = _scrypt(secret, bytes.fromhex(record["salt"]), cost)
    return hmac.compare_digest(key, bytes.fromhex(record["hash"]))


def _check(entry: dict) -> None:
    """Raise if `entry` is not a referee's record as `add` writes it."""
    float(entry["set"])
    record = entry["secret"]
    for key in ("salt", "hash"):
        bytes.fromhex(record[key])
    if record["scheme"] != "scrypt" or not all(isinstance(record[k], int) for k in SCRYPT):
        raise ValueError("not scrypt")


class Referees:
    """The referees file at `path`, read again whenever it changed."""

    def __init__(self, path: Path):
        self.path = Path(path)
        self._read: tuple[tuple, dict[str, dict]] | None = None  # (file version, referees)

    def load(self) -> dict[str, dict]:
        """name -> {"set": when, "secret": the hashed record}; {} without a file. Read again
        only when the file changed (another inode, size or time: `add` and `remove` replace
        it), as sessions are checked at every update of a stream."""
        try:
            seen = self.path.stat()
        except FileNotFoundError:
            return {}
        except OSError as err:
            raise RefereeError(f"{self.path}: {err.strerror}") from None
        version = (seen.st_ino, seen.st_size, seen.st_mtime_ns)
        if self._read is None or self._read[0] != version:
            self._read = (version, self._parsed())
        return dict(self._read[1])

    def _parsed(self) -> dict[str, dict]:
        try:
            text = self.path.read_text(encoding="utf-8")
        except FileNotFoundError:
            return {}
        except OSError as err:
            raise RefereeError(f"{self.path}: {err.strerror}") from None
        try:
            data = json.loads(text)
            referees = data["referees"]
            for entry in referees.values():
                _check(entry)
        except (ValueError, KeyError, TypeError, AttributeError) as err:
            raise RefereeError(f"{self.path}: not a referees file ({err!r})") from None
        return referees

    def is_secret_of(self, name: str, secret: str, enrolled: dict[str, dict]) -> bool:
        """Whether `secret` is the enrolled referee `name`'s (of `enrolled`, as load gave it):
        one hash, a decoy's for a name not enrolled, so the time taken does not tell."""
        entry = enrolled.get(name)
        right = matches(entry["secret"] if entry else DECOY, secret)
        return right and entry is not None

    def add(self, name: str, secret: str) -> None:
        """Set `name`'s secret (a new referee, or a new secret for one already enrolled)."""
        if not NAME.fullmatch(name):
            raise RefereeError(
                f"{name!r} is not a referee's name: 1 to 40 printable characters, not "
                "starting with a space"
            )
        if secret == SHIPPED_REFEREE_PIN:
            raise RefereeError(
                f"the shipped PIN {SHIPPED_REFEREE_PIN} is known to everyone: choose your own"
            )
        problem = secret_problem(secret)
        if problem:
            raise RefereeError(problem)
        referees = self.load()
        referees[name] = {"set": time.time(), "secret": hashed(secret)}
        self._write(referees)

    def remove(self, name: str) -> None:
        referees = self.load()
        if name not in referees:
            raise RefereeError(f"no referee {name!r} is enrolled ({self._names(referees)})")
        del referees[name]
        self._write(referees)

    @staticmethod
    def _names(referees: dict) -> str:
        return "enrolled: " + ", ".join(sorted(referees)) if referees else "none is"

    def _write(self, referees: dict) -> None:
        """Written beside the file, fsynced, then renamed over it (atomic), mode 0600."""
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            folder = self.path.parent.stat()
            fd, temporary = tempfile.mkstemp(prefix=f".{FILE}.", dir=self.path.parent)
            try:
                with os.fdopen(fd, "w", encoding="utf-8") as out:  # mkstemp's mode is 0600
                    json.dump({"referees": referees}, out, indent=1, sort_keys=True)
                    out.flush()
                    os.fsync(out.fileno())
                if os.geteuid() == 0:  # sudo mjtable referee add: the service's user reads it
                    os.chown(temporary, folder.st_uid, folder.st_gid)
                os.replace(temporary, self.path)
            except BaseException:
                Path(temporary).unlink(missing_ok=True)
                raise
        except OSError as err:
            raise RefereeError(f"{self.path}: {err.strerror}") from None


def add_parser(commands) -> None:
    p = commands.add_parser("referee")
    verbs = p.add_subparsers(dest="verb", required=True, metavar="VERB")
    for verb, text in (
        ("add", "set a referee's secret (asked twice); a new one replaces his old one"),
        ("list", "name the enrolled referees and when each secret was set"),
        ("remove", "take a referee's secret away"),
    ):
        v = verbs.add_parser(verb, help=text)
        if verb != "list":
            v.add_argument("name", metavar="NAME", help="the referee's name, as journaled")
        if verb == "add":
            v.add_argument(
                "--secret-stdin",
                action="store_true",
                help="read the secret from standard input, one line (scripts), not asked twice",
            )
        add_table_options(v)
        v.set_defaults(run=run)


def _secret(args) -> str:
    if args.secret_stdin:
        return sys.stdin.readline().rstrip("\r\n")
    first = getpass.getpass(f"{args.name}'s secret (a PIN of 6+ digits or 10+ characters): ")
    if getpass.getpass("the same again: ") != first:
        raise RefereeError("the two secrets differ: nothing was changed")
    return first


def run(args) -> int:
    profile = load_profile(args.profile)  # refused by firmware/cli.py, exit 2
    referees = Referees(referees_file(profile, args.data_dir))
    try:
        if args.verb == "list":
            enrolled = referees.load()
            for name, entry in sorted(enrolled.items()):
                when = time.strftime("%Y-%m-%d %H:%M", time.localtime(entry["set"]))
                print(f"{name}  secret set {when}")
            if not enrolled:
                print(
                    f"no referee enrolled in {referees.path}: the profile's [display] "
                    "referee_pin opens the referee's display (mjtable referee add NAME)"
                )
        elif args.verb == "add":
            referees.add(args.name, _secret(args))
            print(f"{args.name}: secret set in {referees.path}")
        else:
            referees.remove(args.name)
            print(f"{args.name}: removed from {referees.path}")
    except (RefereeError, EOFError) as err:
        print(f"mjtable referee {args.verb}: {err or 'no secret given'}", file=sys.stderr)
        return 2
    return 0
