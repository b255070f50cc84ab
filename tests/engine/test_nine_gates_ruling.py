"""A self-drawn Nine Gates ruled at the table (seed 000 九蓮寶燈自摸規條; RULES.md 1.2, 2.2).

Seed 000: 「「九蓮寶燈」的牌自摸和時﹐必需把自摸的牌清楚分開放好﹐如果在公開確認前把自摸的牌混進
手牌里﹐「九蓮寶燈」便不能算。」 No table profile reads where a tile lies within a rack (the zone
reader sees a rack as one zone), so the table cannot tell whether the drawn tile was kept apart:
a self-drawn Nine Gates raises an alert awaiting the referee's ruling; applied (the drawn tile
was mixed in), the win is scored again without Nine Gates and the sheet settled again; waived,
Nine Gates stands. The same mechanism as the follow-tile claim
(tests/engine/test_follow_tile_claim.py).
"""

from engine import events as ev
from engine.session import Session
from firmware.journal.store import Journal
from tests.support.followkit import (
    ServedGame,
    assert_replays_to,
    rule,
    ruled_in_the_next_hand,
    ruling_awaited,
    turn,
)
from tests.support.tablekit import WSOM_DICE, E, Game, S, of, stacked_walls

GATES = "1112345678999m"  # South's 13 dealt tiles: a nine-way wait (2.2)
SELF_DRAWN = (["", GATES, "", ""], {0: "5m"})  # South's first draw is 5m
KEPT_APART = [-480, 1440, -480, -480]  # 2.2 Nine Gates 480, each pays it
MIXED_IN = [-90, 270, -90, -90]  # 1.2 + 2.1.2 + 4.2.1 = 90, each pays it


def south_self_draws(game: Game) -> list[ev.Event]:
    """East discards his newest tile, South draws 5m and declares the self-drawn win."""
    game.start()
    turn(game, E)
    game.draw(S)
    return game.apply(ev.WinDeclared, S)


def gates_alerts(out) -> list[ev.Alert]:
    return [a for a in of(out, ev.Alert) if "九蓮寶燈自摸規條" in a.message]


def session_hand(wsom) -> tuple[Session, Game, int]:
    """Hand 1 of a session: South's self-drawn Nine Gates, settled on the sheet; the alert id."""
    session = Session(wsom)
    game = Game(wsom, WSOM_DICE)
    game.table = session.new_table(stacked_walls(wsom, WSOM_DICE, *SELF_DRAWN))
    [alert] = gates_alerts(south_self_draws(game))
    session.record(game.table)
    return session, game, alert.id


def test_seed_000_only_a_self_drawn_nine_gates_asks_whether_the_tile_was_kept_apart(wsom):
    """seed 000 九蓮寶燈自摸規條: a self-drawn Nine Gates asks for a ruling, in words about the
    rule (naming no tile), 2.2's; the rule is the self-draw's only: a Nine Gates won on East's
    discard stands without asking, nor does another self-drawn hand ask, nor Heaven's Nine
    Gates shape, which scores Heaven only whatever the referee would rule (RULES.md 1.2)."""
    out = south_self_draws(Game(wsom, WSOM_DICE, *SELF_DRAWN))
    [won] = of(out, ev.Won)
    assert [p["id"] for p in won.score["patterns"]] == ["2.2"]
    [alert] = gates_alerts(out)
    assert alert.needs_ruling and alert.rule == "RULES.md 2.2"
    assert alert.message == (
        "S's self-drawn Nine Gates stands only if the drawn tile was kept apart until the hand "
        "was shown (seed 000 九蓮寶燈自摸規條): rule 'apply' if it was mixed into the hand, to "
        "score the win without it; 'waive' if it was kept apart"
    )
    discard_won = Game(wsom, WSOM_DICE, hands=["5m", GATES, "", ""])
    discard_won.start()
    discard_won.discard(E, "5m")
    discard_won.claim(S, "win")
    out = discard_won.apply(ev.ClaimWindowClosed, None)
    [won] = of(out, ev.Won)
    assert "2.2" in [p["id"] for p in won.score["patterns"]] and gates_alerts(out) == []
    other = Game(wsom, WSOM_DICE, hands=["", "123m 456m 789m 123p 9p", "", ""], draws={0: "9p"})
    assert of(south_self_draws(other), ev.Won) and not of(other.log, ev.Alert)
    heaven = Game(wsom, WSOM_DICE, hands=[f"{GATES} 5m", "", "", ""])
    heaven.start()
    out = heaven.apply(ev.WinDeclared, E)
    assert of(out, ev.Won) and of(out, ev.Alert) == []


def test_seed_000_ruled_mixed_in_the_win_is_scored_again_without_nine_gates(wsom):
    """seed 000 九蓮寶燈自摸規條: 「混進手牌里﹐「九蓮寶燈」便不能算」: applied, the win is scored
    again with its other patterns (Pure One-Suit), and the sheet's row and totals follow."""
    session, game, alert = session_hand(wsom)
    assert session.sheet[-1].changes == tuple(KEPT_APART)
    [rescored] = of(rule(game, alert), ev.WinRescored)
    assert (rescored.seat, rescored.responsible, rescored.alert) == (S, None, alert)
    assert [p["id"] for p in rescored.score["patterns"]] == ["1.2", "2.1.2", "4.2.1"]
    assert game.table.outcome().results[0].score["payments"] == MIXED_IN
    row = session.settle_again(game.table)
    assert (row.number, row.changes, row.totals) == (1, tuple(MIXED_IN), tuple(MIXED_IN))


def test_seed_000_waived_nine_gates_stands_and_the_alert_is_answered(wsom):
    """seed 000 九蓮寶燈自摸規條: waived (the drawn tile was kept apart), Nine Gates stands and
    the alert awaits nothing more: a second ruling on it is refused."""
    _, game, alert = session_hand(wsom)
    out = rule(game, alert, apply=False)
    assert of(out, ev.WinRescored) == [] and of(out, ev.PenaltyWaived)[0].alert == alert
    assert game.table.outcome().results[0].score["payments"] == KEPT_APART
    assert "nor a win to score again" in rule(game, alert)[0].message


def test_seed_000_a_ruling_after_the_next_hand_has_begun_is_refused_clearly(wsom):
    """seed 000 九蓮寶燈自摸規條: hand 1's table is gone once hand 2 is dealt; a ruling on its
    alert is refused with a message, the sheet unchanged."""
    session, _, alert = session_hand(wsom)
    assert of(ruled_in_the_next_hand(session, alert), ev.WinRescored) == []
    assert session.sheet[0].changes == tuple(KEPT_APART)


def test_seed_000_the_ruling_is_settled_again_and_the_journal_replays_to_the_same_sheet(
    tmp_path, wsom
):
    """seed 000 九蓮寶燈自摸規條: ruled mixed in after the hand's end, hand 1 is settled again on
    the sheet; the uplink sees the ruling answered; replay and resume give the same sheet."""
    path = tmp_path / "gates.sqlite"
    with Journal(path) as journal:
        game = ServedGame(journal, wsom, *SELF_DRAWN)
        [alert] = gates_alerts(south_self_draws(game))
        session = game.hands.session
        assert session.sheet[-1].changes == tuple(KEPT_APART)
        assert of(rule(game, alert.id), ev.WinRescored)
        sheet = [row.to_json() for row in session.sheet]
        assert sheet[0]["changes"] == MIXED_IN and sheet[0]["totals"] == MIXED_IN
        assert not ruling_awaited(journal, alert.id)
    assert_replays_to(path, wsom, sheet)
