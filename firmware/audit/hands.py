"""The hand records of a journal: every event by hand (jsonl), or WSOM hands as mjai.

`jsonl` is the referee's record (docs/events.md "Hand records"): one line per journal row, in
order, the hand row's deal (walls included) and every input, output and record event in the
project's schema with the number of the hand it belongs to. It holds the concealed tiles.

`mjai` is the riichi tools' log format (one JSON event a line: start_game, start_kyoku with
the deal, tsumo, dahai, chi, pon, daiminkan, ankan, kakan, hora, ryukyoku, end_kyoku,
end_game; tiles 1m..9m 1p..9p 1s..9s, E S W N, P F C, the honours' letters being the
project's own). Actors are the players (the seat each drew, East of the first hand 0), so
`oya` is the hand's dealer. `dora_marker` is the tile standing where riichi's would (the table
knows the wall), which WSOM ignores. What riichi's format cannot say is a note: a line of
mjai's type `none` (which Mortal's libriichi and riichienv read past) with an `mjtable_note`
naming what it carries: WSOM's rules beside riichi's, a win's patterns, an alert, penalty or
ruling (the event), penalty points (their deltas), a hand voided or unfinished (docs/events.md
"mjai"). CCM's hands (flowers, 144 tiles) are refused: mjai has no flower.
"""

from engine.seats import LETTERS
from engine.tiles import NAMES, kind_of
from engine.wall import Break, Wall
from firmware.audit import sheet as export_sheet
from firmware.journal.failures import JournalError
from firmware.journal.replay import replay
from firmware.journal.schema import canonical
from firmware.journal.store import Journal

FORMATS = ("jsonl", "mjai")
RIICHI_TILES = 136
RIICHI_DEAD_WALL = 14
DORA_PLACE = -6  # riichi's dora indicator: the top of the dead wall's 3rd stack from its tail
CALLS = {"chow": "chi", "pung": "pon", "kong": "daiminkan"}
FOLDED = ("WallBroken", "Dealt", "Rebased")  # said by start_kyoku
RULES_NOTE = (
    "WSOM 2006: no riichi, honba or dora (dora_marker is the tile at riichi's dora position, "
    "which WSOM ignores); wins scored by WSOM's patterns, penalties beside them"
)


class Inexpressible(Exception):
    """Hands the format cannot hold (CCM's flowers in mjai): one line saying so."""


def export(path, fmt: str) -> bytes:
    """The journal at `path` in `fmt` (FORMATS), as UTF-8 text of one JSON a line."""
    with Journal(path, readonly=True) as journal:
        if fmt == "jsonl":
            broken = journal.verify()
            if broken:
                raise JournalError(f"{journal.path}: hash chain broken at {broken}")
            lines = list(records(journal.rows()))
        else:
            result = replay(journal)
            rows = list(journal.rows())
            _, hands = export_sheet.settled(result, rows)
            players = export_sheet.players_of([r.event() for r in rows if r.kind == "device"])
            lines = mjai(hands, players)
    return "".join(canonical(line) + "\n" for line in lines).encode("utf-8")


def records(rows):
    """One line per row: {"seq", "hand", "kind", "deal"} for a hand row, {"seq", "hand",
    "kind", "event"} for the others (`hand` None before the first hand)."""
    hand = None
    for row in rows:
        if row.kind == "hand":
            hand = row.data()["hand_number"]
            yield {"seq": row.seq, "hand": hand, "kind": "hand", "deal": row.data()}
            continue
        try:
            event = row.event().to_json()
        except (ValueError, TypeError) as err:
            raise JournalError(f"row {row.seq}: not an event ({err})") from None
        yield {"seq": row.seq, "hand": hand, "kind": row.kind, "event": event}


def pai(tile: int) -> str:
    return NAMES[kind_of(tile)]


def mjai(hands: list[export_sheet.Hand], players: list[dict]) -> list[dict]:
    for hand in hands:
        deal = hand.rows[0].data()
        tiles = sum(len(wall) for wall in deal["walls"])
        if tiles != RIICHI_TILES:
            raise Inexpressible(
                f"hand {hand.played.number} is played with {tiles} tiles ({deal['ruleset']}, "
                f"flowers): mjai holds riichi's {RIICHI_TILES} only; export it as jsonl"
            )
    out: list[dict] = [
        {"type": "start_game", "names": [p["name"] for p in players]},
        note("rules", None, text=RULES_NOTE),
    ]
    for hand in hands:
        out += _kyoku(hand)
    return out + [{"type": "end_game"}]


def note(what: str, hand: int | None, **carried) -> dict:
    """A line riichi's tools read past (mjai's `none`) carrying what their format cannot say."""
    line = {"type": "none", "mjtable_note": what}
    return line | ({} if hand is None else {"hand": hand}) | carried


def dora_marker(deal: dict, broken: dict) -> str:
    """The tile standing at riichi's dora indicator when the wall is broken: the top of the
    third stack from the tail of the last 14 tiles, as riichi's tools expect a real tile."""
    wall = Wall(deal["walls"], Break(broken["seat"], broken["stacks"]), RIICHI_DEAD_WALL)
    return pai(wall.dead_wall_tiles[DORA_PLACE])


def _kyoku(hand: export_sheet.Hand) -> list[dict]:
    """The hand's mjai events, start_kyoku to end_kyoku (a note alone if never dealt). Notes
    wait for the next draw or the hand's end: riichi's tools take the line after a player's
    draw, or after a discard he may claim, as what he did, and a note there would say he did
    nothing (libriichi then refuses the discard that follows as not his to make)."""
    number = hand.played.number

    def actor(seat: int) -> int:
        return (hand.dealer + seat) % 4

    def by_actor(per_seat: list) -> list:
        return [per_seat[(player - hand.dealer) % 4] for player in range(4)]

    outputs = [o.to_json() for o in hand.played.outputs]
    dealt = next((o for o in outputs if o["type"] == "Dealt"), None)
    if dealt is None:
        return [note("voided", number, text="voided before the deal")]
    rebased = next((o for o in outputs if o["type"] == "Rebased"), None)  # 開錯門: the break made
    dealt = rebased or dealt
    broken = rebased or next(o for o in outputs if o["type"] == "WallBroken")
    tehais = by_actor([[pai(t) for t in tiles[:13]] for tiles in dealt["hands"]])
    out: list[dict] = [
        {
            "type": "start_kyoku",
            "bakaze": LETTERS[hand.passes // 4 % 4],
            "kyoku": hand.passes % 4 + 1,
            "honba": 0,
            "kyotaku": 0,
            "oya": hand.dealer,
            "dora_marker": dora_marker(hand.rows[0].data(), broken),
            "scores": list(hand.scores),
            "tehais": tehais,
        }
    ]
    scores, pungs = list(hand.scores), {}
    held: list[dict] = []  # notes until the next draw
    drawn: dict[int | None, int] = {}  # by actor (an event's seat may be None): his last draw
    for seat, tiles in enumerate(dealt["hands"]):
        for tile in tiles[13:]:  # East's 14th: his first draw in riichi's terms
            drawn[actor(seat)] = tile
            out.append({"type": "tsumo", "actor": actor(seat), "pai": pai(tile)})
    for o in outputs:
        kind, who = o["type"], None if o["seat"] is None else actor(o["seat"])
        if kind in FOLDED:
            continue
        if kind == "Drew":
            drawn[who] = o["tile"]
            out += held
            held.clear()
            out.append({"type": "tsumo", "actor": who, "pai": pai(o["tile"])})
        elif kind == "Discarded":
            tsumogiri = drawn.pop(who, None) == o["tile"]
            out.append(
                {"type": "dahai", "actor": who, "pai": pai(o["tile"]), "tsumogiri": tsumogiri}
            )
        elif kind == "Claimed":
            consumed = [pai(t) for t in o["tiles"] if t != o["claimed_tile"]]
            if o["claim"] == "pung":
                pungs[(who, kind_of(o["claimed_tile"]))] = set(o["tiles"])
            out.append(
                {
                    "type": CALLS[o["claim"]],
                    "actor": who,
                    "target": actor(o["from_seat"]),
                    "pai": pai(o["claimed_tile"]),
                    "consumed": consumed,
                }
            )
        elif kind == "Konged" and o["kind"] == "concealed":
            out.append({"type": "ankan", "actor": who, "consumed": [pai(t) for t in o["tiles"]]})
        elif kind == "Konged" and o["kind"] == "added":
            pung = pungs.get((who, kind_of(o["tiles"][0])), set())
            added = next(t for t in o["tiles"] if t not in pung)
            consumed = [pai(t) for t in o["tiles"] if t != added]
            out.append({"type": "kakan", "actor": who, "pai": pai(added), "consumed": consumed})
        elif kind == "Konged":
            continue  # melded: the Claimed kong before it was the daiminkan
        elif kind == "Won":
            deltas = by_actor(o["score"]["payments"])
            scores = [s + d for s, d in zip(scores, deltas, strict=True)]
            target = who if o["from_seat"] is None else actor(o["from_seat"])
            out.append(
                {
                    "type": "hora",
                    "actor": who,
                    "target": target,
                    "pai": pai(o["win_tile"]),
                    "deltas": deltas,
                    "scores": list(scores),
                }
            )
            patterns = [[p["name"], p["points"]] for p in o["score"].get("patterns", [])]
            held.append(note("patterns", number, patterns=patterns))
        elif kind == "ExhaustiveDraw":
            out.append(
                {"type": "ryukyoku", "reason": "fanpai", "deltas": [0] * 4, "scores": scores}
            )
        else:  # alerts, penalties, rulings: riichi's format has no word for them
            held.append(note("event", number, event=o))
    out += held
    record = hand.record
    if record is not None and list(record.totals) != scores:
        deltas = [t - s for t, s in zip(record.totals, scores, strict=True)]
        out.append(note("settlement", number, deltas=deltas, scores=list(record.totals)))
    if hand.played.voided:
        out.append(note("voided", number, text="voided: dealt again"))
    elif not hand.played.table.ended:
        out.append(note("unfinished", number))
    return out + [{"type": "end_kyoku"}]
