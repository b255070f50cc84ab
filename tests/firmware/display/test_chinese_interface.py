"""Issue 16 "Every screen": the interface in Chinese and in English, a switch remembered.

The public's alert and fault texts come from a fixed vocabulary (firmware/texts/notices.py)
with its Chinese in firmware/texts/notices_zh.py; the page's own words go through i18n.js.
"""

import re

import pytest

from firmware.display.app import create_app
from firmware.display.state import table_state
from firmware.texts import notices, notices_zh
from tests.support.chromium import NEEDED
from tests.support.deskscenes import ALERT, FAULT
from tests.support.displaykit import PIN, FakeSource, referee_page
from tests.support.scenes import ccm_win, view_of_win

TABLES = ["OFFENCES", "SECTIONS", "RULED", "FAULTS", "ADVICE", "NOT_REFEREEING"]
TABLES += ["STOPPED_ADVICE", "PHRASES"]
# What may stay in Latin letters on a Chinese page: rule references, the PIN, file formats,
# the players' numbers; the engine's detail lines and patterns' English names carry lang="en".
ALLOWED = {"RULES", "md", "PIN", "CSV", "JSON", "PDF", "A4", "seed"}
VISIBLE_TEXT = """(selector) => {
  const out = [];
  for (const root of document.querySelectorAll(selector)) {
    const walk = document.createTreeWalker(root, NodeFilter.SHOW_TEXT);
    for (let node = walk.nextNode(); node; node = walk.nextNode()) {
      const parent = node.parentElement;
      if (parent.closest("[lang='en']") || !parent.checkVisibility()) continue;
      out.push(node.textContent);
    }
  }
  return out.join(" ");
}"""
PANELS = "#centre, .seat header, #result, #ruling, #alerts, #faults, #shuffler, #controls, h2"


@pytest.mark.parametrize("name", TABLES)
def test_issue_16_every_public_notice_has_its_chinese(name):
    """Issue 16 "alerts and reasons translated": each key of the public's vocabulary has its
    Chinese, so a key added in English alone fails here."""
    english, chinese = getattr(notices, name), getattr(notices_zh, name)
    assert set(chinese) == set(english)
    assert all(re.search(r"[\u3000-\u9fff\uff00-\uffef]", text) for text in chinese.values())


def test_issue_16_alert_and_fault_texts_in_both_languages_for_both_views(ccm):
    """Issue 16 "Every screen": the state document carries an alert's and a fault's words in
    English and Chinese for both views; the referee's detailed message stays as it was."""
    view = view_of_win(*ccm_win(ccm))
    view.alerts, view.faults = [ALERT], [FAULT]
    for referee in (True, False):
        state = table_state(view, referee)
        alert, fault = state["alerts"][0], state["faults"][0]
        assert alert["text"] == {
            "en": "South: named a discard aloud (CCM 2012 art. 7: playing the tiles), "
            "the referee rules",
            "zh": "南家：打牌時報出牌名（中國競技麻將 第七條 行牌規定），由裁判裁定",
        }
        assert alert["penalty"]["offence_text"]["zh"] == "打牌時報出牌名"
        assert fault["text"] == {"en": "the shuffler is jammed", "zh": "洗牌機卡住了"}
        assert fault["advice_text"]["zh"] == "技術人員處理洗牌機"
    assert table_state(view, True)["alerts"][0]["message"] == ALERT["message"]
    assert notices.fault_text(FAULT) == "the shuffler is jammed"  # the bus's English


def test_issue_16_unknown_device_and_cleared_fault_in_chinese():
    """Issue 16: a fault outside the vocabulary still reads in Chinese; issue 33: all in
    Chinese, its device's own words (kind, name) left to the page's "details" fold."""
    fault = {"device": "zone reader", "kind": "offline", "cleared": True}
    assert notices.fault_text(fault, "zh") == "已排除：區域讀牌器離線"
    assert notices.fault_text({"device": "venue", "kind": "odd"}, "zh") == "場館回報故障"
    assert notices.fault_text({"device": "reader N", "kind": "odd"}, "zh") == "裝置回報故障"


def english_words(page, selector: str = PANELS) -> set[str]:
    text = page.evaluate(VISIBLE_TEXT, selector)
    return {w for w in re.findall(r"[A-Za-z]{2,}", text) if w not in ALLOWED}


@pytest.mark.slow
@NEEDED
def test_issue_16_the_chinese_interface(ccm):
    """Issue 16 "Done when": the referee switches to Chinese with an alert awaiting a ruling,
    a fault seen and the result of a won hand: labels, buttons, the alert's headline (the
    engine's detail under it, marked English), its penalty, the fault's state, the result
    panel and the ruling's reasons are Chinese; a reload keeps Chinese, and the reason picked
    is sent as shown; the public view is Chinese too; the switch brings English back."""
    view = view_of_win(*ccm_win(ccm))
    view.alerts, view.faults = [ALERT], [FAULT]
    source = FakeSource(view)
    with referee_page(create_app(source, PIN)) as page:
        page.locator("#ruling").wait_for()
        assert page.locator("#language").inner_text() == "中文"
        assert page.locator("#ruling button.apply").inner_text() == "Apply"
        page.locator("#language").click()
        page.wait_for_selector("#ruling button.apply:text('執行')")
        alert = page.locator("#alerts [data-alert-id='7']")
        assert alert.locator(".message").inner_text().startswith("南家：打牌時報出牌名")
        assert alert.locator(".detail[lang='en']").is_hidden()  # issue 33: behind a fold
        alert.locator("details summary").click()
        assert alert.locator(".detail[lang='en']").inner_text() == ALERT["message"]
        assert "每家 10 分" in alert.locator(".penalty").inner_text()
        assert "已看到，尚未排除" in page.locator("#faults").inner_text()
        assert "洗牌機卡住了" in page.locator("#faults .message").inner_text()
        reasons = page.locator("#ruling select.reason-choice option").all_inner_texts()
        assert "裁判親眼所見" in reasons
        assert "和" in page.locator("#result .result-title").inner_text()
        assert page.locator("#pause").inner_text() == "暫停"
        assert english_words(page) == set()
        page.reload()
        page.locator("#ruling").wait_for()
        assert page.locator("#ruling button.apply").inner_text() == "執行"
        page.locator("#ruling select.reason-choice").select_option("裁判親眼所見")
        page.locator("#ruling button.apply").click()
        page.wait_for_selector("#ruling .feedback:text('裁定：完成')")
        assert source.acts[-1] == ("rule", {"alert": 7, "reason": "裁判親眼所見", "apply": True})
        base = page.url.rstrip("/")
        page.goto(base + "/table")
        page.locator("#alerts .message").wait_for()
        assert page.locator("#alerts .message").inner_text().startswith("南家")
        assert english_words(page) == set()
        page.locator("#language").click()
        page.wait_for_selector("#alerts .message:text('South: named a discard aloud')")
        assert page.locator("#language").inner_text() == "中文"
