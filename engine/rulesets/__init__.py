"""Rule books: each is a package built from its config/rules/<name>.toml data.

A ruleset is constructed from the parsed TOML (a dict; the engine reads no files) and exposes
`name`, `title`, `flags` (the win flags its scorer knows) and `score(win) -> Score`. The
config's `[ruleset] engine` names the package, so one engine can serve several profiles.
"""

from dataclasses import dataclass, field
from typing import Protocol

from engine.scoring import Score, Win


class ConfigError(ValueError):
    """A ruleset or table profile entry that is missing, unknown or of the wrong type."""


@dataclass(frozen=True)
class TableRules:
    """What the hand state machine needs from a rule book besides its scorer."""

    stacks_per_side: int
    dead_wall: int
    flowers: bool
    two_roll_break: bool  # WSOM's 開門 (3.4) rather than one roll (4.4)
    start_offset: int  # A-C1
    chow_allowed: bool
    multiple_winners: bool  # A-W17 / A-C15
    kong_after_last_tile: bool  # A-W10
    auto_exemption: bool | None  # A-W3; None: the rule book has no follow-tile exemption
    dealer_repeats: bool = False  # CCM 4.11: a winning dealer keeps the deal
    start_chips: int | None = None  # CCM 4.13: chips each player starts a game with
    block_win_from_chipless: bool = False  # A-C14
    doubling_factor: int = 1  # A-C13: score changes while he continues
    final_draw_with_win_on_kong: bool = True  # A-W10
    refuse_false_win_quietly: bool = False  # A-W12 "assisted"
    heaven_cancelled_by_kong: bool = True  # A-W9
    earth_cancelled_by_call: bool = True
    timing: object = None  # engine.clocks.Timing
    penalties: object = None  # engine.penalties.Catalogue
    forfeit_threshold: int | None = None  # A-W15: time penalty points in a hand
    win_flags: dict = field(default_factory=dict)  # situation -> the scorer's flag name
    refs: dict = field(default_factory=dict)  # situation -> "RULES.md x.y"


class Ruleset(Protocol):
    name: str
    title: str
    flags: frozenset[str]
    table_rules: TableRules

    def score(self, win: Win) -> Score: ...

    def settle(self, table, chips: list[int], doubling: bool):
        """A finished hand's score changes per seat: (payments, penalties)."""

    def follow_exemption(self, discards, winner: int, robbed: bool) -> int | None:
        """Who pays for a discard win under the rule book's exemption (WSOM 1.3)."""

    def game_end(self, chips: list[int], deals_passed: int) -> str | None:
        """Why the game is over after a hand, or None (CCM 4.13)."""

    def win_banned(self, table, result) -> str:
        """Why this win may not be made now though it scores (CCM 4.13: it would end the
        game with the winner not first), or ""."""


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
                raise ConfigError(
                    f"{path} = {value!r}: expected one of {', '.join(map(repr, expected))}"
                )
        elif expected is int and (isinstance(value, bool) or not isinstance(value, int)):
            raise ConfigError(f"{path} = {value!r}: expected a whole number")
        elif expected is float and (isinstance(value, bool) or not isinstance(value, (int, float))):
            raise ConfigError(f"{path} = {value!r}: expected a number")
        elif expected not in (int, float) and not isinstance(value, expected):
            raise ConfigError(f"{path} = {value!r}: expected {expected.__name__}")


def build(config: dict) -> Ruleset:
    """The ruleset a parsed config file describes."""
    from engine.rulesets import ccm2012, wsom2006

    engines = {"wsom2006": wsom2006.Wsom2006, "ccm2012": ccm2012.Ccm2012}
    section = config.get("ruleset") if isinstance(config, dict) else None
    name = section.get("engine") if isinstance(section, dict) else None
    if name not in engines:
        raise ConfigError(
            f"[ruleset] engine = {name!r}: expected one of {', '.join(sorted(engines))}"
        )
    return engines[name](config)
