"""The referee's desk actions of a CCM stage (engine/stage.py): 換位 and 問分 (seed 004 定位、
換位, 三十三 問分; RULES.md 4.3, 4.13).

`change_seats`, between two games only, puts the players on the sides the table proposes
(each one side on) or the referee enters, refusing a seating that puts anybody on a side he
has sat in this stage. It is a record (SeatsChanged), journaled, shown on both views and the
console, and applied to the session's seating, again from the journal when the session is
resumed, so that a restart keeps it. `ask_scores`, in a stage's 4th game, answers a player's
問分, at most twice a player: a ScoresAsked record whose answer the public view shows until
the next discard, for ANSWER_SECONDS at most (firmware/display/asked.py).
"""

from engine import events as ev
from engine.seats import LETTERS, WORDS
from engine.stage import format_of, game_in_stage, proposed, repeats, stage_games
from firmware.display import ActionRefused
from firmware.journal.replay import journaled

ASKS_PER_PLAYER = 2  # seed 004 三十三: 限制問分次數為兩次


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
    asks a player; answered with this game's chips now and the stage's totals, by side."""
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
        for a in journaled(service.commands.rows(), ev.ScoresAsked)
        if a.game == number and a.person == person
    )
    if asked >= ASKS_PER_PLAYER:
        raise ActionRefused(f"P{person + 1} has asked the scores {asked} times: two at most")
    chips = scores_now(session, service.status().table)
    earlier = {p: 0 for p in range(4)}
    for ended in stage_games(session.games, fmt):
        for s, p in enumerate(ended["seating"]):
            earlier[p] += ended["chips"][s]
    totals = tuple(earlier[session.seating[s]] + chips[s] for s in range(4))
    answer = ev.ScoresAsked(t, body["seat"], person, number, chips, totals)
    service.commands.record(answer, shown=True, line=answered(answer))
    return answer.to_json()


def scores_now(session, table) -> tuple[int, ...]:
    """此刻四家得分情況, by side: the chips as settled so far, and with a hand in play what it
    has paid on the spot (三十六 現場匯: kongs, 追牌, penalties), not the last hand's."""
    now = None if table is None or table.ended else table.winning.chips_now()
    if now is None:
        return tuple(session.scores)
    return tuple(now[(side - session.dealer) % 4] for side in range(4))


def answered(answer: ev.ScoresAsked) -> str:
    sides = ", ".join(
        f"{LETTERS[side]} {chips} (stage {total})"
        for side, (chips, total) in enumerate(zip(answer.chips, answer.totals, strict=True))
    )
    return f"P{answer.person + 1} asks the scores (問分): {sides}"
