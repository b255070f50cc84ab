"""Sizes from the distance (issue 33 item 1): the referee's desk and the public view at each
supported size, on the panel firmware/display/panels.py says that size is, in both languages:
the turn clock's digits 4 mm tall at least, the side's text (alerts, faults, the sheet) 3 mm,
every button there 8 mm each way, each tab of the side column readable without sideways
scrolling, the sheet and the history full screen. Glyph heights are measured from the
element's own font (canvas measureText of its digits), boxes with getBoundingClientRect;
both converted with the panel's millimetres per pixel."""

import pytest

from firmware.display.app import create_app
from firmware.display.panels import CLOCK_DIGITS_MM, PANELS, TEXT_MM, TOUCH_MM
from tests.support.chromium import NEEDED
from tests.support.deskscenes import PUBLIC_TABS, TABS, source_for
from tests.support.displaykit import MISFITS, PIN, referee_page

pytestmark = [pytest.mark.slow, NEEDED]

# What each open tab shows, in pixels: the digit height of each text's font, each visible
# control's box, and whatever is wider than its box.
MEASURE = """(tab) => {
  const canvas = document.createElement("canvas").getContext("2d");
  const digits = (node) => {
    const style = getComputedStyle(node);
    canvas.font = `${style.fontWeight} ${style.fontSize} ${style.fontFamily}`;
    return canvas.measureText("0123456789").actualBoundingBoxAscent;
  };
  const shown = (node) => node.getClientRects().length && getComputedStyle(node).visibility
    !== "hidden";
  const panel = document.querySelector(`#side .tab-panel[data-tab="${tab}"]`);
  const texts = [];
  const walker = document.createTreeWalker(panel, NodeFilter.SHOW_TEXT);
  while (walker.nextNode()) {
    const node = walker.currentNode.parentElement;
    if (walker.currentNode.textContent.trim() && shown(node))
      texts.push([node.tagName + "." + node.className, digits(node),
        walker.currentNode.textContent.trim().slice(0, 30)]);
  }
  const controls = [...document.querySelectorAll("#side button, #side select, #side input")]
    .filter(shown).map((node) => {
      const r = node.getBoundingClientRect();
      return [node.id || node.className || node.textContent.slice(0, 20), r.width, r.height];
    });
  const wide = [...panel.querySelectorAll("*:not(input)")].filter((node) => shown(node)
    && node.scrollWidth > node.clientWidth + 1 && getComputedStyle(node).overflowX !== "visible")
    .map((node) => node.id || node.className);
  const box = panel.getBoundingClientRect();
  if (box.right > innerWidth + 1 || panel.scrollWidth > panel.clientWidth + 1)
    wide.push("the panel");
  const clocks = [...document.querySelectorAll(".clock-turn .time")].filter(shown).map(digits);
  return {texts, controls, wide, clocks, full: box.width >= .75 * innerWidth,
    mm: getComputedStyle(document.documentElement).getPropertyValue("--mm")};
}"""


def measured(page, tab: str, panel) -> dict:
    page.click(f"#tab-{tab}")
    page.wait_for_selector(f"#tab-{tab}[aria-selected='true']")
    got = page.evaluate(MEASURE, tab)
    mm = panel.mm
    return {
        "clock": min((mm(c) for c in got["clocks"]), default=None),
        "small_text": sorted((mm(h), where, text) for where, h, text in got["texts"])[:3],
        "small_controls": sorted((mm(min(w, h)), what) for what, w, h in got["controls"])[:3],
        "wide": got["wide"],
        "full": got["full"],
        "mm": got["mm"],
    }


SIZES = list(PANELS)


@pytest.mark.parametrize("language", ["en", "zh"])
@pytest.mark.parametrize("size", SIZES, ids=[f"{w}x{h}" for w, h in SIZES])
def test_issue_33_each_tab_legible_from_two_metres_on_its_panel(wsom, size, language, tmp_path):
    panel = PANELS[size]
    with referee_page(create_app(source_for(wsom), PIN), viewport=size) as page:
        page.wait_for_selector("#table .seat")
        if language == "zh":
            page.locator("#language").click()
            page.wait_for_selector("#tab-tools span:text('工具')")
        for view, tabs in (("/", TABS), ("/table", PUBLIC_TABS)):
            if view == "/table":
                page.goto(page.url.rstrip("/") + "/table")
                page.wait_for_selector("#table .seat")
                assert page.locator("#tab-tools").is_hidden()  # the referee's only
            for tab in tabs:
                got = measured(page, tab, panel)
                page.screenshot(path=tmp_path / f"{language}{view.replace('/', '-')}-{tab}.png")
                where = (view, tab)
                assert got["mm"] == f"{1 / panel.mm_per_px:.3g}px", "display.css's --mm"
                assert got["full"] == (tab in ("sheet", "history")), where
                if not got["full"]:
                    assert got["clock"] >= CLOCK_DIGITS_MM, (where, got["clock"])
                assert got["small_text"][0][0] >= TEXT_MM, (where, got["small_text"])
                assert got["small_controls"][0][0] >= TOUCH_MM, (where, got["small_controls"])
                assert got["wide"] == [], where
                assert page.evaluate(MISFITS) == [], where
