"""`mjtable simulate`'s summary: its counts, and the same for a person (`--json` prints the
counts as one line).

Apart from firmware/sim/simulate.py, which plays the hands, to keep each module short.
"""


def summary(game, hands: int, seconds: float) -> dict:
    """The counts of `mjtable simulate`'s `game` (firmware/sim/simulate.Game) after `hands`
    hands played in `seconds`."""
    return {
        "ruleset": game.ruleset.name,
        "hands": hands,
        "wins": game.counts["wins"],
        "draws": game.counts["draws"],
        "cut_short": game.counts["cut_short"],  # by the game's end (CCM: two without chips)
        "events": game.counts["events"],
        "alerts": game.counts["alerts"],
        "alerts_by_rule": dict(sorted(game.alerts_by_rule.items())),
        "invariant_violations": len(game.violations),
        "stuck": len(game.stuck),
        "mistakes": {
            "injected": sum(game.mistakes.values()),
            "caught": sum(game.caught.values()),
            "by_type": {k: [game.mistakes[k], game.caught[k]] for k in sorted(game.mistakes)},
        },
        "scores": list(game.session.scores),
        "games": game.session.games,
        "penalties": game.penalties,
        "hands_per_second": round(hands / seconds, 1) if seconds else None,
    }


def print_summary(summary: dict, problems: list, sheet) -> None:
    """The summary as a person reads it: counts, alerts by rule, the problems (invariants
    broken, hands stuck: none in a good run), games, the score sheet."""
    print(
        f"{summary['ruleset']}: {summary['hands']} hands, {summary['wins']} wins, "
        f"{summary['draws']} exhaustive draws, {summary['cut_short']} cut short by the "
        f"game's end, {summary['events']} events, "
        f"{summary['alerts']} alerts, {summary['hands_per_second']} hands/s"
    )
    for rule, n in summary["alerts_by_rule"].items():
        print(f"  alerts under {rule}: {n}")
    m = summary["mistakes"]
    if m["injected"]:
        print(f"  mistakes injected {m['injected']}, caught by the right alert {m['caught']}")
    print(
        f"  invariant violations: {summary['invariant_violations']}, "
        f"hands stuck: {summary['stuck']}"
    )
    for problem in problems[:5]:
        print(f"    {problem}")
    for number, game_row in enumerate(summary["games"], 1):
        print(
            f"  game {number}: {game_row['hands']} hands, ended: {game_row['ended']}; "
            f"chips {game_row['chips']}"
        )
    print("  score sheet:")
    for row in sheet:
        print(
            f"    hand {row.number:>3}  dealer P{row.dealer + 1}  {row.result:<4}  "
            + "  ".join(f"{c:+5d}" for c in row.changes)
            + "   totals "
            + " ".join(f"{s:+d}" for s in row.totals)
            + ("  x2" if row.doubled else "")
        )
