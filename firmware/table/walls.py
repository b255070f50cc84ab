"""The built walls as the stacker reader saw them: each tile in wall order, or no play.

The machine says the walls are built through its pins; the stacker's frames about them come
through the reader's thread and may still be on their way. So the walls are judged once two
more stacker heartbeats have come in (at most `STACKER_WAIT` seconds later), and they can be
played only if every tile was read in order: the engine must know where each tile lies.

Walls accepted are sealed at once (issue 17, docs/fairness.md): the WallSealed record is
journaled (the uplink sends its public form, the digest) before the walls rise, so before the
dice and the deal. The machine builds the next walls while a hand is played, so a seal waits
beside the hand in play's; the hand's is revealed when it is over or void. Walls sealed and
never raised are revealed too (issue 35: no seal stays unrevealed, so a table cannot seal
several walls and deal the one that suits unseen): when walls built after them are sealed,
when the session closes (firmware/table/sealing.py), and after a power cut.
"""

from engine import events as ev
from firmware.journal import seals as fairness

STACKER_WAIT = 5.0  # seconds the stacker's last frames may trail the machine


class WallCheck:
    """`registry` maps a tag to (tile set, tile id); `shuffler` builds the walls again when
    they are refused; `out(line)` prints a console line; `journal` takes the seals and their
    reveals, `publish(events)` shows them."""

    def __init__(self, registry, shuffler, out, journal, publish):
        self.registry, self.shuffler, self.out = registry, shuffler, out
        self.journal, self.publish = journal, publish
        self.sealed: ev.WallSealed | None = None  # the seal of the walls ready
        self.dealt: ev.WallSealed | None = None  # the seal of the hand in play's walls
        self.revealed: ev.WallRevealed | None = None  # the last hand's, until the next rises
        self._checked: tuple[ev.WallRevealed, bool] | None = None  # a reveal, and if it holds
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
        self.drop(t)  # walls sealed before and never raised: built again, dropped
        self.ready = [order[lane * per_lane : (lane + 1) * per_lane] for lane in range(4)]
        tags = {self.registry[tag][1]: tag for tag in self.stacks.values()}
        walls = fairness.wall_entries(self.ready, tags)
        self.sealed = sealed = fairness.seal(t, ready.tile_set, walls)
        self.journal.record(sealed)
        self.out(
            f"{t:9.1f}  walls of set {ready.tile_set} ready ({ready.seconds:.0f} s), "
            f"sealed {fairness.shown(sealed.digest)}"
        )
        self.publish([])  # the views show the digest; the record itself holds the order

    def take(self) -> list[list[int]] | None:
        """The lanes of the walls just raised (None if none were accepted); their seal is
        the hand's from now on."""
        lanes, self.ready = self.ready, None
        if lanes is not None:
            self.dealt, self.sealed, self.revealed = self.sealed, None, None
        return lanes

    def reveal(self, t) -> None:
        """The hand in play is over or void: its walls' order and nonce are shown, journaled
        and published (none for a hand dealt from a journal of before the seal)."""
        if self.dealt is not None:
            self._reveal(t, self.dealt)
            self.dealt = None

    def drop(self, t) -> None:
        """The walls ready are never to be raised (others were built, the session closes):
        their seal is revealed and they are forgotten."""
        if self.sealed is not None:
            self._reveal(t, self.sealed)
        self.sealed = self.ready = None

    def _reveal(self, t, sealed: ev.WallSealed) -> None:
        self.revealed = revealed = fairness.reveal(t, sealed)
        self.journal.record(revealed)
        self.publish([revealed])

    def resume(self, t, rows, played, in_play) -> None:
        """After a power cut (firmware/table/resume.py), from the journal's `rows` and replay's
        `played` hands: the seal of the hand taken up (`in_play`, its table) is read back,
        nonce and all, for its end; every other seal not revealed yet (a hand over or void
        when the cut fell, walls sealed and never raised) is revealed now."""
        rows = list(rows)
        for hand, (sealed, _) in zip(played, fairness.dealt_seals(rows), strict=True):
            if sealed is not None and in_play is not None and hand.table is in_play:
                self.dealt = sealed
        for sealed in fairness.unrevealed(rows):
            if sealed != self.dealt:
                self._reveal(t, sealed)

    def seal_json(self) -> dict:
        """What both views show of the seals: the hand's walls' ("sealed" until the hand is
        over, then "revealed" with whether the reveal gives the digest) and the next walls'."""
        hand: dict | None = None
        if self.dealt is not None:
            hand = {"state": "sealed", "digest": self.dealt.digest}
        elif self.revealed is not None:
            if self._checked is None or self._checked[0] is not self.revealed:
                # once per reveal: the table's status carries it, taken at every tick
                self._checked = (self.revealed, fairness.reveal_matches(self.revealed))
            hand = {
                "state": "revealed",
                "digest": self.revealed.digest,
                "matches": self._checked[1],
            }
        ready = self.sealed and {"state": "sealed", "digest": self.sealed.digest}
        return {
            "hand": hand and hand | {"shown": fairness.shown(hand["digest"])},
            "next": ready and ready | {"shown": fairness.shown(ready["digest"])},
        }
