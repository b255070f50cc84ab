"""`mjtable enroll`: a new tile set's tags enrolled into a tag registry (issue 19).

The registry (firmware/table/tags.py) says which tag is glued to which tile. Its tags are learned
from the tiles themselves, in one of two ways:

- sorted: the technician sorts the set in the order the command prints (four 1m, four 2m, ...,
  then the flowers: 136 tiles, or 144 when the rule book plays flowers) and feeds it to the
  stacker, whose reader reads the tags position by position; position p is tile p (engine/tiles
  .py's physical ids are in that order). `--reads FILE` takes the positions' tags from a file
  instead (one tag in hex a line, `-` for a position not read), for a test, or a technician
  without the stacker at hand. On the simulated table a simulated stacker reads the simulated
  set, with `--faults` (a duplicate, a foreign tile, a missing one) to see them refused.
- `--one-by-one`: each tile put alone on one antenna of the zone reader (`--antenna`), its kind
  typed at the prompt (5p, E, 1f or 五筒, 東, 春); with `--reads FILE` the tags come from the file.

Refused, with every reason at once and exit status 1: a tag read twice, a kind read more often
than a set has it, kinds short of their count (missing tiles), and a tag already in another set
of a registry the profile knows (its [tags] registry and the file written to). The enrolled
set's id is its registry digest (firmware/table/registries.py), which the journal of every
session played with the registry records when the session begins (RegistriesRecorded).
"""

from __future__ import annotations

import argparse
import os
import sys
from collections import Counter
from itertools import groupby
from pathlib import Path

from drivers.reader_frames import UID_SIZES
from engine.tiles import CHINESE, KINDS, NAMES, TileError, kind_of, parse, physical_set
from firmware import cli_args
from firmware.resources import load_ruleset
from firmware.table.profile import load_profile
from firmware.table.registries import registry_digests
from firmware.table.tags import TILE_SETS, RegistryError, load_registry, registry_text
from firmware.tools.enroll_sources import (
    ReadingFailed,
    antenna_tags,
    simulated_stacker,
    stacker_tags,
)

Read = tuple[int, bytes]  # (tile kind, tag)


class Refused(Exception):
    """The set's reads cannot be enrolled: the message names every problem."""


def sorted_order(flowers: bool) -> str:
    """The order the technician sorts the set in, as the command prints it."""
    ids = physical_set(flowers)
    kinds = list(dict.fromkeys(kind_of(t) for t in ids))
    groups = [list(g) for _, g in groupby(kinds, lambda k: min(k // 9, 3) + (k >= KINDS))]
    lines = [
        f"  {' '.join(NAMES[k] for k in group)}   {' '.join(CHINESE[k] for k in group)}"
        for group in groups
    ]
    flowers_too = ", then one of each flower" if flowers else ""
    return f"{len(ids)} tiles, four of each kind in this order{flowers_too}:\n" + "\n".join(lines)


def sorted_reads(positions: dict[int, bytes], flowers: bool) -> list[Read]:
    """The stacker's (or a file's) tags by position: position p holds tile p of the sorted set."""
    ids = physical_set(flowers)
    beyond = sorted(p for p in positions if p >= len(ids))
    if beyond:
        raise Refused(
            f"{len(ids) + len(beyond)} positions read, a sorted set has {len(ids)}: "
            "a tile too many (of another set?) or the rule book's flowers (--ruleset)"
        )
    return [(kind_of(ids[p]), tag) for p, tag in sorted(positions.items())]


def enrolled(
    reads: list[Read], tile_set: str, flowers: bool, known: dict[Path, dict]
) -> dict[bytes, tuple[str, int]]:
    """The set's registry rows (tag -> (set, tile)) from its reads, or Refused naming every
    duplicate, surplus, missing kind and foreign tag. `known`: registry file -> its tags."""
    problems, seen = [], Counter(tag for _, tag in reads)
    for tag, n in seen.items():
        if n > 1:
            kinds = sorted({NAMES[k] for k, t in reads if t == tag})
            problems.append(
                f"tag {tag.hex()} read {n} times (as {', '.join(kinds)}): one tile passed "
                "twice, or two tiles carry the same tag"
            )
    for path, tags in known.items():
        for tag in seen:
            if tag in tags and tags[tag][0] != tile_set:
                other, tile = tags[tag]
                problems.append(
                    f"tag {tag.hex()} is tile {tile} ({NAMES[kind_of(tile)]}) of set {other} "
                    f"in {path}: a tile of another set"
                )
    wanted = Counter(kind_of(t) for t in physical_set(flowers))
    got = Counter(kind for kind, _ in reads)
    for kind in sorted(got):
        if got[kind] > wanted[kind]:
            problems.append(f"{got[kind]} tiles read as {NAMES[kind]}, a set has {wanted[kind]}")
    short = [f"{NAMES[k]} ({got[k]} of {wanted[k]})" for k in sorted(wanted) if got[k] < wanted[k]]
    if short:
        problems.append(f"missing tiles, kinds short of their count: {', '.join(short)}")
    if problems:
        raise Refused("\n".join(problems))
    free = {k: [t for t in physical_set(flowers) if kind_of(t) == k] for k in wanted}
    return {tag: (tile_set, free[kind].pop(0)) for kind, tag in reads}


def read_file(path: str) -> dict[int, bytes]:
    """`--reads FILE`: one read a line in position order, a tag in hex or `-` for none read;
    a file that cannot be read is a bad argument (exit 2, argparse's one line)."""
    try:
        lines = Path(path).read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError) as err:
        why = getattr(err, "strerror", None) or "not text"
        raise argparse.ArgumentTypeError(f"{path}: cannot read it: {why}") from None
    positions: dict[int, bytes] = {}
    for n, text in enumerate(line.strip() for line in lines):
        if text == "-":
            continue
        try:
            tag = bytes.fromhex(text)
        except ValueError:
            tag = b""
        if len(tag) not in UID_SIZES:
            raise argparse.ArgumentTypeError(
                f"{path}:{n + 1}: {text[:40]!r} is not a tag id (hex of 4, 7 or 8 bytes) nor -"
            )
        positions[n] = tag
    return positions


def typed_kind(prompt: str) -> int | None:
    """One tile's kind typed by the technician, asked again until it names one tile; None
    for an empty line or the input's end (no more tiles)."""
    while True:
        try:
            text = input(prompt)
        except EOFError:
            return None
        if not text.strip():
            return None
        try:
            kinds = parse(text)
        except TileError as err:
            print(f"  {err}", file=sys.stderr)
            continue
        if len(kinds) == 1:
            return kinds[0]
        print("  one tile's kind, e.g. 5p, E, 1f, 五筒, 東, 春", file=sys.stderr)


def add_parser(commands) -> None:
    p = commands.add_parser("enroll")
    cli_args.profile_option(p)
    p.add_argument("--ruleset", type=cli_args.path, help="rule book: flowers or not (profile's)")
    p.add_argument("--set", dest="tile_set", choices=TILE_SETS, default="A", help="A or B")
    p.add_argument(
        "-o",
        "--output",
        type=cli_args.path,
        metavar="FILE",
        help="the registry to write, needed but with --order (the other set's rows are kept)",
    )
    p.add_argument("--force", action="store_true", help="replace the set's rows already there")
    p.add_argument("--reads", type=read_file, metavar="FILE", help="tags from a file")
    p.add_argument("--one-by-one", action="store_true", help="one tile at a time, kind typed")
    p.add_argument("--antenna", type=int, default=0, help="the antenna (--one-by-one; 0)")
    p.add_argument(
        "--wait",
        type=_seconds,
        default=30.0,
        help="seconds without a new tile that end the stacker's reading (30)",
    )
    p.add_argument(
        "--faults",
        type=_faults,
        default=(),
        metavar="LIST",
        help="simulated table: duplicate,foreign,missing in the simulated set",
    )
    p.add_argument("--order", action="store_true", help="print the sorted order and stop")
    p.set_defaults(run=run)


def _seconds(text: str) -> float:
    return cli_args.number(text, 0, 600, "seconds", low_open=True)


def _faults(text: str) -> tuple[str, ...]:
    names = tuple(filter(None, text.split(",")))
    for name in names:
        if name not in ("duplicate", "foreign", "missing"):
            raise argparse.ArgumentTypeError(
                f"{name!r}: the faults are duplicate, foreign, missing"
            )
    return names


def run(args) -> int:
    profile = load_profile(args.profile)  # refused by firmware/cli.py, exit 2
    flowers = load_ruleset(args.ruleset or profile.ruleset).table_rules.flowers
    if args.order:
        print(sorted_order(flowers))
        return 0
    if not args.output:
        print("mjtable enroll: -o FILE: name the registry to write", file=sys.stderr)
        return 2
    out = Path(args.output)
    if not out.parent.is_dir():
        print(f"mjtable enroll: -o {out}: no folder {out.parent}", file=sys.stderr)
        return 2
    try:
        kept = load_registry(out) if out.exists() else {}
    except RegistryError as err:
        print(f"mjtable enroll: -o: {err}", file=sys.stderr)
        return 2
    if not args.force and any(s == args.tile_set for s, _ in kept.values()):
        print(
            f"mjtable enroll: {out} already holds set {args.tile_set}: --force replaces it",
            file=sys.stderr,
        )
        return 2
    if args.faults and (not profile.simulated or args.reads is not None or args.one_by_one):
        print(
            "mjtable enroll: --faults: the simulated stacker's, only on the simulated table "
            "and without --reads or --one-by-one",
            file=sys.stderr,
        )
        return 2
    try:
        reads = _reads(args, profile, flowers)
        known = {profile.registry.resolve(): profile.tags, out.resolve(): kept}
        tags = enrolled(reads, args.tile_set, flowers, known)
    except Refused as err:
        print(f"mjtable enroll: set {args.tile_set} refused:\n{err}", file=sys.stderr)
        return 1
    except ReadingFailed as err:
        print(f"mjtable enroll: {err}", file=sys.stderr)
        return 1
    rows = {tag: place for tag, place in kept.items() if place[0] != args.tile_set} | tags
    draft = out.with_name(out.name + ".new")
    try:
        draft.write_text(registry_text(rows), encoding="utf-8")
        os.replace(draft, out)  # whole or not at all: a service may be reading the old one
    except OSError as err:
        print(f"mjtable enroll: -o {out}: cannot write it: {err.strerror}", file=sys.stderr)
        return 2
    load_registry(out)  # read back as the table will: a registry written is one it can load
    print(
        f"{out}: set {args.tile_set} enrolled, {len(tags)} tiles, "
        f"set id {registry_digests(tags)[args.tile_set]}"
    )
    return 0


def _reads(args, profile, flowers: bool) -> list[Read]:
    """The set's (kind, tag) reads, from the source the arguments name."""
    size = len(physical_set(flowers))
    if args.one_by_one:
        prompt = (
            f"tile {{n}} of {size}: put it alone on antenna {args.antenna}, type its kind "
            "(an empty line: no more tiles): "
        )
        tags = (
            iter(args.reads.values())
            if args.reads is not None
            else antenna_tags(profile, args.antenna)
        )
        reads = []
        for n in range(1, size + 1):
            kind = typed_kind(prompt.format(n=n))
            tag = None if kind is None else next(tags, None)
            if kind is None or tag is None:
                break
            reads.append((kind, tag))
        return reads
    print(f"Sort the set: {sorted_order(flowers)}", file=sys.stderr)
    if args.reads is not None:
        positions = args.reads
    elif profile.simulated:
        positions = simulated_stacker(profile, args.tile_set, size, args.faults, args.wait)
    else:
        positions = stacker_tags(profile, size, args.wait)
    return sorted_reads(positions, flowers)
