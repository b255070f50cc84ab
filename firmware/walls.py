"""The built walls as the stacker reader saw them: each tile in wall order, or no play.

The machine says the walls are built through its pins; the stacker's frames about them come
through the reader's thread and may still be on their way. So the walls are judged once two
more stacker heartbeats have come in (at most `STACKER_WAIT` seconds later), and they can be
played only if every tile was read in order: the engine must know where each tile lies.
"""

STACKER_WAIT = 5.0  # seconds the stacker's last frames may trail the machine


class WallCheck:
    """`registry` maps a tag to (tile set, tile id); `shuffler` builds the walls again when
    they are refused; `out(line)` prints a console line."""

    def __init__(self, registry, shuffler, out):
        self.registry, self.shuffler, self.out = registry, shuffler, out
        self.stacks: dict[int, bytes] = {}  # position in wall order -> tag read there
        self.built = None  # (WallsReady, stacker heartbeat then, t) being judged
        self.ready: list[list[int]] | None = None  # the four lanes' tile ids, in wall order

    def stacked(self, position: int, tag: bytes) -> None:
        if position == 0:
            self.stacks = {}
        self.stacks[position] = tag

    def built_walls(self, t, ready, heartbeat) -> None:
        """The machine's word that the walls are built; `heartbeat` is the stacker's now."""
        self.built = (ready, heartbeat, t)

    def judge(self, t, heartbeat, stacker_online: bool) -> None:
        """Once the stacker has caught up (or is offline, or has had its time), accept the
        walls or have the shuffler build them again."""
        if self.built is None:
            return
        ready, beat, since = self.built
        if (
            stacker_online
            and t - since < STACKER_WAIT
            and (heartbeat is None or (heartbeat - (beat or 0)) % 256 < 2)
        ):
            return
        self.built = None
        expected = sum(ready.counts)
        per_lane = expected // 4
        sets = {self.registry.get(tag, ("?",))[0] for tag in self.stacks.values()}
        if sorted(self.stacks) != list(range(expected)) or sets != {ready.tile_set}:
            self.shuffler.reject_walls(
                t,
                f"the stacker read {len(self.stacks)} of {expected} tiles of set "
                f"{ready.tile_set}: where each tile lies is not known",
                "press retry to build "
                "the walls again; if it repeats, clean the stacker reader's antenna",
            )
            return
        order = [self.registry[self.stacks[p]][1] for p in range(expected)]
        self.ready = [order[lane * per_lane : (lane + 1) * per_lane] for lane in range(4)]
        self.out(f"{t:9.1f}  walls of set {ready.tile_set} ready ({ready.seconds:.0f} s)")

    def take(self) -> list[list[int]] | None:
        """The lanes of the walls just raised (None if none were accepted)."""
        lanes, self.ready = self.ready, None
        return lanes
