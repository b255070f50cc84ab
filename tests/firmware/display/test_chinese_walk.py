"""Complete Chinese (issue 33 item 3): the referee's desk and the public view in Chinese, every
tab of each walked, show no Latin word but the tile codes, the names the referee typed, the
file formats of the sheet's downloads and numbers; the rule references name the rule book's
article in Chinese (issue 33 item 4), not "RULES.md 3.7"."""

import re

import pytest

from firmware.display.app import create_app
from tests.support.chromium import NEEDED
from tests.support.deskscenes import NAMES, PUBLIC_TABS, TABS, ccm_won, source_for, taken_up
from tests.support.displaykit import PIN, open_tab, referee_page

pytestmark = [pytest.mark.slow, NEEDED]

TYPED = {word for name in NAMES for word in re.findall(r"[A-Za-z]{2,}", name)}
FORMATS = {"CSV", "JSON", "PDF", "A4", "PIN"}
SHOWN = """() => {
  const out = [];
  const walk = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  for (let node = walk.nextNode(); node; node = walk.nextNode()) {
    const parent = node.parentElement;
    if (parent.closest("[lang='en'], script, style") || !parent.checkVisibility()) continue;
    out.push(node.textContent);
  }
  for (const node of document.querySelectorAll("input, button")) {
    if (node.checkVisibility() && node.placeholder) out.push(node.placeholder);
  }
  return out.join(" ");
}"""


def latin(page) -> set[str]:
    words = set(re.findall(r"[A-Za-z]{2,}", page.evaluate(SHOWN)))
    return words - TYPED - FORMATS


@pytest.mark.parametrize("scene", ["wsom", "ccm", "power cut"])
def test_issue_33_every_view_in_chinese_has_no_english_left(scene, request):
    """The power cut's: a hand taken up after one, its banner (the line, the tiles away and
    their zones) in both views (issue 33 "the power-cut banner and its zone names")."""
    rules = request.getfixturevalue("ccm" if scene == "ccm" else "wsom")
    source = {"wsom": source_for, "ccm": ccm_won}.get(scene, _cut)(rules)
    with referee_page(create_app(source, PIN), viewport=(1280, 800)) as page:
        page.wait_for_selector("#table .seat")
        page.locator("#language").click()
        page.wait_for_selector("#tab-tools span:text('工具')")
        found, banners = [], []
        for view, tabs in (("/", TABS), ("/table", PUBLIC_TABS)):
            if view == "/table":
                page.goto(page.url.rstrip("/") + "/table")
                page.wait_for_selector("#table .seat")
            for tab in tabs:
                open_tab(page, tab)
                found.append((view, tab, latin(page)))
            if scene == "power cut":
                banners.append(page.locator("#interruption").inner_text())
        if scene == "power cut":  # walked with its banner shown: the referee's names the zones
            assert len(banners) == 2 and all("第 3 局於" in b for b in banners), banners
            assert "家手牌" in banners[0] and "讀牌器未見此牌" in banners[0], banners
        assert [f for f in found if f[2]] == [], str(found)


def _cut(wsom):
    return taken_up(source_for(wsom))


@pytest.mark.parametrize("typed, seat", [("北", 3), ("南家", 1), (" w ", 2), ("E", 0)])
def test_issue_33_a_seat_prompt_takes_the_chinese_winds_and_the_letters(ccm, typed, seat):
    """issue 33: "Who asks the scores?" (CCM's 問分) answered 東南西北 (or 北家) as well as
    E/S/W/N."""
    source = ccm_won(ccm)
    with referee_page(create_app(source, PIN)) as page:
        page.wait_for_selector("#table .seat")
        open_tab(page, "tools")
        page.once("dialog", lambda dialog: dialog.accept(typed))
        page.click("#ask-scores")
        page.wait_for_selector("#notice:text('done')")
        assert source.acts[-1] == ("ask_scores", {"seat": seat})
