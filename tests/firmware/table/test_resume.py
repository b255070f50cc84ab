"""Issue 14 (a power cut loses nothing) and issue 20 item 6 (the crash window between an
input's commit and its outputs'), in-process, with a fake clock: the hand cut short is taken
up from the journal's state, its clocks paused from the last committed input, the tiles
compared with a full reading, and the journal replays for good afterwards."""

import time

from engine import events as ev
from engine.calls import check_call
from engine.seats import ZONES, side_of, zone
from firmware.desk.desk import Desk
from firmware.journal.replay import replay
from firmware.journal.store import Journal
from firmware.table.actor import Actor
from firmware.table.profile import load_profile
from firmware.table.resume import FULL_READING, placement
from firmware.table.service import Service
from tests.support.servicekit import Clock, StillShuffler, _quiet, dealt_service

CUT: list = []  # the connections the power cuts left open


def cut_short(tmp_path, pending: bool = True):
    """A journal whose hand was dealt and East discarded; with `pending` the power went
    between that discard's commit and its outputs' (issue 20 item 6)."""
    path = tmp_path / "cut.sqlite"
    clock = Clock()
    journal = Journal(path)
    service = dealt_service(journal, clock)
    east = service.hands.table.hands[0]
    discard = ev.TileDiscarded(clock.t + 4.0, 0, east[-1])
    if pending:
        journal.input(discard)  # committed; the outputs never are
    else:
        service.hands.apply(discard)
    # The power goes: nothing more is written, not even 'closed'; the connection is left
    # open (closing the last one would checkpoint and remove the -wal, as a cut never does).
    journal._closer.detach()
    CUT.append(journal.conn)
    return path, discard


def taken_up(path, t: float = 0.0):
    """`mjtable run` started again on the journal: replayed, the service built, resumed."""
    replayed = replay(Journal(path, readonly=True))
    journal = Journal(path)
    clock = Clock(replayed.last_t)
    ruleset = replayed.played[0].table.ruleset
    service = Service(load_profile("sim"), ruleset, journal, Actor(clock), StillShuffler())
    service.out = service.hands.out = _quiet
    service.desk = Desk(service, "test")  # before the resume, as firmware/run/rig.py builds it
    service.hands.resume(clock.t, replayed, time.time() - 131)
    return service, journal, clock, replayed


def test_a_pending_input_gets_its_outputs_and_the_journal_replays_for_good(tmp_path):
    """Issue 20 item 6: a crash between an input's commit and its outputs' commit; started
    again, the table journals the outputs replay derives, so after more play `mjtable replay`
    still matches (before, it reported a mismatch for ever: 'another engine version?')."""
    path, discard = cut_short(tmp_path)
    service, journal, clock, replayed = taken_up(path)
    assert replayed.recovered == discard.to_json()
    table = service.hands.table
    assert table.state == "claim_window" and table.discards[-1] == (0, discard.tile)
    clock.t += 30.0
    service.hands.apply(ev.ClaimWindowClosed(clock.t, None))
    journal.close()
    with Journal(path, readonly=True) as j:
        again = replay(j)
    assert again.mismatches == 0 and again.recovered is None
    assert again.inputs == replayed.inputs + 2  # the pause at the cut, and the close


def test_the_hand_is_taken_up_not_voided_with_clocks_paused_from_the_cut(tmp_path):
    """Issue 14: the hand resumes (never void); the clocks pause at the last committed input,
    so the outage never counts, and stay paused until the referee resumes them."""
    path, _discard = cut_short(tmp_path, pending=False)
    service, journal, clock, replayed = taken_up(path)
    hands = service.hands
    rows = [(r.kind, r.data()) for r in journal.rows()]
    assert not [d for kind, d in rows if d.get("type") == "HandVoided"]
    assert hands.table is replayed.played[-1].table and hands.in_play
    pause = [d for kind, d in rows if kind == "input"][-1]
    assert pause == {"type": "ClocksPaused", "t": replayed.last_t, "seat": None}
    left = hands.table.clocks.snapshot(replayed.last_t)
    clock.t += 600.0  # ten minutes of the table waiting for the referee
    assert hands.table.clocks.snapshot(clock.t) == [dict(s, running=False) for s in left]
    assert hands.interruption is not None
    line = service.status().interruption["line"]
    assert line.startswith("hand 1 resumed after an interruption at ") and line.endswith(
        "(2 min 11 s)"
    )
    hands.apply(ev.ClocksResumed(clock.t, None))  # the referee: play goes on
    assert hands.interruption is None and hands.table.clocks.paused_at is None
    board = [f for f in service.status().faults if f.kind == "interrupted"]
    assert [f.cleared for f in board] == [False, True]


def test_a_tile_moved_while_off_is_listed_until_it_is_put_back(tmp_path):
    """Issue 14: a full reading of every zone is compared with the hand; a tile that lies
    elsewhere is listed for the referee (face, where the hand has it, where it is seen), the
    public view only counts them; the list empties once it is put back."""
    path, _ = cut_short(tmp_path, pending=False)
    service, _journal, clock, _ = taken_up(path)
    hands, desk = service.hands, service.desk
    where = placement(hands.table, hands.session.player_at(0), hands.interpreter.to_deal)
    lifted = next(t for t, z in sorted(where.items()) if z.startswith("hand"))

    def read(without=()):
        for _ in range(FULL_READING):
            clock.t += 0.25
            for name in ZONES:
                hands.sweep(clock.t, name, _tags(service, where, name, without))

    read(without={lifted})
    assert [d.tile for d in hands.interruption.displaced] == [lifted]
    referee, public = desk.snapshot(True), desk.snapshot(False)
    listed = referee["interruption"]["displaced"]
    assert listed[0]["seen"] == [] and listed[0]["expected"].startswith("hand_")  # not seen
    assert public["interruption"] == service.status().interruption | {"out_of_place": 1}
    read()
    assert hands.interruption.displaced == []
    assert desk.snapshot(True)["interruption"]["displaced"] == []


def test_before_the_first_discard_a_dealt_tile_may_lie_in_its_wall(tmp_path):
    """Issue 14: the engine deals at once, the players take the deal block by block: a hand
    cut during the deal expects each dealt tile in its wall or its rack."""
    clock = Clock()
    service = dealt_service(Journal(tmp_path / "deal.sqlite"), clock)
    hands = service.hands
    dealer = hands.session.player_at(0)
    east = hands.table.hands[0][0]
    dealing = placement(hands.table, dealer, hands.interpreter.to_deal)
    played = placement(hands.table, dealer)
    assert dealing[east].startswith("wall") and played[east] == zone("hand", side_of(0, dealer))


def _tags(service, where, name, without):
    tag = {owner: tag for tag, owner in service.profile.tags.items()}
    in_play = service.hands.set_in_play
    return [tag[(in_play, t)] for t, z in where.items() if z == name and t not in without]


def test_the_referee_sees_the_hand_s_history_again_after_the_cut(tmp_path):
    """Issue 14: an output not yet shown when the power went is shown again from the
    journal's state: the referee's history has the hand's events up to the last committed
    input, so he can tell an action of the last moments that was not recorded."""
    path, discard = cut_short(tmp_path, pending=False)
    service, *_ = taken_up(path)
    log = service.desk.snapshot(True)["log"]
    kinds = [event["type"] for event in log]
    assert "Dealt" in kinds and "Discarded" in kinds, kinds
    assert [e for e in log if e["type"] == "Discarded"][-1]["tile"] == discard.tile


def test_fault_ids_go_on_after_a_restart_never_reused(tmp_path):
    """Issue 15: a fault's id names it to the referee and to the venue (its alerts are keyed
    by it): started again on the journal, the table numbers its faults on from the highest
    id journaled, so the venue never takes a new fault for an old one."""
    path = tmp_path / "cut.sqlite"
    clock = Clock()
    journal = Journal(path)
    service = dealt_service(journal, clock)
    service.hands.button(clock.t, 0, "referee")
    service.hands.button(clock.t, 1, "referee")
    before = [r.data()["id"] for r in journal.rows() if r.data().get("type") == "Fault"]
    journal._closer.detach()
    CUT.append(journal.conn)
    service, journal, clock, _ = taken_up(path)
    service.hands.button(clock.t, 2, "referee")
    after = [r.data()["id"] for r in journal.rows() if r.data().get("type") == "Fault"]
    assert before == [1, 2] and len(after) == len(set(after)) == 4  # + the interruption's
    assert after[2:] == [3, 4]


def chow_cut_short(tmp_path):
    """A journal whose hand was dealt, East discarded and South showed a chow on it: the
    power went right after the chow's ClaimDeclared, the calls open until South discards
    (seed 000 吃牌 4). Returns the journal, East's discard, the chow's tiles of South's and
    a tile South may discard."""
    path = tmp_path / "chow.sqlite"
    clock = Clock()
    journal = Journal(path)
    service = dealt_service(journal, clock)
    table = service.hands.table
    south = table.hands[1]
    discard, run = next(
        (tile, (a, b))
        for tile in table.hands[0]
        for a in south
        for b in south
        if a < b
        and check_call(ev.ClaimDeclared(0, 1, "chow", (a, b)), 0, tile, south, True) is None
    )
    clock.t += 4.0
    service.hands.apply(ev.TileDiscarded(clock.t, 0, discard))
    journal.input(ev.ClaimDeclared(clock.t + 1.0, 1, "chow", run, shown=True))
    journal._closer.detach()  # the power goes (see cut_short)
    CUT.append(journal.conn)
    spare = next(t for t in south if t not in run)
    return path, discard, run, spare


def read_as_it_lies(service, clock, where) -> None:
    """The readers' sweeps of every zone, long enough for the tracking to confirm moves."""
    for _ in range(2 * FULL_READING):
        clock.t += 0.25
        for name in ZONES:
            service.hands.sweep(clock.t, name, _tags(service, where, name, ()))


def test_a_hand_cut_after_a_chow_shown_resumes_with_its_tile_taken(tmp_path):
    """DESIGN.md (a hand cut by a power failure resumes where it was) and the guide's "no
    state of a hand is a dead end": South showed a chow and took East's discard into his
    meld area, as 吃牌 4 lets him before he discards; the power went after the chow's
    ClaimDeclared. Taken up, the tile is where the hand allows it, not listed out of place
    for ever (before, the hand never went on); South discards, the chow is granted, and the
    journal of the session cut and resumed replays with no mismatch."""
    path, discard, run, spare = chow_cut_short(tmp_path)
    service, journal, clock, _ = taken_up(path)
    hands = service.hands
    assert hands.table.state == "claim_window" and hands.interpreter.chower == 1
    where = placement(hands.table, hands.session.player_at(0))
    south = zone("melds", side_of(1, hands.session.player_at(0)))
    where.update(dict.fromkeys((discard, *run), south))
    read_as_it_lies(service, clock, where)
    assert hands.interruption.full and hands.interruption.displaced == []
    hands.apply(ev.ClocksResumed(clock.t, None))  # the referee: every tile is in its place
    where[spare] = zone("river", side_of(1, hands.session.player_at(0)))
    read_as_it_lies(service, clock, where)
    table = hands.table
    assert [m.tiles for m in table.melds[1]] == [tuple(sorted((discard, *run)))]
    assert table.discards[-1] == (1, spare) and table.state == "claim_window"
    journal.close()
    with Journal(path, readonly=True) as j:
        assert replay(j).mismatches == 0


def test_a_hand_cut_after_a_chow_shown_after_its_discard_resumes(tmp_path):
    """DESIGN.md "resumes the hand where it was", 吃牌 4's other order: South discarded, then
    showed his chow and took East's discard; the power went after the chow's ClaimDeclared,
    before the calls closed and his discard was journaled. Taken up, the readers see it all:
    the discard is read as the chower's, the chow granted, nothing is left out of place."""
    path, discard, run, spare = chow_cut_short(tmp_path)
    service, journal, clock, _ = taken_up(path)
    hands = service.hands
    dealer = hands.session.player_at(0)
    where = placement(hands.table, dealer)
    where.update(dict.fromkeys((discard, *run), zone("melds", side_of(1, dealer))))
    where[spare] = zone("river", side_of(1, dealer))
    read_as_it_lies(service, clock, where)
    table = hands.table
    assert hands.interruption.displaced == []
    assert [m.tiles for m in table.melds[1]] == [tuple(sorted((discard, *run)))]
    assert table.discards[-1] == (1, spare)
    hands.apply(ev.ClocksResumed(clock.t, None))
    journal.close()
    with Journal(path, readonly=True) as j:
        assert replay(j).mismatches == 0
