"""Calls on a chowed discard at the sensed table (seed 000 鳴牌優先規條 4, 吃牌 4 and 5;
RULES.md 3.7; issue 12 item 3).

WSOM: once the chower has shown his chow or discarded, the others' pung and kong rights on
that discard are over; a win keeps its priority until he has done both. A chow shown sooner
than about a second (約一秒) after the discard was shown too fast: the others keep their rights
until then. CCM's seed has no such rule: its pung outranks a chow until the calls close.
The tests drive the Interpreter as tests/support/moveskit.py's Hand does.
"""

import pytest

from engine import events as ev
from engine.moves import Interpreter
from tests.support.moveskit import CLAIM_WINDOW, Hand
from tests.support.tablekit import CCM_DICE, WSOM_DICE, E, N, S, W

# East discards 5p: South (next) chows it with 4p 6p, West could pung it, North waits on it.
HANDS = ["5p", "4p 6p", "5p 5p", "123m 456m 789m 123p 5p"]


def discarded(ruleset, dice=WSOM_DICE, hands=HANDS) -> Hand:
    hand = Hand(ruleset, dice, dealer_side=2, hands=hands)
    hand.deal()
    hand.discard(3.0, E, hand.own(E, "5p")[0])
    return hand


def spare(hand: Hand) -> int:
    """A tile of South's to discard after his chow: none of the chow's."""
    run = hand.table.calls[S].tiles if S in hand.table.calls else ()
    return next(t for t in hand.table.hands[S] if t not in run)


def test_a_chow_shown_is_declared_at_once_and_the_calls_wait_for_its_discard(wsom):
    """Seed 000 吃牌 4: the chow is complete once shown and discarded; until then the calls
    on the discard stay open (for a win), past the window's usual time."""
    hand = discarded(wsom)
    run = hand.own(S, "4p 6p")
    assert hand.lay_out(4.5, S, run) == [ev.ClaimDeclared(4.5, S, "chow", run, shown=True)]
    assert hand.poll(5.0) == [] and hand.poll(20.0) == []
    assert hand.table.state == "claim_window"
    chowed = hand.table.discards[-1][1]
    assert hand.move(21.0, chowed, hand.zone("river", E), hand.zone("melds", S)) == []
    out = spare(hand)
    assert hand.discard(22.0, S, out) == [
        ev.ClaimWindowClosed(22.0, None),
        ev.TileDiscarded(22.0, S, out),
    ]
    assert [c.claim for c in hand.of(ev.Claimed)] == ["chow"]
    assert hand.table.discards[-1] == (S, out) and hand.table.state == "claim_window"


def test_a_pung_called_after_the_chow_was_shown_is_late(wsom):
    """Seed 000 鳴牌優先規條 4: 「如果吃牌者在叫吃後已把明順亮出…則其他二家便失去碰牌、槓牌的權利」:
    West's pung laid out after South showed his chow is refused as late; the chow stands."""
    hand = discarded(wsom)
    hand.lay_out(4.5, S, hand.own(S, "4p 6p"))
    hand.lay_out(5.5, W, hand.own(W, "5p 5p"))
    hand.discard(7.0, S, spare(hand))
    late = [a for a in hand.of(ev.Alert) if a.seat == W]
    assert late and "鳴牌優先規條 4" in late[0].message
    assert [(c.seat, c.claim) for c in hand.of(ev.Claimed)] == [(S, "chow")]


@pytest.mark.parametrize(
    "chow_at, pung_at",
    [(4.5, 3.8), (3.3, 3.8)],
    ids=["pung-laid-out-first", "chow-shown-too-fast"],
)
def test_a_pung_before_the_chow_ended_the_rights_outranks_it(wsom, chow_at, pung_at):
    """RULES.md 3.7 priority (pung before chow): West's pung laid out before South's chow was
    shown is granted at the window's time. Seed 000 吃牌 5: so is one laid out after a chow
    shown too soon after the discard (「之後太快亮牌」): West's pung 0.8 s after it outranks the
    chow shown at 0.3 s, the rights ending a second after the discard (chow_call_seconds)."""
    hand = discarded(wsom)
    for t, seat, names in sorted([(chow_at, S, "4p 6p"), (pung_at, W, "5p 5p")]):
        hand.lay_out(t, seat, hand.own(seat, names))
    hand.poll(5.0)
    assert [(c.seat, c.claim) for c in hand.of(ev.Claimed)] == [(W, "pung")]


def test_a_win_after_the_chow_was_shown_and_before_its_discard_wins(wsom):
    """Seed 000 吃牌 4 (「他家應等吃牌者亮出明順後才摸牌或叫鳴（和牌除外）」) and RULES.md 3.7: a
    win keeps its priority until the chow is both shown and discarded: North's win pressed
    after the window's usual time, the chow already shown, wins the discard."""
    hand = discarded(wsom)
    hand.lay_out(4.5, S, hand.own(S, "4p 6p"))
    hand.poll(6.0)
    assert hand.press_win(8.0, N) == [ev.ClaimDeclared(8.0, N, "win")]
    assert hand.discard(9.0, S, spare(hand)) == [ev.ClaimWindowClosed(9.0, None)]
    won = hand.of(ev.Won)
    assert [(w.seat, w.from_seat) for w in won] == [(N, E)] and hand.of(ev.Claimed) == []


def test_engine_refuses_a_pung_called_after_a_chow_shown(wsom):
    """Seed 000 鳴牌優先規條 4, as the engine holds it for every source of inputs: a pung
    called after the chow's showing (and a second after the discard) is late; one called
    before it, declared later, still stands and outranks the chow. A chow only called, not
    seen shown (tests/engine/test_table.py), ends nothing."""
    hand = discarded(wsom)
    chow, pung = hand.own(S, "4p 6p"), hand.own(W, "5p 5p")
    hand.apply([ev.ClaimDeclared(4.5, S, "chow", chow, shown=True)])
    (late,) = hand.apply([ev.ClaimDeclared(4.6, W, "pung", pung)])
    assert isinstance(late, ev.Alert) and "鳴牌優先規條 4" in late.message
    assert W not in hand.table.calls
    hand.apply([ev.ClaimDeclared(4.4, W, "pung", pung), ev.ClaimWindowClosed(5.0, None)])
    assert [(c.seat, c.claim) for c in hand.of(ev.Claimed)] == [(W, "pung")]


def test_ccm_pung_outranks_a_chow_until_the_calls_close(ccm):
    """CCM seed 004 §34 (碰牌優先): no chow-showing rule; South's chow is declared at the
    close, and West's pung laid out after it still wins the discard."""
    hand = discarded(ccm, CCM_DICE)
    hand.lay_out(3.3, S, hand.own(S, "4p 6p"))
    hand.lay_out(4.0, W, hand.own(W, "5p 5p"))
    hand.poll(5.0)
    assert [(c.seat, c.claim) for c in hand.of(ev.Claimed)] == [(W, "pung")]


def test_a_chower_who_discards_first_shows_his_chow_after(wsom):
    """Seed 000 吃牌 4: 「容許（但不鼓勵）先打牌、後亮出明順」: South discards, then lays out his
    chow after the window's usual time: the calls waited for it; the chow is granted and his
    discard stands, his time running until the showing (至此之前均計作吃牌者的打牌時間)."""
    hand = discarded(wsom)
    out = next(t for t in hand.table.hands[S] if t not in hand.own(S, "4p 6p"))
    assert hand.discard(4.5, S, out) == []  # waits: nothing says yet it is a chow's
    assert hand.poll(5.5) == []
    run = hand.own(S, "4p 6p")
    assert hand.lay_out(6.0, S, run) == [
        ev.ClaimDeclared(4.5, S, "chow", run, shown=True),
        ev.ClaimWindowClosed(6.0, None),
        ev.TileDiscarded(6.0, S, out),
    ]
    assert [c.claim for c in hand.of(ev.Claimed)] == ["chow"]
    assert hand.table.discards[-1] == (S, out)


def test_a_pung_called_after_the_chowers_discard_is_late(wsom):
    """Seed 000 鳴牌優先規條 4: 「已把明順亮出或已打牌」: either ends the others' pung rights:
    West's pung laid out after South's discard (made before he showed his chow) is late."""
    hand = discarded(wsom)
    out = next(t for t in hand.table.hands[S] if t not in hand.own(S, "4p 6p"))
    hand.discard(4.5, S, out)
    hand.lay_out(4.8, W, hand.own(W, "5p 5p"))
    hand.lay_out(4.9, S, hand.own(S, "4p 6p"))
    assert [(c.seat, c.claim) for c in hand.of(ev.Claimed)] == [(S, "chow")]
    assert any(a.seat == W and "鳴牌優先規條 4" in a.message for a in hand.of(ev.Alert))


def test_a_hand_taken_up_after_a_cut_knows_the_chow_shown(wsom):
    """Issue 14 with seed 000 吃牌 4: after a power cut the interpreter is made anew; the chow
    shown before the cut is the hand's (its calls), so the calls still wait for the chower's
    discard, and it is not declared a second time."""
    hand = discarded(wsom)
    run = hand.own(S, "4p 6p")
    hand.lay_out(4.5, S, run)
    hand.interp = Interpreter(hand.table, hand.dealer_side, claim_window=CLAIM_WINDOW)
    hand.interp.outputs(5.0, [])
    assert hand.interp.chower == S and hand.poll(20.0) == []
    out = spare(hand)
    assert hand.discard(21.0, S, out) == [
        ev.ClaimWindowClosed(21.0, None),
        ev.TileDiscarded(21.0, S, out),
    ]
    assert [c.claim for c in hand.of(ev.Claimed)] == ["chow"]  # declared once, granted once
    assert hand.table.discards[-1] == (S, out)
