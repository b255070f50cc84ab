"""The dice: electronic, from the operating system's cryptographic random source, or physical
dice whose result a sensor or the referee reports. Every roll records its source, so the
audit log can tell them apart (VENUE.md: rigged "program dice" are a known cheat)."""

import secrets
from dataclasses import dataclass


class DiceError(ValueError):
    """A reported roll that cannot be: the message says what is wrong."""


@dataclass(frozen=True)
class DiceRoll:
    values: tuple[int, ...]
    source: str  # "electronic" or "physical"

    @property
    def total(self) -> int:
        return sum(self.values)


class ElectronicDice:
    """Two dice from the OS's cryptographic source (secrets), never a seeded generator."""

    def __init__(self, count: int = 2, source=None):
        self.count = count
        self._random = source or secrets.SystemRandom()

    def roll(self) -> DiceRoll:
        return DiceRoll(tuple(self._random.randint(1, 6) for _ in range(self.count)), "electronic")


class PhysicalDice:
    """Dice under the dome; the result comes from the sensor or the referee."""

    def __init__(self, count: int = 2):
        self.count = count

    def report(self, values) -> DiceRoll:
        values = tuple(values)
        if len(values) != self.count:
            raise DiceError(f"a roll is {self.count} dice, not {len(values)}: {values}")
        if not all(isinstance(v, int) and not isinstance(v, bool) and 1 <= v <= 6 for v in values):
            raise DiceError(f"each die shows 1 to 6, not {values}")
        return DiceRoll(values, "physical")


@dataclass(frozen=True)
class DiceReport:
    """The dice sensor read a roll (physical dice)."""

    side: int
    values: tuple[int, ...]
