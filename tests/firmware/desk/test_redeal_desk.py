"""The referee's re-deal and his roll after the break at the desk (firmware/desk/deal_errors.py,
issue
12; seed 000 配牌時的犯規 1, 7). The service runs without devices (tests/support/servicekit.py), its
first hand dealt by the engine and still in the walls."""

import pytest

from engine import events as ev
from engine import tiles
from engine.deal_order import blocks
from engine.seats import side_of, zone
from firmware.desk.deal_errors import REDEAL
from firmware.display import ActionRefused
from firmware.display.actions import body_problem
from tests.support.servicekit import act


def voided_rows(desk) -> list[dict]:
    rows = [r.data() for r in desk.service.journal.rows() if r.kind == "device"]
    return [row for row in rows if row["type"] == "HandVoided"]


def test_seed_000_配牌時的犯規_7_the_referee_redeals_before_the_first_round(desk):
    """Seed 000 配牌時的犯規 7 (洗牌重配): the referee's re-deal voids the hand, journaled as
    a re-deal with his reason; the same hand number is dealt again."""
    service = desk.service
    number = service.status().hand_number
    assert act(desk, "redeal", {"reason": "the wrong player dealt"}) == {"redealt": number}
    assert service.status().table is None and service.status().hand_number == number - 1
    [row] = voided_rows(desk)
    assert row["reason"] == f"{REDEAL}: the wrong player dealt"
    with pytest.raises(ActionRefused, match="no hand is in play"):
        act(desk, "redeal", {"reason": "again"})
    assert body_problem("redeal", {}) == (
        "reason",
        "redeal needs the field 'reason': why, printable text of at most 200 characters",
    )


def test_seed_000_配牌時的犯規_7_no_redeal_once_all_four_have_discarded(desk):
    """Seed 000 配牌時的犯規 7: 在四家均已打了一輪牌之後，便不能洗牌重配 — refused with the
    rule, and the hand plays on."""
    hands = desk.service.hands
    table, t = hands.table, desk.service.clock()
    for seat in range(4):
        if seat:
            hands.apply(ev.TileDrawn(t, seat))
        hands.apply(ev.TileDiscarded(t, seat, table.hands[seat][-1]))
        hands.apply(ev.ClaimWindowClosed(t, None))
    with pytest.raises(ActionRefused, match="配牌時的犯規 7"):
        act(desk, "redeal", {"reason": "too late"})
    assert voided_rows(desk) == [] and desk.service.status().in_play


def test_seed_000_配牌時的犯規_1_a_roll_after_the_break_is_answered(desk):
    """Seed 000 配牌時的犯規 1 (擲錯骰): the engine deals at the break, so the referee's roll
    is refused with what he may do: a re-deal before the first tile of the deal is taken;
    once it is, the dice stand."""
    with pytest.raises(ActionRefused, match=r"re-deal \(redeal\) before the first tile"):
        act(desk, "roll", {"dice": [3, 4]})
    hands = desk.service.hands
    dealer = hands.session.player_at(0)
    tile = min(blocks(hands.table.hands)[0].tiles)
    wall = next(s for s in range(4) if tile in hands.table.walls[s])
    source, rack = zone("wall", side_of(wall, dealer)), zone("hand", side_of(0, dealer))
    assert hands.interpreter.move(desk.service.clock(), tile, source, rack) == []
    with pytest.raises(ActionRefused, match="the dice stand"):
        act(desk, "roll", {"dice": [3, 4]})


def test_seed_000_配牌時的犯規_6_long_at_the_deal_the_referee_removes_the_excess(desk):
    """Seed 000 配牌時的犯規 6 (配牌相公, long): South's rack holds a tile of West's beside his
    13. Before his first discard the referee has the excess taken at random (one of the
    14) back into a wall, journaled, with the rule book's point penalty (10, an inference);
    the public alert names no tile."""
    hands = desk.service.hands
    table, dealer = hands.table, hands.session.player_at(0)
    rack = zone("hand", side_of(1, dealer))
    held = [*table.hands[1], table.hands[2][0]]
    for tile in held:
        hands.tracker.correct(tile, rack)
    with pytest.raises(ActionRefused, match="no more than his 13"):
        act(desk, "remove_excess", {"seat": 3})  # North's rack is not long
    answer = act(desk, "remove_excess", {"seat": 1})
    assert answer["removed"] == 1
    (penalty,) = [e for e in answer["events"] if e["type"] == "PenaltyApplied"]
    assert penalty["offence"] == "deal_count_long" and penalty["points"] == 10
    (alert,) = [e for e in answer["events"] if e["type"] == "Alert"]
    assert not set(alert["message"].split()) & set(tiles.NAMES)
    layout = hands.tracker.layout()
    (removed,) = [tile for tile in held if layout[tile] != rack]
    assert layout[removed].startswith("wall_")
    rows = [(r.kind, r.data()) for r in desk.service.journal.rows()]
    rows = [(kind, row) for kind, row in rows if row.get("type") != "RefereeActed"]  # who: issue 16
    assert rows[-1] == ("device", {**rows[-1][1], "type": "TrackingCorrected", "tile": removed})
    report = {"type": "ViolationReported", "seat": 1, "offence": "deal_count_long"}
    assert any(kind == "input" and report.items() <= row.items() for kind, row in rows)


def test_seed_000_配牌時的犯規_6_after_his_first_discard_the_count_stands(desk):
    """Seed 000 配牌時的犯規 6: once he has discarded, a wrong count is played as 相公."""
    hands = desk.service.hands
    table = hands.table
    hands.apply(ev.TileDiscarded(desk.service.clock(), 0, table.hands[0][-1]))
    with pytest.raises(ActionRefused, match="大相公"):
        act(desk, "remove_excess", {"seat": 0})
