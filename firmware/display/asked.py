"""問分 on the public view (seed 004 第一條三十三): in a stage whose seats change (換座制) a
player learns the four scores only by asking the referee, in the 4th game, twice; so the
public view carries no chips, no stage totals and no score sheet while such a stage is being
played; while an answer is shown (until the next discard, for ANSWER_SECONDS at most) the
answer and the seats' chips, no more (the answer has the stage's totals). Once the stage is
over its standings are public. The referee's view always has them.
"""

from engine.stage import format_of

ANSWER_SECONDS = 30.0  # of table time: long enough to read four numbers, short enough to go


def shown_answer(log: list[dict], now: float) -> dict | None:
    """The latest 問分's answer while it is shown: until the next discard, for at most
    ANSWER_SECONDS."""
    at = next((i for i in reversed(range(len(log))) if log[i].get("type") == "ScoresAsked"), None)
    if at is None or now >= log[at]["t"] + ANSWER_SECONDS:
        return None
    if any(e.get("type") == "Discarded" for e in log[at + 1 :]):
        return None
    answer = log[at]
    return {
        "person": answer["person"],
        "chips": answer["chips"],
        "totals": answer["totals"],
        "until": answer["t"] + ANSWER_SECONDS,
    }


def chips_withheld(session, stage: dict | None) -> bool:
    """Whether the public may not see the scores now: a seat-change stage not over yet."""
    fmt = format_of(session.ruleset)
    return fmt is not None and fmt.seats_change and stage is not None and not stage["finished"]


def withhold_chips(document: dict) -> dict:
    """The public document without what tells the scores: each seat's chips, the standings'
    points and totals, the score sheet and the last hand's totals (its changes stay: every
    player saw them paid)."""
    stage = document["stage"]
    last = document["last_hand"]
    return document | {
        "seats": [seat | {"score": None} for seat in document["seats"]],
        "stage": stage | {"players": [], "reserve": [], "withheld": True},
        "sheet": None,
        "last_hand": last and {k: v for k, v in last.items() if k != "totals"},
        "log": [_unanswered(e) for e in document["log"]],
        "chips_withheld": True,
    }


def _unanswered(event: dict) -> dict:
    """A 問分 in the log once its answer is no longer shown: who asked, not what he heard."""
    if event.get("type") != "ScoresAsked":
        return event
    return {k: v for k, v in event.items() if k not in ("chips", "totals")}
