"""One checker for the TOML data the table runs on: rule books and table profiles.

A broken entry is refused at start-up, with the place it is at (file, [section], key), never
found later at the table. `Section` reads one section key by key, typed; `check_schema` walks
a whole declared schema with the same reads, so both speak the same words. A number is read
with its range (`whole`, `number`): a type alone let zero walls, an endless claim window and
negative payments through (issue 20 item 8).
"""

import reprlib
import sys
from collections.abc import Callable
from dataclasses import dataclass
from os import PathLike, fspath
from typing import Final, TypeAlias


class ConfigError(ValueError):
    """A ruleset or table profile entry that is missing, unknown, of the wrong type or out of
    its range."""


Test: TypeAlias = Callable[[object], bool]


def _is_int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


@dataclass(frozen=True)
class Range:
    """The kind of a number with its range: `low` to `high`, both included (more than `low`
    with `above`); an integer (`whole`), or any number, read as float (`number`)."""

    whole: bool
    low: float
    high: float
    above: bool = False

    def holds(self, value: object) -> bool:
        """Of the kind's type and within its range, so finite: TOML's nan and inf are no time,
        count or amount."""
        if not isinstance(value, int | float) or isinstance(value, bool):
            return False
        if self.whole and not isinstance(value, int):
            return False
        return (value > self.low if self.above else value >= self.low) and value <= self.high

    @property
    def words(self) -> str:
        """What a refusal says was expected: "an integer from 1 to 4"."""
        low, high = _figure(self.low), _figure(self.high)
        if self.whole:
            return f"an integer from {low} to {high}"
        return (
            f"a number over {low}, up to {high}" if self.above else f"a number from {low} to {high}"
        )


def _figure(value: float) -> str:
    return str(int(value)) if float(value).is_integer() else f"{value:g}"


def whole(low: int, high: int) -> Range:
    """The kind of an integer entry from `low` to `high`."""
    return Range(True, low, high)


def number(low: float, high: float, above: bool = False) -> Range:
    """The kind of a number entry from `low` (more than `low` with `above`) to `high`."""
    return Range(False, low, high, above)


KINDS: Final[dict[str, tuple[Test, str]]] = {  # kind: (test, what the message says was expected)
    "int": (_is_int, "an integer"),
    "positive": (number(0, sys.float_info.max, above=True).holds, "a positive number"),
    "number": (number(-sys.float_info.max, sys.float_info.max).holds, "a number"),
    "bool": (lambda v: isinstance(v, bool), "true or false"),
    "text": (lambda v: isinstance(v, str) and v.strip() != "", "a non-empty string"),
    "table": (lambda v: isinstance(v, dict), "a table"),
}
NUMBERS: Final = ("positive", "number")  # read as float: TOML's 2 and 2.0 mean the same here


Kind: TypeAlias = str | tuple[Test, str] | Range  # a name of KINDS, a caller's (test, words)
Schema: TypeAlias = dict[str, "Kind | Schema"]  # a nested dict is a nested section


def one_of(*values: object) -> tuple[Test, str]:
    """The kind of an entry that takes one of a few values."""
    return (lambda v: v in values), "one of " + ", ".join(map(repr, values))


def list_of(item: Range, shortest: int, longest: int, what: str) -> tuple[Test, str]:
    """The kind of a list of `shortest` to `longest` numbers (`what`), each in `item`'s range."""
    count = str(shortest) if shortest == longest else f"{shortest} to {longest}"
    return (
        lambda v: isinstance(v, list) and shortest <= len(v) <= longest and all(map(item.holds, v)),
        f"a list of {count} {what}, each {item.words}",
    )


def shown(value: object) -> str:
    """A value as a refusal quotes it: short, however long or deeply nested it is."""
    return _SHOWN.repr(value)


_SHOWN = reprlib.Repr()
_SHOWN.maxlevel, _SHOWN.maxstring, _SHOWN.maxother = 3, 40, 40


class Section:
    """One [section] of a config: typed reads that remember which keys were used.

    `name` is dotted for a nested section ("readers.zones"); "" is the file's top level,
    whose keys are sections. Errors are of class `error`, prefixed with `origin` (the file).
    """

    def __init__(
        self,
        data: object,
        name: str,
        origin: str | PathLike[str] = "",
        error: type[Exception] = ConfigError,
    ) -> None:
        self.name, self.origin, self._error = name, fspath(origin), error
        self.used: set[str] = set()
        if not isinstance(data, dict):
            raise self.error("", f"expected {KINDS['table'][1]}, got {shown(data)}")
        self.data: dict = data

    def error(self, key: str, problem: str) -> Exception:
        """The refusal of `key` (or of the whole section, key ""), naming where it is."""
        if self.name:
            place = f"[{self.name}] {key}" if key else f"[{self.name}]"
        else:
            place = f"[{key}]" if key else ""
        where = ": ".join(part for part in (self.origin, place) if part)
        return self._error(f"{where}: {problem}" if where else problem)

    def get(self, key: str, kind: Kind):
        """The value of `key`, checked to be of `kind` (and within its range)."""
        if key not in self.data:
            raise self.error(key, f"missing {self._entry}")
        self.used.add(key)
        value = self.data[key]
        if isinstance(kind, Range):
            test: Test
            test, expected, as_float = kind.holds, kind.words, not kind.whole
        else:
            test, expected = KINDS[kind] if isinstance(kind, str) else kind
            as_float = kind in NUMBERS
        if not test(value):
            raise self.error(key, f"expected {expected}, got {shown(value)}")
        return float(value) if as_float else value

    def section(self, key: str) -> "Section":
        """The nested section `key`, named `name.key`."""
        name = f"{self.name}.{key}" if self.name else key
        return Section(self.get(key, "table"), name, self.origin, self._error)

    def done(self) -> None:
        """Refuse the first key that was never read: a typo must not pass as a default."""
        unknown = sorted(set(self.data) - self.used)
        if unknown:
            known = ", ".join(sorted(self.used))
            raise self.error(unknown[0], f"unknown {self._entry} (known: {known})")

    @property
    def _entry(self) -> str:
        return "key" if self.name else "section"


def check_schema(data: object, schema: Schema, where: str = "") -> None:
    """Fail on the first missing, mistyped or unknown entry of `data`, the section `where`.

    A schema value is a kind (see `Section.get`) or a nested schema dict.
    """
    _check(Section(data, where), schema)


def _check(section: Section, schema: Schema) -> None:
    for key, expected in schema.items():
        if isinstance(expected, dict):
            _check(section.section(key), expected)
        else:
            section.get(key, expected)
    section.done()
