"""Winning off a chip-less player (issue 13; seed 004 §35, §38 一 5 付分; RULES.md 4.11, A-C14).

Seed 004: 「盤面無分者點炮，禁止和牌」 and 「出現對無分者和牌，應向無分者罰分和牌得分，
並向三家各賠付10分」. The win is refused and the referee is asked, the fine proposed:
applied, the winner pays the chip-less player the win's score (和牌得分: a discard win's is
double, 第九條二 「其中點炮得分為雙份」, issue 30 item 11) and 10 to each of the three, at once;
waived, nothing is paid; either way the hand goes on. `block_win_from_chipless = false` lets
the win stand; `chipless_win_fine_score = "total"` pays T alone.
"""

import tomllib

from engine import events as ev
from engine.rulesets import build
from engine.session import Session
from firmware.journal.replay import replay
from firmware.journal.store import Journal
from tests.conftest import REPO
from tests.support.deskkit import HANDS, SOUTH_WAITS_9P, START, DeskGame
from tests.support.servicekit import act
from tests.support.tablekit import CCM_DICE, E, Game, N, S, W, of, stacked_walls


def session_game(ccm, scores=START) -> tuple[Session, Game]:
    """Hand 1 of a session whose players hold `scores`: East is to discard his 9p."""
    session = Session(ccm, scores=list(scores))
    game = Game(ccm, CCM_DICE)
    game.table = session.new_table(stacked_walls(ccm, CCM_DICE, HANDS))
    game.start()
    return session, game


def south_calls_on_east(game: Game) -> list[ev.Alert]:
    """East discards his 9p and South calls a win on it: the alerts."""
    game.discard(E, "9p")
    return of(game.apply(ev.ClaimDeclared, S, claim="win"), ev.Alert)


def hand_total(game: Game) -> int:
    """T: South's win's fans and additional points on East's latest discard."""
    discard = game.table.discards[-1][1]
    total = game.table.score_for(S, E, discard).total
    assert total
    return total


def hand_score(game: Game) -> int:
    """The win's score the fine pays: a discard win's is double (seed 004 第九條二)."""
    return 2 * hand_total(game)


def with_fine_score(reading: str):
    config = tomllib.loads((REPO / "config" / "rules" / "ccm2012.toml").read_text("utf-8"))
    config["options"]["chipless_win_fine_score"] = reading
    return build(config)


def rule(game: Game, alert: int, apply: bool = True) -> list[ev.Event]:
    return game.apply(ev.Ruling, None, alert=alert, apply=apply)


def finish(session: Session, game: Game):
    game.close()
    game.play_through()
    return session.record(game.table)


def test_seed_004_no_win_off_a_chipless_player_the_referee_is_asked_the_fine_proposed(ccm):
    """seed 004 盤面無分者點炮，禁止和牌: the call is refused by an alert awaiting a ruling that
    names the rule and the proposed fine (對無分者和牌 ... 罰分和牌得分，並向三家各賠付10分)."""
    _, game = session_game(ccm)
    [alert] = south_calls_on_east(game)
    total = hand_score(game)
    assert alert.needs_ruling and alert.rule == "RULES.md 4.11 (A-C14)" and alert.seat == S
    assert alert.penalty is not None
    assert alert.penalty["payments"] == [total + 10, -(total + 30), 10, 10]
    assert f"win's score {total} and 10 to each of the three" in alert.message
    assert "9p" not in alert.message  # the public alert names no tile
    assert game.table.state == "claim_window" and not of(game.log, ev.Won)


def test_issue_30_item_11_seed_004_the_fine_pays_the_discard_wins_score_2t(ccm):
    """Issue 30 item 11, seed 004 §38 一 5 「應向無分者罰分和牌得分」 with 第九條二 「其中點炮得分
    為雙份」: the chip-less discarder is paid the discard win's score, 2T, not T."""
    _, game = session_game(ccm)
    [alert] = south_calls_on_east(game)
    t = hand_total(game)
    assert alert.penalty is not None
    assert alert.penalty["payments"] == [2 * t + 10, -(2 * t + 30), 10, 10]


def test_option_chipless_win_fine_score_total_pays_t_alone():
    """The other reading of 「罰分和牌得分」 (chipless_win_fine_score = "total", the hand's
    total 本盤和牌總分): the chip-less player is paid T."""
    _, game = session_game(with_fine_score("total"))
    [alert] = south_calls_on_east(game)
    t = hand_total(game)
    assert alert.penalty is not None
    assert alert.penalty["payments"] == [t + 10, -(t + 30), 10, 10]
    assert f"win's score {t} and" in alert.message


def test_issue_30_item_11_off_a_robbed_kong_the_fine_pays_3t(ccm):
    """Issue 30 item 11 (seed 004 §38 一 5 「罰分和牌得分」; 第一條二十一 「因槓牌點炮，槓牌者一家
    支付和牌者三倍分」): robbing the added kong of a chip-less konger, the win's score is 3T."""
    session = Session(ccm, scores=list(START))
    game = Game(ccm, CCM_DICE)
    hands = ["C 9p 9p", "123m 456m 789m 78p 55s", "", "9p"]
    game.table = session.new_table(stacked_walls(ccm, CCM_DICE, hands, draws={6: "9p"}))
    game.start()

    def turn(seat: int) -> None:
        game.draw(seat)
        game.ok(ev.TileDiscarded, seat, tile=game.table.hands[seat][-1])
        game.close()

    game.discard(E, "C")
    game.close()
    turn(S)
    turn(W)
    game.draw(N)
    game.discard(N, "9p")
    game.claim(E, "pung", "9p 9p")
    game.close()
    game.ok(ev.TileDiscarded, E, tile=game.table.hands[E][-1])
    game.close()
    for seat in (S, W, N):
        turn(seat)
    added = game.draw(E).tile
    game.kong(E, "9p")
    [alert] = of(game.apply(ev.ClaimDeclared, S, claim="win"), ev.Alert)
    t = game.table.score_for(S, E, added, robbing=True).total
    assert t and alert.penalty is not None
    assert alert.penalty["payments"] == [3 * t + 10, -(3 * t + 30), 10, 10]


def test_seed_004_the_fine_applied_moves_the_chips_at_once_and_conserves_them(ccm):
    """seed 004 §38 一 5: applied, South pays East the hand score and 10 to each of the three
    now: the hand sees the chips after it, and the sheet settles it, 400 chips in all."""
    session, game = session_game(ccm)
    [alert] = south_calls_on_east(game)
    total = hand_score(game)
    [applied] = of(rule(game, alert.id), ev.PenaltyApplied)
    assert (applied.seat, applied.offence, applied.points) == (S, "chipless_win", 10)
    fined = (total + 10, 100 - total - 30, 160, 160)
    assert game.table.winning.chips_now() == fined
    row = finish(session, game)
    assert row.result == "draw" and row.totals == fined and sum(row.totals) == 400
    assert row.penalties == (total + 10, -(total + 30), 10, 10)


def test_seed_004_later_checks_in_the_hand_see_the_chips_after_the_fine(ccm):
    """seed 004 §35: East has chips once South's fine is paid to him, so West may then win
    on East's discard in the same hand: the check sees the chips as they are."""
    session = Session(ccm, scores=list(START))
    game = Game(ccm, CCM_DICE)
    hands = ["9p C", SOUTH_WAITS_9P, "123s 456s 789s 111p C", ""]
    game.table = session.new_table(stacked_walls(ccm, CCM_DICE, hands))
    game.start()
    [alert] = south_calls_on_east(game)
    rule(game, alert.id)
    game.close()
    game.play_through(until=lambda g: g.table.turn == E)
    game.discard(E, "C")
    assert not of(game.apply(ev.ClaimDeclared, W, claim="win"), ev.Alert)
    game.close()
    assert of(game.log, ev.Won)[0].seat == W


def test_seed_004_the_fine_waived_nothing_is_paid_and_the_hand_goes_on(ccm):
    """seed 004 §35: waived, the win is still not allowed and nobody pays; the hand goes on."""
    session, game = session_game(ccm)
    [alert] = south_calls_on_east(game)
    assert of(rule(game, alert.id, apply=False), ev.PenaltyWaived)[0].alert == alert.id
    assert game.table.winning.chips_now() == tuple(START)
    [again] = of(rule(game, alert.id), ev.Alert)
    assert "no penalty awaits" in again.message  # ruled once only
    assert finish(session, game).totals == tuple(START)


def test_a_c14_option_off_the_win_off_a_chipless_player_stands(ccm):
    """RULES.md A-C14: with block_win_from_chipless = false the win stands, paid out of what
    the discarder has (nothing: the payment stops at his chips)."""
    config = tomllib.loads((REPO / "config" / "rules" / "ccm2012.toml").read_text("utf-8"))
    config["options"]["block_win_from_chipless"] = False
    session, game = session_game(build(config))
    out = south_calls_on_east(game)
    assert not of(out, ev.Alert)
    game.close()
    assert of(game.log, ev.Won)[0].seat == S
    assert session.record(game.table).totals == tuple(START)


def test_seed_004_a_fine_names_no_tiles_and_still_awaits_its_ruling(ccm):
    """RULES.md 4.11: a ruling on the fine that names penalty tiles is refused, clearly; the
    fine still awaits the referee's ruling (no dead end)."""
    _, game = session_game(ccm)
    [alert] = south_calls_on_east(game)
    tile = game.table.hands[S][0]
    [refused] = of(game.apply(ev.Ruling, None, alert=alert.id, apply=True, tiles=(tile,)), ev.Alert)
    assert "a fine names no tiles" in refused.message
    assert of(rule(game, alert.id), ev.PenaltyApplied)


def test_seed_004_the_fine_ruled_at_the_desk_is_journaled_and_replays_to_the_same_sheet(
    tmp_path, ccm
):
    """seed 004 §38 一 5: the referee applies the fine at the desk (a Ruling); the alert is
    answered, the sheet settles it, and the journal replays to the same sheet."""
    path = tmp_path / "chipless.sqlite"
    with Journal(path) as journal:
        game = DeskGame(journal, ccm)
        game.start()
        [alert] = south_calls_on_east(game)
        total = hand_score(game)
        result = act(
            game.desk, "rule", {"reason": "seen by the referee", "alert": alert.id, "apply": True}
        )
        assert any(e["type"] == "PenaltyApplied" for e in result["events"])
        assert game.desk.alerts[alert.id]["state"] == "applied"
        game.close()
        game.play_through()
        sheet = [row.to_json() for row in game.hands.session.sheet]
        assert sheet[0]["totals"] == [total + 10, 70 - total, 160, 160]
    with Journal(path, readonly=True) as journal:
        replayed = replay(journal)
    assert replayed.mismatches == 0
    again = Session(
        ccm, hand_number=1, scores=list(START)
    )  # as firmware/table/resume.py numbers it
    again.record(replayed.played[0].table)
    assert [row.to_json() for row in again.sheet] == sheet
