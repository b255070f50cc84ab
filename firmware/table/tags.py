"""The tile registry: which tag id is glued to which physical tile of which of a table's two
sets, one CSV row per tile (header tag,set,tile,name) beside the table's profile.

A tag glued to the wrong tile would referee a game that is not on the table, so a registry is
checked whole when the profile loads and every mistake is refused with its line number.
`sim_registry_text()` makes the simulated table's registry (config/tables/sim-tags.csv).
"""

from __future__ import annotations

import csv
import hashlib
from pathlib import Path

from drivers.reader_frames import UID_SIZES
from engine.schema import ConfigError
from engine.tiles import FLOWER_KINDS, KINDS, NAMES, kind_of

TILE_SETS = ("A", "B")
TILES_PER_SET = 4 * KINDS + FLOWER_KINDS  # physical tile ids 0..143 (engine/tiles.py)
REGISTRY_HEADER = ["tag", "set", "tile", "name"]


class RegistryError(ConfigError):
    """A registry the table cannot run with; the message names the file and the line."""


def load_registry(path: str | Path) -> dict[bytes, tuple[str, int]]:
    """Tag id -> (tile set, physical tile id) from a registry CSV (header tag,set,tile,name)."""
    path = Path(path)
    try:
        with open(path, newline="", encoding="utf-8") as f:
            rows = list(csv.reader(f))
    except FileNotFoundError:
        raise RegistryError(f"{path}: no such file (the tile registry)") from None
    except (UnicodeDecodeError, csv.Error) as err:
        raise RegistryError(f"{path}: not a CSV file: {err}") from None
    if not rows or [c.strip() for c in rows[0]] != REGISTRY_HEADER:
        raise RegistryError(f"{path}:1: the header must be {','.join(REGISTRY_HEADER)}")
    tags: dict[bytes, tuple[str, int]] = {}
    lines: dict[tuple[str, int], int] = {}
    for line, row in enumerate(rows[1:], start=2):
        if not row:
            continue
        if len(row) != 4:
            raise RegistryError(
                f"{path}:{line}: expected 4 fields (tag,set,tile,name), got {len(row)}"
            )
        tag_hex, tile_set, tile_text, name = (c.strip() for c in row)
        try:
            tag = bytes.fromhex(tag_hex)
        except ValueError:
            raise RegistryError(f"{path}:{line}: tag {tag_hex!r} is not hex") from None
        if len(tag) not in UID_SIZES:
            raise RegistryError(
                f"{path}:{line}: tag {tag_hex} has {len(tag)} bytes "
                f"(a tag id has {', '.join(map(str, UID_SIZES))})"
            )
        if tile_set not in TILE_SETS:
            raise RegistryError(f"{path}:{line}: unknown set {tile_set!r} (sets: A, B)")
        tile = int(tile_text) if tile_text.isascii() and tile_text.isdigit() else -1
        if not 0 <= tile < TILES_PER_SET:
            raise RegistryError(
                f"{path}:{line}: tile {tile_text!r} is not a tile id 0..{TILES_PER_SET - 1}"
            )
        if name != NAMES[kind_of(tile)]:
            raise RegistryError(
                f"{path}:{line}: tile {tile} is {NAMES[kind_of(tile)]}, not {name!r}"
            )
        if tag in tags:
            raise RegistryError(
                f"{path}:{line}: tag {tag_hex} is already on line {lines[tags[tag]]}"
            )
        if (tile_set, tile) in lines:
            raise RegistryError(
                f"{path}:{line}: set {tile_set} tile {tile} already has a tag "
                f"on line {lines[tile_set, tile]}"
            )
        tags[tag] = (tile_set, tile)
        lines[tile_set, tile] = line
    return tags


def sim_tag(tile_set: str, tile: int) -> bytes:
    """The simulated table's tag id of a tile: ISO 15693 style (E0, maker 04, 6 serial bytes)."""
    return b"\xe0\x04" + hashlib.sha256(f"mjtable-sim/{tile_set}/{tile}".encode()).digest()[:6]


def sim_registry_text() -> str:
    """config/tables/sim-tags.csv: every tile of both sets with its simulated tag.

    Regenerate with: .venv/bin/python -c "from firmware.table.tags import sim_registry_text as t;
    open('config/tables/sim-tags.csv', 'w').write(t())"
    """
    return registry_text(
        {sim_tag(s, tile): (s, tile) for s in TILE_SETS for tile in range(TILES_PER_SET)}
    )


def registry_text(tags: dict[bytes, tuple[str, int]]) -> str:
    """A registry CSV, set by set, in tile order (what load_registry reads)."""
    rows = sorted(tags.items(), key=lambda item: item[1])
    lines = [",".join(REGISTRY_HEADER)]
    lines += [f"{tag.hex()},{s},{tile},{NAMES[kind_of(tile)]}" for tag, (s, tile) in rows]
    return "\n".join(lines) + "\n"
