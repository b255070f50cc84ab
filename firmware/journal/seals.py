"""The walls sealed before the dice and revealed after the hand (issue 17, docs/fairness.md).

The seal is SHA-256 over the canonical JSON (firmware/journal_schema.canonical: sorted keys,
no spaces) of {"nonce": 64 hex digits, "set": the tile set, "walls": each lane in wall order,
each tile [kind name, tag hex, tile id]}. The nonce comes from the OS's cryptographic source
and stays on the table until the reveal, so the digest tells nothing of the order before it,
and no order but the sealed one matches it after.
"""

import hashlib
import secrets

from engine import events as ev
from engine.tiles import NAMES, kind_of
from firmware.journal import draws
from firmware.journal.schema import canonical

NONCE_BYTES = 32
SHOWN = 16  # hex digits of the digest on the views: "wall sealed: 3fa9…"


def wall_entries(lanes: list[list[int]], tags: dict[int, bytes]) -> tuple:
    """Each lane's tiles as the seal encodes them: (kind name, tag hex, tile id)."""
    return tuple(
        tuple((NAMES[kind_of(tile)], tags[tile].hex(), tile) for tile in lane) for lane in lanes
    )


def digest_of(nonce: str, tile_set: str, walls) -> str:
    """The seal's digest of a revealed order: what anyone recomputes to check it."""
    body = {"nonce": nonce, "set": tile_set, "walls": [[list(t) for t in lane] for lane in walls]}
    return hashlib.sha256(canonical(body).encode()).hexdigest()


def seal(t: float, tile_set: str, walls) -> ev.WallSealed:
    """The seal of walls just read, with a fresh nonce from the OS's cryptographic source."""
    nonce = secrets.token_bytes(NONCE_BYTES).hex()
    return ev.WallSealed(t, None, digest_of(nonce, tile_set, walls), nonce, tile_set, walls)


def reveal(t: float, sealed: ev.WallSealed) -> ev.WallRevealed:
    """The reveal of a seal, once its hand is over."""
    return ev.WallRevealed(t, None, sealed.digest, sealed.nonce, sealed.tile_set, sealed.walls)


def reveal_matches(revealed: ev.WallRevealed) -> bool:
    """The revealed order and nonce give the digest the seal showed."""
    return digest_of(revealed.nonce, revealed.tile_set, revealed.walls) == revealed.digest


def shown(digest: str) -> str:
    """The digest as the views show it: its first SHOWN hex digits."""
    return f"{digest[:SHOWN]}…"


def lanes_of(walls) -> list[list[int]]:
    """The tile ids of sealed walls, lane by lane."""
    return [[tile for _, _, tile in lane] for lane in walls]


def dealt_seals(rows) -> list[tuple[ev.WallSealed | None, bool]]:
    """For each 'hand' row of a journal's rows, in order: the seal its walls were dealt from
    (the latest WallSealed before it whose lanes are the hand's walls, in any seat's order;
    None in a journal from before the seal) and whether a WallRevealed has shown it."""
    latest, dealt, revealed = None, [], set()
    for row in rows:
        if row.kind == "device" and '"Wall' in row.json:  # cheap before each row's parse
            record = row.event()
            if isinstance(record, ev.WallSealed):
                latest = record
            elif isinstance(record, ev.WallRevealed):
                revealed.add(record.digest)
        elif row.kind == "hand":
            walls = sorted(row.data()["walls"])
            dealt.append(latest if latest and sorted(lanes_of(latest.walls)) == walls else None)
    return [(sealed, sealed is not None and sealed.digest in revealed) for sealed in dealt]


def unrevealed(rows) -> list[ev.WallSealed]:
    """The seals among a journal's rows that no WallRevealed has shown yet, in order."""
    sealed: dict[str, ev.WallSealed] = {}
    for row in rows:
        if row.kind == "device" and '"Wall' in row.json:
            record = row.event()
            if isinstance(record, ev.WallSealed):
                sealed.setdefault(record.digest, record)
            elif isinstance(record, ev.WallRevealed):
                sealed.pop(record.digest, None)
    return list(sealed.values())


def electronic_dice(sealed: ev.WallSealed, t: float, count: int) -> tuple[int, ...]:
    """The electronic dice of a roll at `t` in the hand dealt from `sealed` (issue 35,
    firmware/journal/draws.py): drawn after the seal, from its secret nonce and the press."""
    return draws.dice(sealed.nonce, sealed.digest, t, count)
