"""Argument types shared by the `mjtable` commands, and the one `--profile` option.

argparse turns an ArgumentTypeError into `error: argument --x: <message>` and exit 2, but a
bare ValueError into "invalid _name value": so each type names the problem in its message.
Counts have a ceiling, so a mistyped one is refused rather than run for days (or for ever).
"""

import argparse
import math

MAX_HANDS = 100_000  # a day at a table is some 50 hands; a simulated soak some thousands
MAX_SEED = 10**18 - 1


def hands(text: str) -> int:
    """A number of hands, 1 to MAX_HANDS."""
    return whole(text, 1, MAX_HANDS, "a whole number of hands")


def seed(text: str) -> int:
    """The seed of the simulated shuffles and players: any whole number of up to 18 digits."""
    return whole(text, -MAX_SEED, MAX_SEED, "a seed, a whole number,")


def seat_chips(text: str) -> tuple[int, ...]:
    """The chips of the four compass seats, E,S,W,N: whole numbers from 0 (CCM 4.13)."""
    parts = text.split(",")
    if len(parts) != 4:
        shown = text if len(text) <= 40 else text[:40] + "..."
        raise argparse.ArgumentTypeError(
            f"four chip counts E,S,W,N such as 100,60,140,100, not {shown!r}"
        )
    return tuple(whole(part.strip(), 0, 10_000, "a seat's chips,") for part in parts)


def whole(text: str, low: int, high: int, what: str) -> int:
    """A whole number from `low` to `high` (`what` names it in the message)."""
    shown = text if len(text) <= 20 else text[:20] + "..."
    try:
        value = int(text) if len(text) <= 20 else None
    except ValueError:
        value = None
    if value is None or not low <= value <= high:
        raise argparse.ArgumentTypeError(f"{what} from {low} to {high}, not {shown!r}")
    return value


def number(text: str, low: float, high: float, what: str, low_open: bool = False) -> float:
    """A finite number from `low` (excluded if `low_open`) to `high`: nan and inf never pass."""
    try:
        value = float(text) if len(text) <= 40 else math.nan
    except ValueError:
        value = math.nan
    above = value > low if low_open else value >= low
    if not (math.isfinite(value) and above and value <= high):
        bounds = f"above {low:g} and at most {high:g}" if low_open else f"from {low:g} to {high:g}"
        shown = text if len(text) <= 40 else text[:40] + "..."
        raise argparse.ArgumentTypeError(f"{what}: a number {bounds}, not {shown!r}")
    return value


def path(text: str) -> str:
    """A file's path or a name: never empty (an empty one would quietly mean the default)."""
    if not text.strip():
        raise argparse.ArgumentTypeError("an empty path: give a file's path or a name")
    return text


def profile_option(parser) -> None:
    """`--profile`: the table profile a command works on, the simulated table's by default."""
    parser.add_argument(
        "--profile",
        type=path,
        default="sim",
        help="table profile: a name in config/tables/ or a TOML file (default sim; on a table "
        "/etc/mjtable/table.toml)",
    )
