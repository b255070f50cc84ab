"""Simulated players: legal, sensible mahjong, and mistakes on request.

A player sees the table as a person at it would (his own tiles and what lies face up) and
answers with the same inputs the table's sensors produce. He plays toward the nearest win by
shanten (tiles away from ready), calls when a call brings him closer, declares every win the
rule book allows, and makes kongs. With a mistake rate he sometimes breaks a rule on purpose,
and says which, so the simulator can check the referee caught it.
"""

import random
from functools import lru_cache

from engine import events as ev
from engine import tiles
from engine.hand import KONG, PUNG

MISTAKES = ("draw_out_of_turn", "claim_without_tiles", "false_win", "wrong_count", "wrong_draw")
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


# Bounded (8192 suits' readings, about 5 MB): a soak plays the simulated table for days.
@lru_cache(maxsize=1 << 13)
def _group_shapes(key: tuple[int, ...], runs: bool) -> frozenset[tuple[int, int, int]]:
    """Every useful (sets, partial sets, pair) reading of one suit's counts (or one honour's),
    Pareto-pruned."""
    first = next((i for i, n in enumerate(key) if n), None)
    if first is None:
        return frozenset({(0, 0, 0)})

    def rest(*taken):
        c = list(key)
        for i in taken:
            c[i] -= 1
        return _group_shapes(tuple(c), runs)

    found = set(rest(first))  # an isolated tile
    if key[first] >= 3:
        found |= {(m + 1, t, p) for m, t, p in rest(first, first, first)}
    if key[first] >= 2:
        for m, t, p in rest(first, first):
            found.add((m, t + 1, p))
            if not p:
                found.add((m, t, 1))
    if runs and first <= 6 and key[first + 1] and key[first + 2]:
        found |= {(m + 1, t, p) for m, t, p in rest(first, first + 1, first + 2)}
    if runs and first <= 7 and key[first + 1]:
        found |= {(m, t + 1, p) for m, t, p in rest(first, first + 1)}
    if runs and first <= 6 and key[first + 2]:
        found |= {(m, t + 1, p) for m, t, p in rest(first, first + 2)}
    return _pareto(found)


def _pareto(shapes) -> frozenset:
    """Drop the readings another reading beats on sets, partial sets and pair alike."""
    return frozenset(
        s
        for s in shapes
        if not any(o != s and o[0] >= s[0] and o[1] >= s[1] and o[2] >= s[2] for o in shapes)
    )


def shanten(kinds: list[int], melds: int) -> int:
    """How many tiles from ready (0 = waiting, -1 = complete) for four sets and a pair;
    seven pairs too when nothing is declared."""
    return _shanten(tuple(sorted(kinds)), melds)


@lru_cache(maxsize=1 << 16)
def _shanten(kinds: tuple[int, ...], melds: int) -> int:
    c = [0] * tiles.KINDS
    for k in kinds:
        if k < tiles.KINDS:
            c[k] += 1
    groups = [_group_shapes(tuple(c[s : s + 9]), True) for s in (0, 9, 18) if any(c[s : s + 9])]
    honours = c[27:34]
    pungs, pairs = sum(n >= 3 for n in honours), honours.count(2)
    groups.append(
        frozenset({(pungs, pairs, 0), (pungs, pairs - 1, 1)} if pairs else {(pungs, 0, 0)})
    )
    best_partials = {(melds, 0): 0}  # (sets, pair) -> most partial sets
    for group in groups:
        merged: dict[tuple[int, int], int] = {}
        for (m1, p1), t1 in best_partials.items():
            for m2, t2, p2 in group:
                pair, partials = min(p1 + p2, 1), min(t1 + t2 + max(p1 + p2 - 1, 0), 4)
                if merged.get((m1 + m2, pair), -1) < partials:
                    merged[(m1 + m2, pair)] = partials
        best_partials = merged
    best = min(8 - 2 * m - min(t, 4 - m) - p for (m, p), t in best_partials.items())
    if not melds:
        pairs = sum(n >= 2 for n in c)
        best = min(best, 6 - pairs + max(0, 7 - sum(n > 0 for n in c)))
    return best


class SimPlayer:
    """One simulated player. `rng` is his own seeded random source; `mistake_rate` is the
    chance, at each decision, of breaking a rule on purpose."""

    def __init__(self, seat: int, rng: random.Random, mistake_rate: float = 0.0):
        self.seat, self.rng, self.mistake_rate = seat, rng, mistake_rate

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
        melds = len(table.melds[self.seat])
        lonely = {k: _isolation(k, _without(kinds, k)) for k in set(kinds)}
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
        loneliest = max(_isolation(k, after[k][1]) for k in ties)
        kind = self.rng.choice([k for k in ties if _isolation(k, after[k][1]) == loneliest])
        return next(x for x in reversed(hand) if tiles.kind_of(x) == kind)

    def call(self, table, t: float, robbing: bool = False):
        """A call on the latest discard (or a tile added to a kong), or None to let it go."""
        if robbing:
            konger, tile = table.added_kong
            return (
                ev.ClaimDeclared(t, self.seat, "win")
                if self._may_win(table) and table.would_win(self.seat, konger, tile, True)
                else None
            )
        discarder, tile = table.discards[-1]
        kinds = self._kinds(table)
        melds = len(table.melds[self.seat])
        now = shanten(kinds, melds)
        chipless = (
            table.chips is not None
            and table.rules.block_win_from_chipless
            and table.chips[discarder] <= 0
        )
        if (
            now <= 0
            and self._may_win(table)
            and not chipless
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
            if _best_after_discard(rest, melds + 1) < now:
                return ev.ClaimDeclared(t, self.seat, PUNG, tuple(same[:2]))
        if self.seat == (discarder + 1) % 4 and table.rules.chow_allowed and tiles.is_suited(kind):
            return self._chow(table, t, kind, kinds, melds, now)
        return None

    def _chow(self, table, t, kind, kinds, melds, now):
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
            if _best_after_discard(rest, melds + 1) < now and self.rng.random() < 0.7:
                own = tuple(next(x for x in hand if tiles.kind_of(x) == k) for k in run)
                return ev.ClaimDeclared(t, self.seat, "chow", own)
        return None


def _best_after_discard(kinds: list[int], melds: int) -> int:
    """Shanten after a call: the best discard that follows it."""
    best = 8
    for kind in set(kinds):
        rest = list(kinds)
        rest.remove(kind)
        best = min(best, shanten(rest, melds))
    return best


def _isolation(kind: int, others: list[int]) -> int:
    """How lonely a tile is beside the `others` in hand: 1 and more for a tile with no copy
    and no neighbour within two (honours and terminals lonelier), below 1 with company."""
    near = sum(
        1
        for k in others
        if k == kind or (k < 27 and kind < 27 and k // 9 == kind // 9 and abs(k - kind) <= 2)
    )
    return (3 if kind >= 27 else 2 if kind % 9 in (0, 8) else 1) - 3 * near


def _without(kinds: list[int], kind: int) -> list[int]:
    rest = list(kinds)
    rest.remove(kind)
    return rest
