"""The wall head touched while the calls on a discard are open (seed 000 摸打規條 2, 4, 5;
RULES.md 3.6; issue 12), at the sensed table (the Interpreter, as tests/support/moveskit.py drives
it) and from the referee's desk (a WallTouched input).

East discards C; West pungs it with his two C; South, next to draw, has reached for the wall.
"""

import json

import pytest

from engine import events as ev
from engine import tiles
from engine.ordering import WAIT
from firmware.desk.desk import Desk
from firmware.display import ActionRefused
from firmware.display.actions import body_problem
from firmware.journal.store import Journal
from tests.support.moveskit import Hand
from tests.support.servicekit import Clock, act, dealt_service
from tests.support.tablekit import WSOM_DICE, E, N, S, W

DRAWS = ["5p", "7s", "2m"]  # the wall head is 5p, then 7s


def pung_under_souths_draw(wsom) -> tuple[Hand, int]:
    """West lays out his pung; South's draw reaches his rack after it: the pung takes the
    discard, South's tile is to go back. Returns the hand and South's tile."""
    hand = Hand(wsom, WSOM_DICE, dealer_side=2, hands=["C", "", "CC", ""], draws=DRAWS)
    hand.deal()
    hand.discard(3.0, E, hand.own(E, "C")[0])
    hand.lay_out(3.6, W, hand.own(W, "CC"))
    wall = hand.table.wall
    lifted = wall.tile_at(wall.next_draw_position)
    hand.move(4.0, lifted, hand.wall_of(lifted), hand.zone("hand", S))
    return hand, lifted


def draw_of(hand: Hand, t: float, seat: int, index: int) -> int:
    """The seat takes the index-th live tile from the head into his rack."""
    tile = hand.table.wall.tile_at(hand.table.wall.live_position(index))
    hand.move(t, tile, hand.wall_of(tile), hand.zone("hand", seat))
    return tile


def wrong_draws(hand: Hand) -> list[ev.Alert]:
    return [a for a in hand.of(ev.Alert) if "wrong place" in a.message]


def test_a_pung_before_the_next_players_tile_is_merged_sends_it_back(wsom):
    """Seed 000 摸打規條 5: 「下家已摸牌…但在混進暗手中前有其他人碰牌…則下家要把牌放回」: the pung
    stands, the referee's screen tells South to put his tile back and North to choose, in
    words that never name the concealed tile; the tile put back is no move of the hand."""
    hand, lifted = pung_under_souths_draw(wsom)
    assert [(c.seat, c.claim) for c in hand.of(ev.Claimed)] == [(W, "pung")]
    (told,) = [a for a in hand.of(ev.Alert) if "摸打規條 5" in a.message]
    assert told.seat == S and "puts it back" in told.message and "N, next to draw" in told.message
    assert tiles.NAMES[tiles.kind_of(lifted)] == "5p" and "5p" not in told.message
    assert hand.move(4.5, lifted, hand.zone("hand", S), hand.wall_of(lifted)) == []
    assert hand.poll(12.0) == []  # the draw that waited is gone with the tile put back
    assert (
        lifted
        in hand.table.wall.remaining()[
            hand.table.walls.index(next(w for w in hand.table.walls if lifted in w))
        ]
    )


def test_the_chooser_takes_the_tile_put_back_as_usual(wsom):
    """Seed 000 摸打規條 5: North (West's next) may take the tile put back, as any draw."""
    hand, lifted = pung_under_souths_draw(wsom)
    hand.move(4.5, lifted, hand.zone("hand", S), hand.wall_of(lifted))
    hand.discard(6.0, W, hand.table.hands[W][0])
    hand.poll(9.0)
    assert draw_of(hand, 9.5, N, 0) == lifted
    assert hand.table.hands[N][-1] == lifted and wrong_draws(hand) == []


def test_the_chooser_leaves_it_to_the_toucher_and_takes_the_next(wsom):
    """Seed 000 摸打規條 5: North may leave it to South as his next draw and take the one
    after it: no wrong draw (摸牌時的犯規 1) for North, nor for East after him, who draws
    past it, nor for South, whose next draw it is."""
    hand, lifted = pung_under_souths_draw(wsom)
    hand.move(4.5, lifted, hand.zone("hand", S), hand.wall_of(lifted))
    hand.discard(6.0, W, hand.table.hands[W][0])
    hand.poll(9.0)
    draw_of(hand, 9.5, N, 1)
    hand.discard(10.0, N)
    hand.poll(13.0)
    draw_of(hand, 13.5, E, 1)
    hand.discard(14.0, E)
    hand.poll(17.0)
    assert draw_of(hand, 17.5, S, 0) == lifted
    assert hand.table.hands[S][-1] == lifted and wrong_draws(hand) == []


def test_a_tile_never_put_back_goes_to_the_referee(wsom):
    """Seed 000 摸打規條 5 (下家要把牌放回): South keeps the tile in his rack; after the wait for
    moves seen early (engine/ordering.py WAIT) his draw goes to the engine, which refuses it
    as out of turn for the referee to rule, rather than waiting for ever."""
    hand, lifted = pung_under_souths_draw(wsom)
    assert hand.poll(4.5) == []
    (late,) = hand.poll(4.0 + WAIT)
    assert late == ev.TileDrawn(4.0 + WAIT, S, lifted)
    assert any(a.seat == S and "out of turn" in a.message for a in hand.of(ev.Alert))


def test_the_toucher_gives_up_his_calls_and_his_win_unless_another_calls(wsom):
    """Seed 000 摸打規條 2: 「一旦伸手觸摸了牆頭的牌，便當作放棄鳴牌的權利。但如果有他家鳴牌，
    則仍有權…優先和牌」: South, touching the wall head (entered by the referee), may no longer
    chow East's discard, nor win on it alone (issue 30 item 2); once West has called it, his
    win stands."""
    hand = Hand(wsom, WSOM_DICE, dealer_side=2, hands=["5p", "4p 6p", "", ""])
    hand.deal()
    hand.discard(3.0, E, hand.own(E, "5p")[0])
    assert hand.apply([ev.WallTouched(3.5, S)]) == []
    (refused,) = hand.apply([ev.ClaimDeclared(3.6, S, "chow", hand.own(S, "4p 6p"))])
    assert isinstance(refused, ev.Alert) and "摸打規條 2" in refused.message
    hands = ["5p", "123m 456m 789m 123p 5p", "5p 5p", ""]
    ready = Hand(wsom, WSOM_DICE, dealer_side=2, hands=hands)
    ready.deal()
    ready.discard(3.0, E, ready.own(E, "5p")[0])
    (alone,) = ready.apply([ev.WallTouched(3.5, S), ev.ClaimDeclared(3.6, S, "win")])
    assert isinstance(alone, ev.Alert) and "摸打規條 2" in alone.message
    pung = ev.ClaimDeclared(3.7, W, "pung", ready.own(W, "5p 5p"))
    ready.apply([pung, ev.ClaimDeclared(3.8, S, "win"), ev.ClaimWindowClosed(4.0, None)])
    assert [w.seat for w in ready.of(ev.Won)] == [S]


def test_a_touch_outside_open_calls_is_refused_with_a_reason(wsom):
    """Seed 000 摸打規條 2 matters only while calls on a discard are open, and only for the
    next player to draw: a touch entered at another moment, or for another seat, is refused
    with a message for the referee, and nothing changes."""
    hand = Hand(wsom, WSOM_DICE, dealer_side=2)
    hand.deal()
    (before,) = hand.apply([ev.WallTouched(2.0, S)])
    assert isinstance(before, ev.Alert) and "摸打規條 2" in before.message
    hand.discard(3.0, E)
    (other,) = hand.apply([ev.WallTouched(3.5, W)])
    assert isinstance(other, ev.Alert) and hand.table.state == "claim_window"


def test_the_desk_enters_a_touch_journaled_and_answered(tmp_path):
    """Seed 000 摸打規條 2 from the referee's desk (a touch is no movement the readers see):
    `wall_touched` names the seat; it is journaled as the hand's input like any other, and
    refused with the rule's reason when no calls are open; a body without a seat 0..3 is
    refused naming the field."""
    with Journal(tmp_path / "j.sqlite") as journal:
        desk = Desk(dealt_service(journal, Clock()), "T1")
        with pytest.raises(ActionRefused, match="摸打規條 2"):
            act(desk, "wall_touched", {"seat": 1})
        touched = [r.data() for r in journal.rows() if '"WallTouched"' in json.dumps(r.data())]
    assert len(touched) == 1
    for body in ({}, {"seat": 4}, {"seat": "S"}):
        assert body_problem("wall_touched", body)[0] == "seat"
