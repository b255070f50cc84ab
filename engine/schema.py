"""One checker for the TOML data the table runs on: rule books and table profiles.

A broken entry is refused at start-up, with the place it is at (file, [section], key), never
found later at the table. `Section` reads one section key by key, typed; `check_schema` walks
a whole declared schema with the same reads, so both speak the same words.
"""

from collections.abc import Callable
from os import PathLike, fspath
from typing import Final, TypeAlias


class ConfigError(ValueError):
    """A ruleset or table profile entry that is missing, unknown or of the wrong type."""


Test: TypeAlias = Callable[[object], bool]
Kind: TypeAlias = str | tuple[Test, str]  # a name of KINDS, or a caller's (test, expected words)
Schema: TypeAlias = dict[str, "Kind | Schema"]  # a nested dict is a nested section


def _is_int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _is_number(value: object) -> bool:
    return _is_int(value) or isinstance(value, float)


def _is_positive(value: object) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool) and value > 0


KINDS: Final[dict[str, tuple[Test, str]]] = {  # kind: (test, what the message says was expected)
    "int": (_is_int, "an integer"),
    "positive": (_is_positive, "a positive number"),
    "number": (_is_number, "a number"),
    "bool": (lambda v: isinstance(v, bool), "true or false"),
    "text": (lambda v: isinstance(v, str) and v.strip() != "", "a non-empty string"),
    "table": (lambda v: isinstance(v, dict), "a table"),
}
NUMBERS: Final = ("positive", "number")  # read as float: TOML's 2 and 2.0 mean the same here


def one_of(*values: object) -> tuple[Test, str]:
    """The kind of an entry that takes one of a few values."""
    return (lambda v: v in values), "one of " + ", ".join(map(repr, values))


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
            raise self.error("", f"expected {KINDS['table'][1]}, got {data!r}")
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
        """The value of `key`, checked to be of `kind`."""
        if key not in self.data:
            raise self.error(key, f"missing {self._entry}")
        self.used.add(key)
        value = self.data[key]
        test, expected = KINDS[kind] if isinstance(kind, str) else kind
        if not test(value):
            raise self.error(key, f"expected {expected}, got {value!r}")
        return float(value) if kind in NUMBERS else value

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
