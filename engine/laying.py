"""Tiles laid out in a meld area for a call on the latest discard: which call they make, and
whether the caller is still laying it out (RULES.md 3.7, 4.6). A caller lays his tiles out one
by one and the readers confirm each a few sweeps later, so the calls stay open a while longer
for a meld not yet whole (engine/moves.py).

A chow shown ends the others' pung and kong rights on the discard, but a win keeps its
priority until the chower has also discarded (seed 000 鳴牌優先規條 4, 吃牌 4): under such a
rule book the chow is declared the moment it is shown, and the calls stay open until his
discard unless a call laid out before it may outrank it.
"""

from engine import events as ev
from engine import tiles
from engine.calls import check_call
from engine.hand import CHOW, KONG, PUNG
from engine.table import Table


def call_kind(laid: list[int], discard: int) -> str:
    """The call the laid tiles make with the discard."""
    kind = tiles.kind_of(discard)
    if all(tiles.kind_of(x) == kind for x in laid):
        return KONG if len(laid) == 3 else PUNG
    return CHOW


def chower(table: Table) -> int | None:
    """Who showed a chow on the open window: the hand's calls say (so a hand taken up after a
    power cut knows it as well as the one that saw it shown)."""
    calls = table.calls.values()
    return next((c.seat for c in calls if c.claim == CHOW and c.shown_at is not None), None)


def calls_laid_out(
    table: Table, exposing: list[list[int]], laid_at: dict[int, float], t: float, declared
) -> list[ev.ClaimDeclared]:
    """The calls laid out on the open discard, declared as the window closes, each when its
    caller laid it out (`laid_at`), but the seat's `declared` with them already."""
    if table.state != "claim_window":
        return []
    discarder, discard = table.discards[-1]
    return [
        ev.ClaimDeclared(min(laid_at.get(seat, t), t), seat, call_kind(laid, discard), tuple(laid))
        for seat, laid in enumerate(exposing)
        if laid and seat not in (discarder, declared) and seat not in table.calls
    ]


def still_laying(table: Table, exposing: list[list[int]]) -> bool:
    """A caller has laid out part of a meld, his other tiles still being read: a meld not
    yet whole, or a pung whose caller holds the fourth (perhaps a kong)."""
    if table.state != "claim_window":
        return False
    discarder, discard = table.discards[-1]
    kind = tiles.kind_of(discard)
    for seat, laid in enumerate(exposing):
        if not laid or seat == discarder:
            continue
        kinds = sorted([tiles.kind_of(x) for x in laid] + [kind])
        run = len(kinds) == 3 and kinds[0] + 1 == kinds[1] == kinds[2] - 1
        if (len(set(kinds)) > 1 and not run) or len(kinds) < 3:
            return True
        held = [x for x in table.hands[seat] if x not in laid]
        if len(kinds) == 3 and not run and kind in map(tiles.kind_of, held):
            return True
    return False


def shown_chow(table: Table, seat: int, laid: list[int], t: float) -> ev.ClaimDeclared | None:
    """The chow the seat's laid tiles show with the latest discard, if the rule book ends
    the others' rights with it (CCM's does not) and they make one."""
    if table.state != "claim_window" or table.rules.chow_call_wait is None:
        return None
    discarder, discard = table.discards[-1]
    chow = ev.ClaimDeclared(t, seat, CHOW, tuple(laid), shown=True)
    return None if check_call(chow, discarder, discard, table.hands[seat], True) else chow


def chow_pending(table: Table, chower: int | None, exposing: list[list[int]], laid_at) -> bool:
    """A chow shown (declared and recorded), its caller yet to discard, and nobody's call laid
    out before it (`laid_at`: seat -> when): the calls stay open for a win (吃牌 4:
    「兩者均完成才算完成吃牌步驟」)."""
    shown = table.calling.chow_shown()
    if chower is None or chower not in table.calls or shown is None:
        return False
    earlier = [
        s
        for s, laid in enumerate(exposing)
        if s != chower and laid and s not in table.calls and laid_at.get(s, shown) <= shown
    ]
    return not earlier and all(c.claim == CHOW for c in table.calls.values())


def called_before(table: Table, exposing: list[list[int]], drawer: int) -> bool:
    """The next player's draw comes with another's call on the open window, laid out or
    declared (not a win's): the call takes the discard first (seed 000 摸打規條 5)."""
    if table.state != "claim_window" or drawer != table.after_discarder:
        return False
    laid = [
        s
        for s, tiles_laid in enumerate(exposing)
        if tiles_laid and s not in (drawer, table.discarder)
    ]
    return bool(laid) or any(c.claim != "win" for c in table.calls.values())


def own_kong(table: Table, seat: int, laid: list[int], declared) -> tuple[int, ...] | None:
    """The kong the seat's laid tiles make on his turn, not yet `declared`: four of a kind,
    or one tile added to his exposed pung; None for tiles of a call on the open window
    (declared at its close)."""
    if table.state != "discard" or seat != table.turn:
        return None
    kinds = [tiles.kind_of(x) for x in laid]
    for kind in set(kinds):
        group = tuple(x for x in laid if tiles.kind_of(x) == kind)
        pung = any(m.kind == PUNG and tiles.kind_of(m.tiles[0]) == kind for m in table.melds[seat])
        whole = len(group) == 4 or (pung and len(group) == 1)
        if whole and group not in declared and set(group) <= set(table.hands[seat]):
            return group
    return None
