"""The venue watches every table's shuffler (issue 17: "the table (and the venue, across
tables) runs online statistical tests over the walls"): a VenueBoard fed the public rows the
uplink sends of hands whose walls the rigged machine's chip built (drivers/sim/mechanism.py)
names the table and the side, though the table itself reports no fault; and a reveal that
does not give its seal's digest is an alert at once."""

import json
import random

import pytest
from starlette.testclient import TestClient

from drivers.sim.mechanism import LEVELS, ProgramChip, Rigging
from engine import events as ev
from engine import tiles
from engine.deal import break_of, starting_hands
from engine.wall import build_walls
from firmware.audit.shuffle_watch import FAIR_HANDS
from firmware.bus.contract import Envelope
from firmware.journal import seals as fairness
from firmware.resources import load_ruleset
from firmware.texts.public import public_event
from firmware.uplink.messages import events_message
from firmware.venue.app import create_app
from firmware.venue.board import VenueBoard
from tests.support.venuekit import ORGANISER, PIN, VENUE, topic

RULES = load_ruleset("wsom2006").table_rules
S = 1
DISCARDS = 3  # each seat's discards of its starting hand a hand shows


class Table:
    """A table's uplink as the venue hears it: each hand's public rows, in seq order."""

    def __init__(self, board: VenueBoard, name: str, ruleset: str = "wsom2006"):
        self.board, self.name, self.seq, self.number = board, name, 0, 0
        self.ruleset, self.rules = ruleset, load_ruleset(ruleset).table_rules

    def send(self, rows: list[tuple[str, dict]]) -> None:
        out = []
        for kind, event in rows:
            self.seq += 1
            out.append({"seq": self.seq, "kind": kind, "event": event})
        message = events_message(out, Envelope(VENUE, self.name, "s1"))
        self.board.take(topic(self.name, "events"), json.dumps(message))

    def seat(self, players: list[dict], seating: tuple[int, ...]) -> None:
        """The desk's players (by person) and who sits at each side (by side, the person)."""
        rows = [
            ev.PlayersEntered(0.5, None, tuple(players)),
            ev.SeatsChanged(0.5, None, 1, seating),
        ]
        self.send([("output", public_event(e.to_json())) for e in rows])

    def hand(self, order: list[int], dealer: int, rolls, reveal=fairness.reveal) -> None:
        """One hand on walls stacked in `order`, East on side `dealer`, the break of `rolls`:
        its seal, hand row, break, deal, a few discards from each seat's starting hand, and
        the reveal (`reveal(t, sealed)`: the table's own, or a tampered one)."""
        self.number += 1
        lanes = build_walls(order, len(order) // 8)
        tags = {tile: tile.to_bytes(8, "big") for tile in order}
        sealed = fairness.seal(0.0, "A", fairness.wall_entries(lanes, tags))
        brk = break_of(rolls, self.rules)
        by_side = starting_hands(order, dealer, rolls, self.rules)
        by_seat = [by_side[(dealer + seat) % 4] for seat in range(4)]
        hand_row = {  # firmware/journal/store.py's hand row, as the uplink sends it: no walls
            "ruleset": self.ruleset,
            "hand_number": self.number,
            "chips": None,
            "t": 1.0,
            "doubling": False,
            "last_deal": False,
            "tile_set": "A",
        }
        outputs = [
            ev.WallBroken(2.0, brk.seat, brk.stacks, tuple(d for roll in rolls for d in roll)),
            ev.Dealt(2.0, None, tuple(tuple(h) for h in by_seat)),
            *(
                ev.Discarded(3.0 + turn, seat, by_seat[seat][turn])
                for turn in range(DISCARDS)
                for seat in range(4)
            ),
        ]
        self.send(
            [
                ("device", public_event(sealed.to_json())),
                ("hand", hand_row),
                *(("output", public_event(e.to_json())) for e in outputs),
                ("device", public_event(reveal(9.0, sealed).to_json())),
            ]
        )


def rolled(rng: random.Random, rules=RULES):
    """A break's free dice: WSOM's two rolls, CCM's one."""
    throws = 2 if rules.two_roll_break else 1
    return tuple((rng.randint(1, 6), rng.randint(1, 6)) for _ in range(throws))


def venue_alerts(board: VenueBoard, name: str) -> list[dict]:
    return [a for a in board.tables[name].alerts.values() if a["key"].startswith("venue:")]


def test_the_rows_the_uplink_sends_carry_no_wall_before_the_reveal():
    """Issue 17: the venue works from the public rows only; the seal's walls and the deal
    reach it only in the reveal."""
    board = VenueBoard(VENUE)
    sent = []
    table = Table(board, "T1")
    table.send = sent.extend  # type: ignore[method-assign]
    table.hand(tiles.physical_set(False), 0, ((3, 4), (2, 5)))
    before = [event for _, event in sent[:-1]]
    assert all("walls" not in e and "nonce" not in e and "hands" not in e for e in before)
    assert sent[-1][1]["type"] == "WallRevealed" and sent[-1][1]["walls"]


def rigged_until_flagged(board: VenueBoard, ruleset: str, seed: int) -> int:
    """Table T7's hands from a blatant rig favouring S, East's seat passing each hand, until
    the venue flags it or 50 hands are played; the hands played."""
    table = Table(board, "T7", ruleset)
    rng, order = random.Random(f"venue-{seed}"), tiles.physical_set(table.rules.flowers)
    chip = ProgramChip(Rigging(S, LEVELS["blatant"]), table.rules, random.Random(f"rig-{seed}"))
    for hand in range(1, 51):
        rng.shuffle(order)
        stacked, rolls = chip.build(list(order), {hand % 4})
        table.hand(stacked, hand % 4, rolls)
        if venue_alerts(board, "T7"):
            break
    return hand


@pytest.mark.parametrize("ruleset,seed", [("wsom2006", 0), ("wsom2006", 1), ("ccm2012", 0)])
def test_a_blatant_rig_is_flagged_by_the_venue_within_50_hands_naming_table_and_side(ruleset, seed):
    """Issue 17: a machine favouring S on every hand, East's seat passing each hand, caught
    by the venue within 50 hands from the reveals alone: the table sends no fault of its own
    (a tampered table that silences its detector), and the venue names the table and the
    physical side, with p, on the organiser's grid and in its counts. CCM: a set with
    flowers, one roll, no dead wall."""
    board = VenueBoard(VENUE)
    hand = rigged_until_flagged(board, ruleset, seed)
    alerts = venue_alerts(board, "T7")
    assert alerts, f"{ruleset} seed {seed}: not flagged in 50 hands"
    assert alerts[0]["kind"] == "fault" and alerts[0]["seat"] == S
    assert alerts[0]["text"].startswith("table T7: the shuffler's walls favour the S side's")
    assert "a fair table raises this alarm about once in" in alerts[0]["text"]
    summary = board.counts()["fairness"]["T7"]
    assert summary["hands_watched"] == hand and summary["hands_not_watched"] == 0
    assert [a["side"] for a in summary["alarms"]] == ["S"]
    assert summary["alarms"][0]["fair_run"] >= FAIR_HANDS and "p" not in summary["alarms"][0]


@pytest.mark.slow  # 2000 hands: seconds
def test_fair_walls_raise_no_venue_alarm_over_2000_hands():
    """Issue 17: the venue's watch of a fair shuffler stays quiet (seeded: 2000 hands, the
    thresholds the rig above meets), every hand watched with East on its own side."""
    board = VenueBoard(VENUE)
    table = Table(board, "T2")
    rng, order = random.Random("venue-fair"), tiles.physical_set(False)
    for hand in range(1, 2001):
        rng.shuffle(order)
        table.hand(order, hand % 4, rolled(rng))
    assert venue_alerts(board, "T2") == []
    summary = board.counts()["fairness"]["T2"]
    assert summary == {
        "hands_watched": 2000,
        "hands_not_watched": 0,
        "bad_reveals": 0,
        "alarms": [],
    }


def test_a_reveal_that_does_not_give_its_digest_is_an_alert_at_once():
    """Issue 17: walls revealed with two tiles swapped no longer give the digest: the venue
    alerts the organiser on that very reveal, and does not watch the hand."""

    def swapped(t, sealed):
        revealed = fairness.reveal(t, sealed)
        lane = list(revealed.walls[0])
        lane[0], lane[1] = lane[1], lane[0]
        return ev.WallRevealed(
            t, None, revealed.digest, revealed.nonce, "A", (tuple(lane),) + revealed.walls[1:]
        )

    board = VenueBoard(VENUE)
    table = Table(board, "T3")
    rng, order = random.Random("venue-swap"), tiles.physical_set(False)
    table.hand(order, 0, rolled(rng))
    assert venue_alerts(board, "T3") == []
    rng.shuffle(order)
    table.hand(order, 1, rolled(rng), reveal=swapped)
    alerts = venue_alerts(board, "T3")
    assert len(alerts) == 1
    assert "walls revealed after hand 2 do not give their digest" in alerts[0]["text"]
    summary = board.counts()["fairness"]["T3"]
    assert summary["bad_reveals"] == 1 and summary["hands_watched"] == 1


def test_walls_revealed_under_another_seal_than_the_dice_followed_are_an_alert():
    """Issue 17: a table that reveals a self-consistent order and nonce, but not the seal it
    published before the dice (walls changed after the seal), is caught: the digests differ."""

    def other(t, sealed):
        walls = (sealed.walls[1], sealed.walls[0], *sealed.walls[2:])
        return fairness.reveal(t, fairness.seal(t, "A", walls))

    board = VenueBoard(VENUE)
    table = Table(board, "T4")
    table.hand(tiles.physical_set(False), 0, ((1, 2), (3, 4)), reveal=other)
    (alert,) = venue_alerts(board, "T4")
    assert "are not those sealed before its dice" in alert["text"]


def test_on_my_way_to_the_venues_own_alert_stays_at_the_venue():
    """Issue 17: the table never raised the venue's shuffler alert, so a referee's "on my way"
    on it is shown at once and sends the table no command it would refuse."""

    class NoBus:
        async def send(self, *args):
            raise AssertionError("the venue's own alert sent a command to the table")

    board = VenueBoard(VENUE)
    rigged_until_flagged(board, "wsom2006", 0)
    [alert] = venue_alerts(board, "T7")
    client = TestClient(create_app(board, NoBus(), PIN))
    answer = client.post(
        f"/api/tables/T7/alerts/{alert['key']}/acknowledge",
        json={"referee": "Ana Ruiz"},
        headers=ORGANISER,
    )
    assert answer.status_code == 200, answer.text
    assert board.tables["T7"].alerts[alert["key"]]["acknowledged"]["referee"] == "Ana Ruiz"


def test_the_venue_follows_a_player_across_seats_and_tables():
    """Issue 35: per-player tests at the venue follow a player by the federation id the desk
    entered: a blatant rig that favours whoever sits where the cheat sits, the cheat moving
    to another side every 4 hands and between tables T5 and T6, is flagged naming him, over
    a stretch longer than any one seat he held (so it took his hands at both tables)."""
    board = VenueBoard(VENUE)
    tables = [Table(board, "T5"), Table(board, "T6")]
    others = [{"name": f"Player {n}", "federation_id": f"F-{n}"} for n in range(1, 7)]
    cheat = {"name": "Ana Ruiz", "federation_id": "WSOM-0042"}
    rng, order = random.Random("venue-mover"), tiles.physical_set(False)
    chip = ProgramChip(Rigging(0, LEVELS["blatant"]), RULES, random.Random("rig-mover"))
    flagged = []
    for stint in range(12):  # 4 hands a seat: 48 hands at most
        table, side = tables[stint % 2], (stint * 3) % 4
        players = [cheat, *others[3 * (stint % 2) : 3 * (stint % 2) + 3]]  # the cheat is P1
        table.seat(players, tuple((at - side) % 4 for at in range(4)))
        chip.rigging = Rigging(side, LEVELS["blatant"])
        for _ in range(4):
            rng.shuffle(order)
            dealer = (table.number + 1) % 4
            stacked, rolls = chip.build(list(order), {dealer})
            table.hand(stacked, dealer, rolls)
        flagged = [
            alarm
            for summary in board.counts()["fairness"].values()
            for alarm in summary["alarms"]
            if alarm["player"] == "WSOM-0042"
        ]
        if flagged:
            break
    assert flagged, "the moving cheat was not followed"
    assert flagged[0]["hands"] > 4
    assert "favour the starting hands of player WSOM-0042 wherever seated" in flagged[0]["text"]
    every = [a for summary in board.counts()["fairness"].values() for a in summary["alarms"]]
    assert not any(a["player"] and a["player"] != "WSOM-0042" for a in every)
