"""The typed form of `mjtable score`: one hand (and each other winner on its discard) typed
as a referee writes it, with compass seats, scored into a card a person reads."""

import unicodedata
from collections import Counter
from dataclasses import replace

from engine import seats, tiles
from engine.rulesets.ccm2012 import Ccm2012
from engine.scoring import Score, Win, WinError, win_from_text
from engine.seats import LETTERS as SEATS
from firmware.score import ccm as score_ccm
from firmware.texts.names import chinese_names


def typed_card(ruleset, args) -> str:
    """The score card of a typed hand and of each other winner on its discard; a WinError
    names what is wrong with the command. Seats are typed as compass seats."""
    problem = score_ccm.refused(ruleset, args)
    unknown = [f for f in args.flag if f not in ruleset.flags]
    if unknown:
        problem = f"unknown flag {unknown[0]!r} (known: {', '.join(sorted(ruleset.flags))})"
    if problem:
        raise WinError(problem)
    dealer = SEATS.index(args.dealer)

    def seat(letter: str) -> int:
        return seats.seat_at(SEATS.index(letter), dealer)

    flags, won_from = _how(ruleset, args)
    winner, discarder = seat(args.seat), None if won_from is None else seat(won_from)
    problem, responsible = _responsible(args, winner, discarder, seat)
    if args.liable is not None and seat(args.liable) == winner:
        problem = f"--liable {args.liable}: the winner cannot pay for his own win (包付)"
    if args.also and discarder is None:
        problem = "--also: several winners are on one discard (seed 004 三十五), not a self-draw"
    others = [letter for letter, _ in args.also]
    if any(letter not in SEATS for letter in others):
        problem = f"--also SEAT HAND: SEAT is one of {' '.join(SEATS)}, not {others!r}"
    elif others and len({args.seat, won_from, *others}) != len(others) + 2:
        problem = "--also: each winner once, and never the discarder"
    if problem:
        raise WinError(problem)
    wins, texts = [], []
    for letter, typed, flowers in [
        (args.seat, args.hand, args.flowers),
        *((s, h, "") for s, h in args.also),
    ]:
        hand, more = _split_flowers(typed)
        try:
            win = win_from_text(
                hand, _tile_name(args.win), seat(letter), discarder, flags, f"{flowers} {more}"
            )
        except WinError as err:
            raise WinError(f"hand {typed!r}: {err}") from None
        problem = score_ccm.contradiction(ruleset, win)
        if problem:
            raise WinError(f"hand {typed!r}: contradicts itself: {problem}")
        wins.append(win)
        texts.append(" ".join(typed.split()))
    if responsible != discarder:
        wins[0] = replace(wins[0], responsible=responsible)
    _check_copies(wins)
    liable = None if args.liable is None else seat(args.liable)
    return _cards(ruleset, args, wins, texts, liable, dealer)


def _cards(ruleset, args, wins: list[Win], texts: list[str], liable, dealer: int) -> str:
    """The title, each winner's card, then (CCM) the notes, the payments and the chips."""
    chinese, lines = chinese_names(ruleset), [ruleset.title]
    if not isinstance(ruleset, Ccm2012):
        score = ruleset.score(wins[0])
        lines += card(wins[0], score, chinese, texts[0], dealer)
        if score.payments is not None:
            lines.append(pay_line(score.payments, dealer))
        return "\n".join(lines)
    blocked = score_ccm.blocked(ruleset, args, wins[0].discarder, dealer)
    scores = []
    for win, typed in zip(wins, texts, strict=True):
        score = Score(False, reason=blocked) if blocked else ruleset.score(win)
        score, names = score_ccm.named(ruleset, win, score, chinese)
        lines += card(win, score, names, typed, dealer)
        scores.append(score)
    if not all(s.legal and s.total is not None for s in scores):
        return "\n".join(lines)
    payments, chips, notes = score_ccm.settle(ruleset, args, wins, scores, liable, dealer)
    lines += [*notes, pay_line(payments, dealer)]
    if chips is not None:
        lines.append(
            "Chips  " + "  ".join(f"{SEATS[s]} {chips[seats.seat_at(s, dealer)]}" for s in range(4))
        )
    return "\n".join(lines)


def _how(ruleset, args) -> tuple[list[str], str | None]:
    """(the win's flags, the compass seat it was won from or None): 搶槓 typed either way, as
    the konger's discard (seed 000 搶槓一律算作銃和) or in CCM as a self-draw paid by the
    konger (seed 004 第八條 「搶槓和牌同自摸」)."""
    flags, konger = list(args.flag), args.robbed_kong
    robbing_self_drawn = isinstance(ruleset, Ccm2012) and args.self_drawn
    if konger is not None:
        if args.discarder not in (None, konger):
            raise WinError(
                f"--robbed-kong {konger} and --discarder {args.discarder}: "
                "the robbed tile is the konger's; give one of them"
            )
        flags.append("robbing_kong")
        return flags, None if args.self_drawn and not robbing_self_drawn else konger
    if robbing_self_drawn and "robbing_kong" in flags:
        raise WinError(
            "robbing_kong self-drawn (搶槓和牌同自摸): the konger pays 3T alone "
            "(RULES.md 4.11); name him with --robbed-kong SEAT"
        )
    if not args.self_drawn and args.discarder is None:
        raise WinError("say how the hand won: --self-drawn, --discarder SEAT or --robbed-kong SEAT")
    return flags, args.discarder


def _responsible(args, winner: int, discarder: int | None, seat) -> tuple[str, int | None]:
    """(what is wrong, who pays for the discard) from --follow-tile or --responsible, typed
    as compass seats and turned into the hand's by `seat`."""
    given = args.follow_tile or args.responsible
    if given is None:
        return "", discarder
    option = "--follow-tile" if args.follow_tile else "--responsible"
    if discarder is None:
        return f"{option}: a self-drawn win has nobody responsible (RULES.md 1.3)", None
    if args.follow_tile:
        first = seat(args.follow_tile)
        if first == discarder:
            return (
                f"--follow-tile {args.follow_tile}: the discarder discarding the winning kind "
                "first is no exemption; leave the option out",
                None,
            )
        return "", None if first == winner else first
    if args.responsible == "none":
        return "", None
    payer = seat(args.responsible)
    if payer == winner:
        return f"--responsible {args.responsible}: the winner cannot pay for his own win", None
    return "", payer


def _split_flowers(typed: str) -> tuple[str, str]:
    """(the hand, its flowers): a word of flowers only (2f, 春) is the winner's flowers."""
    hand: list[str] = []
    flowers: list[str] = []
    for word in typed.split():
        try:
            is_flowers = all(tiles.is_flower(t) for t in tiles.parse(word))
        except tiles.TileError:  # named when the hand is read
            is_flowers = False
        (flowers if is_flowers else hand).append(word)
    return " ".join(hand), " ".join(flowers)


def _tile_name(typed: str) -> str:
    """The winning tile in the notation, typed as 5m or 五萬; anything else as typed, for
    the reader of the hand to name what is wrong."""
    try:
        kinds = tiles.parse(typed)
    except tiles.TileError:
        return typed
    return tiles.NAMES[kinds[0]] if len(kinds) == 1 else typed


def _check_copies(wins: list[Win]) -> None:
    """Several winners on one tile hold no fifth copy between them, nor one flower twice."""
    held = Counter(t for w in wins for t in [*w.all_tiles, *w.flowers])
    held[wins[0].win_tile] -= len(wins) - 1
    for kind, n in held.items():
        if n > (1 if tiles.is_flower(kind) else 4):
            raise WinError(f"the winners hold {n} {tiles.NAMES[kind]} between them")


def card(win: Win, score: Score, chinese: dict[str, str], typed: str, dealer: int) -> list[str]:
    """One winner's score card as a referee reads it: his hand as he typed it, how it won,
    each pattern in English and Chinese, the total. Seats are compass seats."""

    def letter(seat: int | None) -> str:
        return seats.letter(None if seat is None else seats.side_of(seat, dealer))

    how = "self-drawn" if win.self_drawn else f"on {letter(win.discarder)}'s discard"
    if "robbing_kong" in win.flags and not win.self_drawn:
        how = f"robbing {letter(win.discarder)}'s kong (搶槓)"
    if not win.self_drawn and win.responsible != win.discarder:
        pays = "nobody" if win.responsible is None else letter(win.responsible)
        how += f" ({pays} responsible: 跟張免責, RULES.md 1.3)"
    lines = [
        f"Hand   {typed}",
        f"Win    {tiles.NAMES[win.win_tile]} {how}, winner {letter(win.winner)}"
        + (f", dealer {SEATS[dealer]}" if dealer else "")
        + (f", flags {' '.join(sorted(win.flags))}" if win.flags else ""),
    ]
    if not score.legal:
        return [*lines, f"NOT A LEGAL WIN: {score.reason}"]
    if score.total is None:
        return [*lines, f"Legal shape, {score.reason}"]
    names = [f"{p.name} {chinese.get(p.id, '')}".rstrip() for p in score.patterns]
    width = max(map(_columns, names))
    for p, name in zip(score.patterns, names, strict=True):
        lines.append(f"  {p.id:<6} {name}{' ' * (width - _columns(name))} {p.points:>4}")
    uncapped = sum(p.points for p in score.patterns)
    capped = " (limit)" if uncapped != score.total else ""
    lines.append(f"  {'Total':<6} {'':<{width}} {score.total:>4}{capped}")
    return lines


def pay_line(payments, dealer: int) -> str:
    """What each compass seat gains or loses; `payments` are in the hand's seat order."""
    return "Pay    " + "  ".join(
        f"{SEATS[side]} {payments[seats.seat_at(side, dealer)]:+d}" for side in range(4)
    )


def _columns(text: str) -> int:
    """The columns text takes on a terminal: a Chinese character takes two, so points align."""
    return sum(2 if unicodedata.east_asian_width(c) in "WF" else 1 for c in text)
