"""The order of the deal at the sensed table, and the errors of the deal (seed 000 配牌 1-4,
配牌時的犯規 1-4, 7; RULES.md 3.4).

The engine deals at the break (engine/dealing.py): each seat's tiles are known at once. The
players then take them from the walls block by block: East two stacks (4 tiles), then South,
West and North, three times round (12 each), then the jump (跳牌): East the 1st and 5th tiles
from the head, South, West and North one each. `DealOrder` checks each take the interpreter
(engine/moves.py) sees against that sequence: out of turn, another seat's tiles taken (拿錯牌),
the deal begun by a seat not East (做錯莊), a tile not of the deal taken while the break may
still be put right (開錯門). A deal taken whole from a break near the dice's is 開錯門 alone,
told once, and gives the hand a BreakMade once it stands (engine/wrong_break.py). Each is a
note for the referee (`Irregular`) naming the seed's rule in public words: a tile taken from
the wall is concealed, so none is named (the tile goes in the note's hidden field, as
engine/moves.py's `Irregular` has it). The referee moves the hand on by accepting the table
as it lies, or by a re-deal (`redeal_refusal`).
"""

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from engine import events as ev
from engine import tampering
from engine.ordering import HOLD
from engine.seats import WORDS
from engine.wall import Break
from engine.wrong_break import WrongBreak, deals_near

if TYPE_CHECKING:
    from engine.table import Table

Note = Callable[[float, int, str, int | None], Any]  # (t, side, message, tile) -> a note
ROUNDS = 12  # blocks before the jump: three rounds of 4 tiles for each of the four seats
BREAK_STANDS = 4  # the blocks after which the break stands (配牌時的犯規 2: 各取四張牌)
FIRST_TAKE, NINTH_TO_TWELFTH = 4, 12  # the right East's tiles that end 做錯莊's first two cases
READ_LAG = HOLD  # seconds the readers may confirm a take late (dropped reads): engine/ordering


@dataclass(frozen=True)
class Block:
    """One take of the deal: whose deal it is, and its tiles."""

    seat: int
    tiles: frozenset[int]


def blocks(hands) -> list[Block]:
    """The deal's takes in order, from the Dealt hands, laid in the order engine/wall.py's
    `Wall.deal` takes them: three rounds of four tiles a seat, then the jump, East's two
    (the 1st and 5th) and one for each of the others."""
    rounds = [Block(k % 4, frozenset(hands[k % 4][k // 4 * 4 :][:4])) for k in range(ROUNDS)]
    return rounds + [Block(seat, frozenset(hands[seat][ROUNDS:])) for seat in range(4)]


class DealOrder:
    """The deal of one hand as the players take it. `side_of` turns a seat into the side of
    the table it sits on; `ref` is the rule book's reference for the wall and the deal;
    `note(t, side, message, tile)` makes the interpreter's note for the referee; `near`, the
    deals of the breaks near the dice's (engine/wrong_break.py `deals_near`); `stands`, the
    rule book lets a wrong break stand once all four have their first four tiles."""

    def __init__(
        self,
        hands,
        side_of: Callable[[int], int],
        ref: str,
        note: Note,
        near: dict[Break, list[list[int]]] | None = None,
        stands: bool = False,
    ):
        self.side_of, self.ref, self.note, self.stands = side_of, ref, note, stands
        self.rebase(hands)
        self.wrong = WrongBreak({brk: blocks(dealt) for brk, dealt in (near or {}).items()})
        self.taken: set[int] = set()
        self.dealer = 0  # the seat dealing as East: another after 做錯莊
        self.east_took = 0  # tiles of the deal the right East has taken
        self.cases_told: set[int] = set()  # 做錯莊's cases told the referee
        self.out_of_turn: set[int] = set()  # blocks told as taken out of turn

    def rebase(self, hands) -> None:
        """The deal to judge the takes by: the dice's, or the break made's once it stands
        (a Rebased output); no other break is looked for after it."""
        self.blocks = blocks(hands)
        self.of_block = {tile: n for n, block in enumerate(self.blocks) for tile in block.tiles}
        self.begun: dict[int, tuple[float, int]] = {}  # block -> when, by whom it was begun
        self.wrong = WrongBreak({})

    @property
    def started(self) -> bool:
        """A tile of the deal has been taken: the dice stand (配牌時的犯規 1)."""
        return bool(self.taken)

    def concerns(self, tile: int, seat: int, table: "Table") -> bool:
        """A take into the seat's rack this order judges: a tile of the deal still in the
        wall, or, before the first discard, any other tile taken before the break stands
        (not a flower's replacement)."""
        if tile in self.of_block:
            return tile not in self.taken
        fresh = not table.discards and not table.owes_replacement(seat)
        return fresh and not self._break_stands()

    def take(
        self, t: float, seat: int, tile: int, table: "Table", to_deal: list[set[int]]
    ) -> list[Any]:
        """The notes for `seat` taking `tile` from the wall; `to_deal` (the interpreter's
        tiles still to come, by seat) loses it, whoever took it. A take the deal does not
        explain may be a tile swapped in the wall too: the tampering note comes first, with
        the tiles that were his to take (issue 17)."""
        his = set(to_deal[seat])
        self.wrong.narrow(seat, tile)
        if self.wrong.fitting and (self.wrong.told or not self._explained(seat, tile)):
            return self._off_break(t, seat, tile, to_deal)
        notes, explained = self._judged(t, seat, tile, to_deal)
        if explained:
            return notes
        return tampering.seen(t, table, his, seat, tile, self.side_of) + notes

    def put_back(self, tile: int, to_deal: list[set[int]]) -> bool:
        """A tile of the deal back in a wall before the break stands: the error put right
        (配牌時的犯規 2 如果立即發覺便應更正, 4 可以免罰更正), the tile to come again; False
        when it is no such tile."""
        if tile not in self.taken or self._break_stands():
            return False
        self.taken.discard(tile)
        self.wrong.put_back(tile)
        if tile in self.of_block:
            to_deal[self.blocks[self.of_block[tile]].seat].add(tile)
        self.begun = {n: b for n, b in self.begun.items() if self.blocks[n].tiles & self.taken}
        return True

    def _explained(self, seat: int, tile: int) -> bool:
        """The dice's deal explains the take: a tile of it, the seat's to take (or the first
        take of all, by whoever begins the deal: 做錯莊's first case)."""
        n = self.of_block.get(tile)
        return n is not None and ((not self.taken and n == 0) or seat in self._takers(n))

    def _off_break(self, t: float, seat: int, tile: int, to_deal: list[set[int]]) -> list[Any]:
        """A take of the deal of a break near the dice's, which alone explains every take:
        開錯門, told once; once that break stands, the hand's BreakMade, once."""
        for waiting in to_deal:
            waiting.discard(tile)
        self.taken.add(tile)
        notes = [] if self.wrong.told else [self._note(t, seat, None, self._break_made(seat))]
        self.wrong.told = True
        made = self.wrong.standing(self.taken) if self.stands else None
        if made is None:
            return notes
        self.stands = False  # given once: the Rebased output rebases the order
        return [*notes, ev.BreakMade(t, made.seat, made.stacks)]

    def _judged(
        self, t: float, seat: int, tile: int, to_deal: list[set[int]]
    ) -> tuple[list[Any], bool]:
        """The notes, and whether the take is one the deal (or the wrong dealer's) explains."""
        n = self.of_block.get(tile)
        if n is None:
            return [self._note(t, seat, tile, self._wrong_break(seat))], False
        for waiting in to_deal:
            waiting.discard(tile)
        first = not self.taken
        self.taken.add(tile)
        self.east_took += seat == 0
        if first and n == 0 and seat != 0:
            self.dealer = seat
            return [self._note(t, seat, None, self._wrong_dealer(1))], True
        notes = self._wrong_dealer_goes_on(t, seat)
        if seat not in self._takers(n):
            notes.append(self._note(t, seat, tile, self._wrong_tiles(seat, self.blocks[n].seat)))
            return notes, False
        if n not in self.begun:
            self.begun[n] = (t, seat)
            notes += self._ahead_of(t, n)
        return notes, True

    def _ahead_of(self, t: float, n: int) -> list[Any]:
        """Block `n` begun now: the later blocks begun more than READ_LAG before it were
        taken out of turn (the readers confirm a take up to about that late, so a take seen
        just before an earlier one is no proof of it)."""
        ahead = sorted(
            (m, seat)
            for m, (began, seat) in self.begun.items()
            if m > n and began < t - READ_LAG and m not in self.out_of_turn
        )
        self.out_of_turn.update(m for m, _ in ahead)
        return [self._note(t, seat, None, self._early(seat)) for _, seat in ahead]

    # -- the errors, in the seed's words ---------------------------------------------------

    def _takers(self, n: int) -> set[int]:
        """Who may take block `n`: its seat, in the wrong dealer's turn order after 做錯莊;
        the jump either the right East's way (the second case) or the wrong dealer's (the
        third), as the referee has ruled."""
        block = self.blocks[n]
        wrong = (block.seat + self.dealer) % 4
        return {wrong} if n < ROUNDS else {block.seat, wrong}

    def _break_stands(self) -> bool:
        return all(self.blocks[n].tiles <= self.taken for n in range(BREAK_STANDS))

    def _wrong_dealer_goes_on(self, t: float, seat: int) -> list[Any]:
        """The deal goes on under the wrong dealer: the case it has come to, told once."""
        if self.dealer == 0:
            return []
        case = 3 if self.east_took >= NINTH_TO_TWELFTH else 2 if self.east_took >= FIRST_TAKE else 1
        if case in self.cases_told:
            return []
        return [self._note(t, seat, None, self._wrong_dealer(case))]

    def _wrong_dealer(self, case: int) -> str:
        """Seed 000 配牌時的犯規 3 (做錯莊), by how far the right East's own takes went."""
        self.cases_told.add(case)
        who = f"the {WORDS[self.dealer]} player ({self._side(self.dealer)})"
        remedy = {
            1: "found before East has taken his first 4 tiles, it is re-dealt (redeal)",
            2: (
                "found now, East having taken his first 4 but not his 9th to 12th, the deal goes "
                "on to 12 each, then East takes the jump; then accept the table as it lies"
            ),
            3: (
                f"found only now, East having taken 12, the {WORDS[self.dealer]} player keeps "
                "the deal as East of this hand, and the next hand passes from the right East "
                "as usual: the referee enters it (dealer_kept), then accepts the table as it "
                "lies"
            ),
        }[case]
        return f"{who} began the deal, not East (seed 000 配牌時的犯規 3 做錯莊): {remedy}"

    def _wrong_tiles(self, seat: int, taker: int) -> str:
        """Seed 000 配牌時的犯規 4 (拿錯牌)."""
        return (
            f"the {WORDS[seat]} player ({self._side(seat)}) took a tile of the "
            f"{WORDS[taker]} player's deal (seed 000 配牌時的犯規 4 拿錯牌): put right free of "
            "penalty if he has not looked at his tiles, else the referee rules a penalty; "
            "correct the tracking or accept the table as it lies"
        )

    def _early(self, seat: int) -> str:
        """Seed 000 配牌 1-3: the order of the deal."""
        return (
            f"the {WORDS[seat]} player ({self._side(seat)}) took tiles of the deal out of turn: "
            "East, South, West, North take two stacks each, three times, then the jump "
            f"(seed 000 配牌 1-3, {self.ref}); check the tiles taken before his"
        )

    def _wrong_break(self, seat: int) -> str:
        """Seed 000 配牌時的犯規 2 (開錯門): put right until each seat has 4 tiles."""
        return (
            f"the {WORDS[seat]} player ({self._side(seat)}) took a tile that is not of the deal "
            "from the break the dice gave: if the wall was broken at the wrong place, put it "
            "right now; once each player has taken 4 tiles the break stands (seed 000 "
            f"配牌時的犯規 2 開錯門, {self.ref}); re-deal (redeal) or accept the table as it lies"
        )

    def _break_made(self, seat: int) -> str:
        """Seed 000 配牌時的犯規 2 (開錯門): the deal taken whole from a break near the dice's."""
        who = f"the {WORDS[seat]} player ({self._side(seat)})"
        if not self.stands:
            return (
                f"{who} took the deal from a break other than the dice's (開錯門; {self.ref} "
                "has no rule letting it stand): put it right now, or re-deal (redeal)"
            )
        return (
            f"{who} took the deal from a break other than the dice's (seed 000 配牌時的犯規 2 "
            f"開錯門, {self.ref}): put it right now if found at once; once all four have "
            "taken their first 4 tiles the break made stands, no penalty, and the hand goes on "
            "from it (its wall head, kong tail and 14 dead tiles)"
        )

    def _side(self, seat: int) -> str:
        return f"on the {WORDS[self.side_of(seat)]} side"

    def _note(self, t: float, seat: int, tile: int | None, message: str) -> Any:
        return self.note(t, self.side_of(seat), message, tile)


def order_of(table: "Table", broken: Break | None, hands, side_of, note: Note) -> DealOrder:
    """The order of the deal `hands` at the dice's break `broken`, with the deals of the
    breaks near it that a deal taken from the wrong place may follow (engine/wrong_break.py)."""
    rules = table.rules
    near = deals_near(table.walls, broken, rules.dead_wall) if broken is not None else {}
    ref = rules.refs.get("wall", "")
    return DealOrder(hands, side_of, ref, note, near, rules.wrong_break_stands)


def redeal_refusal(discards) -> str | None:
    """Why the referee may not order a re-deal now, or None: only until all four have
    discarded once (seed 000 配牌時的犯規 7: 在四家均已打了一輪牌之後，便不能洗牌重配).
    `discards` are the hand's (seat, tile) in order."""
    if {seat for seat, _ in discards} >= {0, 1, 2, 3}:
        return (
            "no re-deal once all four players have discarded (seed 000 配牌時的犯規 7): the hand "
            "is played out; a machine or tracking fault voids it (void_hand)"
        )
    return None
