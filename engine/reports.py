"""What the referee enters at the desk (issue 12): the offences the sensors cannot see.

Conduct (seed 000 行為守則, RULES.md 3.13): a 暫停, lateness, an opponent leaving the table
during a 暫停 (each per started 30 s, the `per_seconds` of its [penalties] entry), a phone
sounding; lateness beyond `forfeit_after` seconds also asks the referee about declaring the
player absent (the offence `absent`). Exposed tiles (罰張 1, 6, RULES.md 3.9): those the
referee names become live penalty tiles, but for the entry's `free_tiles` (one at the deal);
a wall tile turned face up (摸牌時的犯規 2) is one on the player's own draw, else a warning.
CCM's exposed tiles (seed 004 第三章 第二條 七(一)) are penalty tiles he must discard at his next
discards (engine/referee.py). An offence the referee confirms that costs nothing the first time
(CCM's 嫌疑動作: 警告) is a warning on the record once he confirms it. A sanction with a public
notice (通報: CCM's cheating and serious disruption) says so. A flower is never a penalty tile:
it is exposed and replaced.

A report after the hand's end (a 暫停 is taken between hands, seed 000: 叫暫停應在兩局之間) is
held by the ended hand's referee, journaled as that hand's input; the session carries it into
the next hand (engine/session.py), where the desk enters it once the walls are up. But an
offence committed while the win was being confirmed (its `after_win`: laying one's hand down
early, seed 004 第三章 第二條 七(二)) is the won hand's own, entered after it or not.
"""

from engine import events as ev
from engine import tiles
from engine.penalties import EXPOSED, Offence
from engine.seats import letter

WALL_TILE = "wall_tile_exposed"  # the offence whose tile stands in the wall, not the hand
REFUSED = "report refused"  # how an alert refusing a report begins (the desk answers 409)
NOTICE = ", with a public notice (通報) once the referee confirms it"


def report(referee, event: ev.ViolationReported, hand, wall_head: int | None, standing) -> list:
    """The alert and penalty of a reported offence. `hand` is the offender's concealed tiles;
    `wall_head` the live wall's next tile when it is his to draw now (else None);
    `standing(tile)` whether a tile stands in the wall."""
    t, seat, name = event.t, event.seat, event.offence
    referee.carried += event.between_hands
    offence = _offence(referee, name)
    if offence is None:  # not the rule book's: the referee rules on it as he sees it
        return referee.offence(t, seat, name, _said(event), hand=hand)
    problem = _problem(referee, event, offence, hand, standing)
    if problem:
        return [referee.alert(t, seat, offence.rule, f"{REFUSED}: {problem}")]
    if name == WALL_TILE and event.tiles[0] != wall_head:
        return [
            referee.alert(
                t,
                seat,
                offence.rule,
                f"{letter(seat)} turned up a wall tile not his to draw: a warning. If it is the "
                "wall head, the player to draw it may take it or have it mixed back; else the "
                "referee mixes it with 12 or more tiles of the wall nearby and rebuilds it",
            )
        ]
    out = referee.offence(
        t,
        seat,
        name,
        _said(event) + (NOTICE if offence.notice else ""),
        hand=hand,
        named=event.tiles,
        blocks=offence.blocks(event.seconds),
        warning=offence.confirm,
    )
    if offence.forfeit_after and event.seconds > offence.forfeit_after:
        out += referee.offence(
            t,
            seat,
            "absent",
            f"{letter(seat)} was {_duration(event.seconds)} late, more than "
            f"{_duration(offence.forfeit_after)}: the referee may declare the player absent "
            "(a forfeit), or let the deduction stand alone",
        )
    return out


def of_the_win(referee, event: ev.ViolationReported, won: bool) -> bool:
    """A report entered once the hand is over that is still its own: an offence committed
    while its win was being confirmed (`after_win`), in a hand won."""
    offence = _offence(referee, event.offence)
    return won and offence is not None and offence.after_win


def hold(referee, event: ev.ViolationReported) -> list:
    """A report entered once the hand is over: held for the next hand."""
    offence = _offence(referee, event.offence)
    if offence is None:
        problem = f"the rule book has no offence {event.offence!r}"
    elif event.tiles:
        problem = "exposed tiles are reported while a hand is in play"
    else:
        problem = _problem(referee, event, offence, (), lambda tile: False)
    if offence is None or problem:
        return [referee.alert(event.t, event.seat, "", f"{REFUSED}: {problem}")]
    referee.held.append(event)
    return [
        referee.alert(
            event.t,
            event.seat,
            offence.rule,
            f"{_said(event)}: this hand is over, so it is held and applied to the next hand "
            "when its walls are up",
        )
    ]


def _offence(referee, name: str) -> Offence | None:
    return None if referee.catalogue is None else referee.catalogue.offences.get(name)


def _problem(referee, event: ev.ViolationReported, offence: Offence, hand, standing) -> str:
    """Why the report cannot stand as entered, or ""."""
    name, seconds, named = event.offence, event.seconds, event.tiles
    timed = offence.per_seconds or offence.forfeit_after
    if timed and seconds < 1:
        return f"{name} needs `seconds`: how long it lasted"
    if not timed and seconds:
        return f"{name} is not timed: it takes no `seconds`"
    if offence.penalty_tiles != EXPOSED:
        return f"{name} exposes no tiles the referee names" if named else ""
    if not named:
        return f"{name} needs `tiles`: those exposed"
    if name == WALL_TILE:
        if len(named) != 1 or not standing(named[0]):
            return "name the one wall tile turned face up, a tile standing in the wall"
        return ""
    flower = next((n for n, t in enumerate(named, 1) if tiles.is_flower(tiles.kind_of(t))), 0)
    if flower:
        return f"tile {flower} named is a flower: it is exposed and replaced, never a penalty tile"
    return referee.tiles_problem(event.seat, named, hand)


def _said(event: ev.ViolationReported) -> str:
    timed = f" for {_duration(event.seconds)}" if event.seconds else ""
    return (
        f"{letter(event.seat)}: {event.offence.replace('_', ' ')}{timed} (reported by the referee)"
    )


def _duration(seconds: int) -> str:
    minutes, rest = divmod(seconds, 60)
    if not minutes:
        return f"{rest} s"
    return f"{minutes} min {rest} s" if rest else f"{minutes} min"
