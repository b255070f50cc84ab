"""What the referee enters at the desk (issue 12): his choice of penalty tiles, the conduct
penalties of seed 000 行為守則 (RULES.md 3.13), and the exposed tiles the sensors cannot see
(罰張, 摸牌時的犯規 2). Each test names the seed rule it checks."""

from types import SimpleNamespace

import pytest
from starlette.testclient import TestClient

from engine import events as ev
from engine import tiles
from engine.session import HALF_SESSION_HANDS, Session
from firmware.desk.entries import Entries
from firmware.display import ActionRefused
from firmware.display.app import create_app
from firmware.journal.replay import replay
from firmware.journal.store import Journal
from tests.support.chromium import NEEDED
from tests.support.deskkit import DeskedTable, applied, report
from tests.support.displaykit import BASE, PIN, FakeSource, open_tab, referee, referee_page
from tests.support.scenes import view_of, wsom_scene
from tests.support.servicekit import Clock, act
from tests.support.tablekit import WSOM_DICE, E, Game, N, S, W, of, stacked_walls, wsom_game

# -- the referee chooses the penalty tiles (錯鳴 3 空鳴, 7 空和) ------------------------------


def test_seed_000_empty_call_the_referee_names_the_two_penalty_tiles(wsom):
    """Seed 000 錯鳴 3 空鳴: 「裁判有權指定要揭露那些牌作為罰張」 — the ruling's tiles, not the
    table's proposal, become South's live penalty tiles."""
    game = wsom_game(wsom, hands=["C 5p", "9s 9s 1m 2m", "", ""])
    game.discard(E, "C")
    alert = game.refused(ev.ClaimDeclared, S, claim="pung", tiles=())
    chosen = game.own(S, "1m 2m")
    assert set(chosen) != set(alert.penalty["penalty_tiles"])
    penalty = applied(game.apply(ev.Ruling, None, alert=alert.id, apply=True, tiles=chosen))
    assert penalty.penalty_tiles == chosen
    assert game.table.referee.penalty_tiles[S] == {t: "live" for t in chosen}


def test_seed_000_a_choice_that_cannot_stand_is_refused_and_the_penalty_still_waits(wsom):
    """Seed 000 錯鳴 3: the penalty tiles are that many of the offender's concealed tiles, not
    already penalty tiles; anything else is refused naming why, and the ruling can be made
    again."""
    game = wsom_game(wsom, hands=["C 5p", "9s 9s 1m 2m", "", ""])
    game.discard(E, "C")
    first = game.refused(ev.ClaimDeclared, S, claim="pung", tiles=())
    marked = applied(game.apply(ev.Ruling, None, alert=first.id, apply=True)).penalty_tiles
    game.close()
    game.play_through(until=lambda g: g.table.turn == E and g.table.state == "discard")
    game.discard(E, "5p")
    second = game.refused(ev.ClaimDeclared, S, claim="pung", tiles=())
    free = [t for t in game.table.hands[S] if t not in marked]
    for tiles_named, why in [
        ((free[0],), "takes 2 penalty tiles, 1 named"),
        ((free[0], game.table.hands[N][0]), "is not one of S's concealed tiles"),
        ((free[0], marked[0]), "is a penalty tile of S's already"),
    ]:
        (refusal,) = game.apply(ev.Ruling, None, alert=second.id, apply=True, tiles=tiles_named)
        assert isinstance(refusal, ev.Alert) and why in refusal.message
    assert applied(
        game.apply(ev.Ruling, None, alert=second.id, apply=True, tiles=tuple(free[:2]))
    ).penalty_tiles == tuple(free[:2])


# -- conduct (行為守則: 選手叫「暫停」) ---------------------------------------------------------


@pytest.mark.parametrize("seconds, points", [(30, 5), (31, 10), (1, 5), (90, 15)])
def test_seed_000_timeout_costs_5_points_per_started_30_seconds(wsom, seconds, points):
    """Seed 000 選手叫「暫停」: 「每30秒（或不足30秒）罰扣5分」 — deducted from him alone."""
    game = wsom_game(wsom)
    penalty = applied(report(game, W, "timeout", seconds))
    assert (penalty.points, penalty.paid_to_others, penalty.offence) == (points, False, "timeout")


def test_seed_000_an_opponent_leaving_during_a_timeout_is_charged_as_one(wsom):
    """Seed 000 選手叫「暫停」: 「如果離台，便當作同叫暫停而扣分」."""
    assert applied(report(wsom_game(wsom), N, "left_table", 45)).points == 10


def test_seed_000_six_minutes_late_is_charged_as_timeout_and_asks_about_absence(wsom):
    """Seed 000 遲到: counted as 暫停 (12 started half-minutes: 60 points), and beyond 5 minutes
    「大會有權列作缺席棄權論」: a forfeit proposed, waiting for the referee."""
    out = report(wsom_game(wsom), S, "late", 360)
    assert applied(out).points == 60
    absent = [a for a in of(out, ev.Alert) if a.needs_ruling]
    assert len(absent) == 1 and absent[0].penalty["effect"] == "forfeit"
    assert "declare the player absent" in absent[0].message


def test_seed_000_five_minutes_late_asks_nothing_more(wsom):
    out = report(wsom_game(wsom), S, "late", 300)
    assert applied(out).points == 50 and not [a for a in of(out, ev.Alert) if a.needs_ruling]


@pytest.mark.parametrize("offence", ["phone", "refused_interview"])
def test_seed_000_a_phone_sounding_costs_the_configured_deduction(wsom, offence):
    """Seed 000 衣飾禮儀: 「比賽時發生響鬧者，會罰扣分」, 選手義務: 「拒絕接受採訪的選手，會受扣分
    處罰」 (the seed has no figure for either: the config's)."""
    points = wsom.table_rules.penalties.offences[offence].points[0]
    assert points > 0 and applied(report(wsom_game(wsom), E, offence)).points == points


def test_seed_000_exposing_an_opponents_tiles_bars_calls_if_the_referee_confirms(wsom):
    """Seed 000 摸牌時的犯規 3: 「翻開了對手的手牌，裁判員會酌情判罰」; 罰則 不準鳴牌 names it:
    proposed, and once confirmed North may not call this hand."""
    game = wsom_game(wsom, hands=["C", "", "", "C C"])
    (alert,) = report(game, N, "exposing_opponent")
    assert alert.needs_ruling and alert.penalty["effect"] == "no_calls"
    game.apply(ev.Ruling, None, alert=alert.id, apply=True)
    game.discard(E, "C")
    refusal = game.refused(ev.ClaimDeclared, N, claim="pung", tiles=game.own(N, "C C"))
    assert "lost the right to call" in refusal.message


@pytest.mark.parametrize(
    "offence, seconds, tiles_named, why",
    [
        ("timeout", 0, (), "needs `seconds`"),
        ("phone", 30, (), "is not timed"),
        ("timeout", 30, (5,), "exposes no tiles"),
        ("exposed", 0, (), "needs `tiles`"),
    ],
)
def test_a_report_that_contradicts_its_offence_is_refused(wsom, offence, seconds, tiles_named, why):
    (alert,) = report(wsom_game(wsom), W, offence, seconds, tiles_named)
    assert alert.message.startswith("report refused") and why in alert.message


def test_ccm_has_lateness_and_refuses_what_seed_004_lacks(ccm):
    """Seed 004 第三章 第一條 二(一) 遲到: late within 5 minutes, 30 points (10 to each); it has
    no 暫停 or phone rule, so the rule book has no such offence."""
    game = Game(ccm, (3, 4))
    game.start()
    penalty = applied(report(game, S, "late", 120))
    assert (penalty.points, penalty.paid_to_others) == (10, True)
    assert "timeout" not in ccm.table_rules.penalties.offences
    assert "phone" not in ccm.table_rules.penalties.offences


def _played(session: Session, ruleset, reports_at_start=()) -> Game:
    """A hand of the session, played out to its draw, with reports at its start."""
    game = Game(ruleset, WSOM_DICE)
    game.table = session.new_table(stacked_walls(ruleset, WSOM_DICE, ("", "", "", "")))
    game.start()
    for seat, offence, seconds in reports_at_start:
        report(game, seat, offence, seconds)
    game.play_through()
    session.record(game.table)
    return game


def test_seed_000_over_150_points_of_timeout_in_a_half_session_is_a_forfeit(wsom):
    """Seed 000 選手叫「暫停」: 「半場內因暫停或遲到而扣分超過150分者 ... 作棄權論」 — over the
    session's hands: 100, then 50 (150 exactly is not over), then 5 points of the same
    player: a forfeit proposed after the third hand, and only then."""
    session = Session(wsom)
    _played(session, wsom, [(E, "timeout", 600)])  # player 0 East: 20 blocks
    assert session.forfeits == []
    _played(session, wsom, [(N, "late", 300)])  # player 0 is North now (WSOM passes the deal)
    assert session.conduct[0] == 150 and session.forfeits == []
    _played(session, wsom, [(W, "left_table", 1)])  # player 0 is West in hand 3
    (forfeit,) = session.forfeits
    assert (forfeit.player, forfeit.points, forfeit.limit, forfeit.hand) == (0, 155, 150, 3)
    assert session.sheet[-1].penalties[0] == -5


def test_the_half_session_count_starts_again_with_the_next_score_card(wsom):
    """Seed 000 記分卡: one card a half-session (two rounds, 八局): the count restarts."""
    session = Session(wsom)
    for _ in range(HALF_SESSION_HANDS):
        _played(session, wsom, [(E, "timeout", 30)])
    _played(session, wsom, [(E, "timeout", 30)])
    assert session.conduct == [5, 0, 0, 0]  # hand 9's East is player 0; hands 1-8 are gone


# -- exposed tiles (罰張 1, 6; 摸牌時的犯規 2) ---------------------------------------------------


def test_seed_000_penalty_tiles_1_tiles_exposed_in_play_become_live_penalty_tiles(wsom):
    """Seed 000 罰張 1: 「暴露了的牌打開留在桌面上成為「生罰張」」."""
    game = wsom_game(wsom)
    exposed = tuple(game.table.hands[S][:2])
    assert applied(report(game, S, "exposed", tiles=exposed)).penalty_tiles == exposed
    assert game.table.referee.penalty_tiles[S] == dict.fromkeys(exposed, "live")


@pytest.mark.parametrize("count, penalised", [(1, 0), (3, 2)])
def test_seed_000_penalty_tiles_6_at_the_deal_one_tile_is_free(wsom, count, penalised):
    """Seed 000 罰張 6: 「配牌時...可以有一張免罰。如果暴露了兩張以上，可以收回一張，其餘的成為
    （生）罰張」 — the first tile named is the one taken back."""
    game = wsom_game(wsom)
    exposed = tuple(game.table.hands[W][:count])
    out = report(game, W, "exposed_at_deal", tiles=exposed)
    marks = game.table.referee.penalty_tiles[W]
    assert marks == dict.fromkeys(exposed[1:], "live") and len(marks) == penalised
    assert len(of(out, ev.PenaltyApplied)) == (1 if penalised else 0)


def test_seed_000_a_tile_not_in_his_hand_is_not_his_exposure(wsom):
    game = wsom_game(wsom)
    (alert,) = report(game, W, "exposed", tiles=(game.table.hands[N][0],))
    assert "not one of W's concealed tiles" in alert.message


def test_seed_000_the_wall_head_turned_up_on_his_own_draw_is_his_live_penalty_tile(wsom):
    """Seed 000 摸牌時的犯規 2: 「輪到自己摸牌時，翻開了牆頭的下一張牌，他便一定要摸取該牌...
    該牌當作已暴露（成為「生罰張」）」 — South turns it up after East's discard, draws it, and it
    is his live penalty tile."""
    game = wsom_game(wsom, hands=["C", "", "", ""])
    game.discard(E, "C")
    wall = game.table.wall
    head = wall.tile_at(wall.next_draw_position)
    applied(report(game, S, "wall_tile_exposed", tiles=(head,)))
    game.close()
    assert game.draw(S).tile == head
    assert game.table.referee.penalty_tiles[S] == {head: "live"}


def test_seed_000_a_wall_tile_turned_up_out_of_turn_is_a_warning(wsom):
    """Seed 000 摸牌時的犯規 2: 「不是輪到自己摸牌時...他會被警告」 — no penalty tile."""
    game = wsom_game(wsom, hands=["C", "", "", ""])
    game.discard(E, "C")
    wall = game.table.wall
    (alert,) = report(game, W, "wall_tile_exposed", tiles=(wall.tile_at(wall.next_draw_position),))
    assert "a warning" in alert.message and alert.penalty is None
    assert game.table.referee.penalty_tiles[W] == {}


# -- between hands: a report held, carried, never lost -----------------------------------------


def _timeouts(service) -> list:
    return [p for p in service.hands.table.referee.applied if p.offence == "timeout"]


def test_seed_000_a_timeout_between_hands_goes_into_the_next_hand(tmp_path):
    """Seed 000 選手叫「暫停」: 「叫暫停應在兩局之間」 — entered once hand 1 is over, it is held
    (journaled as that hand's input) and applied to the same player in hand 2 when its walls
    are up, settled on hand 2's row."""
    with Journal(tmp_path / "j.sqlite") as journal:
        table = DeskedTable(journal, Clock())
        table.new_hand("A")
        table.play_out()
        answer = act(table.desk, "report", {"seat": S, "offence": "timeout", "seconds": 45})
        assert "held" in answer["events"][0]["message"]
        table.new_hand("B")
        (carried,) = _timeouts(table.service)
        assert carried.points == 10 and carried.seat == E  # player 1: South, then East
        table.play_out()
        assert table.service.hands.session.sheet[-1].penalties == (0, -10, 0, 0)


def test_seed_000_a_held_report_survives_a_restart_between_hands(tmp_path):
    """No report lost: a power cut after the report and before the next hand's walls; the
    journal's replay holds it, and the next hand gets it."""
    path = tmp_path / "j.sqlite"
    clock = Clock()
    with Journal(path) as journal:
        table = DeskedTable(journal, clock)
        table.new_hand("A")
        table.play_out()
        act(table.desk, "report", {"seat": W, "offence": "phone"})
    with Journal(path) as journal:
        again = DeskedTable(journal, clock, replay(journal))
        again.new_hand("B")
        (phone,) = [p for p in again.service.hands.table.referee.applied if p.offence == "phone"]
        assert phone.seat == S and phone.points == 10  # player 2: West, then South


def test_a_report_with_no_hand_on_the_table_says_when_to_enter_it(tmp_path):
    """No dead end: before the first hand there is nothing to hold it; the refusal says so."""
    with Journal(tmp_path / "j.sqlite") as journal:
        table = DeskedTable(journal, Clock())
        with pytest.raises(ActionRefused, match="once the walls of the next hand are up"):
            act(table.desk, "report", {"seat": E, "offence": "late", "seconds": 120})


def test_the_desk_reports_an_offence_and_refuses_one_the_rule_book_lacks(desk):
    """The desk's `report`: a journaled ViolationReported with its fields; an offence the rule
    book does not have is refused naming those it has."""
    act(desk, "report", {"seat": N, "offence": "timeout", "seconds": 61})
    row = [r.data() for r in desk.service.journal.rows() if r.kind == "input"][-1]
    assert row["type"] == "ViolationReported" and (row["offence"], row["seconds"]) == (
        "timeout",
        61,
    )
    with pytest.raises(ActionRefused, match=r"no offence 'dancing'.*timeout"):
        act(desk, "report", {"seat": N, "offence": "dancing"})


def test_the_desk_passes_the_referees_tiles_with_the_ruling(desk):
    service = desk.service
    service.hands.apply(ev.TileDiscarded(service.clock(), E, service.hands.table.hands[E][0]))
    service.hands.apply(ev.ClaimDeclared(service.clock(), S, "pung", ()))
    alert = next(a for a in desk.alerts.values() if a["needs_ruling"])
    chosen = service.hands.table.hands[S][-2:]
    answer = act(
        desk,
        "rule",
        {"reason": "seen by the referee", "alert": alert["id"], "apply": True, "tiles": chosen},
    )
    (penalty,) = [e for e in answer["events"] if e["type"] == "PenaltyApplied"]
    assert penalty["penalty_tiles"] == chosen
    with pytest.raises(ActionRefused, match="no penalty awaits"):
        act(
            desk,
            "rule",
            {"reason": "seen by the referee", "alert": alert["id"], "apply": True, "tiles": chosen},
        )


@pytest.mark.parametrize(
    "body, field",
    [
        ({"offence": "timeout"}, "seat"),
        ({"seat": 4, "offence": "timeout"}, "seat"),
        ({"seat": 1}, "offence"),
        ({"seat": 1, "offence": "time out!"}, "offence"),
        ({"seat": 1, "offence": "timeout", "seconds": 0}, "seconds"),
        ({"seat": 1, "offence": "timeout", "seconds": "30"}, "seconds"),
        ({"seat": 1, "offence": "exposed", "tiles": []}, "tiles"),
        ({"seat": 1, "offence": "exposed", "tiles": [144]}, "tiles"),
        ({"seat": 1, "offence": "phone", "minutes": 3}, "minutes"),
    ],
)
def test_a_malformed_report_is_422_naming_the_field(desk, body, field):
    """Issue 6's rule for every action: a body `report` cannot take is 422, naming the field."""
    client = TestClient(create_app(desk, PIN), base_url=BASE)
    response = client.post("/api/referee/report", json=body, headers=referee())
    assert response.status_code == 422 and response.json()["field"] == field


def test_seed_000_the_desk_tells_the_referee_of_a_forfeit_over_150_points(tmp_path):
    """Seed 000 選手叫「暫停」 (作棄權論): a timeout of 16 minutes (160 points) in hand 1 puts
    the player over the half-session's 150; once the hand is settled the referee is told (a
    journaled fault naming the player's side), once."""
    with Journal(tmp_path / "j.sqlite") as journal:
        table = DeskedTable(journal, Clock())
        table.new_hand("A")
        act(table.desk, "report", {"seat": W, "offence": "timeout", "seconds": 960})
        table.play_out()
        table.new_hand("B")
        told = [f for f in table.service.status().faults if f.kind == "forfeit"]
        assert len(told) == 1 and "on the W side has 160 points" in told[0].message
        rows = [r.data() for r in journal.rows() if r.data().get("kind") == "forfeit"]
        assert len(rows) == 1


# -- old journals ------------------------------------------------------------------------------


def test_schema_3_rows_without_the_new_fields_still_read():
    """A journal written before issue 12 has Ruling and ViolationReported rows without
    `tiles`, `seconds`, `between_hands`: they read with the defaults; other fields stay
    required."""
    ruling = ev.from_json({"type": "Ruling", "t": 1.0, "seat": None, "alert": 3, "apply": True})
    assert ruling == ev.Ruling(1.0, None, 3, True, ())
    old = {"type": "ViolationReported", "t": 2.0, "seat": 1, "offence": "naming_discard"}
    assert ev.from_json(old) == ev.ViolationReported(2.0, 1, "naming_discard", 0, (), False)
    with pytest.raises(ev.EventError, match="lacks apply"):
        ev.from_json({"type": "Ruling", "t": 1.0, "seat": None, "alert": 3})


# -- the referee's page ------------------------------------------------------------------------


class OffenceSource(FakeSource):
    """The fake source of the display's tests, with the rule book's offences for the form."""

    def __init__(self, view, ruleset):
        super().__init__(view)
        self.entries = Entries(SimpleNamespace(ruleset=ruleset))

    def offences(self) -> dict:
        return self.entries.offences()


@pytest.mark.slow
@NEEDED
def test_the_referee_page_reports_an_offence_with_its_seconds_and_tiles(wsom):
    """Issue 12 item 4: the page's form sends `report` with the seat, the rule book's offence
    (its list from /api/referee/offences), the seconds, and tiles typed as faces, found in
    the seat's hand."""

    game = wsom_scene(wsom)
    source = OffenceSource(view_of(game), wsom)
    face = tiles.NAMES[tiles.kind_of(game.table.hands[S][0])]
    with referee_page(create_app(source, PIN)) as page:
        page.wait_for_selector("#report-offence option[value='exposed']", state="attached")
        open_tab(page, "tools")  # issue 33: the side column's Tools tab
        page.select_option("#report-seat", "1")
        page.select_option("#report-offence", "timeout")
        page.fill("#report-seconds", "45")
        page.click("#sheet form:has(#report-seat) button[type='submit']")
        page.wait_for_selector("#notice:text('report: done')")
        page.evaluate("document.querySelector('#notice').textContent = ''")
        page.fill("#report-seconds", "")
        page.select_option("#report-offence", "exposed")
        page.fill("#report-tiles", face)
        page.click("#sheet form:has(#report-seat) button[type='submit']")
        page.wait_for_function("document.querySelector('#notice').textContent === 'report: done'")
    assert source.acts[0] == ("report", {"seat": S, "offence": "timeout", "seconds": 45})
    assert source.acts[1] == (
        "report",
        {"seat": S, "offence": "exposed", "tiles": [game.table.hands[S][0]]},
    )
