"""Rule books: each is a package built from its config/rules/<name>.toml data.

The config's `[ruleset] engine` names the package, so one engine can serve several profiles.
What a rule book offers the table and the session is `engine.rulebook.Ruleset`.
"""

from collections.abc import Callable

from engine.rulebook import Ruleset
from engine.rulesets.ccm2012 import Ccm2012
from engine.rulesets.wsom2006 import Wsom2006
from engine.schema import Section, one_of

ENGINES: dict[str, Callable[[dict], Ruleset]] = {"wsom2006": Wsom2006, "ccm2012": Ccm2012}


def build(config: dict) -> Ruleset:
    """The ruleset a parsed config file describes (the engine reads no files)."""
    engine = Section(config, "").section("ruleset").get("engine", one_of(*sorted(ENGINES)))
    return ENGINES[engine](config)
