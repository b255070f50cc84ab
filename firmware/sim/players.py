"""Simulated players: legal, sensible mahjong, and mistakes on request.

A player sees the table as a person at it would (his own tiles and what lies face up) and
answers with the same inputs the table's sensors produce. He plays toward the nearest win by
shanten (tiles away from ready), or where the rule book refuses a bare shape toward the nearest
hand with a fan (firmware/sim/strategy.py), calls when a call brings him closer, declares every
win the rule book allows, and makes kongs. With a mistake rate he sometimes breaks a rule on
purpose, and says which, so the simulator can check the referee caught it.
"""

import random

from engine import events as ev
from engine import tiles
from engine.hand import KONG, PUNG
from firmware.sim import strategy
from firmware.sim.strategy import best_after_discard, isolation, shanten, without

# The offence the referee must name for each mistake (RULES.md 3.6/3.10/3.11, 4.15; seed 000
# 摸牌時的犯規 1 for the wrong draw).
EXPECTED_OFFENCE = {
    "draw_out_of_turn": {"early_draw"},
    "claim_without_tiles": {"empty_call"},
    "false_win": {"false_win", "incomplete_win", "intentional_false_win", "empty_win"},
    "wrong_count": {"wrong_count_high"},
    "wrong_draw": {"wrong_draw"},
}
# The mistakes whose move stands all the same: a draw from the wrong place (該摸牌當作有效).
STANDS = frozenset({"wrong_draw"})
KONG_TAIL = 0.3  # of wrong draws, the share taken from the kong tail (誤從槓尾摸牌)


class SimPlayer:
    """One simulated player. `rng` is his own seeded random source; `mistake_rate` is the
    chance, at each decision, of breaking a rule on purpose."""

    def __init__(self, seat: int, rng: random.Random, mistake_rate: float = 0.0):
        self.seat, self.rng, self.mistake_rate = seat, rng, mistake_rate
        self.aims_for_fans: bool | None = None  # learnt from the rule book at his first move

    def _aims(self, table) -> bool:
        """Whether he must steer for a fan (CCM) rather than any complete shape (WSOM)."""
        if self.aims_for_fans is None:
            self.aims_for_fans = strategy.needs_fan(table.ruleset)
        return self.aims_for_fans

    def _kinds(self, table, seat=None):
        return [tiles.kind_of(t) for t in table.hands[self.seat if seat is None else seat]]

    def mistake(self, table, t: float, situation: str):
        """A deliberate rule break fitting the moment, or None; (name, event) when made."""
        if self.mistake_rate <= 0 or self.rng.random() >= self.mistake_rate:
            return None
        if situation == "others_turn":
            return "draw_out_of_turn", ev.TileDrawn(t, self.seat)
        if situation == "draw":
            tile = self._wrong_tile(table)
            return None if tile is None else ("wrong_draw", ev.TileDrawn(t, self.seat, tile))
        if situation == "own_turn":
            if self.rng.random() < 0.5:
                return "wrong_count", ev.TileDrawn(t, self.seat)
            return "false_win", ev.WinDeclared(t, self.seat)
        if situation == "call" and table.discarder != self.seat:
            return "claim_without_tiles", ev.ClaimDeclared(t, self.seat, PUNG, ())
        return None

    def _wrong_tile(self, table) -> int | None:
        """A tile from the wall that is not its head: the kong tail's, or any other; None
        when the head is all that stands."""
        wall = table.wall
        head, tail = (
            wall.tile_at(p) for p in (wall.next_draw_position, wall.next_replacement_position)
        )
        if tail != head and self.rng.random() < KONG_TAIL:
            return tail
        standing = [x for side in wall.remaining() for x in side if x is not None and x != head]
        return self.rng.choice(standing) if standing else None

    def turn(
        self, table, t: float
    ) -> ev.FlowerExposed | ev.WinDeclared | ev.KongDeclared | ev.TileDiscarded:
        """The move on one's own turn, holding 14: win, flower, kong or discard."""
        hand = table.hands[self.seat]
        flowers = [x for x in hand if tiles.is_flower(tiles.kind_of(x))]
        if flowers:
            return ev.FlowerExposed(t, self.seat, flowers[0])
        if (
            self._may_win(table)
            and table.last_draw != "claim"
            and table.would_win(self.seat, None, hand[-1])
        ):
            return ev.WinDeclared(t, self.seat)
        kong = self._kong(table)
        if kong:
            return ev.KongDeclared(t, self.seat, kong)
        return ev.TileDiscarded(t, self.seat, self._discard(table))

    def _may_win(self, table) -> bool:
        return not table.referee.no_win[self.seat]

    def _kong(self, table):
        if (
            table.referee.no_calls[self.seat]
            or table.last_draw == "claim"
            or (table.wall.live_count == 0 and not table.rules.kong_after_last_tile)
        ):
            return None
        hand = table.hands[self.seat]
        by_kind: dict[int, list[int]] = {}
        for x in hand:
            by_kind.setdefault(tiles.kind_of(x), []).append(x)
        for group in by_kind.values():
            if len(group) == 4:
                return tuple(group)
        for meld in table.melds[self.seat]:
            if meld.kind == PUNG:
                added = by_kind.get(tiles.kind_of(meld.tiles[0]))
                if added:
                    return (added[0],)
        return None

    def _discard(self, table) -> int:
        """A live penalty tile while it may go (RULES.md 3.9), else the tile whose loss leaves
        the hand nearest to ready, isolated honours first; a dead penalty tile only when he
        holds nothing else (engine/turns.py)."""
        if table.referee.mechanical[self.seat]:
            return table.hands[self.seat][-1]
        marked = table.referee.penalty_tiles[self.seat]
        live = [x for x in table.hands[self.seat] if marked.get(x) == "live"]
        if live:
            return live[0]
        hand = [x for x in table.hands[self.seat] if x not in marked]
        if not hand:  # after a call only dead penalty tiles are left: one must go
            return table.hands[self.seat][-1]
        kinds = [tiles.kind_of(x) for x in hand]
        if self._aims(table):
            ties = strategy.aimed_discard(kinds, strategy.described(table.melds[self.seat]))
            kind = self.rng.choice(ties)
            return next(x for x in reversed(hand) if tiles.kind_of(x) == kind)
        melds = len(table.melds[self.seat])
        lonely = {k: isolation(k, without(kinds, k)) for k in set(kinds)}
        if max(lonely.values()) >= 1:  # a tile in no set or partial set: losing it costs nothing
            top = max(lonely.values())
            kind = self.rng.choice(sorted(k for k, v in lonely.items() if v == top))
            return next(x for x in reversed(hand) if tiles.kind_of(x) == kind)
        after = {}
        for kind in set(kinds):
            rest = list(kinds)
            rest.remove(kind)
            after[kind] = (shanten(rest, melds), rest)
        nearest = min(value for value, _ in after.values())
        ties = sorted(k for k, (value, _) in after.items() if value == nearest)
        loneliest = max(isolation(k, after[k][1]) for k in ties)
        kind = self.rng.choice([k for k in ties if isolation(k, after[k][1]) == loneliest])
        return next(x for x in reversed(hand) if tiles.kind_of(x) == kind)

    def call(self, table, t: float, robbing: bool = False):
        """A call on the latest discard (or a tile added to a kong), or None to let it go."""
        if robbing:
            konger, tile = table.added_kong
            return (
                ev.ClaimDeclared(t, self.seat, "win")
                if self._may_win(table)
                and not _chipless(table, konger)
                and table.would_win(self.seat, konger, tile, True)
                else None
            )
        discarder, tile = table.discards[-1]
        kinds = self._kinds(table)
        melds = len(table.melds[self.seat])
        now = shanten(kinds, melds)
        if (
            now <= 0
            and self._may_win(table)
            and not _chipless(table, discarder)
            and not table.referee.bars_discard_win(self.seat, table.hands[self.seat], tile)
            and table.would_win(self.seat, discarder, tile)
        ):
            return ev.ClaimDeclared(t, self.seat, "win")
        if table.wall.live_count == 0 or table.referee.no_calls[self.seat]:
            return None
        kind = tiles.kind_of(tile)
        marked = table.referee.penalty_tiles[self.seat]
        hand = [x for x in table.hands[self.seat] if x not in marked]
        same = [x for x in hand if tiles.kind_of(x) == kind]
        if len(same) == 3 and self.rng.random() < 0.5:
            return ev.ClaimDeclared(t, self.seat, KONG, tuple(same))
        if len(same) >= 2:
            rest = list(kinds)
            rest.remove(kind)
            rest.remove(kind)
            if self._nearer(table, kinds, rest, (PUNG, kind, False), now):
                return ev.ClaimDeclared(t, self.seat, PUNG, tuple(same[:2]))
        if self.seat == (discarder + 1) % 4 and table.rules.chow_allowed and tiles.is_suited(kind):
            return self._chow(table, t, kind, kinds, now)
        return None

    def _nearer(self, table, kinds, rest, meld, now) -> bool:
        """The call of `meld` (leaving `rest` in hand) brings him nearer to a win that scores
        (`now`: his shanten before it)."""
        melds = strategy.described(table.melds[self.seat])
        if self._aims(table):
            before = strategy.fan_distance(kinds, melds)
            return strategy.aimed_after_call(rest, (*melds, meld)) < before
        return best_after_discard(rest, len(melds) + 1) < now

    def _chow(self, table, t, kind, kinds, now):
        marked = table.referee.penalty_tiles[self.seat]
        hand = [x for x in table.hands[self.seat] if x not in marked]
        for low in (kind - 2, kind - 1, kind):
            run = [k for k in (low, low + 1, low + 2) if k != kind]
            if (
                low < 0
                or tiles.suit(low) != tiles.suit(kind)
                or tiles.suit(low + 2) != tiles.suit(kind)
                or not all(any(tiles.kind_of(x) == k for x in hand) for k in run)
            ):
                continue
            rest = list(kinds)
            for k in run:
                rest.remove(k)
            nearer = self._nearer(table, kinds, rest, ("chow", low, False), now)
            if nearer and self.rng.random() < 0.7:
                own = tuple(next(x for x in hand if tiles.kind_of(x) == k) for k in run)
                return ev.ClaimDeclared(t, self.seat, "chow", own)
        return None


def _chipless(table, seat: int) -> bool:
    """The rule book forbids winning off `seat`: he has no chips left (RULES.md 4.11, A-C14)."""
    return (
        table.chips is not None and table.rules.block_win_from_chipless and table.chips[seat] <= 0
    )
