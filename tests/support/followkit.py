"""The follow-tile exemption's hand (跟張免責, RULES.md 1.3; A-W3): North waits on 9p, East
discards a 9p in North's go-around and South follows with another; North wins on South's. Shared
by the engine's tests of the exemption, the desk's rulings and the result panel."""

from engine import events as ev
from engine import tiles
from engine.session import Session
from firmware.bus.contract import Envelope
from firmware.journal.replay import replay
from firmware.journal.store import Journal
from firmware.table.actor import Actor
from firmware.table.profile import load_profile
from firmware.table.service import Service
from firmware.uplink.messages import AlertBoard, alert_message
from tests.support.servicekit import Clock, StillShuffler
from tests.support.tablekit import WSOM_DICE, E, Game, N, S, W, of, stacked_walls

NORTH_WAITS_9P = "123m 456m 789m 123p 9p"  # 1.1 + 1.2 + 7.1 = 50 on 9p: 30 + 30 + 90


def turn(game: Game, seat: int, name: str | None = None) -> None:
    """`seat` draws (unless he holds 14) and discards `name` or his newest tile; nobody calls."""
    if game.table.state == "draw":
        game.draw(seat)
    tile = game.own(seat, name)[0] if name else game.table.hands[seat][-1]
    game.ok(ev.TileDiscarded, seat, tile=tile)
    game.close()


def north_self_draws_9p(wsom, session: Session) -> Game:
    """The next hand of `session`: North waits on 9p, draws it after E, S and W's discards
    and declares the self-drawn win, 1.1 + 1.2 + 7.1 = 50 (RULES.md 1.3)."""
    game = Game(wsom, WSOM_DICE)
    game.table = session.new_table(
        stacked_walls(wsom, WSOM_DICE, ["", "", "", NORTH_WAITS_9P], {2: "9p"})
    )
    game.start()
    for seat in (E, S, W):
        turn(game, seat)
    game.draw(N)
    game.ok(ev.WinDeclared, N)
    return game


def north_wins_on_south(game: Game, before_souths: list[tuple[int, str | None]]) -> list:
    """The turns given, East's opening first; then South discards 9p and North calls the win."""
    game.start()
    for seat, name in before_souths:
        turn(game, seat, name)
    game.draw(S)
    game.discard(S, "9p")
    game.claim(N, "win")
    out = game.apply(ev.ClaimWindowClosed, None)  # the proposal comes as an alert
    nines = [t for _, t in game.table.discards if tiles.NAMES[tiles.kind_of(t)] == "9p"]
    assert len(set(nines)) == len(nines)  # different physical copies of one kind
    return out


def exemption_alerts(out) -> list[str]:
    return [a.message for a in of(out, ev.Alert) if a.rule == "RULES.md 1.3"]


FOLLOWED = [(E, None), (S, None), (W, None), (N, None), (E, "9p")]


UNCLAIMED = [-30, -90, -30, 150]  # South, the discarder, pays 3V-60 of V = 50


FOLLOWED_HANDS = ["", "", "9p", NORTH_WAITS_9P]


FOLLOWED_DRAWS = {3: "9p", 4: "9p"}


def rule(game: Game, alert: int, apply: bool = True) -> list:
    return game.apply(ev.Ruling, None, alert=alert, apply=apply)


class ServedGame(Game):
    """The hand played through firmware/table/hands.py, each input journaled, on stacked walls."""

    def __init__(self, journal: Journal, wsom, hands=FOLLOWED_HANDS, draws=FOLLOWED_DRAWS):
        super().__init__(wsom, WSOM_DICE, hands=hands, draws=draws)
        self.service = Service(
            load_profile("sim"), wsom, journal, Actor(Clock()), StillShuffler(), out=lambda _: None
        )
        walls = stacked_walls(wsom, WSOM_DICE, hands, draws)
        self.hands = self.service.hands
        self.hands.walls.take = lambda: walls  # the stacker's lanes: East on side E in hand 1
        self.hands.raise_walls(0.0, "A")
        self.table = self.hands.table

    def apply(self, event_type, seat, **fields) -> list[ev.Event]:
        self.clock += 1.0
        out = self.hands.apply(event_type(self.clock, seat, **fields))
        self.log += out
        return out


def ruling_awaited(journal: Journal, alert: int) -> bool:
    """The uplink's board, what the venue sees, still waits on a ruling on `alert`."""
    board = AlertBoard()
    for row in journal.rows():
        board.follow(row, alert_message(row, Envelope("V", "T1", "s")))
    return ("ruling", alert) in board.waiting


def assert_replays_to(path, wsom, sheet: list[dict]) -> None:
    """The journal's replay, and a service resumed from it, give the score sheet `sheet`."""
    with Journal(path, readonly=True) as journal:
        replayed = replay(journal)
    assert replayed.mismatches == 0
    again = Session(wsom, hand_number=1)  # as firmware/table/resume.py numbers it
    again.record(replayed.played[0].table)
    assert [row.to_json() for row in again.sheet] == sheet
    with Journal(path) as journal:
        resumed = Service(
            load_profile("sim"), wsom, journal, Actor(Clock()), StillShuffler(), out=lambda _: None
        )
        resumed.hands.resume(replayed.last_t, replayed)
        assert [row.to_json() for row in resumed.hands.session.sheet] == sheet


def ruled_in_the_next_hand(session: Session, alert: int) -> list:
    """A ruling on hand 1's `alert` once hand 2 is dealt, refused for its table is gone."""
    game = Game(session.ruleset, WSOM_DICE)
    game.table = session.new_table(stacked_walls(session.ruleset, WSOM_DICE, ("", "", "", "")))
    game.start()
    out = rule(game, alert)
    assert "an earlier hand's alert cannot be ruled on: its table is gone" in out[0].message
    return out
