"""Seeded mutants of the four shipped configs (issue 20 item 8).

A mutant is config/rules/wsom2006.toml, config/rules/ccm2012.toml, config/tables/sim.toml or
config/tables/reference-pi.toml with one change a person at a keyboard or a bad disk makes: a
number set to 0, negative, huge, nan or inf, a float for an integer, a string, a list or a
table for a number, a list of the wrong length, an option flipped, a key deleted, unknown or
written twice, a section renamed, the file cut short, bytes that are not UTF-8, values nested
deeper than any config. Loading a mutant gives a config, or a ConfigError of one line naming
the file; nothing else. An accepted rule book plays a hand to its end within INPUTS_PER_HAND
inputs; an accepted profile builds its devices on simulated pins, and in the slow campaign an
accepted simulated table whose numbers changed plays a hand.
"""

import contextlib
import random
import re
import shutil
import subprocess
import sys
import time
import traceback
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

import pytest

from drivers.sim.pins import SimulatedGPIO
from engine.schema import ConfigError
from firmware.resources import config_dir, load_ruleset
from firmware.sim.simulate import Game
from firmware.table.assembly import build_devices
from firmware.table.profile import ProfileError, check_listener, load_profile

SHIPPED = {
    "wsom2006": config_dir() / "rules" / "wsom2006.toml",
    "ccm2012": config_dir() / "rules" / "ccm2012.toml",
    "sim": config_dir() / "tables" / "sim.toml",
    "reference-pi": config_dir() / "tables" / "reference-pi.toml",
}
RULE_BOOKS = ("wsom2006", "ccm2012")
INPUTS_PER_HAND = 3000  # a hand takes some 250-350 inputs; ten times that never ends
PTYS = ("/tmp/zones-pty", "/tmp/stacker-pty")  # handed to the readers, never opened

# key = value, the value a string, a one-line list or a bare word (never an inline table)
ENTRY = re.compile(r'[\w"][\w".-]*[ \t]*=[ \t]*("[^"\n]*"|\[[^\]\n]*\]|[^\s,{}\[\]#"]+)')
NUMBER = re.compile(r"[+-]?\d[\d_]*(\.\d+)?([eE][+-]?\d+)?|[+-]?(nan|inf)")
HEADER = re.compile(r"^\[[^\]\n]+\]", re.M)
NOT_UTF8 = (b"\xff", b"\x80", b"\xc3\x28", b"\xed\xa0\x80", b"\xe2\x82", b"\x00")


class HandNeverEnds(Exception):
    pass


@dataclass(frozen=True)
class Mutant:
    source: str  # a name of SHIPPED
    change: str  # what was done, said in a failure
    data: bytes
    numbers_changed: bool  # a number was set to another number: the ranges' own case


def code_only(text: str) -> str:
    """`text` with its comments blanked, so that entries are found only in code."""
    lines = []
    for line in text.split("\n"):
        quoted, cut = False, len(line)
        for i, char in enumerate(line):
            if char == '"':
                quoted = not quoted
            elif char == "#" and not quoted:
                cut = i
                break
        lines.append(line[:cut] + " " * (len(line) - cut))
    return "\n".join(lines)


def new_value(rng: random.Random, value: str, strings: list[str]) -> tuple[str, bool]:
    """Another value for an entry, and whether it is still a number."""
    if NUMBER.fullmatch(value):
        if rng.random() < 0.35:  # near the shipped value: mostly accepted, so played
            x = float(value)
            near = [x + 1, x - 1, 2 * x, x / 2] if x == int(x) and "." not in value else []
            other = [f"{int(v)}" for v in near] or [f"{x * 2}", f"{x / 2}", f"{x + 0.1:.2f}"]
            return rng.choice(other), True
        if rng.random() < 0.6:
            other = ["0", "-1", f"-{value.lstrip('+-')}", "1e400", "inf", "-inf", "nan"]
            other += ["9223372036854775807", "123456789012345678901234567890", "1e-9"]
            other += [f"{float(value) + 0.5}", f"{float(value) * 1000:g}"]
            return rng.choice(other), True
        other = [f'"{value}"', "{ value = 1 }", f"[{value}]", "[]", "true", "1979-05-27"]
        return rng.choice(other), False
    if value.startswith("["):
        items = [item for item in value[1:-1].split(",") if item.strip()]
        return rng.choice(
            [
                f"[{', '.join(items[:-1])}]",
                f"[{', '.join([*items, items[-1] if items else '1'])}]",
                f"[{', '.join([*items[:-1], '-5'])}]",
                f"[{', '.join([*items[:-1], '99999999999'])}]",
                f"[{', '.join([*items[:-1], '2.5'])}]",
                f"[{', '.join([*items[:-1], 'nan'])}]",
                f"[{value}]",
                '["x"]',
                items[0] if items else "1",
            ]
        ), False
    if value in ("true", "false"):
        return rng.choice(["false" if value == "true" else "true", "1", '"true"']), False
    return rng.choice([*strings, '""', '"x"', "1", "[]"]), False


def mutate(source: str, rng: random.Random) -> Mutant:
    """One change to the shipped file `source`, drawn from `rng`."""
    text = SHIPPED[source].read_text(encoding="utf-8")
    data = text.encode()
    entries = list(ENTRY.finditer(code_only(text)))
    numbers = [e for e in entries if NUMBER.fullmatch(e.group(1))]
    strings = sorted({e.group(1) for e in entries if e.group(1).startswith('"')})
    kind = rng.choices(
        ["number", "value", "delete", "unknown", "twice", "section", "cut", "bytes", "deep"],
        weights=[45, 15, 10, 5, 4, 3, 6, 6, 6],
    )[0]
    entry = rng.choice(numbers if kind == "number" else entries)
    line = text.count("\n", 0, entry.start()) + 1
    start, end = entry.span(1)
    said = f"line {line}: {entry.group(0)!r}"
    if kind in ("number", "value"):
        value, still_a_number = new_value(rng, entry.group(1), strings)
        new = text[:start] + value + text[end:]
        return Mutant(source, f"{said} -> {value!r}", new.encode(), still_a_number)
    if kind == "delete":
        after = re.match(r"[ \t]*,[ \t]*", text[entry.end() :])
        stop = entry.end() + (after.end() if after else 0)
        return Mutant(
            source, f"{said} deleted", (text[: entry.start()] + text[stop:]).encode(), False
        )
    if kind == "unknown":
        at = rng.choice([m.end() for m in HEADER.finditer(text)])
        new = text[:at] + "\ncolour = 1" + text[at:]
        return Mutant(
            source, f"unknown key after line {text.count(chr(10), 0, at) + 1}", new.encode(), False
        )
    if kind == "twice":
        new = text[: entry.end()] + ", " + entry.group(0) + text[entry.end() :]
        if text[: entry.start()].endswith("\n") or entry.start() == 0:
            new = text[: entry.end()] + "\n" + entry.group(0) + text[entry.end() :]
        return Mutant(source, f"{said} twice", new.encode(), False)
    if kind == "section":
        header = rng.choice(list(HEADER.finditer(text)))
        new = text[: header.end() - 1] + "_x]" + text[header.end() :]
        return Mutant(source, f"{header.group(0)} renamed", new.encode(), False)
    if kind == "cut":
        at = rng.randrange(len(data))
        return Mutant(source, f"cut after byte {at}", data[:at], False)
    if kind == "bytes":
        at, bad = rng.randrange(len(data) + 1), rng.choice(NOT_UTF8)
        return Mutant(source, f"{bad!r} at byte {at}", data[:at] + bad + data[at:], False)
    depth = rng.choice([3, 50, 400, 1000, 100_000])
    nested = rng.choice(["[" * depth + "1" + "]" * depth, "{ a = " * depth + "1" + " }" * depth])
    new = text[:start] + nested + text[end:]
    return Mutant(source, f"{said} -> nested {depth} deep", new.encode(), False)


def mutants(count: int, seed: int):
    """`count` mutants, the four files in turn, each drawn from its own seeded generator."""
    names = list(SHIPPED)
    for n in range(count):
        yield mutate(names[n % len(names)], random.Random(f"mutant-{seed}-{n}"))


def play_one_hand(ruleset, seed: int) -> int:
    """Play one hand of simulated players under `ruleset` (a few of their mistakes included,
    so that the offences are used); the inputs it took. HandNeverEnds past INPUTS_PER_HAND."""
    game = Game(ruleset, seed, 0.05)
    apply, inputs = game.apply, [0]

    def counted(table, event):
        inputs[0] += 1
        if inputs[0] > INPUTS_PER_HAND:
            raise HandNeverEnds(f"no end after {INPUTS_PER_HAND} inputs (state {table.state})")
        return apply(table, event)

    game.apply = counted
    game.play_hand()
    return inputs[0]


def build_on_simulated_pins(profile) -> None:
    """Build the profile's devices as the simulated table does; its listener is checked too,
    and refused or not, cleanly, the devices are built either way."""
    with contextlib.suppress(ProfileError):
        check_listener(profile)
    build_devices(
        profile,
        load_ruleset(profile.ruleset),
        lambda: 0.0,
        lambda record: None,
        lambda path: lambda record: None,
        gpio=SimulatedGPIO(),
        reader_paths=PTYS,
    )


def play_at_the_simulated_table(path: Path, folder: Path) -> str:
    """`mjtable run --hands 1` on the profile at `path`: "" when the hand ended, else why."""
    journal = folder / f"{path.stem}.sqlite"
    command = [sys.executable, "-m", "firmware.cli", "run", "--profile", str(path)]
    command += ["--hands", "1", "--port", "0", "--speed", "10000", "--journal", str(journal)]
    try:
        done = subprocess.run(command, capture_output=True, text=True, timeout=120, cwd=folder)
    except subprocess.TimeoutExpired:
        return "no hand ended within 120 s"
    return "" if done.returncode == 0 else f"exit {done.returncode}: {done.stderr[-500:]}"


def campaign(count: int, seed: int, folder: Path, tables: bool = False) -> tuple[Counter, list]:
    """Load `count` mutants; play or build each accepted one. The figures, and the failures
    (a traceback, an unclear refusal, a hand that never ends), each naming its mutant."""
    shutil.copy(SHIPPED["sim"].parent / "sim-tags.csv", folder)  # the profiles' registry
    figures: Counter = Counter()
    failures = []
    for n, mutant in enumerate(mutants(count, seed)):
        path = folder / f"{mutant.source}-{n}.toml"
        path.write_bytes(mutant.data)
        rule_book = mutant.source in RULE_BOOKS
        try:
            loaded = load_ruleset(str(path)) if rule_book else load_profile(path)
        except ConfigError as refused:
            message = str(refused)
            if "\n" in message or not message.startswith(str(path)) or len(message) > 1000:
                failures.append(f"{mutant.source} {mutant.change}: unclear refusal {message!r}")
            figures["rejected"] += 1
            continue
        except Exception:
            failures.append(f"{mutant.source} {mutant.change}: {traceback.format_exc()}")
            continue
        figures["accepted"] += 1
        try:
            if rule_book:
                figures["inputs"] += play_one_hand(loaded, n)
                figures["hands"] += 1
            else:
                build_on_simulated_pins(loaded)
                figures["built"] += 1
                if tables and loaded.simulated and mutant.numbers_changed:
                    problem = play_at_the_simulated_table(path, folder)
                    if problem:
                        failures.append(f"{mutant.source} {mutant.change}: {problem}")
                    figures["table hands"] += 1
        except Exception:
            failures.append(f"{mutant.source} {mutant.change}: {traceback.format_exc()}")
    return figures, failures


@pytest.mark.parametrize(
    "source, old, new, expected",
    [
        ("ccm2012", "flowers = true", "flowers = false", "expected 17 for the 136 tiles of a set"),
        ("wsom2006", "stacks_per_side = 17", "stacks_per_side = 18", "expected 17 for the 136"),
        ("wsom2006", "stacks_per_side = 17", "stacks_per_side = 0", "expected an integer from 17"),
    ],
    ids=["flowers taken out", "a stack too many", "no walls"],
)
def test_walls_that_do_not_hold_the_tile_set_are_refused(tmp_path, source, old, new, expected):
    """Issue 20 item 8: four walls of two-tile stacks hold the set, 136 tiles or 144 with the
    flowers; other walls stopped the first hand (zero walls crashed it)."""
    path = tmp_path / f"{source}.toml"
    path.write_text(SHIPPED[source].read_text(encoding="utf-8").replace(old, new, 1))
    with pytest.raises(ConfigError) as refused:
        load_ruleset(str(path))
    assert str(refused.value).startswith(f"{path}: [wall] stacks_per_side: {expected}")


def test_a_sample_of_mutants_is_refused_cleanly_or_plays(tmp_path):
    """Issue 20 item 8: 40 mutants of the two rule books and the two profiles: each is
    refused with one line naming its file, or it plays a hand to its end (a rule book) and
    builds its devices (a profile); no traceback."""
    figures, failures = campaign(40, seed=1, folder=tmp_path)
    assert failures == []
    assert figures["rejected"] and figures["hands"] and figures["built"]


@pytest.mark.slow
def test_a_thousand_mutants_give_no_traceback_and_no_endless_hand(tmp_path):
    """Issue 20 item 8: 1 200 seeded mutants, 300 of each shipped file: 0 tracebacks, every
    refusal one line naming the file, every accepted rule book's hand ends within
    INPUTS_PER_HAND inputs, every accepted profile builds, and an accepted simulated table
    whose numbers changed plays a hand of `mjtable run` to its end."""
    began = time.perf_counter()
    figures, failures = campaign(1200, seed=2026, folder=tmp_path, tables=True)
    print(f"\n{dict(figures)} in {time.perf_counter() - began:.1f} s")
    assert failures == []
    assert figures["rejected"] + figures["accepted"] == 1200
