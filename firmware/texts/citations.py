"""The rule book's own article for each of the project's rule references (issue 33 item 4):
alerts and penalties name "RULES.md 3.12" or "seed 004 RULES.md 4.6", the sections of the
project's research (docs: /work/shared/rules/RULES.md); a referee knows the rule book's
articles. WSOM 2006's are its parts and their Chinese section headings (seed 000, 世界麻將大賽
比賽規則); CCM 2012's its 條 and, where a section or a reference's named offence is one item of
it, that item as the seed numbers it (seed 004, 中國競技麻將比賽規則; 第三章 its penalties).
tests/firmware/texts/test_citations.py finds each heading and item in the seeds' own text.
A reference the tables lack is shown as it is, a seed's number as its book's name.
"""

import re

# RULES.md section -> (English, Chinese): WSOM's part and its section (seed 000's heading)
WSOM = {
    "1.1": ("WSOM 2006 scoring: basic rules", "世界麻將大賽 計分系統：基本規則"),
    "1.3": ("WSOM 2006 scoring: payment", "世界麻將大賽 計分系統：得分授受法"),
    "3.1": ("WSOM 2006 rules: the tiles", "世界麻將大賽 比賽規則：麻將牌的構成"),
    "3.2": ("WSOM 2006 rules: seat drawing", "世界麻將大賽 比賽規則：執位"),
    "3.3": ("WSOM 2006 rules: counting the dice", "世界麻將大賽 比賽規則：數骰位"),
    "3.4": ("WSOM 2006 rules: faults at the deal", "世界麻將大賽 比賽規則：配牌時的犯規"),
    "3.5": ("WSOM 2006 rules: dead wall and seabed", "世界麻將大賽 比賽規則：王牌與海底牌"),
    "3.6": ("WSOM 2006 rules: drawing and discarding", "世界麻將大賽 比賽規則：摸打規條"),
    "3.7": ("WSOM 2006 rules: claim priority", "世界麻將大賽 比賽規則：鳴牌優先規條"),
    "3.8": ("WSOM 2006 rules: scoring a win", "世界麻將大賽 比賽規則：和牌的計分"),
    "3.9": ("WSOM 2006 rules: penalty tiles", "世界麻將大賽 比賽規則：罰張"),
    "3.10": ("WSOM 2006 rules: wrong tile count", "世界麻將大賽 比賽規則：相公"),
    "3.11": ("WSOM 2006 rules: false claims", "世界麻將大賽 比賽規則：錯鳴"),
    "3.12": ("WSOM 2006 rules: time limits", "世界麻將大賽 比賽規則：打牌時限"),
    "3.13": ("WSOM 2006 code of conduct: penalties", "世界麻將大賽 行為守則：罰則"),
}
# seed 004's 條 ("第三章": its penalties' chapter) -> (its heading, English)
CCM_ARTICLES = {
    ("", "第一條"): ("基本術語與規定", "terms"),
    ("", "第三條"): ("賽制", "formats"),
    ("", "第六條"): ("比賽進行", "play"),
    ("", "第七條"): ("行牌規定", "playing the tiles"),
    ("", "第八條"): ("和牌規定", "winning"),
    ("", "第九條"): ("和牌與比賽成績的計算", "scoring"),
    ("第三章", "第一條"): ("處罰方式", "penalties"),
    ("第三章", "第二條"): ("違例行為及處罰", "offences and penalties"),
}
OFFENCES = ("第三章", "第二條")
# RULES.md section -> (chapter, 條, the item's path as the seed heads each level)
CCM = {
    "4.2": ("", "第一條", ()),
    "4.3": ("", "第三條", ()),
    "4.4": ("", "第六條", ("（四）擲骰與開牌",)),
    "4.5": ("", "第一條", ("十三、花牌",)),
    "4.6": ("", "第七條", ()),
    "4.7": ("", "第八條", ("二、和牌的要求和前提",)),
    "4.8": ("", "第九條", ("三、和牌的基本番種與分值",)),
    "4.9": ("", "第一條", ("三十八、比賽分、標準分", "（一）比賽分", "3、附加分")),
    "4.10": ("", "第一條", ("三十六、現場匯",)),
    "4.11": ("", "第九條", ("四、分數的計算",)),
    "4.12": ("", "第一條", ("三十四、吃牌與包付",)),
    "4.13": ("", "第一條", ("三十一、局結",)),
    "4.14": ("", "第七條", ("四、出牌",)),  # the 20 s and 10 s of each discard
    "4.15": (*OFFENCES, ()),
}
_FALSE_WIN = ("六、錯和與詐和的處理", "（一）錯和與詐和")
_EXPOSED = "七、暴露張的處理"
# (RULES.md section, what the reference names in its brackets) -> the item it is
NAMED = {
    ("4.6", "A-C5"): ("", "第一條", ("三十四、吃牌與包付", "1、吃牌與吃牌的包付")),
    ("4.9", "A-C10"): ("", "第一條", (*CCM["4.9"][2], "（4）槓上開花")),
    ("4.11", "A-C14"): ("", "第九條", ("一、和牌的前提", "（三）必須是點炮方有分")),
    ("4.14", "遲到"): ("第三章", "第一條", ("二、罰分", "（一）遲到")),
    ("4.15", "偷牌、藏牌"): (*OFFENCES, ("一、偷牌、藏牌",)),
    ("4.15", "錯碰"): (*OFFENCES, ("二、錯碰、錯槓",)),
    ("4.15", "空碰"): (*OFFENCES, ("三、空碰、空槓",)),
    ("4.15", "空槓"): (*OFFENCES, ("三、空碰、空槓",)),
    ("4.15", "違規摸牌"): (*OFFENCES, ("四、違規摸牌",)),
    ("4.15", "延時碰牌"): (*OFFENCES, ("五、延時碰牌",)),
    ("4.15", "錯和"): (*OFFENCES, _FALSE_WIN),
    ("4.15", "詐和"): (*OFFENCES, _FALSE_WIN),
    ("4.15", "有意詐和"): (*OFFENCES, (_FALSE_WIN[0], "（二）有意詐和")),
    ("4.15", "暴露張"): (*OFFENCES, (_EXPOSED, "（一）")),
    ("4.15", "提前推倒"): (*OFFENCES, (_EXPOSED, "（二）")),
    ("4.15", "碰翻別人的手牌"): (*OFFENCES, (_EXPOSED, "（三）")),
    ("4.15", "多張"): (*OFFENCES, ("九、牌張數目錯誤",)),
    ("4.15", "少張"): (*OFFENCES, ("九、牌張數目錯誤",)),
    ("4.15", "作弊現象"): (*OFFENCES, ("十、作弊現象",)),
    ("4.15", "嚴重干擾比賽"): (*OFFENCES, ("十一、嚴重干擾比賽",)),
    ("4.15", "嫌疑動作"): ("", "第七條", ("六、嫌疑動作的禁忌",)),
}
BOOKS = {"000": ("WSOM 2006", "世界麻將大賽"), "004": ("CCM 2012", "中國競技麻將")}
_REFERENCE = re.compile(r"(?:seed \d+ )?(?:RULES\.md )?(\d+\.\d+)")
_NAMED = re.compile(r" ?\(([^,()]+)[^()]*(?:\([^()]*\)[^()]*)*\)")  # " (詐和, A-C19)"
_PROJECT = re.compile(r"seed \d+ |(?:, )?A-[WC]\d+")  # a seed's file, an ambiguity's number
_EMPTY = re.compile(r" ?\(\)")
_SEED = re.compile(r"seed (\d{3}) ")
_NUMBER = re.compile(r"^(（[^）]+）|[一二三四五六七八九十]+、|\d+、)")
_DIGITS = dict(zip("一二三四五六七八九", range(1, 10), strict=True))


def _numeral(text: str) -> int:
    """三十八 -> 38, 十三 -> 13, 四 -> 4: the seed's numbers."""
    if "十" not in text:
        return _DIGITS[text]
    tens, _, units = text.partition("十")
    return _DIGITS.get(tens, 1) * 10 + _DIGITS.get(units, 0)


def _item(path: tuple[str, ...], lang: str) -> str:
    """The item as the seed numbers it: 三十八（一）3、附加分, 三十四 1、吃牌與吃牌的包付; in
    English 38 (1) 3."""
    numbers = [_NUMBER.findall(level)[0] for level in path]
    if lang == "zh":  # the last level's heading, else the first's: 七（一）暴露張的處理
        last = path[-1] if path[-1] != numbers[-1] else path[-1] + path[0][len(numbers[0]) :]
        said = ""
        for number in [*(n.rstrip("、") for n in numbers[:-1]), last]:
            said += (" " if said and number[0].isdigit() and said[-1] != "）" else "") + number
        return said
    said = ""
    for number in numbers:  # 38 (1) 3, 34.1
        inner = number.strip("、（）")
        value = inner if inner.isdigit() else str(_numeral(inner))
        if number.startswith("（"):
            value = f"({value})"
        said += ("." if said[-1:].isdigit() and value[0].isdigit() else " ") * bool(said) + value
    return said


def _ccm_article(chapter: str, number: str, path: tuple[str, ...], lang: str) -> str:
    """ "中國競技麻將 第一條 基本術語與規定 十三、花牌", "CCM 2012 art. 1: terms, item 13"."""
    heading, title = CCM_ARTICLES[chapter, number]
    if lang == "zh":
        parts = ["中國競技麻將", chapter, number, heading, _item(path, lang) if path else ""]
        return " ".join(p for p in parts if p)
    where = f"ch. {_numeral(chapter[1:-1])} " if chapter else ""
    item = f", item {_item(path, lang)}" if path else ""
    return f"CCM 2012 {where}art. {_numeral(number[1:-1])}: {title}{item}"


def article(section: str, lang: str = "en", name: str = "") -> str:
    """The rule book's article of the RULES.md `section` ("3.12"), the item the reference
    names (`name`) where it is one, or the section as it is."""
    if (section, name) in NAMED:
        return _ccm_article(*NAMED[section, name], lang)
    if section in CCM:
        return _ccm_article(*CCM[section], lang)
    found = WSOM.get(section)
    if found is None:
        return f"RULES.md {section}"
    return found[1] if lang == "zh" else found[0]


def cite(rule: str | None, lang: str = "en") -> str:
    """A rule reference ("RULES.md 3.12", "3.9 (罰張 6)", "4.15 (詐和, A-C19)") with the
    project's section named as the rule book's article (and item); the words in its
    brackets kept, the project's own names (seed files, ambiguities) dropped. A reference to
    a seed itself ("seed 004 第一條二十四 單放") names its book."""
    if not rule:
        return ""
    found = _REFERENCE.search(rule)
    if found is None or found.group(1) not in WSOM | CCM:
        return _SEED.sub(lambda m: BOOKS[m.group(1)][lang == "zh"] + " ", rule)
    rest = rule[found.end() :]
    named = _NAMED.match(rest)
    name = named.group(1).strip() if named else ""
    item = NAMED.get((found.group(1), name))
    if item is not None:  # the item cites it: its other words go, its name if it says it
        said = name.startswith("A-") or (lang == "zh" and name in "".join(item[2]))
        rest = "" if said else f" ({name})"
    else:  # "(暴露張, seed 004 第三章 ...)": the book's own words stay, the project's names go
        rest = _EMPTY.sub("", _PROJECT.sub("", rest))
    return rule[: found.start()] + article(found.group(1), lang, name) + rest
