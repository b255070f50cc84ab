"""Issue 18: the waits and values of every seat for the referee, never for the public, and
the broadcast view for a stream: its own token, every update held back by its delay on the
table's clock, and nothing of the referee's parts a viewer has no business with.

The whole game runs in-process: the simulated table plays into the service through its
reader callbacks (as `mjtable bench display` does), the desk publishes to a public and a
referee queue, and the broadcast's feed holds the referee's documents. The delay is checked
on the service's own (fake) clock, a short delay set here: the 10 s minimum is the profile's.
"""

import asyncio
import json

import pytest
from starlette.testclient import TestClient

from engine import events as ev
from firmware.desk.desk import Desk
from firmware.display.app import create_app
from firmware.display.broadcast import COOKIE, DelayedFeed, broadcast_state
from firmware.journal.store import Journal
from firmware.web.auth import SHIPPED_BROADCAST_TOKEN
from tests.support.displaykit import PIN, read_event
from tests.support.scenes import concealed, hidden_fields, tile_ids
from tests.support.servicekit import Clock, dealt_service
from tests.support.simgame import play

TOKEN = "a-long-test-broadcast-token"
REFEREE_ONLY = {"shanten", "waits", "win_check"}


def keys(node) -> set[str]:
    """Every key anywhere in a document."""
    if isinstance(node, dict):
        return set(node).union(*(keys(v) for v in node.values()))
    if isinstance(node, list):
        return set().union(*(keys(v) for v in node))
    return set()


@pytest.fixture(scope="module")
def game():
    return play(hands=2, seed=1)


@pytest.mark.slow  # a second or more: out of the one-minute fast run, in CI's full run
def test_issue_18_the_referee_sees_waits_and_values_the_public_never(game):
    """Issue 18: over two hands of the simulated table, the referee's documents carry each
    seat's shanten and, once ready, its waits with the copies unseen and in the wall and the
    values by discard and self-draw; no public update (its document and its events) carries
    a shanten, a wait or a win check, nor a hidden field, and its seats and events no tile
    the referee's update of the same moment shows concealed."""
    public, referee, _, _ = game
    public_never_sees_waits(public, referee)


@pytest.mark.slow
def test_issue_18_over_a_whole_game_the_public_never_sees_waits():
    """Issue 18, "checked over a whole game": the same over the 16 hands of a WSOM game (four
    rounds of four deals), every public update against the referee's of the same moment."""
    public, referee, desk, _ = play(hands=16, seed=2)
    assert desk.service.status().counts["hands"] >= 16
    public_never_sees_waits(public, referee)


def public_never_sees_waits(public: list[dict], referee: list[dict]) -> None:
    assert len(public) == len(referee) > 100
    assert all(keys(u["state"]) >= REFEREE_ONLY for u in referee)
    ready = [w for u in referee for s in u["state"]["seats"] if s["waits"] for w in s["waits"]]
    assert ready, "no seat was ever ready in two hands"
    assert set(ready[0]) == {"tile", "zh", "unseen", "in_wall", "discard", "self_draw"}
    assert {"legal", "total", "patterns", "reason"} <= set(ready[0]["discard"])
    same_moment = {u["seq"]: u for u in referee}
    for update in public:
        assert not REFEREE_ONLY & keys(update), f"update {update['seq']}"
        assert hidden_fields(dict(update["state"], events=update["events"])) == []
        theirs = same_moment[update["seq"]]["state"]
        # not the log: it may hold the last hand's discards, ids now in a concealed hand
        now = {"seats": update["state"]["seats"], "events": update["events"]}
        # a verified win shows its tile, though the engine may still hold it in a hand (a
        # kong's added tile robbed: it stays in the konger's hand)
        won = {e["win_tile"] for e in update["events"] if e["type"] == "Won"}
        assert not tile_ids(now) & (concealed(theirs) - won), f"update {update['seq']}"


def test_issue_18_waits_are_worked_out_once_per_update_that_changed_a_hand(game):
    """Issue 18: the waits are computed in the desk's publish, shared by every referee page
    and the broadcast, only for an update carrying engine outputs or a new hand, never for
    one that only a fault, the shuffler or a clock made."""
    _, referee, desk, outputs = game
    changing = sum(1 for events in outputs if events)
    assert 0 < desk.waits_computed <= changing + 2  # + the two new hands
    assert changing < len(referee)  # the rest did not cost a computation


def test_issue_18_a_win_is_checked_from_the_winners_waits(game):
    """Issue 18: once a seat holds the winning tile (a win called on the discard, or a
    self-drawn tile among its waits), the referee's document shows the check at once: legal,
    and the value the waits give, before the win is laid out."""
    _, referee, _, _ = game
    checks = [c for u in referee for c in (u["state"]["win_check"] or [])]
    assert checks and all(c["by"] in ("discard", "self_draw") for c in checks)
    assert any(c["legal"] and c["total"] > 0 for c in checks)


# -- the broadcast's delay ---------------------------------------------------------------------


@pytest.fixture
def desk(tmp_path):
    """A desk with a broadcast 5 s late on the service's fake clock (the profile's minimum
    of 10 s is not the desk's)."""
    journal = Journal(tmp_path / "j.sqlite")
    yield Desk(dealt_service(journal, Clock(100.0)), "T07", broadcast_delay=5.0)
    journal.close()


def discard(desk) -> float:
    """The seat to move discards its newest tile and the calls close: two updates; returns
    the table time at which they arrived."""
    service = desk.service
    table = service.status().table
    if table.state == "draw":
        service.hands.apply(ev.TileDrawn(service.clock(), table.turn))
    service.hands.apply(ev.TileDiscarded(service.clock(), table.turn, table.hands[table.turn][-1]))
    service.hands.apply(ev.ClaimWindowClosed(service.clock(), None))
    return service.clock()


@pytest.mark.slow  # a second or more: out of the one-minute fast run, in CI's full run
def test_issue_18_each_broadcast_update_is_released_its_delay_after_it_arrived(desk):
    """Issue 18: the broadcast's stream holds each update back server-side: released on the
    table's clock no sooner than `delay` after the referee's update arrived, per update;
    while the clock stands short of that, nothing comes."""
    clock = desk.service.clock
    feed = desk.broadcast
    arrivals = []
    for _ in range(4):
        clock.t += 1.0
        arrivals.append(discard(desk))

    async def watching():
        stop, frames = asyncio.Event(), []

        async def read():
            async for text in feed.frames(stop):
                if text.startswith(("id:", "data:")):
                    data = json.loads(text.partition("data: ")[2])
                    frames.append((clock.t, data))

        async def until(done) -> None:  # the stream's task has had its turns
            for _ in range(500):
                if done():
                    return
                await asyncio.sleep(0.01)

        reader = asyncio.create_task(read())
        await until(lambda: frames)
        assert [f[1]["state"] for f in frames] == [None]  # nothing is 5 s old yet
        clock.t = arrivals[0] + 4.9
        await asyncio.sleep(0.6)
        assert len(frames) == 1  # still short of the first update's time
        while clock.t < arrivals[-1] + 6:
            clock.t += 0.1
            await asyncio.sleep(0.02)
        await until(lambda: frames[-1][1].get("arrived") == arrivals[-1])
        stop.set()
        await reader
        return frames[1:]

    frames = asyncio.run(watching())
    assert len(frames) >= len(arrivals)
    for seen_at, frame in frames:
        assert frame["released"] - frame["arrived"] >= 5.0, frame["seq"]
        assert seen_at - frame["state"]["t"] >= 5.0 and frame["arrived"] == frame["state"]["t"]
    assert {f["arrived"] for _, f in frames} == set(arrivals)


def test_issue_18_a_page_opening_gets_the_newest_released_document():
    """A page that opens (or reopens) at once gets the newest document old enough to show,
    not the one that just arrived; before any is old enough, only the delay."""
    clock = Clock(0.0)
    feed = DelayedFeed(10.0, clock)
    for t in range(30):
        clock.t = float(t)
        feed.add(t + 1, {"seats": [], "t": t})
    assert feed.released()[0] == 20  # arrived at 19, released at 29
    assert len(feed._held) == 11  # what is still to come, and the newest released
    assert DelayedFeed(10.0, clock).frame(None) == {"seq": None, "delay": 10.0, "state": None}


# -- what the broadcast shows --------------------------------------------------------------------


def test_issue_18_the_broadcast_shows_hands_and_waits_but_no_referee_parts(game):
    """Issue 18: the broadcast document has the four hands, melds, rivers, scores, waits
    and the win check; not the alerts, faults, shuffler, event log (the referee's actions),
    clocks, dice or break, nor anything of the wall but how many tiles are live."""
    _, referee, _, _ = game
    full = next(u["state"] for u in referee if any(s["waits"] for s in u["state"]["seats"]))
    shown = broadcast_state(full)
    assert shown["view"] == "broadcast" and shown["wall"] == {"live": full["wall"]["live"]}
    for name in ("alerts", "faults", "shuffler", "log", "dice", "clocks_paused"):
        assert name not in shown
    for seat, theirs in zip(shown["seats"], full["seats"], strict=True):
        assert seat["hand"] == theirs["hand"] and seat["waits"] == theirs["waits"]
        assert seat["river"] == theirs["river"] and seat["score"] == theirs["score"]
        assert "clock_turn" not in seat and "clock_hand" not in seat
    assert not {"dead", "break", "stacks", "dice", "events"} & keys(shown)


# -- the broadcast's credential ----------------------------------------------------------------


@pytest.fixture
def client(desk):
    return TestClient(create_app(desk, PIN, TOKEN))


@pytest.mark.parametrize("path", ["/broadcast", "/api/broadcast/state", "/api/broadcast/stream"])
def test_issue_18_the_broadcast_needs_its_token_not_the_referees_pin(client, path):
    """Issue 18: without the broadcast token 401, with a wrong one 403, with the referee's PIN
    (in the query, as a bearer, or his session) refused: the broadcast has its own
    credential; with the token 200."""
    assert client.get(path).status_code == 401
    assert client.get(path, params={"token": "not-the-token-at-all"}).status_code == 403
    assert client.get(path, params={"token": PIN}).status_code == 403
    assert client.get(path, headers={"Authorization": f"Bearer {PIN}"}).status_code == 403
    client.post("/api/referee/login", json={"pin": PIN})  # the referee's session cookie
    assert client.get(path).status_code == 401
    if path.endswith("stream"):
        with client.stream("GET", path, params={"token": TOKEN}) as response:
            assert response.status_code == 200
            first = json.loads(read_event(response.iter_lines())["data"])
        assert first["delay"] == 5.0 and first["state"] is None
    else:
        assert client.get(path, params={"token": TOKEN}).status_code == 200


def test_issue_18_the_page_sets_a_cookie_from_the_token(client):
    """OBS opens /broadcast?token=...; the answer's HttpOnly cookie then opens the state and
    the stream for the page."""
    page = client.get("/broadcast", params={"token": TOKEN})
    assert page.status_code == 200 and "broadcast.js" in page.text
    assert "httponly" in page.headers["set-cookie"].lower()
    assert client.cookies.get(COOKIE) == TOKEN
    assert client.get("/api/broadcast/state").status_code == 200


@pytest.mark.parametrize("scheme", ["http", "https"])
def test_issue_32_item_9_the_broadcast_cookie_is_secure_over_tls(desk, scheme):
    """Issue 32 item 9 "the broadcast cookie lacks Secure over TLS": served over TLS, the
    cookie the page's answer sets from the token is Secure, as the referee's session's is
    (a browser never sends it in clear); over plain HTTP (the table itself) it is not."""
    client = TestClient(create_app(desk, PIN, TOKEN), base_url=f"{scheme}://127.0.0.1:8080")
    cookie = client.get("/broadcast", params={"token": TOKEN}).headers["set-cookie"].lower()
    assert "httponly" in cookie and ("; secure" in cookie) == (scheme == "https")


def test_issue_18_the_shipped_token_opens_the_broadcast_only_on_the_table(desk):
    """The token the profiles ship with is known to everyone: from another machine it is
    refused (403, saying which key to set); from the table itself it works."""
    app = create_app(desk, PIN, SHIPPED_BROADCAST_TOKEN)
    remote = TestClient(app, client=("192.168.1.20", 50000))
    refused = remote.get("/api/broadcast/state", params={"token": SHIPPED_BROADCAST_TOKEN})
    assert refused.status_code == 403 and "broadcast_token" in refused.json()["error"]
    local = TestClient(app, client=("127.0.0.1", 50000))
    assert local.get("/api/broadcast/state", params={"token": SHIPPED_BROADCAST_TOKEN}).is_success


def test_without_a_broadcast_token_there_is_no_broadcast(desk):
    assert TestClient(create_app(desk, PIN)).get("/broadcast").status_code == 404
