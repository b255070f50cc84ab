"""The rule books' names in Chinese, beside the English ids: what the referee and the players
read on the result of a hand and on the score card."""


def chinese_names(ruleset) -> dict[str, str]:
    """Pattern id -> Chinese name, from the config's [patterns] (WSOM) or [fans] and
    [additional] (CCM): a referee reads the names of the rule book."""
    config = ruleset.config
    return {
        pid: entry["chinese"]
        for section in ("patterns", "fans", "additional")
        for pid, entry in config.get(section, {}).items()
    }
