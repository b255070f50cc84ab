"""A tile set whose tag registry changed since the session began is refused (issue 17).

The registry says which tag is glued to which tile: a tag moved to another tile between two
hands would have the table referee tiles that are not on it, and would let a forged set pass
for the sealed one. So when a session begins its journal records each set's registry digest
(SHA-256 over the set's tiles and tags, in tile order: the same rows whatever the CSV's
layout); a journal gone on with (`mjtable run --journal` on an existing file) compares the
registry it runs with, and the walls of a set whose digest differs are refused, with a fault,
while the other set, if intact, plays on.
"""

import hashlib

from engine import events as ev
from firmware.journal.schema import canonical

ADVICE = (
    "restore the registry the session began with, or begin a new session (a new --journal); "
    "the other set plays on"
)


def registry_digests(tags: dict[bytes, tuple[str, int]]) -> dict[str, str]:
    """Each tile set's registry digest, from the profile's tag -> (set, tile) map."""
    by_set: dict[str, list] = {}
    for tag, (tile_set, tile) in tags.items():
        by_set.setdefault(tile_set, []).append([tile, tag.hex()])
    return {
        tile_set: hashlib.sha256(canonical(sorted(rows)).encode()).hexdigest()
        for tile_set, rows in sorted(by_set.items())
    }


def recorded(journal) -> dict[str, str] | None:
    """The digests the journal's session began with (None: a journal from before them)."""
    for row in journal.rows():
        if row.kind == "device" and '"RegistriesRecorded"' in row.json:
            record = row.event()
            if isinstance(record, ev.RegistriesRecorded):
                return record.digests
    return None


class RegistryGuard:
    """The sets refused for a registry changed since the session began: `refusal(set)` is
    the fault's message, or None for a set that may be played. A new journal (no row yet)
    records the registries (`new`: the journal had no row when the table started): its
    session begins now."""

    def __init__(self, journal, tags, registry_path, t: float, new: bool):
        digests = registry_digests(tags)
        self.refused: dict[str, str] = {}
        if new:
            journal.record(ev.RegistriesRecorded(t, None, digests))
            return
        for tile_set, digest in (recorded(journal) or {}).items():
            if digests.get(tile_set) != digest:
                self.refused[tile_set] = (
                    f"the tag registry of set {tile_set} ({registry_path}) changed since the "
                    "session began: its walls are refused"
                )

    def refusal(self, tile_set: str) -> str | None:
        return self.refused.get(tile_set)
