"""A CCM stage (seed 004 第三條 賽制, 六 定位、換位, 三十三 問分, 第十條, 第十一條; RULES.md 4.3,
4.13): the seats change after every game and nobody sits a side twice; the 總局分 of the four
games ranks the table, equal totals tie, and the first (or two) get the standard score; in
the 4th game a player may ask the scores twice. Games are ended fast: East's self-drawn 清一色
七對 twice, the second doubled, leaves the three others without chips (two chipless: 局結).
"""

import copy
from concurrent.futures import ThreadPoolExecutor

import pytest

from engine import events as ev
from engine import tiles
from engine.rulesets import build
from engine.schema import ConfigError
from engine.stage import format_of, proposed, repeats, stage_json, standings
from firmware.display import ActionRefused
from firmware.display.actions import body_problem
from firmware.display.app import create_app
from firmware.journal.replay import replay
from firmware.journal.store import Journal
from firmware.resources import load_ruleset
from firmware.table.venue_notes import VenueNotes
from tests.support.chromium import NEEDED
from tests.support.displaykit import PIN, FakeSource, running_server
from tests.support.servicekit import Clock, act
from tests.support.stagekit import EAST_WINS, ccm_desk, play_game, play_hand, ruleset
from tests.support.tablekit import stacked_walls


def game(seating, chips) -> dict:
    return {"hands": 8, "ended": "", "chips": list(chips), "held": [0] * 4, "seating": seating}


# -- the format and the schedule -----------------------------------------------------------------


def test_seed_004_formats_16_8_and_4_rounds_and_who_changes_seats():
    """第三條: 16 rounds = 4 games of 4, 8 rounds = 4 of 2, seats changed; 4 rounds = 1 game,
    no change. The rule book refuses a stage of another number of games."""
    shipped = format_of(load_ruleset("ccm2012"))
    assert (shipped.rounds, shipped.games, shipped.seats_change) == (4, 4, True)
    assert shipped.name.startswith("16 rounds")
    config = copy.deepcopy(load_ruleset("ccm2012").config)
    config["game"]["rounds"] = 2
    assert format_of(build(config)).name.startswith("8 rounds")
    assert not format_of(ruleset(games=1)).seats_change
    assert format_of(load_ruleset("wsom2006")) is None
    for games in (2, 3, True):
        with pytest.raises(ConfigError, match=r"\[stage\] games"):
            ruleset(games=games)


def test_seed_004_換位_the_tables_schedule_repeats_no_side_over_four_games():
    """換座不得重複座位就坐: the table's proposals, game after game, put each person on each
    side once; also after a seating the referee entered."""
    for first in [(0, 1, 2, 3), (2, 0, 3, 1)]:
        seatings = [first]
        for _ in range(3):
            seatings.append(proposed(seatings[-1], seatings))
        for side in range(4):
            assert sorted(s[side] for s in seatings) == [0, 1, 2, 3]
    assert proposed((0, 1, 2, 3), [(0, 1, 2, 3)]) == (3, 0, 1, 2)  # each one side on
    assert proposed((1, 2, 3, 0), []) == (0, 1, 2, 3)  # a stage starts as drawn
    entered = [(0, 1, 2, 3), (1, 0, 3, 2)]  # the referee's: a shift would repeat
    assert not repeats(proposed(entered[-1], entered), entered)
    assert repeats((0, 2, 3, 1), entered) == [(0, 0), (3, 2)]  # P1 East, P4 West again


# -- the totals, the ranking, the standard score -------------------------------------------------


def test_seed_004_第十條_第十一條_totals_by_person_and_a_tie_shares_the_place():
    """Each game's 局分 follows the person, whatever side he sat; the 總局分 ranks; equal totals
    are equal places (第十一條); the standard score goes to the first once the stage is over,
    and the second's total is on record for the comparison of the tables' seconds."""
    fmt = format_of(load_ruleset("ccm2012"))
    games = [
        game([0, 1, 2, 3], [150, 100, 50, 100]),
        game([3, 0, 1, 2], [100, 120, 80, 100]),  # P4 on E: 100, P1 on S: 120
        game([2, 3, 0, 1], [60, 100, 200, 40]),
    ]
    rows = {row.person: row for row in standings(games, fmt)}
    assert rows[0].points == (150, 120, 200) and rows[0].total == 470
    assert rows[3].points == (100, 100, 100) and rows[3].total == 300
    assert rows[0].standard_score is None  # three of four games: nobody has it yet
    games.append(game([1, 2, 3, 0], [120, 40, 40, 200]))
    table = stage_json(games, fmt)
    assert [(p["person"], p["total"], p["rank"]) for p in table["players"]] == [
        (0, 670, 1),
        (1, 340, 2),
        (3, 340, 2),  # 總局分相同，並列名次
        (2, 250, 4),
    ]
    assert table["finished"] and table["qualified"] == [0] and not table["tied_at_cut"]
    assert [p["standard_score"] for p in table["players"]] == [8, 0, 0, 0]
    assert table["reserve"] == [{"person": 1, "total": 340}, {"person": 3, "total": 340}]


def test_seed_004_第十條_two_qualify_both_get_the_standard_score():
    """Where two qualify a table (每桌晉級兩名), the first and the second both get it: here the
    championship's 9+1, entered as 10; no second is then on record. Totals tied across the
    qualifying places are equal places (第十一條): all get it, and the sheet says so."""
    fmt = format_of(ruleset(qualifiers=2, standard_score=10))
    games = [game([0, 1, 2, 3], [190, 110, 60, 40])] * 4
    table = stage_json(games, fmt)
    assert table["qualified"] == [0, 1] and table["reserve"] == []
    assert [p["standard_score"] for p in table["players"]] == [10, 10, 0, 0]
    level = stage_json([game([0, 1, 2, 3], [100] * 4)] * 4, fmt)  # four equal totals
    assert [p["rank"] for p in level["players"]] == [1, 1, 1, 1] and level["tied_at_cut"]
    assert [p["standard_score"] for p in level["players"]] == [10] * 4  # 並列名次


# -- the desk: change_seats ----------------------------------------------------------------------


def test_seed_004_換位_between_games_only_and_never_repeating(tmp_path):
    """Refused with a hand in play and in the middle of a game; between games the table's
    proposal is journaled, shown in both views' log and sheet, and the names follow it; an
    entry that puts somebody on his side again is refused."""
    clock = Clock()
    with Journal(tmp_path / "j.sqlite") as journal:
        desk = ccm_desk(journal, clock)
        names = ("Li", "Wang", "Zhao", "Qian")
        desk.service.venue = VenueNotes(
            players=tuple({"name": n, "federation_id": n} for n in names)
        )
        play_hand(desk, clock)  # game 1, hand 1: East won, the game goes on
        with pytest.raises(ActionRefused, match="1 hand"):
            act(desk, "change_seats")
        play_hand(desk, clock)  # the game is over
        assert len(desk.service.hands.session.games) == 1
        with pytest.raises(ActionRefused, match="重複座位"):
            act(desk, "change_seats", {"seating": [0, 2, 3, 1]})  # P1 on East again
        answer = act(desk, "change_seats")
        assert answer["seating"] == [3, 0, 1, 2] and answer["game"] == 2
        public = desk.snapshot(referee=False)
        assert [s["name"] for s in public["seats"]] == ["Qian", "Li", "Wang", "Zhao"]
        assert public["log"][-1]["type"] == "SeatsChanged"
        assert desk.snapshot(referee=True)["stage"]["players"][0]["points"] == [400]
        assert public["stage"]["players"] == []  # issue 33: told only when asked (三十三)
        clock.t += 10
        hands = desk.service.hands
        hands.walls.ready = stacked_walls(hands.ruleset, (3, 4), EAST_WINS, seed=9)
        hands.raise_walls(clock.t, "A")
        with pytest.raises(ActionRefused, match="not with a hand in play"):
            act(desk, "change_seats")
    assert body_problem("change_seats", {"seating": [0, 0, 1, 2]})[0] == "seating"


def test_seed_004_換位_the_seating_is_kept_on_resume(tmp_path):
    """A restart on the journal puts each game's seating back: the game played after the
    change keeps it, and the seating in force for the next game is the one changed last."""
    clock, path = Clock(), tmp_path / "j.sqlite"
    with Journal(path) as journal:
        desk = ccm_desk(journal, clock)
        play_game(desk, clock)
        act(desk, "change_seats")
        play_game(desk, clock)
        act(desk, "change_seats", {"seating": [1, 2, 3, 0]})
        before = copy.deepcopy(desk.service.hands.session.games)
    with Journal(path, create=False) as journal:
        desk = ccm_desk(journal, clock)
        desk.service.hands.resume(clock.t, replay(journal))
        session = desk.service.hands.session
        assert [g["seating"] for g in session.games] == [[0, 1, 2, 3], [3, 0, 1, 2]]
        assert session.games == before
        assert session.seating == [1, 2, 3, 0]


def test_seed_004_a_single_game_stage_changes_no_seats(tmp_path):
    """四圈制，一局不換座: the action is refused."""
    with Journal(tmp_path / "j.sqlite") as journal:
        desk = ccm_desk(journal, Clock(), ruleset(games=1))
        with pytest.raises(ActionRefused, match="no seat changes"):
            act(desk, "change_seats")


# -- the desk: 問分 ------------------------------------------------------------------------------


def test_seed_004_三十三_問分_in_the_4th_game_twice_a_player_on_the_public_view(tmp_path):
    """Refused before the 4th game; in it, a player's ask is journaled and its answer (the
    chips now and the stage's totals, by side) is on the public view until the next
    discard or 30 s; a third ask by the same player is refused, another player may ask."""
    clock = Clock()
    with Journal(tmp_path / "j.sqlite") as journal:
        desk = ccm_desk(journal, clock)
        with pytest.raises(ActionRefused, match="this is game 1"):
            act(desk, "ask_scores", {"seat": 1})
        for _ in range(3):
            play_game(desk, clock)
            act(desk, "change_seats")
        clock.t += 1
        answer = act(desk, "ask_scores", {"seat": 1})
        # games 1-3 each won by the E side: P1, P4, P3 (seatings 0123, 3012, 2301); in game 4
        # (1230) S is P3
        assert answer["person"] == 2 and answer["chips"] == [100, 100, 100, 100]
        assert answer["totals"] == [100, 500, 500, 500]
        public = desk.snapshot(referee=False)
        assert public["scores_asked"]["totals"] == answer["totals"]
        clock.t += 30
        assert desk.snapshot(referee=False)["scores_asked"] is None
        act(desk, "ask_scores", {"seat": 1})
        with pytest.raises(ActionRefused, match="two at most"):
            act(desk, "ask_scores", {"seat": 1})
        act(desk, "ask_scores", {"seat": 2})
        asked = [r for r in journal.rows() if r.kind == "device" and "ScoresAsked" in r.json]
        assert len(asked) == 3
        assert desk.snapshot(referee=False)["scores_asked"]["person"] == 3
        hands = desk.service.hands
        hands.walls.ready = stacked_walls(hands.ruleset, (3, 4), EAST_WINS, seed=9)
        hands.raise_walls(clock.t, "A")
        hands.apply(ev.DiceRolled(clock.t, 0, (3, 4)))
        hands.apply(ev.TileDiscarded(clock.t, 0, hands.table.hands[0][-1]))
        assert desk.snapshot(referee=False)["scores_asked"] is None  # the next discard


def test_seed_004_三十三_問分_answers_the_scores_of_this_moment_with_the_spot_payments(tmp_path):
    """三十三 現場諮詢裁判此刻四家得分情況, with 三十六 槓牌當時立即付分 (issue 30 item 9): East's
    concealed kong in the hand in play has taken 6 from each of the three; the answer says so,
    not the chips as of the last hand recorded."""
    clock = Clock()
    with Journal(tmp_path / "j.sqlite") as journal:
        desk = ccm_desk(journal, clock)
        for _ in range(3):
            play_game(desk, clock)
            act(desk, "change_seats")
        hands = desk.service.hands
        hands.walls.ready = stacked_walls(hands.ruleset, (3, 4), ("1111m", "", "", ""), seed=9)
        hands.raise_walls(clock.t, "A")
        hands.apply(ev.DiceRolled(clock.t, 0, (3, 4)))
        kong = tuple(t for t in hands.table.hands[0] if tiles.kind_of(t) == tiles.tile("1m"))
        hands.apply(ev.KongDeclared(clock.t + 1, 0, kong))
        answer = act(desk, "ask_scores", {"seat": 1})
        assert answer["chips"] == [118, 94, 94, 94]  # E S W N; games 1-3 as above
        assert answer["totals"] == [118, 494, 494, 494]


@pytest.mark.slow  # a browser
@NEEDED
def test_seed_004_the_pages_show_the_standings_and_the_問分_answer(tmp_path, browser):
    """第十條, 三十三: the referee's page draws the stage's standings, each person's 局分 game
    by game and the 總局分; the public page (players, spectators) who sits each side and the
    answer to a 問分 while it is shown, not the standings (issue 33: the scores only when
    asked)."""

    def fourth_game_asked():
        clock = Clock()
        with Journal(tmp_path / "j.sqlite") as journal:
            desk = ccm_desk(journal, clock)
            for _ in range(3):
                play_game(desk, clock)
                act(desk, "change_seats")
            act(desk, "ask_scores", {"seat": 1})
            return FakeSource(desk.view())

    with ThreadPoolExecutor(1) as aside:  # the browser's loop runs on this thread
        source = aside.submit(fourth_game_asked).result()
    with running_server(create_app(source, PIN)) as (base, _server):
        page = browser.new_page()
        page.goto(base + "/table")
        page.locator("#centre .scores-asked").wait_for(timeout=5000)
        assert page.locator("[data-seat='S'] .player").inner_text() == "P3"  # game 4: 1230
        asked = page.locator("#centre .scores-asked").inner_text()
        assert asked.startswith("P3 asks the scores") and "S 100 (stage 500)" in asked
        assert page.locator("#centre table.stage").count() == 0
        page.goto(base + "/")
        page.fill("#login #pin", PIN)
        page.press("#login #pin", "Enter")
        page.locator("#centre table.stage").wait_for(timeout=5000)
        rows = page.eval_on_selector_all(
            "#centre table.stage tr", "rs => rs.map(r => [...r.children].map(c => c.textContent))"
        )
        assert rows[1:] == [  # place, player, 局1-局4, 總局分, 標準分
            ["1", "P1", "400", "0", "0", "", "400", ""],
            ["1", "P3", "0", "0", "400", "", "400", ""],
            ["1", "P4", "0", "400", "0", "", "400", ""],
            ["4", "P2", "0", "0", "0", "", "0", ""],
        ]
        page.close()
