"""The CCM 2012 rule book as shipped and with options changed, and a hand typed as people
write it scored by it (RULES.md 4.7-4.11): `[..]` an exposed set, `(..)` a concealed kong, the
winning tile apart. Unless told otherwise East wins on South's discard."""

import copy

from engine.rulesets import build
from engine.rulesets.ccm2012 import Ccm2012
from engine.scoring import win_from_text
from firmware.resources import load_ruleset, load_toml, ruleset_path
from tests.support.tablekit import E, S

CCM = load_ruleset("ccm2012")


CONFIG = load_toml(ruleset_path("ccm2012"))


def score(text, win, discarder=S, flags=(), flowers="", winner=E, ruleset=CCM):
    return ruleset.score(win_from_text(text, win, winner, discarder, flags, flowers))


def ids(result) -> dict[str, int]:
    """The scored items as {id: points}; {} for a refused win."""
    return {p.id: p.points for p in result.patterns}


def with_options(**options) -> Ccm2012:
    config = copy.deepcopy(CONFIG)
    config["options"].update(options)
    return build(config)
