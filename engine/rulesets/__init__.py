"""Rule books: each is a package built from its config/rules/<name>.toml data.

A ruleset is constructed from the parsed TOML (a dict; the engine reads no files) and exposes
`name`, `title`, `flags` (the win flags its scorer knows) and `score(win) -> Score`. The
config's `[ruleset] engine` names the package, so one engine can serve several profiles.
"""

from typing import Protocol

from engine.scoring import Score, Win


class ConfigError(ValueError):
    """A ruleset or table profile entry that is missing, unknown or of the wrong type."""


class Ruleset(Protocol):
    name: str
    title: str
    flags: frozenset[str]

    def score(self, win: Win) -> Score: ...


def check_schema(data: dict, schema: dict, where: str = "") -> None:
    """Fail on the first missing, unknown or mistyped entry, naming it as `section.key`.

    A schema value is a type, a tuple of allowed values, or a nested schema dict.
    """
    if not isinstance(data, dict):
        raise ConfigError(f"[{where}] must be a table")
    for key in data:
        if key not in schema:
            raise ConfigError(f"unknown entry {where + '.' if where else ''}{key}")
    for key, expected in schema.items():
        path = f"{where}.{key}" if where else key
        if key not in data:
            raise ConfigError(f"missing entry {path}")
        value = data[key]
        if isinstance(expected, dict):
            check_schema(value, expected, path)
        elif isinstance(expected, tuple):
            if value not in expected:
                raise ConfigError(f"{path} = {value!r}: expected one of "
                                  f"{', '.join(map(repr, expected))}")
        elif expected is int and (isinstance(value, bool) or not isinstance(value, int)):
            raise ConfigError(f"{path} = {value!r}: expected a whole number")
        elif expected is float and (isinstance(value, bool)
                                    or not isinstance(value, (int, float))):
            raise ConfigError(f"{path} = {value!r}: expected a number")
        elif expected not in (int, float) and not isinstance(value, expected):
            raise ConfigError(f"{path} = {value!r}: expected {expected.__name__}")


def build(config: dict) -> Ruleset:
    """The ruleset a parsed config file describes."""
    from engine.rulesets import wsom2006
    engines = {"wsom2006": wsom2006.Wsom2006}
    section = config.get("ruleset") if isinstance(config, dict) else None
    name = section.get("engine") if isinstance(section, dict) else None
    if name not in engines:
        raise ConfigError(f"[ruleset] engine = {name!r}: expected one of "
                          f"{', '.join(sorted(engines))}")
    return engines[name](config)
