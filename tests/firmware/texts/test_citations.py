"""Citations a referee can use (issue 33 item 4): every rule reference the rule books' offences
make (config/rules/*.toml) names the rule book's own article, in English and in Chinese:
WSOM's part and its section's Chinese heading, CCM's 條 and item, each found in the seed's own
text (seed 000 and seed 004, read from copies of the seed files in tests/data/seeds, so that
the tables cannot drift from them)."""

import re
import tomllib

import pytest

from firmware.resources import config_dir
from firmware.texts.citations import CCM, CCM_ARTICLES, NAMED, WSOM, article, cite
from tests.conftest import DATA

SEEDS = DATA / "seeds"  # copies of ../shared/seeds/000_*.txt and 004_*.txt

REFERENCES = sorted(
    {
        offence["rule"]
        for path in sorted((config_dir() / "rules").glob("*.toml"))
        for offence in tomllib.loads(path.read_text("utf-8"))["penalties"].values()
        if isinstance(offence, dict)
    }
)


def test_issue_33_item_4_every_offences_rule_names_the_rule_books_article():
    assert REFERENCES, "the rule books name no offence's rule"
    for rule in REFERENCES:
        for lang in ("en", "zh"):
            cited = cite(rule, lang)
            assert not re.search(r"RULES\.md|seed|A-[WC]\d", cited), (rule, lang, cited)
            assert cited.startswith(("WSOM", "CCM", "世界麻將大賽", "中國競技麻將")), cited


@pytest.mark.parametrize(
    "rule, en, zh",
    [
        ("RULES.md 3.12", "WSOM 2006 rules: time limits", "世界麻將大賽 比賽規則：打牌時限"),
        (
            "seed 004 RULES.md 4.6",
            "CCM 2012 art. 7: playing the tiles",
            "中國競技麻將 第七條 行牌規定",
        ),
        (
            "4.15 (詐和, A-C19)",
            "CCM 2012 ch. 3 art. 2: offences and penalties, item 6 (1) (詐和)",
            "中國競技麻將 第三章 第二條 違例行為及處罰 六（一）錯和與詐和",
        ),
        (
            "4.15 (暴露張, seed 004 第三章 第二條 七(一))",
            "CCM 2012 ch. 3 art. 2: offences and penalties, item 7 (1) (暴露張)",
            "中國競技麻將 第三章 第二條 違例行為及處罰 七（一）暴露張的處理",
        ),
        (
            "4.14",
            "CCM 2012 art. 7: playing the tiles, item 4",
            "中國競技麻將 第七條 行牌規定 四、出牌",
        ),
        (
            "4.14 (遲到, A-C17)",
            "CCM 2012 ch. 3 art. 1: penalties, item 2 (1) (遲到)",
            "中國競技麻將 第三章 第一條 處罰方式 二（一）遲到",
        ),
        (
            "RULES.md 4.9 (A-C10)",
            "CCM 2012 art. 1: terms, item 38 (1) 3 (4)",
            "中國競技麻將 第一條 基本術語與規定 三十八（一）3（4）槓上開花",
        ),
        (
            "seed 004 第一條二十四 單放",
            "CCM 2012 第一條二十四 單放",
            "中國競技麻將 第一條二十四 單放",
        ),
        (
            "3.9 (罰張 6)",
            "WSOM 2006 rules: penalty tiles (罰張 6)",
            "世界麻將大賽 比賽規則：罰張 (罰張 6)",
        ),
    ],
)
def test_issue_33_item_4_a_reference_cited_in_each_language(rule, en, zh):
    assert (cite(rule, "en"), cite(rule, "zh")) == (en, zh)


def test_issue_33_item_4_the_chinese_citation_has_no_latin_word_but_the_books_initials():
    cited = [(section, "") for section in WSOM | CCM] + list(NAMED)
    for section, name in cited:
        chinese = article(section, "zh", name)
        assert not re.search(r"[A-Za-z]{2,}", chinese), chinese
        assert article(section, "en", name).split()[0] in ("WSOM", "CCM")


def _seed(number: str) -> str:
    return next(SEEDS.glob(f"{number}_*.txt")).read_text("utf-8")


@pytest.mark.parametrize("cited", sorted(CCM.values()) + sorted(set(NAMED.values())))
def test_issue_33_item_4_ccm_articles_and_items_are_seed_004s_own(cited):
    """Each 條 with its heading, each item in it as the seed heads it, level by level; the
    penalties' chapter (第三章) after the play's, which ends with 第十二條."""
    chapter, number, path = cited
    text = _seed("004")
    heading = CCM_ARTICLES[chapter, number][0]
    found = re.search(rf"\n{number}\n{heading}\n", text)
    assert found, (number, heading)
    end = re.compile(r"\n第[一二三四五六七八九十]+條").search(text, found.end())
    body = text[found.end() - 1 : end.start() if end else len(text)]
    at = 0
    for level in path:
        at = body.find("\n" + level, at) + 1
        assert at, (number, heading, level)
    after_play = found.start() > text.index("\n第十二條\n")
    assert after_play == (chapter == "第三章"), (chapter, number)


@pytest.mark.parametrize("section", sorted(WSOM))
def test_issue_33_item_4_wsom_parts_and_headings_are_seed_000s_own(section):
    """The part (比賽規則, 行為守則, 計分系統) and its section's heading, a line of the seed
    within that part; 王牌與海底牌, whose heading line this copy lost, as its 總則 names it
    (「王牌與海底牌」)."""
    text = _seed("000")
    part, heading = WSOM[section][1].removeprefix("世界麻將大賽 ").split("：")
    parts = [text.index(f"\n{name}\n") for name in ("比賽規則", "行為守則", "計分系統")]
    start = text.index(f"\n{part}\n")
    following = [p for p in parts if p > start]
    within = text[start : following[0] if following else len(text)]
    assert f"\n{heading}\n" in within or f"「{heading}」" in within, (part, heading)
