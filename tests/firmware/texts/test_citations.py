"""Citations a referee can use (issue 33 item 4): every rule reference the rule books' offences
make (config/rules/*.toml) names the rule book's own article, in English and in Chinese."""

import re
import tomllib

import pytest

from firmware.resources import config_dir
from firmware.texts.citations import ARTICLES, cite

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
            "CCM 2012 ch. 3 art. 2: offences and penalties (詐和)",
            "中國競技麻將 第三章 第二條 違例行為及處罰 (詐和)",
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
    for english, chinese in ARTICLES.values():
        assert not re.search(r"[A-Za-z]{2,}", chinese.replace("WSOM", "")), chinese
        assert english.split()[0] in ("WSOM", "CCM")
