"""Issue 13, seed 004 第五條 比賽時間 (RULES.md 4.3, 4.13 局結): a CCM game (局) has its time.

「四圈一局比賽中，每局規定限時兩小時，每局結束後休息15分鐘。… 每局結束前5分鐘，由裁判長報時提醒各位
運動員。滿足規定時間後的最後一次成牌或荒牌，比賽結束。」 The game's minutes come from the venue,
else the table profile, else the rule book; its clock starts with its first hand, on table
time; the notice comes five minutes before time; once time is up the hand in play is finished
and the game ends by time; the next game has fresh chips and a clock of its own, after the
break (or when the referee resumes play at the desk). Every clock here is a fake one.
"""

import json
import random
import tomllib
from dataclasses import replace

import pytest

from drivers.reader_frames import Stacked
from drivers.shuffler import WallsRaised, WallsReady
from engine import events as ev
from engine import tiles
from engine.rulesets import build
from engine.rulesets.ccm2012.game_end import game_over
from firmware.cli import main
from firmware.desk.desk import Desk
from firmware.journal.replay import replay
from firmware.journal.store import Journal
from firmware.resources import load_ruleset
from firmware.table.actor import Actor, Tick
from firmware.table.game_clock import FIVE_MINUTES, TIME_UP
from firmware.table.profile import ProfileError, load_profile
from firmware.table.service import Service
from firmware.table.walls import STACKER_WAIT
from firmware.uplink.commands import VenueCommands
from tests.conftest import REPO
from tests.support.hall import PLAYERS, PUBLIC, WALL, Hall, Lift, journaled
from tests.support.servicekit import Clock, act
from tests.support.tablekit import stacked_walls

BY_TIME = game_over([100] * 4, time_up=True)
SECONDS = 7200  # the rule book's 120 minutes: the 16-round format's game


class CcmHall(Hall):
    """Issue 15's Hall with CCM's rule book (tests/support/hall.py): a table
    of venue
    "hall" on a fake clock, between hands until `deal`."""

    def __init__(self, journal: Journal, clock, profile=None, ruleset=None):
        self.clock, self.lift, self.printed = clock, Lift(), []
        self.service = Service(
            profile or load_profile("sim"),
            ruleset or load_ruleset("ccm2012"),
            journal,
            Actor(clock),
            self.lift,
            out=self.printed.append,
        )
        self.commands = VenueCommands(self.service, PUBLIC, "hall", "T07", wall_clock=lambda: WALL)
        self.sets = iter("AB" * 20)

    def walls_ready(self, tile_set: str) -> None:
        """CCM's 144 tiles (flowers too) built, read and judged."""
        tag = {owner: tag for tag, owner in self.service.profile.tags.items()}
        order = tiles.physical_set(True)
        random.Random(5).shuffle(order)
        for position, tile in enumerate(order):
            self.handle(Stacked(position, tag[(tile_set, tile)]))
        self.handle(WallsReady(self.clock.t, tile_set, (36, 36, 36, 36), 60.0))
        self.clock.t += STACKER_WAIT
        self.handle(Tick())
        assert self.service.status().walls_ready

    def deal(self) -> None:
        """The next walls built and raised (pressed: the sitting's refusal is asked), East's
        single roll (RULES.md 4.4): the hand dealt."""
        tile_set = next(self.sets)
        self.walls_ready(tile_set)
        self.press_raise()
        assert self.lift.raised and self.lift.raised[-1] == self.clock.t, "raise refused"
        self.handle(WallsRaised(self.clock.t, tile_set))
        self.service.hands.apply(ev.DiceRolled(self.clock.t, 0, (3, 4)))

    def play_out(self) -> None:
        """Seat after seat draws, exposes and replaces flowers, and discards its newest
        tile; nobody calls: the wall runs out (荒牌) and the hand is settled."""
        hands, t = self.service.hands, self.clock.t
        table = hands.table
        while not table.ended:
            for seat in range(4):  # flowers first, East first (seed §16)
                while not table.ended and (
                    table.owes[seat] or any(_flower(x) for x in table.hands[seat])
                ):
                    if table.owes[seat]:
                        hands.apply(ev.TileDrawn(t, seat))
                    else:
                        flower = next(x for x in table.hands[seat] if _flower(x))
                        hands.apply(ev.FlowerExposed(t, seat, flower))
            if table.ended:
                break
            if table.state == "draw":
                hands.apply(ev.TileDrawn(t, table.turn))
                continue
            hands.apply(ev.TileDiscarded(t, table.turn, table.hands[table.turn][-1]))
            hands.apply(ev.ClaimWindowClosed(t, None))

    def game(self, referee: bool = False) -> dict:
        """The game's clock as the public view (or the referee's) shows it."""
        return Desk(self.service, "T07").snapshot(referee)["game_clock"]

    def games(self) -> list[dict]:
        return self.service.hands.session.games

    def restarted(self) -> "CcmHall":
        """The power goes and `mjtable run` starts again on the journal: the venue's
        commands recalled, the session resumed (firmware/run/rig.py's order), table time going on
        from the journal's last row."""
        path = self.service.journal.path
        self.service.journal.close()
        with Journal(path, readonly=True) as journal:
            replayed = replay(journal)
        again = CcmHall(Journal(path), Clock(replayed.last_t), self.service.profile)
        again.commands.recall(again.service.journal.rows())
        again.service.resume(again.clock.t, replayed, cut=None)
        return again


def _flower(tile: int) -> bool:
    return tiles.is_flower(tiles.kind_of(tile))


@pytest.fixture
def hall(tmp_path):
    journal = Journal(tmp_path / "j.sqlite")
    yield CcmHall(journal, Clock())
    journal.close()


SOUTH_WAITS = ("7m", "1122334455667m", "", "")  # East's 7m completes South's 清一色 七對
EAST_WINS = ("11223344556677m", "", "", "")  # East's dealt 14: 清一色 七對, T = 60


def stacked_deal(hall, layout) -> None:
    """Walls that deal `layout` (by seat of the hand) raised, East's roll: the hand dealt."""
    hands = hall.service.hands
    walls = stacked_walls(hands.ruleset, (3, 4), layout, seed=hands.session.hand_number)
    dealer = hands.session.player_at(0)
    hands.walls.ready = [walls[(side - dealer) % 4] for side in range(4)]
    hands.raise_walls(hall.clock.t, "A")
    hands.apply(ev.DiceRolled(hall.clock.t, 0, (3, 4)))


def by_seat(hall, chips) -> None:
    """The session's chips set so that the hand's seats E S W N hold `chips`."""
    session = hall.service.hands.session
    for seat, amount in enumerate(chips):
        session.scores[session.player_at(seat)] = amount


def own(table, seat: int, name: str) -> int:
    return next(x for x in table.hands[seat] if tiles.kind_of(x) == tiles.tile(name))


def test_seed_004_5_the_game_clock_is_the_rule_books_and_starts_with_its_first_hand(hall):
    """seed 004 第五條 (RULES.md 4.3): 四圈一局 … 每局規定限時兩小時: the rule book's 120 minutes,
    counted from the game's first hand, on table time; before it the whole time is shown."""
    assert hall.game() == {
        "game": 1,
        "minutes": 120,
        "seconds_left": None,
        "notice": None,
        "break_left": None,
    }
    hall.deal()
    hall.clock.t += 600
    assert hall.game()["seconds_left"] == SECONDS - 600


@pytest.fixture
def both_views(hall):
    """Both documents agree on the game's clock: it is public (issue 13)."""

    def views() -> dict:
        public, referee = hall.game(), hall.game(referee=True)
        assert public == referee
        return public

    return views


def test_seed_004_5_the_clock_is_on_both_views_and_the_sittings_own_is_not(hall, both_views):
    """seed 004 第五條: the game's time is shown to all on both views; the venue's minutes are
    each game's, so no sitting clock of its own runs beside it (RULES.md 4.3)."""
    hall.send("start_session", {"players": PLAYERS, "minutes": 60})
    hall.deal()
    hall.clock.t += 1000
    assert both_views()["seconds_left"] == 3600 - 1000
    state = Desk(hall.service, "T07").snapshot(False)
    assert (state["session_seconds_left"], state["session_notice"]) == (None, None)


def test_seed_004_5_the_profile_gives_the_game_its_minutes(tmp_path):
    """seed 004 第五條 兩圈一局 … 每局規定限時一小時: the table profile's [table] game_minutes (60,
    the 8-round format) over the rule book's 120; a bad value is refused at start-up, naming
    the key."""
    sim = load_profile("sim").path
    text = sim.read_text("utf-8").replace(
        "claim_window_seconds = 2.0", "claim_window_seconds = 2.0\ngame_minutes = 60", 1
    )
    (tmp_path / "sim-tags.csv").write_text((sim.parent / "sim-tags.csv").read_text("utf-8"))
    (tmp_path / "t.toml").write_text(text, "utf-8")
    profile = load_profile(tmp_path / "t.toml")
    assert profile.game_minutes == 60
    with Journal(tmp_path / "j.sqlite") as journal:
        hall = CcmHall(journal, Clock(), profile)
        hall.deal()
        assert hall.game()["minutes"] == 60 and hall.game()["seconds_left"] == 3600
    (tmp_path / "bad.toml").write_text(text.replace("game_minutes = 60", "game_minutes = 0"))
    with pytest.raises(ProfileError, match=r"\[table\] game_minutes: expected"):
        load_profile(tmp_path / "bad.toml")


def test_seed_004_5_the_venues_minutes_win_over_the_profiles(tmp_path):
    """seed 004 第五條: the competition sets the game's time: the venue's start_session minutes
    (90) over the profile's (60) and the rule book's (120)."""
    with Journal(tmp_path / "j.sqlite") as journal:
        hall = CcmHall(journal, Clock(), replace(load_profile("sim"), game_minutes=60))
        hall.send("start_session", {"players": PLAYERS, "minutes": 90})
        hall.deal()
        assert hall.game()["minutes"] == 90 and hall.game()["seconds_left"] == 5400


def test_seed_004_5_the_five_minutes_notice_is_told_once_on_both_views(hall, both_views):
    """seed 004 第五條 每局結束前5分鐘，由裁判長報時提醒各位運動員: from 300 s left both views
    carry the game's notice; the console says it once, however many ticks follow."""
    hall.deal()
    start = hall.clock.t
    hall.clock.t = start + SECONDS - 301
    hall.handle(Tick())
    assert both_views()["notice"] is None
    for _ in range(3):
        hall.clock.t += 1
        hall.handle(Tick())
    assert both_views()["notice"] == FIVE_MINUTES
    assert [line for line in hall.printed if FIVE_MINUTES in line] == [
        f"{start + SECONDS - 300:9.1f}  {FIVE_MINUTES}"
    ]


def test_seed_004_5_time_up_the_hand_in_play_is_finished_and_the_game_ends_by_time(
    hall, both_views
):
    """seed 004 第五條 滿足規定時間後的最後一次成牌或荒牌，比賽結束 (RULES.md 4.3, §31 局結
    比賽時間到): time runs out during a hand: it plays on to its draw and is settled, and the
    game ends by time with the chips it had; the next game has fresh chips (RULES.md 4.13),
    East again, and a clock of its own that starts with its first hand."""
    hall.service.hands.session.scores = [130, 90, 90, 90]
    hall.deal()
    hall.clock.t += SECONDS
    hall.handle(Tick())
    assert both_views()["notice"] == TIME_UP and [line for line in hall.printed if TIME_UP in line]
    assert hall.service.hands.in_play  # time up does not stop the hand
    hall.play_out()
    (game,) = hall.games()
    assert (game["hands"], game["ended"], game["chips"]) == (1, BY_TIME, [130, 90, 90, 90])
    assert f"game 1 over: {BY_TIME}; 15 minutes' break before game 2" in hall.printed[-2]
    session = hall.service.hands.session
    assert session.scores == [100] * 4 and session.dealer == 0
    assert both_views() == {
        "game": 2,
        "minutes": 120,
        "seconds_left": None,
        "notice": None,
        "break_left": 900,
    }
    hall.clock.t += 900
    hall.deal()
    hall.clock.t += 60
    assert hall.game()["seconds_left"] == SECONDS - 60


def test_seed_004_5_a_game_played_out_in_time_goes_on_hand_after_hand(hall):
    """seed 004 第五條: before time, a hand's end does not end the game: the next hand begins
    at once, in the same game, its clock running on (no break)."""
    hall.deal()
    start = hall.clock.t
    hall.clock.t += 600
    hall.play_out()
    hall.deal()
    assert hall.games() == [] and hall.game()["seconds_left"] == SECONDS - (hall.clock.t - start)


def test_seed_004_5_time_up_between_hands_the_next_hand_is_the_games_last(hall):
    """seed 004 第五條 滿足規定時間後的最後一次成牌或荒牌: time ran out after a hand's end, before
    the next began: no win or draw came after time yet, so the next hand is played and ends
    the game by time."""
    hall.deal()
    hall.play_out()
    hall.clock.t += SECONDS
    hall.handle(Tick())
    assert hall.game()["notice"] == TIME_UP and hall.games() == []
    hall.deal()
    assert hall.service.hands.table.time_up  # seed 004 §32: the game's last hand
    hall.play_out()
    assert [(g["hands"], g["ended"]) for g in hall.games()] == [(2, BY_TIME)]


def test_seed_004_5_the_break_holds_the_next_game_until_it_is_over(hall):
    """seed 004 第五條 每局結束後休息15分鐘: after the game, a raise during the 15 minutes leaves
    the walls down and is no fault (issue 33: the screens count the break down; a fault a
    press made 72 in one break); after them they rise."""
    hall.deal()
    hall.clock.t += SECONDS
    hall.play_out()
    hall.walls_ready("B")
    hall.clock.t += 899 - STACKER_WAIT
    raised = list(hall.lift.raised)
    faults = journaled(hall.service.journal, "Fault")
    for _ in range(72):
        hall.press_raise()
    assert hall.lift.raised == raised and hall.game()["break_left"] == 1
    assert journaled(hall.service.journal, "Fault") == faults
    hall.clock.t += 1
    hall.press_raise()
    assert hall.lift.raised == [*raised, hall.clock.t]


def test_seed_004_5_the_referee_begins_the_next_game_before_the_breaks_end(hall):
    """seed 004 第五條: the referee may begin the next game earlier: his resume at the desk
    ends the break (a HallResumed record, journaled), and the walls rise; still so after a
    restart."""
    hall.deal()
    hall.clock.t += SECONDS
    hall.play_out()
    hall.walls_ready("B")
    assert hall.game()["break_left"] == 900 - STACKER_WAIT
    act(Desk(hall.service, "T07"), "resume")
    assert hall.game()["break_left"] is None
    signed = ("RefereeActed", "HeadSigned")  # who acted, and the head signed at once (issue 35)
    last = [r for r in hall.service.journal.rows() if r.data().get("type") not in signed][-1]
    assert (last.kind, last.data()["type"]) == ("device", "HallResumed")
    hall.press_raise()
    assert hall.lift.raised[-1] == hall.clock.t
    again = hall.restarted()
    assert again.game()["break_left"] is None
    assert again.service.hands.sitting.refusal(again.clock.t, False) is None
    again.service.journal.close()


def test_seed_004_31_a_game_ended_by_chips_gets_its_break_and_a_fresh_clock(hall):
    """seed 004 §31 局結 (兩家無分即告結束) before time, here at once in the hand (issue 30 item
    7): East's kong takes South's last chips, West has none: that game's break too, and the
    next game's clock starts afresh with its first hand."""
    by_seat(hall, [194, 6, 0, 200])
    stacked_deal(hall, ("1111m", "", "", ""))
    hall.clock.t += 600
    hands = hall.service.hands
    kong = tuple(x for x in hands.table.hands[0] if tiles.kind_of(x) == tiles.tile("1m"))
    hands.apply(ev.KongDeclared(hall.clock.t, 0, kong))
    assert [g["ended"] for g in hall.games()] == [game_over([206, 0, 0, 194])]
    assert hall.game()["break_left"] == 900 and hall.game()["seconds_left"] is None
    hall.clock.t += 900
    hall.deal()
    assert hall.game()["seconds_left"] == SECONDS


def test_seed_004_5_the_two_round_format_breaks_after_every_two_games(tmp_path):
    """seed 004 第五條 兩圈一局比賽中 … 兩局結束後休息15分鐘: with [game] break_after_games = 2
    the first game's end holds nothing, the second's holds the next game for the break."""
    config = tomllib.loads((REPO / "config" / "rules" / "ccm2012.toml").read_text("utf-8"))
    config["game"] |= {"rounds": 2, "minutes": 60, "break_after_games": 2}
    with Journal(tmp_path / "j.sqlite") as journal:
        hall = CcmHall(journal, Clock(), ruleset=build(config))
        for game in (1, 2):
            hall.service.hands.session.scores = [0, 0, 200, 200]  # two without chips: 局結
            hall.deal()
            hall.play_out()
            assert len(hall.games()) == game
            assert hall.game()["break_left"] == (None if game == 1 else 900)


def test_seed_004_5_a_restart_keeps_the_games_clock_where_it_was(hall):
    """seed 004 第五條, RULES.md 4.3: the power goes in the game's second hand; started
    again, its clock goes on from the journal's table time (the outage never counts), its
    first hand's start still the game's."""
    hall.deal()
    start = hall.clock.t
    hall.clock.t += 1000
    hall.play_out()
    hall.deal()
    hall.clock.t += 500
    hall.service.hands.apply(ev.ClocksPaused(hall.clock.t, None))  # its last row's time
    again = hall.restarted()
    assert again.game()["seconds_left"] == SECONDS - (hall.clock.t - start)
    assert again.service.hands.in_play
    again.service.journal.close()


def test_seed_004_5_resume_and_replay_end_the_game_by_time_at_the_same_hand(hall, capsys):
    """seed 004 第五條: journal, resume and replay agree: the game ended by time after hand 2
    (time ran out in it); the table started again settles the same games at the same hands,
    the next game's break where it was, and `mjtable replay` matches the journal."""
    hall.deal()
    hall.clock.t += 600
    hall.play_out()
    hall.deal()
    hall.clock.t += SECONDS
    hall.play_out()
    ended = hall.clock.t
    games = [dict(g) for g in hall.games()]
    assert [(g["hands"], g["ended"]) for g in games] == [(2, BY_TIME)]
    again = hall.restarted()
    assert again.games() == games and again.service.hands.session.scores == [100] * 4
    assert again.game()["break_left"] == 900 - (again.clock.t - ended)
    again.service.journal.close()
    assert main(["replay", "--json", str(again.service.journal.path)]) == 0
    assert json.loads(capsys.readouterr().out)["mismatches"] == 0


def test_issue_13_wsom_has_no_game_clock_its_sitting_keeps_the_venues(tmp_path):
    """Issue 13: WSOM has no timed games: no game clock on its views, the venue's sitting
    clock as before (RULES.md 4.3, issue 15)."""
    with Journal(tmp_path / "j.sqlite") as journal:
        hall = Hall(journal, Clock())
        hall.send("start_session", {"players": PLAYERS, "minutes": 60})
        state = Desk(hall.service, "T07").snapshot(False)
        assert state["game_clock"] is None and state["session_seconds_left"] == 3600


# -- issue 30 items 5, 6: the time running out reaches the hand in play ---------------------------


def test_seed_004_5_32_time_up_in_the_middle_of_a_hand_makes_it_the_games_last(hall):
    """第五條 滿足規定時間後的最後一次成牌或荒牌，比賽結束 with 第一條三十二
    非第一名方，在面臨局結情況下，不能以任何方式和牌 (issue 30 item 5): time runs out while
    the game's first hand is played: the hand in play is told at once (a journaled
    GameTimeUp input), so South, who would not be first after winning on East's discard (100
    to North's 200), may not win: he plays on, and the draw that ends the hand ends the game
    by time."""
    by_seat(hall, [100, 0, 100, 200])
    stacked_deal(hall, SOUTH_WAITS)
    hands = hall.service.hands
    hall.clock.t += SECONDS
    hall.handle(Tick())
    hands.apply(ev.TileDiscarded(hall.clock.t, 0, own(hands.table, 0, "7m")))
    out = hands.apply(ev.ClaimDeclared(hall.clock.t, 1, "win"))
    assert any(isinstance(o, ev.Alert) and "S may not win" in o.message for o in out)
    assert not hands.table.results
    assert [r["t"] for r in journaled(hall.service.journal, "GameTimeUp")] == [hall.clock.t]
    hands.apply(ev.ClaimWindowClosed(hall.clock.t, None))
    hall.play_out()
    assert [g["ended"] for g in hall.games()] == [BY_TIME]


def test_seed_004_5_32_time_up_the_dealer_not_first_may_not_win_either(hall):
    """第五條 (the game ends with the last win or draw after time) with 第一條三十二 (issue 30
    item 6): time ran out between hands; in the next, East, the dealer, would stay behind
    North after his self-drawn win (180 to 200): his 連莊 would not outlive the game, so the
    win is barred to him too; he plays on."""
    stacked_deal(hall, ("", "", "", ""))
    hall.play_out()
    hall.clock.t += SECONDS
    hall.handle(Tick())
    by_seat(hall, [0, 70, 70, 260])
    stacked_deal(hall, EAST_WINS)
    hands = hall.service.hands
    out = hands.apply(ev.WinDeclared(hall.clock.t, 0))
    assert any(isinstance(o, ev.Alert) and "E may not win" in o.message for o in out)
    assert not hands.table.ended
