"""The referee's desk actions of a CCM stage (engine/stage.py): 換位 and 問分 (seed 004 定位、
換位, 三十三 問分; RULES.md 4.3, 4.13).

`change_seats`, between two games only, puts the players on the sides the table proposes
(each one side on) or the referee enters, refusing a seating that puts anybody on a side he
has sat in this stage. It is a record (SeatsChanged), journaled, shown on both views and the
console, and applied to the session's seating, again from the journal when the session is
resumed, so that a restart keeps it. `ask_scores`, in a stage's 4th game, answers a player's
問分, at most twice a player: a ScoresAsked record whose answer the public view shows until
the next discard, for ANSWER_SECONDS at most.
"""

from engine import events as ev
from engine.seats import LETTERS, WORDS
from engine.stage import (
    format_of,
    game_in_stage,
    proposed,
    repeats,
    stage_games,
    stage_json,
)
from firmware.display import ActionRefused

ASKS_PER_PLAYER = 2  # seed 004 三十三: 限制問分次數為兩次
ANSWER_SECONDS = 30.0  # of table time: long enough to read four numbers, short enough to go


def change_seats(service, t, body) -> dict:
    """換位 now: `seating` (the person on each side, E S W N) entered, or the table's."""
    status = service.status()
    session = status.session
    fmt = format_of(session.ruleset)
    if fmt is None or not fmt.seats_change:
        raise ActionRefused(
            "this rule book's stage has no seat changes (seed 004 第三條: one game of "
            "four rounds, no change)"
            if fmt
            else f"{session.ruleset.title} has no stages of games with seat changes"
        )
    if status.in_play or len(session.sheet) > session.game_first_row:
        played = len(session.sheet) - session.game_first_row
        raise ActionRefused(
            "seats change between games, not with a hand in play"
            if status.in_play
            else f"seats change between games: {played} hand(s) of this game are played"
        )
    earlier = [game["seating"] for game in stage_games(session.games, fmt)]
    if "seating" in body:
        seating, source = tuple(body["seating"]), "referee"  # four, each once (actions.py)
        again = repeats(seating, earlier)
        if again:
            raise ActionRefused(
                "換座不得重複座位就坐 (seed 004): "
                + ", ".join(f"P{p + 1} has sat {WORDS[side]} in this stage" for p, side in again)
            )
    else:
        seating, source = proposed(session.seating, earlier), "table"
    change = ev.SeatsChanged(t, None, len(session.games) + 1, seating, source)
    service.commands.change_seats(change, said(change))
    return change.to_json()


def said(change: ev.SeatsChanged) -> str:
    """The change as the console and the players read it."""
    sides = ", ".join(
        f"{LETTERS[side]} P{person + 1}" for side, person in enumerate(change.seating)
    )
    return f"seats for game {change.game} ({change.source}): {sides}"


def ask_scores(service, t, body) -> dict:
    """問分 by the player at `seat` (of the hand): in the 4th game of a seat-change stage, two
    asks a player; answered with this game's chips and the stage's totals, by side."""
    session = service.status().session
    fmt = format_of(session.ruleset)
    if fmt is None or not fmt.seats_change:
        raise ActionRefused("問分 is for the 4th game of a stage with seat changes (seed 004)")
    game = game_in_stage(session.games, fmt)
    if game != fmt.games:
        raise ActionRefused(
            f"問分 is for the stage's game {fmt.games} (seed 004 三十三); this is game {game}"
        )
    side = session.player_at(body["seat"])
    person = session.seating[side]
    number = len(session.games) + 1
    asked = sum(
        1
        for a in _journaled(service.commands.rows(), ev.ScoresAsked)
        if a.game == number and a.person == person
    )
    if asked >= ASKS_PER_PLAYER:
        raise ActionRefused(f"P{person + 1} has asked the scores {asked} times: two at most")
    chips = tuple(session.scores)
    earlier = {p: 0 for p in range(4)}
    for ended in stage_games(session.games, fmt):
        for s, p in enumerate(ended["seating"]):
            earlier[p] += ended["chips"][s]
    totals = tuple(earlier[session.seating[s]] + chips[s] for s in range(4))
    answer = ev.ScoresAsked(t, body["seat"], person, number, chips, totals)
    service.commands.record(answer, shown=True, line=answered(answer))
    return answer.to_json()


def answered(answer: ev.ScoresAsked) -> str:
    sides = ", ".join(
        f"{LETTERS[side]} {chips} (stage {total})"
        for side, (chips, total) in enumerate(zip(answer.chips, answer.totals, strict=True))
    )
    return f"P{answer.person + 1} asks the scores (問分): {sides}"


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


def standings_of(session, players=None) -> dict | None:
    """The stage's standings (engine/stage.py stage_json) for the sheet and the summaries;
    `players`: the venue's names by person. None for a rule book without stages."""
    fmt = format_of(session.ruleset)
    return None if fmt is None else stage_json(session.games, fmt, players)


def last_hand_seating(session) -> list[int] | None:
    """The seating of the game the sheet's last row is of: its row is by side; None before."""
    if not session.sheet:
        return None
    in_this_game = len(session.sheet) > session.game_first_row
    return list(session.seating) if in_this_game else list(session.games[-1]["seating"])


def _journaled(rows, kind) -> list:
    name = f'"{kind.__name__}"'
    return [row.event() for row in rows if row.kind == "device" and name in row.json]


def journaled_seatings(rows) -> dict[int, tuple[int, ...]]:
    """The seating journaled for each game (the last entry for it counts)."""
    return {change.game: change.seating for change in _journaled(rows, ev.SeatsChanged)}


def take_seats(session, seatings: dict[int, tuple[int, ...]]) -> None:
    """On resume: the seating journaled for the game about to be recorded, if any."""
    seating = seatings.get(len(session.games) + 1)
    if seating is not None:
        session.seating = list(seating)
