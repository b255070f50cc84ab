"""包付: who pays the whole of a win alone (RULES.md 4.12, A-C8, A-C16).

The session keeps the hand's claims in order and, at a win, asks `liable_player`; the answer
goes to settlement.win_payments(liable=...), where the liable player pays 3T (seed §34 "一家
付三倍分", also on a discard win, where the discarder would otherwise pay 2T).
"""

from typing import NamedTuple

from engine import tiles


class Claim(NamedTuple):
    """A discard taken by a chow, a pung or an exposed kong, in the order of the hand."""

    claimer: int
    feeder: int
    tiles: tuple[int, ...]


def streak_pairs(claims: list[Claim], streak: int = 3) -> list[tuple[int, int]]:
    """(claimer, feeder) pairs bound by three consecutive claims, in the order they formed.

    Seed §34: a player claimed (chow or pung) three times in a row from the same player, or a
    player was punged three times in a row by the same player. A-C16: counted per ordered
    pair from the start of the hand; the claimer's claim from another feeder breaks the first
    run, another player's pung from the feeder the second (a chow is not a pung, so it neither
    counts there nor breaks it). Exposed kongs count as pungs. Once bound, a pair stays bound
    for the hand.
    """
    by_claimer: dict[int, tuple[int, int]] = {}  # claimer -> (feeder, run)
    punged: dict[int, tuple[int, int]] = {}  # feeder -> (claimer, run of pungs)
    bound = []
    for claim in claims:
        c, f = claim.claimer, claim.feeder
        run = by_claimer[c][1] + 1 if by_claimer.get(c, (None,))[0] == f else 1
        by_claimer[c] = (f, run)
        if len(set(claim.tiles)) == 1:
            pungs = punged[f][1] + 1 if punged.get(f, (None,))[0] == c else 1
            punged[f] = (c, pungs)
            run = max(run, pungs)
        if run >= streak and (c, f) not in bound:
            bound.append((c, f))
    return bound


def flush_display(claims: list[Claim], player: int) -> bool:
    """Seed §34 險牌 (1): the player's claims are three or more, all of one suit."""
    suits = {
        tiles.suit(t) if tiles.is_suited(t) else None
        for claim in claims
        if claim.claimer == player
        for t in claim.tiles
    }
    return (
        len([c for c in claims if c.claimer == player]) >= 3
        and len(suits) == 1
        and None not in suits
    )


def hung_zone(tile: int) -> frozenset[int]:
    """Seed §34 險牌 (2): the tiles related to the single tile of a 全求獨釣 hand: the tile and
    two either side in its suit; every wind for a wind; every dragon for a dragon."""
    if tiles.is_wind(tile):
        return frozenset(range(tiles.EAST, tiles.NORTH + 1))
    if tiles.is_dragon(tile):
        return frozenset((tiles.RED, tiles.GREEN, tiles.WHITE))
    start = 9 * tiles.suit(tile)
    return frozenset(t for t in range(tile - 2, tile + 3) if start <= t < start + 9)


def liable_player(
    claims: list[Claim],
    winner: int,
    discarder: int | None,
    win_tile: int,
    full_flush: bool,
    hung_tile: int | None,
    streak: int = 3,
) -> int | None:
    """Who pays for this win alone, or None (RULES.md 4.12), first rule that applies:

    1. three consecutive claims: the winner's partner in the first bound pair, whichever of
       the two he is (mutual liability), on any win, self-draw included;
    2. a flush display (three claims of one suit): the feeder of a later claim that kept the
       display pays for the claimer's win, whatever it is ("餘下手牌不需亮牌");
    3. the same display: whoever discards into a win that is a full flush (4.8.10);
    4. 全求獨釣: whoever discards a tile of the zone of the winner's hung tile; `hung_tile` is
       the single tile he kept when his fourth set was claimed, as the table followed it up
       to this discard: None if he has changed it since (「掛牌方換牌後，點炮方不再包牌」) or
       his four sets are not all claimed (fans.all_melded).
    """
    for claimer, feeder in streak_pairs(claims, streak):
        if winner in (claimer, feeder):
            return feeder if winner == claimer else claimer
    own = [c for c in claims if c.claimer == winner]
    if flush_display(own[:3], winner):
        suit = tiles.suit(own[0].tiles[0])
        kept = [
            c for c in own[3:] if all(tiles.is_suited(t) and tiles.suit(t) == suit for t in c.tiles)
        ]
        if kept:
            return kept[0].feeder
        if full_flush and discarder is not None:
            return discarder
    if discarder is not None and hung_tile is not None and win_tile in hung_zone(hung_tile):
        return discarder
    return None
