"""Issue 16 "Hand history": every hand of the session and its step-by-step replay, built from
the journal (firmware/display/history.py), on both views (/api/hands, /api/referee/hands) and on the
page (history.js, in Debian's chromium).

The journal is played by hand: hand 1 has a chow and a pung called on the same discard (the
pung's priority wins), a discard out of turn with its alert, the referee's acknowledgement
(who, and when by the wall clock) and a ruling, then plays on to a drawn hand; in hand 2 North
wins on East's first discard; hand 3 is in play.
"""

import json

import pytest
from starlette.testclient import TestClient

from engine import events as ev
from engine.table import Table
from firmware.display import history
from firmware.display.app import create_app
from firmware.journal.store import Journal
from tests.support.chromium import NEEDED
from tests.support.displaykit import MISFITS, PIN, FakeSource, open_tab, referee_page
from tests.support.scenes import view_of, wsom_scene
from tests.support.servicekit import play_out
from tests.support.tablekit import WSOM_DICE, E, Game, N, S, W, stacked_walls

# East discards 5p: South may chow it with 4p 6p, West pung it, North wins on it.
HANDS = ["5p", "4p 6p", "5p 5p", "123m 456m 789m 123p 5p"]
BASE = "http://127.0.0.1:8080"
WALL_TIME = "2026-12-02T14:00:00+00:00"


class Journaled(Game):
    """A chosen deal (tests/support/tablekit.py) as the table journals it: its hand row, then each
    input before the engine sees it and the outputs after."""

    def __init__(self, journal: Journal, ruleset, number: int, t: float):
        super().__init__(ruleset, WSOM_DICE, HANDS)
        walls = stacked_walls(ruleset, WSOM_DICE, HANDS)
        self.table, self.clock, self.journal = Table(ruleset, walls), t, journal
        journal.hand(ruleset.name, number, walls, t)

    def apply(self, event_type, seat, **fields) -> list[ev.Event]:
        self.clock += 1.0
        event = event_type(self.clock, seat, **fields)
        self.journal.input(event)
        out = self.table.apply(event)
        self.journal.outputs(out)
        self.log += out
        return out


def session(path, wsom) -> None:
    with Journal(path) as journal:
        first = Journaled(journal, wsom, 1, 0.0)
        first.start()
        first.discard(E, "5p")
        first.claim(S, "chow", "4p 6p")  # t 4
        first.claim(W, "pung", "5p 5p")  # t 5: on the same discard
        first.close()  # t 6: the pung is granted
        alert = first.apply(ev.TileDiscarded, N, tile=first.table.hands[N][0])[0]
        journal.record(ev.Acknowledged(first.clock, None, alert=alert.id))
        journal.record(ev.RefereeActed(first.clock, None, "ack", "Li Wei", WALL_TIME))
        first.apply(ev.Ruling, None, alert=alert.id, apply=False, reason="a slip, no gain")
        first.ok(ev.TileDiscarded, W, tile=first.table.hands[W][0])
        first.close()
        first.play_through()
        second = Journaled(journal, wsom, 2, first.clock + 1)
        second.start()
        second.discard(E, "5p")
        second.ok(ev.ClaimDeclared, N, claim="win", tiles=())
        second.close()
        third = Journaled(journal, wsom, 3, second.clock + 1)
        third.start()
        third.discard(E, "5p")


@pytest.fixture(scope="module")
def journal(tmp_path_factory, wsom):
    path = tmp_path_factory.mktemp("history") / "journal.sqlite"
    session(path, wsom)
    return path


@pytest.fixture
def source(journal, wsom):
    """The display's fake table with this journal behind its history."""
    fake = FakeSource(view_of(wsom_scene(wsom)))
    fake.journal = journal
    return fake


def of_type(steps, name: str) -> list[dict]:
    return [s for s in steps if s["event"] and s["event"]["type"] == name]


def test_issue_16_the_history_has_every_hand_and_the_public_only_the_finished(journal):
    """issue 16 'Hand history': every hand of the session with its result and start time;
    the public's list never has the hand in play."""
    listed = history.hands(journal, referee=True)["hands"]
    assert [(h["number"], h["result"], h["winners"]) for h in listed] == [
        (1, "drawn", []),
        (2, "won", ["N"]),
        (3, "in_play", []),
    ]
    assert listed[0]["started"] == 0.0 and listed[1]["started"] > listed[0]["ended"]
    assert [h["steps"] for h in listed] == [
        len(history.steps(journal, n, referee=True)["steps"]) for n in (1, 2, 3)
    ]
    assert [h["number"] for h in history.hands(journal, referee=False)["hands"]] == [1, 2]


def test_issue_16_a_replay_has_one_step_per_journaled_row_in_order_with_its_time(journal):
    """issue 16 'Hand history': one step per row of the hand as journaled (its hand row,
    each input, each record) with its table time; who acted, by the wall clock, is joined to
    the step he did; an alert and a ruling show with their outputs."""
    with Journal(journal, readonly=True) as opened:
        rows = list(opened.rows())
    starts = [i for i, r in enumerate(rows) if r.kind == "hand"]
    own = [r.data() for r in rows[starts[0] : starts[1]] if r.kind in ("hand", "input", "device")]
    expected = [(d.get("type", "hand"), d["t"]) for d in own if d.get("type") != "RefereeActed"]
    steps = history.steps(journal, 1, referee=True)["steps"]
    assert [((s["event"] or {}).get("type", "hand"), s["t"]) for s in steps] == expected
    assert [s["step"] for s in steps] == list(range(len(steps)))
    seen = of_type(steps, "Acknowledged")[0]
    assert seen["by"] == {"action": "ack", "referee": "Li Wei", "wall_time": WALL_TIME}
    assert seen["frame"] is None  # a record moves no tile: the table is the step's before
    out_of_turn = steps[steps.index(seen) - 1]
    assert [o["type"] for o in out_of_turn["outputs"]] == ["Alert"]
    ruling = of_type(steps, "Ruling")[0]
    assert ruling["event"]["reason"] == "a slip, no gain"
    assert "PenaltyWaived" in [o["type"] for o in ruling["outputs"]]


def test_issue_16_a_chow_and_a_pung_on_one_discard_are_told_apart_in_order(journal):
    """issue 16 'Hand history' ("was the chow called before the pung?"): each call is its
    own step with its time, the claim window open with the calls made so far; its closing
    grants the pung (RULES.md 3.7)."""
    steps = history.steps(journal, 1, referee=True)["steps"]
    discard = of_type(steps, "TileDiscarded")[0]
    assert discard["frame"]["claim_window"] and discard["frame"]["calls"] == []
    chow, pung = of_type(steps, "ClaimDeclared")
    assert (chow["t"], chow["event"]["seat"], chow["event"]["claim"]) == (4.0, S, "chow")
    assert (pung["t"], pung["event"]["seat"], pung["event"]["claim"]) == (5.0, W, "pung")
    assert chow["frame"]["calls"] == [{"seat": "S", "claim": "chow"}]
    assert pung["frame"]["calls"] == [
        {"seat": "S", "claim": "chow"},
        {"seat": "W", "claim": "pung"},
    ]
    closed = steps[steps.index(pung) + 1]
    assert closed["event"]["type"] == "ClaimWindowClosed" and not closed["frame"]["claim_window"]
    assert [(o["type"], o["seat"], o["claim"]) for o in closed["outputs"]] == [
        ("Claimed", W, "pung")
    ]
    assert [m["kind"] for m in closed["frame"]["seats"][W]["melds"]] == ["pung"]
    assert closed["frame"]["turn"] == "W"


def faces(seat: dict) -> list[dict]:
    return [t for t in seat["hand"] if not t.get("back")]


def test_issue_16_the_public_replay_of_a_drawn_hand_shows_no_concealed_tile(journal):
    """issue 16 'Hand history': the public view's finished hands "without the concealed
    tiles of hands not won": every seat's hand is backs, counted as the referee's; no drawn
    tile's face, no deal, no wall order in the document."""
    public = history.steps(journal, 1, referee=False)
    referee = history.steps(journal, 1, referee=True)
    assert "walls" not in json.dumps(public) and "walls" not in json.dumps(referee)
    pairs = list(zip(public["steps"], referee["steps"], strict=True))
    assert any(faces(seat) for _, mine in pairs if mine["frame"] for seat in mine["frame"]["seats"])
    for theirs, mine in pairs:
        if mine["frame"] is None:
            continue
        for seat, own in zip(theirs["frame"]["seats"], mine["frame"]["seats"], strict=True):
            assert faces(seat) == [] and len(seat["hand"]) == len(own["hand"])
            assert seat["river"] == own["river"] and seat["melds"] == own["melds"]
        for event in [theirs["event"] or {}, *theirs["outputs"]]:
            if event.get("type") in ("TileDrawn", "Drew"):
                assert "tile" not in event
            assert "hands" not in event
    assert any("tile" in o for s in referee["steps"] for o in s["outputs"] if o["type"] == "Drew")


def test_issue_16_a_won_hand_s_public_replay_shows_the_winner_s_hand_only(journal):
    """issue 16 'Hand history': a hand won is no longer concealed: the winner's tiles show,
    the three others' stay backs."""
    steps = history.steps(journal, 2, referee=False)["steps"]
    last = next(s for s in reversed(steps) if s["frame"])["frame"]
    shown = {seat["seat"]: bool(faces(seat)) for seat in last["seats"]}
    assert shown == {"E": False, "S": False, "W": False, "N": True}
    assert of_type(steps, "ClaimWindowClosed")[-1]["outputs"][0]["type"] == "Won"


def test_issue_16_no_replay_of_an_unknown_hand_nor_a_public_one_in_play(journal):
    """issue 16 'Hand history': a hand the journal has not is a clear error; the hand in play
    is the referee's only."""
    with pytest.raises(history.UnknownHand, match="no hand 9"):
        history.steps(journal, 9, referee=True)
    with pytest.raises(history.UnknownHand, match="in play"):
        history.steps(journal, 3, referee=False)
    assert history.steps(journal, 3, referee=True)["hand"]["result"] == "in_play"


def test_issue_16_the_history_routes_public_and_the_referee_s(source):
    """issue 16 'Hand history': /api/hands and /api/hands/N for everyone, finished hands
    only; /api/referee/hands... with the referee's credentials; a wrong number is a 404 with
    its error; a page that takes gzip gets the replay gzipped."""
    client = TestClient(create_app(source, PIN), base_url=BASE)
    assert [h["number"] for h in client.get("/api/hands").json()["hands"]] == [1, 2]
    assert client.get("/api/hands/2").json()["hand"]["winners"] == ["N"]
    for wrong, says in (("3", "in play"), ("99", "no hand 99"), ("x", "a hand is a number")):
        answer = client.get(f"/api/hands/{wrong}")
        assert answer.status_code == 404 and says in answer.json()["error"]
    for path in ("/api/referee/hands", "/api/referee/hands/3"):
        assert client.get(path).status_code == 401
    pin = {"Authorization": f"Bearer {PIN}"}
    listed = client.get("/api/referee/hands", headers=pin).json()["hands"]
    assert [h["number"] for h in listed] == [1, 2, 3]
    assert client.get("/api/referee/hands/3", headers=pin).json()["hand"]["result"] == "in_play"
    packed = client.get("/api/hands/1", headers={"Accept-Encoding": "gzip"})
    assert packed.headers["content-encoding"] == "gzip" and packed.json()["steps"]


def test_issue_16_the_desk_s_history_is_its_service_s_journal(desk):
    """issue 16 'Hand history': the desk lists the hands its service journaled; the public
    sees the first once it has ended, with its replay."""
    assert desk.history(referee=False)["hands"] == []
    assert [h["result"] for h in desk.history(referee=True)["hands"]] == ["in_play"]
    play_out(desk.service.hands, desk.service.clock())
    (first,) = desk.history(referee=False)["hands"]
    assert first["number"] == 1 and first["result"] in ("won", "drawn")
    assert len(desk.hand_replay(1, referee=False)["steps"]) == first["steps"]


# -- the page (history.js) ---------------------------------------------------------------


def counts(page) -> dict:
    """Each seat's river and hand, as many tiles as the page draws."""
    return page.evaluate(
        """() => Object.fromEntries([...document.querySelectorAll('#table .seat')].map((s) =>
        [s.dataset.seat, [s.querySelectorAll('.river .tile').length,
                          s.querySelectorAll('.hand .tile').length]]))"""
    )


def expected(steps, i: int) -> dict:
    frame = next(s["frame"] for s in reversed(steps[: i + 1]) if s["frame"])
    return {s["seat"]: [len(s["river"]), len(s["hand"])] for s in frame["seats"]}


def at_step(page, i: int) -> None:
    page.wait_for_selector(f".replay-step.current[data-step='{i}']")


@pytest.mark.slow
@NEEDED
def test_issue_16_a_hand_replayed_step_by_step_from_the_history(source, journal):
    """issue 16 done-when "a hand replayed step by step from the history": the list, a hand
    chosen, next and previous, a step tapped in the list and the last; the seats' rivers and
    hands are the steps' own, while live updates do not overwrite them; back to live."""
    steps = history.steps(journal, 1, referee=True)["steps"]
    with referee_page(create_app(source, PIN)) as page:
        page.wait_for_selector("#table .seat")
        live = counts(page)
        open_tab(page, "history")
        page.click("#history-open")
        page.click(".history-hand[data-hand='1']")
        at_step(page, 0)
        assert page.is_visible("body.replaying #replay-controls")
        assert counts(page) == expected(steps, 0)
        for i in range(1, 8):
            page.click(".replay-next")
            at_step(page, i)
            assert counts(page) == expected(steps, i), i
        # a live alert while replaying: its note follows, the picture stays the step's
        source.view.alerts.append(dict(source.view.alerts[0], id=99, state="open"))
        source.publish()
        page.wait_for_function(
            "document.querySelector('.replay-live-note').textContent.endsWith(': 2')"
        )
        assert counts(page) == expected(steps, 7)
        page.click(".replay-previous")
        at_step(page, 6)
        assert counts(page) == expected(steps, 6)
        chow = steps.index(of_type(steps, "ClaimDeclared")[0])
        page.click(f".replay-step[data-step='{chow}']")
        at_step(page, chow)
        assert "Calls open" in page.inner_text("#centre .replay-window")
        page.click(".replay-last")
        at_step(page, len(steps) - 1)
        assert counts(page) == expected(steps, len(steps) - 1) != live
        assert f"step {len(steps)} of {len(steps)}" in page.inner_text("#centre")
        page.click("#replay-live")
        page.wait_for_selector("body:not(.replaying)")
        assert counts(page) == live


@pytest.mark.slow
@NEEDED
@pytest.mark.parametrize("size", [(800, 480), (1920, 1080)], ids=["800x480", "1920x1080"])
def test_issue_16_the_replay_fits_the_smallest_and_largest_screens(source, journal, size):
    """issue 16 'Every screen': a replayed hand's busiest step fits 800x480 and 1920x1080 as
    the live table does (tests/support/displaykit.py MISFITS); the public's list has no
    hand in
    play."""
    with referee_page(create_app(source, PIN), viewport=size) as page:
        page.goto(page.url.rstrip("/") + "/table")
        page.wait_for_selector("#table .seat")
        open_tab(page, "history")
        page.click("#history-open")
        page.wait_for_selector(".history-hand")
        assert page.eval_on_selector_all(".history-hand", "b => b.map((n) => n.dataset.hand)") == [
            "1",
            "2",
        ]
        page.click(".history-hand[data-hand='1']")
        page.click(".replay-last")
        page.wait_for_selector(".replay-step.current")
        assert page.evaluate(MISFITS) == [], size
