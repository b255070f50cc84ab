"""The CCM offences the referee enters at the desk (issue 13; RULES.md 4.15, seed 004 第三章
第二條): exposed tiles that must be discarded next (七(一) 暴露張), suspicious gestures (第七條
六 嫌疑動作, 第一條 一 警告), and the 停賽 of cheating (一), signalling (十) and serious
disruption (十一). Each test names the seed rule it checks."""

from dataclasses import replace

import pytest

from engine import events as ev
from engine import tiles
from tests.support.deskkit import DeskGame, applied, report
from tests.support.servicekit import act
from tests.support.tablekit import E, Game, S, W, as_it_lies, of, wsom_game

CCM_DICE = (3, 4)
DRAWS = ["9s", "8s", "9p", "8p", "9m", "8m"]  # no flower turns up in the first draws


def ccm_game(ccm, hands=("C", "5m 6m 7p", "", "")) -> Game:
    game = Game(ccm, CCM_DICE, hands=hands, draws=DRAWS)
    game.start()
    return game


def to_south_discard(game: Game) -> None:
    """East discards his C, nobody calls, South draws: South is to discard."""
    game.discard(E, "C")
    game.close()
    game.draw(S)


def test_seed_004_7_1_exposed_tiles_must_be_discarded_at_his_next_discard(ccm):
    """Seed 004 第三章 第二條 七(一): 「暴露的牌張作為罰張，在下一次輪到自己出牌時，必須將罰張
    打出」 — South exposes his 5m; at his discard another tile is refused naming the rule, and
    the 5m goes."""
    game = ccm_game(ccm)
    (five,) = game.own(S, "5m")
    penalty = applied(report(game, S, "exposed", tiles=(five,)))
    assert (penalty.penalty_tiles, penalty.points) == ((five,), 0)
    to_south_discard(game)
    refusal = game.refused(ev.TileDiscarded, S, tile=game.own(S, "7p")[0])
    assert refusal.rule == "RULES.md 4.15" and "七(一)" in refusal.message
    assert "must discard his penalty tile (5m)" in refusal.message
    game.ok(ev.TileDiscarded, S, tile=five)
    assert game.table.referee.penalty_tiles[S] == {}


def test_seed_004_7_1_two_exposed_tiles_go_one_at_each_of_his_next_discards(ccm):
    """Seed 004 七(一) with two tiles exposed (one discard a turn): the one kept is still owed at
    his following discard, never a dead tile he may keep (an inference: the seed foresees one)."""
    game = ccm_game(ccm)
    exposed = game.own(S, "5m 6m")
    applied(report(game, S, "exposed", tiles=exposed))
    to_south_discard(game)
    game.ok(ev.TileDiscarded, S, tile=exposed[1])
    game.close()
    game.play_through(until=lambda g: g.table.turn == S and g.table.state == "discard")
    assert game.table.referee.penalty_tiles[S] == {exposed[0]: "live"}
    refusal = game.refused(ev.TileDiscarded, S, tile=game.table.hands[S][-1])
    assert "must discard his penalty tile (5m)" in refusal.message
    game.ok(ev.TileDiscarded, S, tile=exposed[0])


def test_seed_004_7_1_the_referee_can_accept_the_kept_tile_on_the_river(ccm):
    """No dead end (issue 12 item 5): South refused with the 7p on his river, the referee may
    accept the table as it lies (TableAccepted): the 7p stands as his discard, the hand goes
    on, and his 5m is still owed at his next discard."""
    game = ccm_game(ccm)
    (five,) = game.own(S, "5m")
    applied(report(game, S, "exposed", tiles=(five,)))
    to_south_discard(game)
    (seven,) = game.own(S, "7p")
    game.refused(ev.TileDiscarded, S, tile=seven)
    lying = as_it_lies(game.table, game.clock)
    hands = [list(h) for h in lying.hands]
    rivers = [list(r) for r in lying.rivers]
    hands[S].remove(seven)
    rivers[S].append(seven)
    accepted = replace(
        lying, hands=tuple(map(tuple, hands)), rivers=tuple(map(tuple, rivers)), discarded=True
    )
    assert of(game.apply(type(accepted), S, **_fields(accepted)), ev.HandRealigned)
    assert game.table.state == "claim_window" and game.table.rivers[S][-1] == seven
    assert game.table.referee.penalty_tiles[S] == {five: "live"}


def _fields(event) -> dict:
    return {k: v for k, v in vars(event).items() if k not in ("t", "seat")}


def test_rules_md_3_9_wsom_live_penalty_tiles_may_be_kept_then_are_dead(wsom):
    """The mode differs by rule book (RULES.md 3.9, seed 000 罰張 1-2): under WSOM South keeps
    his exposed tile at his next discard, and then it is dead."""
    game = wsom_game(wsom, hands=["C", "5m 7p", "", ""], draws=DRAWS)
    (five,) = game.own(S, "5m")
    applied(report(game, S, "exposed", tiles=(five,)))
    to_south_discard(game)
    game.ok(ev.TileDiscarded, S, tile=game.own(S, "7p")[0])
    assert game.table.referee.penalty_tiles[S] == {five: "dead"}


def test_seed_004_7_1_a_player_playing_mechanically_still_discards_what_he_draws(ccm):
    """No dead end: a player with a penalty tile owed who is then disqualified (停賽, played
    mechanically: 摸任何牌必須打出) discards the tile he drew; the penalty tile does not bar it."""
    game = ccm_game(ccm)
    (five,) = game.own(S, "5m")
    applied(report(game, S, "exposed", tiles=(five,)))
    (alert,) = report(game, S, "cheating")
    applied(game.apply(ev.Ruling, None, alert=alert.id, apply=True))
    to_south_discard(game)
    game.ok(ev.TileDiscarded, S, tile=game.table.hands[S][-1])


def test_seed_004_a_flower_is_never_named_a_penalty_tile(ccm):
    """Seed 004 第四條 花牌: a flower is exposed and replaced (打出即為相公), so a report naming
    it as an exposed tile is refused: it could never be discarded as one."""
    game = Game(ccm, CCM_DICE, hands=["C", "", "", ""], draws=["1f"])
    game.start()
    game.discard(E, "C")
    game.close()
    game.draw(S)
    (flower,) = game.own(S, "1f")
    alert = game.refused(ev.ViolationReported, S, offence="exposed", tiles=(flower,))
    assert alert.message.startswith("report refused") and "is a flower" in alert.message


def test_seed_004_suspicious_gestures_a_warning_then_10_to_each(ccm):
    """Seed 004 第七條 六 嫌疑動作 (應予口頭警告或處罰) and 第三章 第一條 一 警告: the first report
    is a warning the referee confirms (on the record, no points); the second, 10 to each of
    the other three (罰分, the config's choice of 罰分、停和、停賽)."""
    game = ccm_game(ccm)
    (first,) = report(game, W, "suspicious_gestures")
    assert first.needs_ruling and first.penalty["points"] == 0
    assert applied(game.apply(ev.Ruling, None, alert=first.id, apply=True)).points == 0
    (second,) = report(game, W, "suspicious_gestures")
    penalty = applied(game.apply(ev.Ruling, None, alert=second.id, apply=True))
    assert (penalty.points, penalty.paid_to_others, penalty.effect) == (10, True, "")


@pytest.mark.parametrize(
    "offence, rule, notice",
    [("cheating", "一", True), ("signalling", "十", False), ("disruption", "十一", True)],
)
def test_seed_004_cheating_signalling_disruption_are_disqualification(ccm, offence, rule, notice):
    """Seed 004 第三章 第二條 一 偷牌、藏牌 (停賽處罰並給予通報), 十 作弊現象 (處罰停賽), 十一 嚴重
    干擾比賽 (取消比賽資格，給予通報): proposed for the referee; confirmed, the player may no
    longer win or call and plays mechanically; the notice (通報) is said where the seed has it."""
    game = ccm_game(ccm)
    (alert,) = report(game, W, offence)
    assert alert.needs_ruling and alert.penalty["effect"] == "disqualified"
    assert f"第二條 {rule})" in alert.rule and ("通報" in alert.message) == notice
    assert of(game.apply(ev.Ruling, None, alert=alert.id, apply=True), ev.PenaltyApplied)
    referee = game.table.referee
    assert (referee.no_win[W], referee.no_calls[W], referee.mechanical[W]) == (True, True, True)


def test_seed_004_the_desk_reports_exposed_tiles_and_lists_the_new_offences(tmp_path, ccm):
    """The desk's `report` of a CCM exposed tile (seed 004 七(一)) is a journaled input that
    makes it a penalty tile; the page's form lists the CCM offences, the exposed one with
    tiles."""
    from firmware.journal.store import Journal

    with Journal(tmp_path / "j.sqlite") as journal:
        game = DeskGame(journal, ccm)
        game.start()
        tile = game.table.hands[S][0]
        act(game.desk, "report", {"seat": S, "offence": "exposed", "tiles": [tile]})
        assert game.table.referee.penalty_tiles[S] == {tile: "live"}
        rows = [r.data() for r in journal.rows() if r.kind == "input"]
        assert (rows[-1]["type"], rows[-1]["tiles"]) == ("ViolationReported", [tile])
        listed = {o["name"]: o for o in game.desk.offences()["offences"]}
        assert listed["exposed"]["tiles"] and not listed["cheating"]["tiles"]
        assert {"suspicious_gestures", "cheating", "signalling", "disruption"} <= set(listed)


def test_each_book_refuses_the_others_desk_offences_naming_its_own(desk, tmp_path, ccm):
    """RULES.md 4.15 / 3.13: seed 000 has no 停賽 for cheating at the desk and seed 004 no
    暫停: each book's desk refuses the other's offence, naming the offences it has."""
    from firmware.display import ActionRefused
    from firmware.journal.store import Journal

    with pytest.raises(ActionRefused, match=r"wsom2006 has no offence 'cheating'.*timeout"):
        act(desk, "report", {"seat": S, "offence": "cheating"})
    with Journal(tmp_path / "ccm.sqlite") as journal:
        game = DeskGame(journal, ccm)
        game.start()
        with pytest.raises(ActionRefused, match=r"ccm2012 has no offence 'timeout'.*exposed"):
            act(game.desk, "report", {"seat": S, "offence": "timeout", "seconds": 30})


def test_config_penalty_tile_mode_is_checked(ccm):
    """A mistyped penalty_tile_mode is refused at start-up naming it, never played as another."""
    from engine.penalties import Catalogue
    from engine.schema import ConfigError

    section = dict(ccm.config["penalties"], penalty_tile_mode="must discard")
    with pytest.raises(ConfigError, match="penalty_tile_mode"):
        Catalogue(section, paid_to_others=True)


def test_seed_004_7_2_laying_down_early_entered_after_a_game_ending_win_is_that_games(
    tmp_path, ccm
):
    """第三章 第二條 七(二) 「如此例出現在局結情況下，則先計分不罰分，局結後罰分。」 (issue 30
    item 8): South's win on East's last chips leaves two players without chips and ends the
    game; the referee enters West's laying down early after it, at the desk. It is the won
    hand's, not held for the next: applied, its 10 to each is added to the ended game's 局分,
    and the next game's chips are untouched."""
    from firmware.desk.desk import Desk
    from firmware.journal.store import Journal
    from firmware.table.actor import Actor
    from firmware.table.profile import load_profile
    from firmware.table.service import Service
    from tests.support.servicekit import Clock, StillShuffler
    from tests.support.tablekit import stacked_walls

    with Journal(tmp_path / "j.sqlite") as journal:
        service = Service(
            load_profile("sim"), ccm, journal, Actor(Clock()), StillShuffler(), out=lambda _: None
        )
        walls = stacked_walls(ccm, CCM_DICE, ("7m", "1122334455667m", "", ""))
        hands = service.hands
        hands.session.scores = [50, 100, 150, 0]
        hands.walls.take = lambda: walls
        hands.raise_walls(0.0, "A")
        hands.apply(ev.DiceRolled(0.0, E, CCM_DICE))
        seven = next(t for t in hands.table.hands[E] if tiles.kind_of(t) == tiles.tile("7m"))
        hands.apply(ev.TileDiscarded(1.0, E, seven))
        hands.apply(ev.ClaimDeclared(2.0, S, "win"))
        hands.apply(ev.ClaimWindowClosed(3.0, None))
        [ended] = hands.session.games
        assert ended["chips"] == [0, 150, 150, 0]
        desk = Desk(service, "T1")
        out = act(desk, "report", {"seat": W, "offence": "laying_down_early"})["events"]
        alert = next(e["id"] for e in out if e["type"] == "Alert" and e["needs_ruling"])
        act(desk, "rule", {"alert": alert, "apply": True, "reason": "laid his hand down"})
        assert ended["held"] == [10, 10, -30, 10] and ended["chips"] == [10, 160, 120, 10]
        assert hands.session.scores == [100] * 4 and hands.session.carried() == []
