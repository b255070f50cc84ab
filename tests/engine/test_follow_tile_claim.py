"""The discarder claims the follow-tile exemption at the desk (issue 12 item 1; RULES.md 1.3,
A-W3).

Seed 000 和牌的計分 8: 「提出適用「跟張免責規條」﹐是放銃者的責任」. With the shipped config the
table proposes the exemption in an alert and the discarder pays; the referee enters his claim
as a Ruling on that alert: claimed, the win is scored again with the payment on the seat the
exemption names (nobody, each paying the value, if that is the winner); the score sheet's row
follows, and the journal replays to the same sheet.
"""

from engine import events as ev
from engine.session import Session
from firmware.journal.store import Journal
from tests.support.followkit import (
    FOLLOWED,
    FOLLOWED_DRAWS,
    FOLLOWED_HANDS,
    NORTH_WAITS_9P,
    UNCLAIMED,
    ServedGame,
    assert_replays_to,
    exemption_alerts,
    north_wins_on_south,
    rule,
    ruled_in_the_next_hand,
    ruling_awaited,
    turn,
)
from tests.support.tablekit import WSOM_DICE, E, Game, N, S, W, of, stacked_walls

CLAIMED = [-90, -30, -30, 150]  # East, the first to discard 9p in North's go-around


def session_hand(wsom, hands=FOLLOWED_HANDS, draws=FOLLOWED_DRAWS, turns=FOLLOWED):
    """Hand 1 of a session: North wins on South's 9p, settled on the sheet; the alert id."""
    session = Session(wsom)
    game = Game(wsom, WSOM_DICE)
    game.table = session.new_table(stacked_walls(wsom, WSOM_DICE, hands, draws))
    out = north_wins_on_south(game, turns)
    session.record(game.table)
    [alert] = [a for a in of(out, ev.Alert) if a.rule == "RULES.md 1.3"]
    return session, game, alert.id


def test_seed_000_the_claim_moves_the_payment_to_the_first_discarder(wsom):
    """seed 000 和牌的計分 8, RULES.md 1.3: unclaimed, South pays 3V-60; claimed, East does,
    the win rescored in the table's outcome and output; the sheet's row and totals follow."""
    session, game, alert = session_hand(wsom)
    assert session.sheet[-1].changes == tuple(UNCLAIMED)
    out = rule(game, alert)
    [rescored] = of(out, ev.WinRescored)
    assert (rescored.seat, rescored.responsible, rescored.alert) == (N, E, alert)
    assert rescored.score["payments"] == CLAIMED
    assert game.table.outcome().results[0].score["payments"] == CLAIMED
    row = session.settle_again(game.table)
    assert (row.number, row.changes, row.totals) == (1, tuple(CLAIMED), tuple(CLAIMED))
    assert session.scores == CLAIMED and len(session.sheet) == 1


def test_seed_000_claimed_where_the_winner_discarded_first_each_pays_the_value(wsom):
    """RULES.md 1.3, A-W4: North discarded the first 9p himself; claimed, nobody is the
    discarder: 「當作沒有銃家，各家分付」, each pays the 50."""
    turns = [(E, None), (S, None), (W, None), (N, "9p"), (E, None)]
    session, game, alert = session_hand(wsom, ["", "9p", "", NORTH_WAITS_9P], {2: "9p"}, turns)
    [rescored] = of(rule(game, alert), ev.WinRescored)
    assert rescored.responsible is None
    assert session.settle_again(game.table).changes == (-50, -50, -50, 150)


def test_seed_000_not_claimed_the_discarder_pays_and_the_alert_is_answered(wsom):
    """seed 000 和牌的計分 8: waived (not claimed), South pays; the alert awaits nothing more."""
    _, game, alert = session_hand(wsom)
    out = rule(game, alert, apply=False)
    assert of(out, ev.WinRescored) == [] and of(out, ev.PenaltyWaived)[0].alert == alert
    assert game.table.outcome().results[0].score["payments"] == UNCLAIMED
    again = rule(game, alert)
    assert "nor a win to score again" in again[0].message


def test_a_claim_without_an_exemption_alert_is_refused(wsom):
    """RULES.md 1.3: a self-drawn win has no discarder, so no alert to claim on: refused,
    with a message, the win unchanged."""
    game = Game(wsom, WSOM_DICE, hands=["", "", "", NORTH_WAITS_9P], draws={2: "9p"})
    game.start()
    for seat in (E, S, W):
        turn(game, seat)
    game.draw(N)
    [won] = of(game.ok(ev.WinDeclared, N), ev.Won)
    out = rule(game, 1)
    assert of(out, ev.WinRescored) == [] and "awaits a ruling under alert 1" in out[0].message
    assert game.table.outcome().results[0].score == won.score


def test_the_follow_tile_case_still_alerts_with_the_shipped_config(wsom):
    """RULES.md 1.3: the proposal the claim answers is still an alert awaiting a ruling."""
    game = Game(wsom, WSOM_DICE, hands=FOLLOWED_HANDS, draws=FOLLOWED_DRAWS)
    assert exemption_alerts(north_wins_on_south(game, FOLLOWED))


# -- at the table: the sheet settled again, journaled, replayed -------------------------------


def test_seed_000_the_claim_is_settled_again_and_the_journal_replays_to_the_same_sheet(
    tmp_path, wsom
):
    """seed 000 和牌的計分 8: the claim entered after the hand's end settles hand 1 again on
    the sheet; the journal's replay and a resume from it give the same sheet."""
    path = tmp_path / "claim.sqlite"
    with Journal(path) as journal:
        game = ServedGame(journal, wsom)
        out = north_wins_on_south(game, FOLLOWED)
        session = game.hands.session
        assert session.sheet[-1].changes == tuple(UNCLAIMED)
        [alert] = [a for a in of(out, ev.Alert) if a.rule == "RULES.md 1.3"]
        assert of(rule(game, alert.id), ev.WinRescored)
        sheet = [row.to_json() for row in session.sheet]
        assert sheet[0]["changes"] == CLAIMED and sheet[0]["totals"] == CLAIMED
        assert not ruling_awaited(journal, alert.id)  # the claim answers it
    assert_replays_to(path, wsom, sheet)


def test_a_claim_after_the_next_hand_has_begun_is_refused_clearly(wsom):
    """RULES.md 1.3: hand 1's table is gone once hand 2 is dealt; a ruling naming its alert
    reaches hand 2's table, which says no claim awaits there and why, and changes nothing."""
    session, _, alert = session_hand(wsom)
    assert of(ruled_in_the_next_hand(session, alert), ev.WinRescored) == []
    assert session.sheet[0].changes == tuple(UNCLAIMED)
