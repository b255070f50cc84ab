"""`mjtable score` for a CCM 2012 referee (RULES.md §4, seed 004): what only CCM has (倍打,
包付, several winners on one discard, chips) and the CCM words on the score card.

Seats here are the hand's (0 = the dealer); `firmware.score.typed` turns the referee's compass seats
into them and back. The payments are the ruleset's own (`ccm2012.settlement`): nothing is
computed twice.
"""

from engine import seats, tiles
from engine.rulesets.ccm2012 import Ccm2012
from engine.rulesets.ccm2012.fans import FLOWER_GROUPS
from engine.rulesets.ccm2012.readings import readings
from engine.rulesets.ccm2012.settlement import (
    counter_clockwise_from,
    discard_win_blocked,
    doubled,
    pay,
    win_payments,
)
from engine.scoring import Pattern, Score, Win
from engine.seats import LETTERS as SEATS
from firmware import cli_args

FLAG_WORDS = {  # each flag of Ccm2012.flags as the referee reads it in --help
    "kong_replacement": "槓上開花: won on a kong's replacement (RULES.md 4.9)",
    "flower_replacement": "補花和牌: won on a flower's replacement (4.9)",
    "last_tile": "the final tile: 妙手回春 drawn, 海底撈月 on its discard (4.9, A-C10)",
    "robbing_kong": "搶槓和牌: the konger pays 3T (4.11); or --robbed-kong SEAT",
    "last_copy": "絕張: the other three of the winning tile lie in an exposed pung (4.8.8)",
    "drawn_tile_mixed": "單放: the drawn tile put into the hand before the win call, no 4.9.2",
}
# 4.8.9 全大／全中／全小 by the lowest rank of its three chows (seed 004 第九條三 9)
BIG_MIDDLE_SMALL = {0: ("All Small", "全小", "123"), 3: ("All Middle", "全中", "456")}
BIG_MIDDLE_SMALL[6] = ("All Big", "全大", "789")
FLOWER_WORDS = "1f-4f = 春夏秋冬, 5f-8f = 梅蘭竹菊"


def add_arguments(parser) -> None:
    """The CCM options, in a group of their own in --help, with CCM's flags."""
    ccm = parser.add_argument_group(
        "China Competition Mahjong 2012 (--ruleset ccm2012: RULES.md §4, seed 004)",
        "Seats are the players' compass seats; --dealer says who deals. Flags (--flag): "
        + "; ".join(f"{flag} {words}" for flag, words in FLAG_WORDS.items())
        + f". Flowers: {FLOWER_WORDS}; all four of one group are a flower kong (花槓, "
        "seed 004 十五), paid on the spot, not at the win.",
    )
    ccm.add_argument(
        "--doubled",
        action="store_true",
        help="倍打 (seed 004 三十): the dealer won and kept the deal, so every gain and loss "
        "is doubled, once",
    )
    ccm.add_argument(
        "--liable",
        choices=list(SEATS),
        metavar="SEAT",
        help="包付 (seed 004 三十四) as the referee ruled it: this seat pays the first hand's "
        "whole win alone, 3T",
    )
    ccm.add_argument(
        "--also",
        nargs=2,
        action="append",
        default=[],
        metavar=("SEAT", "HAND"),
        help="another winner on the same discard and his hand, flowers included (seed 004 "
        "三十五 同時和牌): the discarder pays them counter-clockwise from him (repeatable)",
    )
    ccm.add_argument(
        "--chips",
        type=cli_args.seat_chips,
        metavar="E,S,W,N",
        help="the chips each compass seat holds before the win (seed 004 付分): nobody pays "
        "more than he holds (付完為止), nobody wins on the discard of a player with none",
    )


def refused(ruleset, args) -> str:
    """A CCM option given with another rule book: what is wrong, or ""."""
    if args.also and not ruleset.table_rules.multiple_winners:
        return f"--also: {ruleset.title} has one winner on a discard (RULES.md A-W17)"
    if isinstance(ruleset, Ccm2012):
        if args.follow_tile or args.responsible:
            return (
                "--follow-tile and --responsible are WSOM's 跟張免責; CCM has none: the "
                "discarder pays, or the one --liable names (包付, seed 004 三十四)"
            )
        return ""
    for option, given in (("--doubled", args.doubled), ("--liable", args.liable)):
        if given:
            return f"{option} is CCM's (seed 004); {ruleset.title} has no such rule"
    if args.chips is not None:
        return f"--chips is CCM's (seed 004 付分); {ruleset.title} plays without chips"
    return ""


def contradiction(ruleset, win: Win) -> str:
    """What a declared win says against itself (mjtable score exits 2 on it), or "": the
    rule book's own check, and for CCM what the win's flags need of the hand."""
    problem = ruleset.contradiction(win)
    if problem or not isinstance(ruleset, Ccm2012):
        return problem
    if "kong_replacement" in win.flags and not any(m.kind == "kong" for m in win.melds):
        return "kong_replacement (槓上開花, RULES.md 4.9) needs a kong among the winner's sets"
    if "flower_replacement" in win.flags and not win.flowers:
        return (
            "flower_replacement (補花和牌, RULES.md 4.9) needs a flower among the winner's "
            "(--flowers)"
        )
    held = win.win_tile in win.concealed or any(
        win.win_tile in m.tiles for m in win.melds if m.kind == "chow"
    )
    if "last_copy" in win.flags and held:
        return (
            f"last_copy (絕張, RULES.md 4.8.8): the other three {tiles.NAMES[win.win_tile]} "
            "lie in an exposed pung, so the winner cannot hold one"
        )
    return ""


def robbing_as_discard(ruleset, obj):
    """A JSON hand that robs a kong, given as seed 004 counts it (「搶槓和牌同自摸」: self_drawn
    with the konger as discarder_seat_index), read as the konger's discard it pays like."""
    flags = obj.get("flags") if isinstance(obj, dict) else None
    if (
        isinstance(ruleset, Ccm2012)
        and isinstance(flags, list)
        and "robbing_kong" in flags
        and obj.get("self_drawn") is True
        and obj.get("discarder_seat_index") is not None
    ):
        return {**obj, "self_drawn": False}
    return obj


def blocked(ruleset: Ccm2012, args, discarder: int | None, dealer: int) -> str:
    """Seed 004 三十五 盤面無分者點炮，禁止和牌: the reason a discard win cannot be, or ""."""
    if args.chips is None or discarder is None:
        return ""
    if discard_win_blocked(ruleset.rates, _by_seat(args.chips, dealer), discarder):
        who = SEATS[seats.side_of(discarder, dealer)]
        return f"{who} has no chips left: 盤面無分者點炮，禁止和牌 (seed 004 三十五, RULES.md 4.11)"
    return ""


def settle(ruleset: Ccm2012, args, wins, scores, liable: int | None, dealer: int):
    """(what each hand seat gains or loses, the chips after per seat or None, the card's
    notes): 包付 on the first hand, the winners paid counter-clockwise from the discarder,
    倍打, and nobody paying past his chips."""
    rates, notes = ruleset.rates, []
    by_winner = {win.winner: (win, score) for win, score in zip(wins, scores, strict=True)}
    discarder = wins[0].discarder
    due = []
    for seat in by_winner if discarder is None else counter_clockwise_from(discarder, by_winner):
        win, score = by_winner[seat]
        if score.total is None or score.payments is None:
            continue
        payments = score.payments
        if liable is not None and win is wins[0]:
            robbed = "robbing_kong" in win.flags
            payments = win_payments(rates, score.total, win.winner, win.discarder, robbed, liable)
            who = SEATS[seats.side_of(liable, dealer)]
            notes.append(f"包付   {who} pays the whole win alone, 3T (seed 004 三十四)")
        due.append(doubled(rates, payments, args.doubled))
    if args.doubled:
        notes.append(f"倍打   every gain and loss x{rates.doubling_factor} (seed 004 三十)")
    for win in wins:
        notes += flower_kongs(ruleset, win)
    chips = None
    if args.chips is not None:
        chips, due = pay(rates, _by_seat(args.chips, dealer), due)
    return tuple(sum(d[s] for d in due) for s in range(4)), chips, notes


def flower_kongs(ruleset: Ccm2012, win: Win) -> list[str]:
    """A note for each flower kong (花槓, seed 004 十五; A-C3) among the winner's flowers."""
    scores = "they still" if ruleset.options["flower_kong_flowers_score"] else "they do not"
    return [
        f"花槓   {''.join(tiles.CHINESE[f] for f in sorted(group))}: paid on the spot, "
        f"{ruleset.rates.flower_kong_each} from each; {scores} score as flowers (A-C3)"
        for group in FLOWER_GROUPS
        if group <= set(win.flowers)
    ]


def named(ruleset: Ccm2012, win: Win, score: Score, chinese: dict[str, str]):
    """(the score, the Chinese names) with 4.8.9 named as the hand has it: 全大, 全中 or 全小,
    the seed's 「全大即三組789，或全中三組456，或全小三組123」 (A-C9)."""
    if not any(p.id == "4.8.9" for p in score.patterns):
        return score, chinese
    rank = next(
        (
            r
            for reading in readings(win, ruleset.options)
            for r in BIG_MIDDLE_SMALL
            if sum(c % 9 == r for c in reading.chows) >= 3
        ),
        None,
    )
    if rank is None:  # the scorer read it otherwise: keep its name
        return score, chinese
    english, name, chows = BIG_MIDDLE_SMALL[rank]
    patterns = tuple(
        Pattern(p.id, english, p.points) if p.id == "4.8.9" else p for p in score.patterns
    )
    return (
        Score(score.legal, patterns, score.total, score.payments, score.reason),
        {**chinese, "4.8.9": f"{name}（三組{chows}）"},
    )


def _by_seat(chips: tuple[int, ...], dealer: int) -> tuple[int, ...]:
    """Chips typed in compass order E S W N, in the hand's seat order (0 = the dealer)."""
    return tuple(chips[seats.side_of(seat, dealer)] for seat in range(4))
