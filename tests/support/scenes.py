"""Tables to look at, for the display's tests (issue 6, 16, 18): a busy WSOM and CCM hand with a
wrong call awaiting the referee (`wsom_scene`, `ccm_scene`), a ready hand with its waits, a CCM
win; the TableView the service would hold for each (`view_of`); and what a public screen must
never show (`leaks`, `concealed`, `hidden_fields`)."""

import json

from engine import events as ev
from engine import tiles
from engine.seats import LETTERS
from engine.session import Session
from firmware.display.state import TableView, waits_json
from firmware.table.venue_notes import VenueNotes
from tests.support.followkit import turn
from tests.support.tablekit import CCM_DICE, WSOM_DICE, E, Game, N, S, W, of, stacked_walls


def kong_and_pung(wsom) -> Game:
    """A WSOM hand's opening: East konges four 7p (concealed) and discards 9s, South pungs it."""
    game = Game(wsom, WSOM_DICE, hands=["7p 7p 7p 7p 9s", "9s 9s N", "", ""], replacements=["C"])
    game.start()
    game.kong(E, "7p 7p 7p 7p")
    game.draw(E)
    game.discard(E, "9s")
    game.claim(S, "pung", "9s 9s")
    game.close()
    return game


def wsom_scene(wsom) -> Game:
    """East konges four 7p (concealed) and discards 9s; South pungs it and discards N; West's
    empty call is penalised with two penalty tiles (RULES.md 3.11, 3.9); play goes on to the
    13th discard, then a wrong call of two of a seat's tiles awaits the referee's ruling."""
    game = kong_and_pung(wsom)
    game.discard(S, "N")
    empty = game.refused(ev.ClaimDeclared, W, claim="pung", tiles=())
    game.apply(ev.Ruling, None, alert=empty.id, apply=True)
    game.close()
    game.play_through(until=lambda g: len(g.table.discards) >= 13)
    _wrong_call(game)
    return game


def flower_and_pung(ccm) -> Game:
    """A CCM hand's opening: South exposes a flower at the deal and draws its replacement
    (RULES.md 4.5); East discards 5s, North pungs it."""
    game = Game(ccm, CCM_DICE, hands=["5s", "1f", "", "5s 5s"], replacements=["C"])
    game.start()
    game.ok(ev.FlowerExposed, S, tile=game.own(S, "1f")[0])
    game.draw(S)
    game.discard(E, "5s")
    game.claim(N, "pung", "5s 5s")
    game.close()
    return game


def ccm_scene(ccm) -> Game:
    """South exposes a flower at the deal and draws its replacement (RULES.md 4.5); East
    discards, North pungs; play goes on, and a wrong call awaits the referee's ruling."""
    game = flower_and_pung(ccm)
    game.play_through(until=lambda g: len(g.table.discards) >= 9)
    _wrong_call(game)
    return game


def _wrong_call(game: Game) -> None:
    """The seat to move discards; the seat opposite calls pung with two tiles of different
    kinds: a wrong call, whose proposed penalty (WSOM) names those still concealed tiles."""
    table = game.table
    seat = table.turn
    game.ok(ev.TileDiscarded, seat, tile=table.hands[seat][-1])
    caller = (seat + 2) % 4
    first = table.hands[caller][0]
    other = next(t for t in table.hands[caller] if tiles.kind_of(t) != tiles.kind_of(first))
    alert = game.refused(ev.ClaimDeclared, caller, claim="pung", tiles=(first, other))
    assert alert.penalty["offence"] == "wrong_call"
    game.close()


def view_of(game: Game, now: float | None = None) -> TableView:
    """What the service would hold for this game: alerts, a fault, the shuffler, the log."""
    session = Session(game.ruleset, hand_number=1, scores=[120, -40, 35, -115])
    applied = {p.alert for p in of(game.log, ev.PenaltyApplied)}
    broken = of(game.log, ev.WallBroken)[0]
    return TableView(
        table_name="T07",
        session=session,
        table=game.table,
        now=game.clock if now is None else now,
        alerts=[
            dict(a.to_json(), state="applied" if a.id in applied else "open")
            for a in of(game.log, ev.Alert)
        ],
        faults=[
            {
                "id": 1,
                "t": 3.0,
                "device": "reader N",
                "kind": "unplugged",
                "message": "North's rack reader stopped answering",
                "advice": "check its USB cable",
                "cleared": False,
            }
        ],
        log=[e.to_json() for e in game.log],
        shuffler={
            "state": "shuffling",
            "set_in_play": "A",
            "set_ready": False,
            "counts": {"lane 1": 34, "lane 2": 33},
            "fault": None,
        },
        dice={
            "dice": list(broken.dice),
            "source": "electronic",
            "break": {"seat": LETTERS[broken.seat], "stacks": broken.stacks},
        },
    )


def ready_south(wsom) -> Game:
    """South is dealt 123m 456p 789s 11s 23p: ready on 1p, 4p, 7p (RULES.md 1.1); East holds
    a 4p and a 9m, and South's first draw is a 1p."""
    game = Game(wsom, WSOM_DICE, hands=["4p 9m", "123m 456p 789s 11s 23p", "", ""], draws=["1p"])
    game.start()
    return game


def with_waits(game: Game, before=None) -> TableView:
    view = view_of(game)
    view.waits, view.drawn_against = waits_json(game.table, before)
    return view


def ccm_win(ccm, session: Session | None = None) -> tuple[Session, Game]:
    """Hand 1 (or `session`'s next): South exposes a flower at the deal (RULES.md 4.5), pungs
    East's 7s, then wins on East's 5s: 對對和 20 + 花牌 2 + 單張和牌 4, paid by the discarder
    (RULES.md 4.10)."""
    session = session or Session(ccm)
    game = Game(ccm, CCM_DICE)
    hands = ["7s 5s", "1f 1m 1m 1m 9p 9p 9p E E E 7s 7s 5s", "", ""]
    game.table = session.new_table(stacked_walls(ccm, CCM_DICE, hands, replacements=["2s"]))
    game.start()
    game.ok(ev.FlowerExposed, S, tile=game.own(S, "1f")[0])
    game.draw(S)
    game.discard(E, "7s")
    game.claim(S, "pung", "7s 7s")
    game.close()
    game.discard(S, "2s")
    game.close()
    turn(game, W)
    turn(game, N)
    game.draw(E)
    game.discard(E, "5s")
    game.ok(ev.ClaimDeclared, S, claim="win")
    game.close()
    return session, game


def view_of_win(session: Session, game: Game | None, venue=None) -> TableView:
    """What the service holds at the hand's end (no table: restarted between hands)."""
    table = None if game is None else game.table
    return TableView("T07", session, table, 100.0, venue=venue or VenueNotes())


def concealed_tiles(table) -> set[int]:
    """Every tile no player may see on a public screen: the hands (less the penalty tiles,
    which lie face up, RULES.md 3.9), the concealed kongs, the walls."""
    hidden = {t for hand in table.hands for t in hand}
    hidden -= {t for held in table.referee.penalty_tiles for t in held}
    hidden |= {t for melds in table.melds for m in melds if m.concealed for t in m.tiles}
    hidden |= {t for side in table.wall.remaining() for t in side if t is not None}
    return hidden


def public_kinds(table) -> set[str]:
    """Kinds a public screen rightly shows: rivers, exposed melds, flowers, penalty tiles."""
    shown = [t for river in table.rivers for t in river]
    shown += [t for melds in table.melds for m in melds if not m.concealed for t in m.tiles]
    shown += [t for flowers in table.flowers for t in flowers]
    shown += [t for held in table.referee.penalty_tiles for t in held]
    return {tiles.NAMES[tiles.kind_of(t)] for t in shown}


TILE_FIELDS = {"tile", "tiles", "hand", "hands", "claimed_tile", "win_tile", "penalty_tiles"}


def tile_ids(node, key=None) -> set[int]:
    """Physical ids anywhere in a document: tile objects {"id", "tile"} and the tile fields
    of events (alert and fault ids are not tiles)."""
    if isinstance(node, dict):
        found = {node["id"]} if "tile" in node and isinstance(node.get("id"), int) else set()
        for name, value in node.items():
            found |= tile_ids(value, name)
        return found
    if isinstance(node, list):
        return set().union(*(tile_ids(value, key) for value in node))
    return {node} if key in TILE_FIELDS and type(node) is int else set()


def leaks(document: dict, table) -> tuple[set[int], set[str]]:
    """Concealed ids found in the document, and concealed kinds named by its tile objects."""
    text = json.dumps(document)
    hidden = concealed_tiles(table)
    kinds = {tiles.NAMES[tiles.kind_of(t)] for t in hidden} - public_kinds(table)
    return tile_ids(document) & hidden, {k for k in kinds if f'"tile": "{k}"' in text}


def concealed(referee_state: dict) -> set[int]:
    """The tiles no player may see: the hands (less the penalty tiles, which lie face up,
    RULES.md 3.9) and the concealed kongs; once a hand is won, not the winner's, laid out in
    the result (issue 16)."""
    hidden = set()
    for seat in referee_state["seats"]:
        hidden |= {t["id"] for t in seat.get("hand", ())}
        hidden -= {t["id"] for t in seat["penalty_tiles"]}
        hidden |= {t["id"] for m in seat["melds"] if m["concealed"] for t in m["tiles"]}
    for win in (referee_state.get("result") or {}).get("wins", ()):
        hand = win["hand"]
        hidden -= {t["id"] for t in hand["concealed"]} | {win["tile"]["id"]}
        hidden -= {t["id"] for m in hand["melds"] for t in m["tiles"]}
    return hidden


def hidden_fields(document: dict) -> list[str]:
    """What in a public document or update would show a concealed tile, named."""
    found = [f"{s['seat']}'s hand" for s in document.get("seats", ()) if "hand" in s]
    found += [
        f"{s['seat']}'s concealed kong"
        for s in document.get("seats", ())
        for m in s["melds"]
        if m["concealed"] and any("id" in t for t in m["tiles"])
    ]
    for event in document.get("log", []) + document.get("events", []):
        kind = event.get("type")
        if (
            (kind in ("Drew", "Fault") and "tile" in event)
            or (kind == "Dealt" and "hands" in event)
            or (kind == "Konged" and event.get("kind") == "concealed" and "tiles" in event)
        ):
            found.append(f"{kind} at {event['t']}")
    return found
