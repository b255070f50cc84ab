"""The rule book's own article for each of the project's rule references (issue 33 item 4):
alerts and penalties name "RULES.md 3.12" or "seed 004 RULES.md 4.6", the sections of the
project's research (docs: /work/shared/rules/RULES.md); a referee knows the rule book's
articles. One table maps each section to its article in both languages: WSOM 2006's part
and its Chinese heading (seed 000, 世界麻將大賽 比賽規則), CCM 2012's 條 (seed 004,
中國競技麻將比賽規則; 第三章 its penalties). A reference the table lacks is shown as it is.
"""

import re

# RULES.md section -> (English, Chinese): the rule book's part or article
ARTICLES = {
    # WSOM 2006 (seed 000): 比賽規則, 行為守則, 計分系統
    "1.1": ("WSOM 2006 scoring: principles", "世界麻將大賽 計分系統：基本原則"),
    "1.3": ("WSOM 2006 scoring: payment", "世界麻將大賽 計分系統：得分授受法"),
    "3.1": ("WSOM 2006 rules: equipment", "世界麻將大賽 比賽規則：器材"),
    "3.2": ("WSOM 2006 rules: seat drawing", "世界麻將大賽 比賽規則：執位"),
    "3.3": ("WSOM 2006 rules: counting the dice", "世界麻將大賽 比賽規則：數骰位"),
    "3.4": ("WSOM 2006 rules: faults at the deal", "世界麻將大賽 比賽規則：配牌時的犯規"),
    "3.5": ("WSOM 2006 rules: dead wall and seabed", "世界麻將大賽 比賽規則：王牌與海底牌"),
    "3.6": ("WSOM 2006 rules: drawing and discarding", "世界麻將大賽 比賽規則：摸打規條"),
    "3.7": ("WSOM 2006 rules: claim priority", "世界麻將大賽 比賽規則：鳴牌優先規條"),
    "3.8": ("WSOM 2006 rules: winning", "世界麻將大賽 比賽規則：和牌"),
    "3.9": ("WSOM 2006 rules: penalty tiles", "世界麻將大賽 比賽規則：罰張"),
    "3.10": ("WSOM 2006 rules: wrong tile count", "世界麻將大賽 比賽規則：相公"),
    "3.11": ("WSOM 2006 rules: false claims", "世界麻將大賽 比賽規則：錯鳴"),
    "3.12": ("WSOM 2006 rules: time limits", "世界麻將大賽 比賽規則：打牌時限"),
    "3.13": ("WSOM 2006 code of conduct: penalties", "世界麻將大賽 行為守則：罰則"),
    # CCM 2012 (seed 004): 第二章 比賽 (its 條 as the project cites them), 第三章 罰則
    "4.2": ("CCM 2012 art. 1: terms", "中國競技麻將 第一條 基本術語與規定"),
    "4.3": ("CCM 2012 art. 3: formats", "中國競技麻將 第三條 賽制"),
    "4.4": ("CCM 2012 art. 6: play", "中國競技麻將 第六條 比賽進行"),
    "4.5": ("CCM 2012 art. 7: playing the tiles", "中國競技麻將 第七條 行牌規定"),
    "4.6": ("CCM 2012 art. 7: playing the tiles", "中國競技麻將 第七條 行牌規定"),
    "4.7": ("CCM 2012 art. 8: winning", "中國競技麻將 第八條 和牌規定"),
    "4.8": ("CCM 2012 art. 9: scoring", "中國競技麻將 第九條 和牌與比賽成績的計算"),
    "4.9": ("CCM 2012 art. 9: scoring", "中國競技麻將 第九條 和牌與比賽成績的計算"),
    "4.10": ("CCM 2012 art. 9: scoring", "中國競技麻將 第九條 和牌與比賽成績的計算"),
    "4.11": ("CCM 2012 art. 9: scoring", "中國競技麻將 第九條 和牌與比賽成績的計算"),
    "4.12": ("CCM 2012 art. 1: terms (包付)", "中國競技麻將 第一條 基本術語與規定（包付）"),
    "4.13": ("CCM 2012 art. 1: terms (局結)", "中國競技麻將 第一條 基本術語與規定（局結）"),
    "4.14": ("CCM 2012 art. 5: time", "中國競技麻將 第五條 比賽時間"),
    "4.15": (
        "CCM 2012 ch. 3 art. 2: offences and penalties",
        "中國競技麻將 第三章 第二條 違例行為及處罰",
    ),
}
_REFERENCE = re.compile(r"(?:seed \d+ )?(?:RULES\.md )?(\d+\.\d+)")
_PROJECT = re.compile(r"seed \d+ |(?:, )?A-[WC]\d+")  # a seed's file, an ambiguity's number
_EMPTY = re.compile(r" ?\(\)")


def article(section: str, lang: str = "en") -> str:
    """The rule book's article of the RULES.md `section` ("3.12"), or the section as it is."""
    found = ARTICLES.get(section)
    if found is None:
        return f"RULES.md {section}"
    return found[1] if lang == "zh" else found[0]


def cite(rule: str | None, lang: str = "en") -> str:
    """A rule reference ("RULES.md 3.12", "3.9 (罰張 6)", "seed 004 RULES.md 4.6") with the
    project's section named as the rule book's article; what follows it (a heading, an item)
    kept."""
    if not rule:
        return ""
    found = _REFERENCE.search(rule)
    if found is None or found.group(1) not in ARTICLES:
        return rule
    # "(暴露張, seed 004 第三章 ...)": the book's own words stay, the project's names go
    rest = _EMPTY.sub("", _PROJECT.sub("", rule[found.end() :]))
    return rule[: found.start()] + article(found.group(1), lang) + rest
