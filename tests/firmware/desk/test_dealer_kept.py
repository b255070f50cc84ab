"""The wrong dealer who keeps the deal (seed 000 配牌時的犯規 3 做錯莊, its third case; issue 12).

「若正確東家取了12張牌之後才發覺，他便喪失這局做莊的權利，由做錯莊者充當東家繼續這局。這局完後，照常
輪到正確東家的下家做莊」: found only after the right East has taken 12, the player who began the
deal keeps it as East of this hand. The referee enters it (DealerKept, the desk's
`dealer_kept`), then accepts the table as it lies: the wrong dealer holds 14 and discards
first, the hand's winds count from him, and the next hand passes from the right East.
"""

import pytest

from engine import events as ev
from engine import tiles
from engine.session import Session
from firmware.display import ActionRefused
from tests.support.moveskit import Deal, irregular
from tests.support.servicekit import act
from tests.support.tablekit import E, Game, N, S, W, of, stacked_walls

WSOM_DICE = ((3, 4), (2, 3))


def as_it_lies(table, east: int, t: float) -> ev.TableAccepted:
    """The table after the wrong dealer `east` dealt in his order: each seat's rack holds the
    tiles the engine dealt the seat as far from East as he is from the wrong dealer."""
    wall = tuple(t for side in table.wall.remaining() for t in side if t is not None)
    racks = tuple(tuple(table.hands[(s - east) % 4]) for s in range(4))
    return ev.TableAccepted(t, east, wall, racks, ((),) * 4, ((),) * 4, False)


def test_seed_000_做錯莊_3_the_wrong_dealer_keeps_the_deal_and_discards_first(wsom):
    """South deals in his order to the end (East's 12 taken, then South's jump): told the
    third case; the referee keeps South as East and accepts the table as it lies: South holds
    14, it is his turn, East's discard is out of turn and South's stands."""
    deal = Deal(wsom)
    told = []
    for n in range(16):
        told += [m.message for m in irregular(deal.take_block((S + deal.blocks[n].seat) % 4, n))]
    assert any("keeps the deal" in m and "dealer_kept" in m for m in told)
    table = deal.table
    assert table.apply(ev.DealerKept(20.0, S)) == []
    assert table.east == S and table.turn == S
    outputs = table.apply(as_it_lies(table, S, 21.0))
    assert not of(outputs, ev.Alert)
    assert len(table.hands[S]) == 14 and table.turn == S
    refused = of(table.apply(ev.TileDiscarded(22.0, E, tile=table.hands[E][0])), ev.Alert)
    assert refused  # the right East no longer holds the turn
    assert of(table.apply(ev.TileDiscarded(23.0, S, tile=table.hands[S][0])), ev.Discarded)


def test_seed_000_做錯莊_3_the_winds_count_from_the_east_kept(wsom):
    """The hand's winds follow the wrong dealer: South, East now, holding the East wind pung
    scores it as his own wind, and a win before any discard is his Heavenly Hand."""
    hands = ["1p", "EEE 123m 456m 789m 1p", "", ""]
    game = Game(wsom, WSOM_DICE, hands)
    game.start()
    table = game.table
    table.apply(ev.DealerKept(5.0, S))
    racks = [list(table.hands[s]) for s in range(4)]
    one_pin = next(t for t in racks[E] if tiles.kind_of(t) == tiles.tile("1p"))
    racks[E].remove(one_pin)
    racks[S].append(one_pin)  # South took the dealer's jump
    wall = tuple(t for side in table.wall.remaining() for t in side if t is not None)
    accepted = ev.TableAccepted(6.0, S, wall, tuple(map(tuple, racks)), ((),) * 4, ((),) * 4)
    assert not of(table.apply(accepted), ev.Alert)
    [won] = of(table.apply(ev.WinDeclared(7.0, S, shown=True)), ev.Won)
    names = {p["name"] for p in won.score["patterns"]}
    assert any("Heaven" in n for n in names), names
    assert {p["id"] for p in won.score["patterns"]} >= {"3.1"}  # his own wind, East


@pytest.mark.parametrize(
    ("seat", "said"),
    [(E, "the right East deals anyway"), (None, "the right East deals anyway")],
)
def test_seed_000_做錯莊_3_only_another_seat_keeps_the_deal(wsom, seat, said):
    game = Game(wsom, WSOM_DICE)
    game.start()
    [alert] = of(game.table.apply(ev.DealerKept(1.0, seat)), ev.Alert)
    assert said in alert.message and game.table.east == E


def test_seed_004_has_no_wrong_dealer_keeping_the_deal(ccm):
    """Seed 004 has no 做錯莊 rule: refused, the referee re-deals."""
    game = Game(ccm, (3, 4))
    game.start()
    [alert] = of(game.table.apply(ev.DealerKept(1.0, S)), ev.Alert)
    assert "re-deals" in alert.message


def test_seed_000_做錯莊_3_the_sheet_names_him_and_the_deal_passes_from_the_right_east(wsom):
    """「這局完後，照常輪到正確東家的下家做莊」: the row names the player who kept the deal as
    East; the next hand's dealer is the right East's next, as after any hand."""
    session = Session(wsom)
    game = Game(wsom, WSOM_DICE)
    game.table = session.new_table(stacked_walls(wsom, WSOM_DICE))
    game.start()
    game.table.apply(ev.DealerKept(1.0, W))
    game.table.apply(as_it_lies(game.table, W, 2.0))
    game.play_through()
    row = session.record(game.table)
    assert (row.dealer, row.east) == (0, 2)  # player 0 dealt; player 2 (West) was East
    assert session.dealer == 1


def test_the_desk_enters_the_wrong_dealer_kept(desk):
    """The desk's `dealer_kept` journals the DealerKept input; a refusal is a clear answer."""
    answer = act(desk, "dealer_kept", {"seat": N})
    assert answer["done"] == "dealer_kept" and desk.service.hands.table.east == N
    rows = [r.data() for r in desk.service.journal.rows() if r.kind == "input"]
    assert rows[-1]["type"] == "DealerKept" and rows[-1]["seat"] == N
    with pytest.raises(ActionRefused, match="the right East deals anyway"):
        act(desk, "dealer_kept", {"seat": E})
