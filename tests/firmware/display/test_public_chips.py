"""問分 on the public view (seed 004 第一條三十三, issue 33 "Public and hall"): during a stage
whose seats change, the public page shows no chips, no stage totals and no score sheet until
a player asks; the answer's window (until the next discard) shows them; the next discard hides
them again. At each supported size the centre column holds all it shows (no clipping)."""

from concurrent.futures import ThreadPoolExecutor

import pytest

from engine import events as ev
from firmware.display.app import create_app
from firmware.display.panels import PANELS
from firmware.display.state import TableView, table_state
from firmware.journal.store import Journal
from tests.support.chromium import NEEDED
from tests.support.displaykit import PIN, FakeSource, running_server
from tests.support.servicekit import Clock, act
from tests.support.stagekit import EAST_WINS, ccm_desk, play_game
from tests.support.tablekit import stacked_walls

MOMENTS = ("before", "asked", "discarded")


def fourth_game(tmp_path) -> tuple[TableView, dict[str, dict]]:
    """The public document of game 4 of a 4-game stage with seat changes: in play before
    anybody asks, just after South asks, and after the next discard."""
    clock = Clock()
    documents = {}
    with Journal(tmp_path / "j.sqlite") as journal:
        desk = ccm_desk(journal, clock)
        for _ in range(3):
            play_game(desk, clock)
            act(desk, "change_seats")
        hands = desk.service.hands
        clock.t += 10
        hands.walls.ready = stacked_walls(hands.ruleset, (3, 4), EAST_WINS, seed=9)
        hands.raise_walls(clock.t, "A")
        hands.apply(ev.DiceRolled(clock.t, 0, (3, 4)))
        documents["before"] = table_state(desk.view(), referee=False)
        documents["referee"] = table_state(desk.view(), referee=True)
        act(desk, "ask_scores", {"seat": 1})
        documents["asked"] = table_state(desk.view(), referee=False)
        hands.apply(ev.TileDiscarded(clock.t + 1, 0, hands.table.hands[0][-1]))
        documents["discarded"] = table_state(desk.view(), referee=False)
        return desk.view(), documents


def test_seed_004_三十三_the_public_document_carries_chips_only_while_asked(tmp_path):
    _, documents = fourth_game(tmp_path)
    for moment in ("before", "discarded"):
        document = documents[moment]
        assert [seat["score"] for seat in document["seats"]] == [None] * 4, moment
        assert document["stage"]["players"] == [] and document["sheet"] is None, moment
        assert "totals" not in document["last_hand"], moment
        asked = [e for e in document["log"] if e["type"] == "ScoresAsked"]
        assert all("chips" not in e and "totals" not in e for e in asked), moment
    asked = documents["asked"]
    assert [seat["score"] for seat in asked["seats"]] == [100] * 4
    assert asked["scores_asked"]["totals"] == [100, 500, 500, 500]  # the answer has them
    assert asked["stage"]["players"] == [] and asked["sheet"] is None
    assert asked["chips_until"] == asked["scores_asked"]["until"]
    referee = documents["referee"]  # the referee's view always has them
    assert [seat["score"] for seat in referee["seats"]] == [100] * 4 and referee["sheet"]


class Moments(FakeSource):
    """A table whose public document is one of the prepared moments."""

    def __init__(self, view, documents: dict[str, dict]):
        super().__init__(view)
        self.documents, self.moment = documents, "before"

    def snapshot(self, referee: bool) -> dict:
        return self.documents[self.moment]


# What the page shows of the chips, and whether the centre column clips what it holds.
SHOWN = """() => {
  const shown = (node) => node.getClientRects().length
    && getComputedStyle(node).visibility !== "hidden";
  const centre = document.getElementById("centre");
  return {
    scores: [...document.querySelectorAll(".seat .score")].filter(shown).map((n) => n.textContent),
    totals: [...document.querySelectorAll("#centre table.stage td")].filter(shown).length,
    asked: [...document.querySelectorAll("#centre .scores-asked")].filter(shown).length,
    clipped: centre.scrollWidth > centre.clientWidth + 1
      || centre.scrollHeight > centre.clientHeight + 1,
  };
}"""


@pytest.mark.slow  # a browser
@NEEDED
def test_seed_004_三十三_the_public_page_hides_chips_until_asked_and_after_the_discard(
    tmp_path, browser
):
    with ThreadPoolExecutor(1) as aside:  # the browser's loop runs on this thread
        source = Moments(*aside.submit(fourth_game, tmp_path).result())
    with running_server(create_app(source, PIN)) as (base, _server):
        for size in PANELS:
            page = browser.new_page(viewport={"width": size[0], "height": size[1]})
            page.goto(base + "/table")
            page.locator("#centre .stage").wait_for(timeout=5000)
            for moment in MOMENTS:
                source.moment = moment
                source.publish()
                state = "visible" if moment == "asked" else "detached"
                page.locator("#centre .scores-asked").wait_for(state=state, timeout=5000)
                got = page.evaluate(SHOWN)
                assert not got.pop("clipped"), (size, moment)
                if moment == "asked":
                    assert got == {"scores": ["100"] * 4, "totals": 0, "asked": 1}
                else:
                    assert got == {"scores": [], "totals": 0, "asked": 0}
            page.close()
