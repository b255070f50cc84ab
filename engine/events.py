"""Every engine input and output as a frozen dataclass with one JSON form.

The journal, the display, the uplink and the exporters all use this schema. Every event has
`t` (seconds on the service's monotonic clock; the engine never reads a clock) and `seat`
(0..3 = E S W N of the hand, or None). Tiles are physical tile ids (engine/tiles.py).
Fields named in an event's `HIDDEN` are concealed information: `public_json()` leaves them
out, so a public view can never show them. Where only part of a field is concealed, the
event's own `public_json()` says which (a kong declared or made concealed, an alert's proposed
penalty tiles): players' hidden tiles never reach a public view, and this module is where
that rule is kept. Fields named in its `ADDED` came after schema 3:
a row written before lacks them and reads with their defaults (docs/events.md).
"""

from dataclasses import dataclass, field, fields
from typing import Any, ClassVar, TypeVar, dataclass_transform

_TYPES: dict[str, type["Event"]] = {}
_E = TypeVar("_E", bound="Event")


@dataclass_transform(frozen_default=True)
def _event(cls: type[_E]) -> type[_E]:
    """Register an event class under its name for from_json."""
    cls = dataclass(frozen=True)(cls)
    _TYPES[cls.__name__] = cls
    return cls


BACK = {"back": True}  # a concealed tile whose count is public: its back, never its face


def public_penalty(penalty: dict) -> dict:
    """A proposed penalty names the tiles that would become penalty tiles; until applied
    they are still concealed, so the public sees only how many."""
    return dict(penalty, penalty_tiles=[BACK] * len(penalty.get("penalty_tiles", ())))


class EventError(ValueError):
    """A JSON event that does not match the schema."""


def event_type(name: str) -> type["Event"] | None:
    """The event class a JSON row's "type" names, or None (a type that is not a name too)."""
    return _TYPES.get(name) if isinstance(name, str) else None


@dataclass(frozen=True)
class Event:
    t: float
    seat: int | None
    HIDDEN: ClassVar[tuple[str, ...]] = ()
    ADDED: ClassVar[tuple[str, ...]] = ()

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"type": type(self).__name__}
        for f in fields(self):
            value = getattr(self, f.name)
            out[f.name] = _lists(value)
        return out

    def public_json(self) -> dict[str, Any]:
        out = self.to_json()
        for name in self.HIDDEN:
            out.pop(name, None)
        return out


def from_json(obj: dict[str, Any]) -> Event:
    """The event a JSON object describes (as written by to_json)."""
    kind = obj.get("type") if isinstance(obj, dict) else None
    if not isinstance(kind, str) or kind not in _TYPES:
        raise EventError(
            f"unknown event type {obj.get('type') if isinstance(obj, dict) else obj!r}"
        )
    cls = _TYPES[obj["type"]]
    names = {f.name for f in fields(cls)}
    missing = names - obj.keys() - set(cls.ADDED)
    if missing:
        raise EventError(f"{obj['type']} lacks {', '.join(sorted(missing))}")
    return cls(**{k: _tuples(v) for k, v in obj.items() if k in names})


def _tuples(value: Any) -> Any:
    return tuple(_tuples(v) for v in value) if isinstance(value, list) else value


def _lists(value: Any) -> Any:
    """A field's JSON form: tuples at any depth as lists (a reveal's walls are three deep)."""
    return [_lists(v) for v in value] if isinstance(value, tuple) else value


# Inputs: what the players did, as the table's sensors, buttons and clock report it.


@_event
class DiceRolled(Event):
    dice: tuple[int, ...] = ()
    source: str = "electronic"  # "physical", or "referee": thrown for East (seed 000 開門 6)


@_event
class TileDrawn(Event):
    """A tile taken from the wall; `tile` is the id the sensors saw, None if unknown."""

    tile: int | None = None
    HIDDEN = ("tile",)


@_event
class TileDiscarded(Event):
    tile: int = -1


@_event
class ClaimDeclared(Event):
    """A call on the latest discard (or, for "win", on a tile added to a kong).

    `tiles` are the claimer's own tiles for the meld (none for a win). `shown`: the sensed
    table saw them laid out when the call was made (a chow shown ends the others' pung and
    kong rights, seed 000 鳴牌優先規條 4; a wrong win with the hand shown is 錯和, not 空和).
    """

    claim: str = ""  # chow, pung, kong, win
    tiles: tuple[int, ...] = ()
    shown: bool = False
    ADDED = ("shown",)


@_event
class ClaimWindowClosed(Event):
    """The time for calls on the latest discard (or added kong) is over."""


@_event
class KongDeclared(Event):
    """A kong on one's own turn: four concealed tiles, or one added to an exposed pung."""

    tiles: tuple[int, ...] = ()

    def public_json(self) -> dict:
        out = super().public_json()
        if len(self.tiles) != 1:  # one: the tile added to an exposed pung, which is public
            out.pop("tiles")
        return out


@_event
class FlowerExposed(Event):
    tile: int = -1


@_event
class WallTouched(Event):
    """The next player touched the wall head while calls on the discard were still open: the
    referee saw it, or the sensed table saw him take it up before another's call took the
    discard (seed 000 摸打規條 2, 5)."""


@_event
class WinDeclared(Event):
    """A win on one's own draw (self-draw). `shown`: the player had laid his hand out when he
    declared it (a wrong win then is 錯和, else 空和, seed 000 錯鳴 6, 7). `mixed_in`: the rack
    reader saw the drawn tile join his hand before he declared it (seed 004 單放; false: not
    seen, the referee rules where it matters)."""

    shown: bool = False
    mixed_in: bool = False
    ADDED = ("shown", "mixed_in")


@_event
class GameTimeUp(Event):
    """The game's time ran out (CCM, seed 004 第五條 滿足規定時間後的最後一次成牌或荒牌，比賽結束):
    the hand in play is the game's last, whatever its result; given by the game's clock
    (firmware/table/game_clock.py) the moment it runs out, or as a hand begins after it."""


# Referee inputs: valid in any state, from the referee's screen (credentials checked there).


@_event
class ClocksPaused(Event):
    """The referee stops every clock (暫停); the time until ClocksResumed never counts."""


@_event
class ClocksResumed(Event):
    pass


@_event
class Ruling(Event):
    """The referee applies or waives the penalty an alert proposed; `tiles`, the penalty tiles
    he names instead of the table's proposal (seed 000 空鳴: 裁判有權指定), none for its own.
    Where the rule book lets him give the points elsewhere (seed 004 §38 一 6 罰分可以判給明顯
    虧損方 ... 或處理成盤外的死分): `to`, the seat of the disadvantaged player who is paid them
    all, or `dead`, paid to nobody; neither: as the rule book's config says. `reason`: why, in
    the referee's words (the desk requires one, issue 16; older journals have none). `hand`:
    the number of the hand it rules on, when that hand ended and the next was dealt before
    the ruling (issue 36: a ruling outlives its hand); None: the hand on the table."""

    alert: int = 0
    apply: bool = True
    tiles: tuple[int, ...] = ()
    to: int | None = None
    dead: bool = False
    reason: str = ""
    hand: int | None = None
    ADDED = ("tiles", "to", "dead", "reason", "hand")


@_event
class PenaltyRevoked(Event):
    """The referee revokes the penalty applied under `alert` of the hand on the table (in
    play, or the last one finished while its row can be settled again), for `reason`;
    `hand` as a Ruling's: the hand before, the next one dealt (issue 36)."""

    alert: int = 0
    reason: str = ""
    hand: int | None = None
    ADDED = ("hand",)


@_event
class WaiveUndone(Event):
    """The referee takes back his Waive of the penalty proposed under `alert` (issue 36 item
    2: a mistake undone until the sheet is signed over its hand), for `reason`: the penalty
    awaits a ruling again, under the same alert, as first proposed (a waived report is no
    offence, so its count is the one it had). `hand` as a Ruling's."""

    alert: int = 0
    reason: str = ""
    hand: int | None = None


@_event
class ViolationReported(Event):
    """An offence the sensors cannot see (naming a discard aloud, a 暫停, ...), seen by the
    referee: `seconds` for a timed one, `tiles` those exposed; `between_hands` when it was
    entered after the hand before had ended and is carried into this one."""

    offence: str = ""
    seconds: int = 0
    tiles: tuple[int, ...] = ()
    between_hands: bool = False
    ADDED = ("seconds", "tiles", "between_hands")


@_event
class TableAccepted(Event):
    """The referee accepts the table as it lies (issue 20): the hand goes on from where the
    tracking has each tile, by seat, not from its own idea of them. `seat` moved last: he is
    to discard, or (`discarded`) his discard, the last of his river, is open to calls; unless
    a seat holds a tile more, who is to discard."""

    wall: tuple[int, ...] = ()  # the tiles still standing in the walls
    hands: tuple[tuple[int, ...], ...] = ()
    rivers: tuple[tuple[int, ...], ...] = ()  # each in the order laid
    melds: tuple[tuple[int, ...], ...] = ()  # each meld area: its sets and flowers
    discarded: bool = False
    HIDDEN = ("wall", "hands", "melds")


@_event
class DealerKept(Event):
    """The referee rules that `seat`, who began the deal though not East, keeps the deal as
    East of this hand (seed 000 配牌時的犯規 3 做錯莊, its third case: found only after the
    right East had taken his 12): he discards first, the seat winds are counted from him,
    and the next hand passes from the right East as usual."""


@_event
class BreakMade(Event):
    """The deal was taken whole from a break other than the dice's, and that break stands
    (seed 000 配牌時的犯規 2 開錯門: once all four have taken their first 4 tiles): the hand
    goes on from it, its head, kong tail and 14 dead tiles counted from it (開門 3, 王牌與海底牌
    1). `seat` is the wall counted from (the dice's 開門人) and `stacks` the tail stacks the
    break made leaves before the head, as WallBroken's. The interpreter gives it when it sees
    the break stand; the referee may enter it at the desk."""

    stacks: int = 0


INPUTS = (
    DiceRolled,
    TileDrawn,
    TileDiscarded,
    ClaimDeclared,
    ClaimWindowClosed,
    KongDeclared,
    FlowerExposed,
    WinDeclared,
    ClocksPaused,
    ClocksResumed,
    Ruling,
    ViolationReported,
    TableAccepted,
    WallTouched,
    DealerKept,
    PenaltyRevoked,
    BreakMade,
    GameTimeUp,
    WaiveUndone,
)


# Outputs: what the engine decided.


@_event
class WallBroken(Event):
    """The break (RULES.md 3.4 / 4.4): whose wall, and how many stacks lie on the tail side."""

    stacks: int = 0
    dice: tuple[int, ...] = ()


@_event
class Dealt(Event):
    hands: tuple[tuple[int, ...], ...] = ()
    HIDDEN = ("hands",)


@_event
class Rebased(Event):
    """The wall re-based on the break made (BreakMade): whose wall and how many tail stacks,
    as WallBroken says; `hands` are those its deal gave, the players' tiles from now on."""

    stacks: int = 0
    hands: tuple[tuple[int, ...], ...] = ()
    HIDDEN = ("hands",)


@_event
class Drew(Event):
    tile: int = -1
    replacement: bool = False
    HIDDEN = ("tile",)


@_event
class Discarded(Event):
    tile: int = -1


@_event
class Claimed(Event):
    """A granted call: the meld now exposed, with the claimed tile and whose it was."""

    claim: str = ""
    tiles: tuple[int, ...] = ()
    claimed_tile: int = -1
    from_seat: int = -1


@_event
class Konged(Event):
    """A kong made. A concealed kong lies face down: its tiles are not public."""

    kind: str = ""  # concealed, added, melded
    tiles: tuple[int, ...] = ()

    def public_json(self) -> dict:
        out = super().public_json()
        if self.kind == "concealed":
            out.pop("tiles")
        return out


@_event
class FlowerReplaced(Event):
    tile: int = -1


@_event
class Won(Event):
    """A verified win and its score (the ruleset's Score.to_json())."""

    from_seat: int | None = None
    win_tile: int = -1
    flags: tuple[str, ...] = ()
    score: dict = field(default_factory=dict)


@_event
class WinRescored(Event):
    """A win scored again after the hand's end by the referee's ruling on `alert`: the
    discarder claimed the follow-tile exemption (seed 000 和牌的計分 8), or a self-drawn Nine
    Gates's drawn tile was mixed in (九蓮寶燈自摸規條); `responsible` pays (None: nobody, each
    pays)."""

    responsible: int | None = None
    score: dict = field(default_factory=dict)
    alert: int = 0


@_event
class GameEnded(Event):
    """The game ended in the middle of the hand (CCM, seed 004 第一條三十一 第三種是兩家無分即告
    結束): a payment on the spot (a kong's, 十五, 三十六) left two players without chips; the
    hand ends there, neither won nor drawn. `reason`, the game's end in words."""

    reason: str = ""


@_event
class ExhaustiveDraw(Event):
    """The live wall ran out with no winner (荒牌)."""


@_event
class Alert(Event):
    """Something the referee should know: an input that broke a rule, left unapplied, with
    the penalty the rule book proposes (Penalty.to_json()) when there is one."""

    rule: str = ""  # RULES.md section, e.g. "3.7"
    message: str = ""
    needs_ruling: bool = False
    id: int = 0  # numbered within the hand, for the Ruling
    penalty: dict | None = None

    def public_json(self) -> dict:
        """The proposed penalty's tiles as backs. The message is the referee's, written for
        him: a public view puts its own words in its place (firmware/texts/public.py)."""
        out = super().public_json()
        if self.penalty:
            out["penalty"] = public_penalty(self.penalty)
        return out


@_event
class HandRealigned(Event):
    """The hand follows the table as it lies (TableAccepted): `moved` tiles were not where
    the hand had them; `seat` is to move, in `state` (discard, or claim_window on his discard)."""

    state: str = ""
    moved: int = 0


@_event
class PenaltyApplied(Event):
    """A penalty now in force: points, what the offender lost, his new penalty tiles. The
    points go to each of the others (`paid_to_others`), all to the seat `to` (the player the
    offence disadvantaged, seed 004 §38 一 6), or to nobody (dead points)."""

    offence: str = ""
    rule: str = ""
    points: int = 0
    paid_to_others: bool = False
    effect: str = ""
    penalty_tiles: tuple[int, ...] = ()
    alert: int = 0
    to: int | None = None
    ADDED = ("to",)


@_event
class PenaltyWaived(Event):
    alert: int = 0


@_event
class PenaltyReopened(Event):
    """A waive undone (WaiveUndone): the penalty under `alert` awaits a ruling again."""

    alert: int = 0
    reason: str = ""


@_event
class PenaltyLifted(Event):
    """A penalty revoked (PenaltyRevoked): its points leave the hand's settlement; the right to
    win or to call it took is given back (unless another penalty in force takes it too); the
    `freed` tiles, its penalty tiles still held, are ordinary tiles again."""

    alert: int = 0
    offence: str = ""
    points: int = 0
    freed: tuple[int, ...] = ()
    reason: str = ""


RULED = (PenaltyApplied, PenaltyWaived, WinRescored)  # the outputs that answer a ruling's alert
# the outputs that change a finished hand's settlement (a penalty applied once it is over: a
# ruling made later, or an offence of its win's confirmation, seed 004 第三章 第二條 七(二))
RESETTLED = (WinRescored, PenaltyLifted, PenaltyApplied)


# Records: what the machinery and the referee report beside the hand, journaled as 'device'
# rows; a replay reads them but never applies or re-creates them. Field names are those that
# version 2 journals wrote (docs/events.md), so old rows read without renaming.


@_event
class Fault(Event):
    """A device or the tile tracking needs a person: what happened and what to do.

    `id` numbers faults over the service's life, for the referee's acknowledgement; `cleared`
    marks the record that ends one. `tile` may be a concealed tile: only the referee sees it.
    """

    device: str = ""  # shuffler, reader, tracking, dice
    kind: str = ""
    message: str = ""
    advice: str = ""
    id: int = 0
    cleared: bool = False
    tile: int | None = None
    HIDDEN = ("tile",)


@_event
class Acknowledged(Event):
    """The referee has seen a fault (its `id`) or an alert of the hand (its `id`): one of two."""

    fault: int | None = None
    alert: int | None = None


@_event
class TrackingCorrected(Event):
    """The referee puts a tile where it really is; it may be a concealed tile."""

    tile: int
    zone: str
    HIDDEN = ("tile",)


@_event
class HandVoided(Event):
    """The hand does not count (the referee's word, or a restart mid-hand): it is dealt again."""

    hand_number: int
    reason: str


@_event
class ScoreConfirmed(Event):
    """The referee confirms one row of the score sheet (HandRecord.to_json())."""

    hand: int
    row: dict[str, Any]


@_event
class SheetSigned(Event):
    """The referee signs the sheet up to `hand`; the journal's head then covers all before."""

    hand: int
    referee: str
    rows: tuple[dict[str, Any], ...]
    journal_head: str


@_event
class PlayersEntered(Event):
    """The session's players entered at the desk (issue 16): four {"name", "federation_id"}
    by person (P1..P4); the latest of these and the venue's start_session stands."""

    players: tuple[dict[str, Any], ...]


@_event
class PlayerSigned(Event):
    """A player signs the score sheet up to `hand` (issue 16): `person` 0..3, `via` "button"
    (his side's 和 button) or "screen" (a tap on the desk); the journal's head then, and the
    time of day (UTC, ISO 8601), for the signature line."""

    person: int
    hand: int
    via: str
    journal_head: str
    wall_time: str


@_event
class SignatureWithdrawn(Event):
    """A player's signature withdrawn (issue 36 item 2: tapped for the wrong person): the
    latest PlayerSigned of `person`, up to `hand`, for `reason`; the RefereeActed after it
    says who. Refused once the referee has signed the sheet over it."""

    person: int
    hand: int
    reason: str


@_event
class VenueCommand(Event):
    """A command from the venue's bus (docs/uplink.md), taken or `refused` (why), without its
    signature; `id` and `command` are None and "" when the payload had none to read."""

    id: str | None = None
    command: str = ""
    args: dict[str, Any] = field(default_factory=dict)
    refused: str | None = None


@_event
class HallResumed(Event):
    """The table's referee lifted the venue's pause at his table (the venue's desk away, or
    his ruling), so that no table waits on a venue it cannot hear; or the break between CCM
    games (firmware/table/game_clock.py), so that the next game begins."""


@_event
class WallSealed(Event):
    """The walls' order committed before the dice (issue 17, docs/fairness.md): `digest` is
    SHA-256 over the order and a secret nonce (firmware/journal/seals.py). The nonce and the order
    stay in the journal, hidden from every public view, until WallRevealed shows them."""

    digest: str = ""
    nonce: str = ""
    tile_set: str = ""
    walls: tuple = ()  # each lane in wall order, each tile (kind name, tag hex, tile id)
    HIDDEN = ("nonce", "walls")


@_event
class WallRevealed(Event):
    """The sealed walls shown after their hand (or its void): anyone can recompute the seal's
    `digest` from `nonce`, `tile_set` and `walls` (firmware/journal/seals.py)."""

    digest: str = ""
    nonce: str = ""
    tile_set: str = ""
    walls: tuple = ()


@_event
class HeadSigned(Event):
    """The table's device key signs the journal's head (issue 17; issue 35: after a hand's
    end or void, after each sign-off record, when the session opens and closes): `signature`
    (hex, Ed25519) over the context firmware/journal/signing.py makes of `what` was signed,
    the `session` id, `hand` and `head` (before issue 35: over the ASCII of `head` alone, and
    `what` is ""); `public_key` the raw key in hex."""

    hand: int = 0
    head: str = ""
    signature: str = ""
    public_key: str = ""
    what: str = ""
    session: str = ""
    ADDED = ("what", "session")


@_event
class SessionOpened(Event):
    """The session's signed header (issue 35), the journal's first row, and again each time
    the table starts on it: which `table` of which `venue` ("" when it has none), the
    journal's `session` id, the UTC `date`, the `firmware` version, SHA-256 of the `rules`
    book and of the `profile` file, the device key's `key` fingerprint, the `dice` the
    profile has (the venue's rule: "electronic" or "physical"), and the digest of the secret
    the session's seat drawings come from (`seats_digest`; the secret itself, `seats_secret`,
    hidden from the public views until the session closes). `again`: the table started on a
    journal already begun (a restart), not the journal's first row."""

    table: str = ""
    venue: str = ""
    session: str = ""
    date: str = ""
    firmware: str = ""
    rules: str = ""
    profile: str = ""
    key: str = ""
    dice: str = ""
    seats_digest: str = ""
    seats_secret: str = ""
    again: bool = False
    HIDDEN = ("seats_secret",)


@_event
class SessionClosed(Event):
    """The table stopped with no hand in play (issue 35): `reason` "hands done" (`mjtable
    run --hands`), "next session" (begun at the desk or by `mjtable session new`) or
    "stopped" (the service told to stop); every wall sealed before it is revealed before it,
    and a signature of the head follows. The seat drawings' secret, `seats_secret`, shown."""

    reason: str = ""
    seats_secret: str = ""


@_event
class RegistriesRecorded(Event):
    """When a session begins, the digest of each tile set's tag registry (issue 17,
    firmware/table/registries.py): a journal gone on with refuses a set whose registry changed."""

    digests: dict[str, str] = field(default_factory=dict)  # tile set -> SHA-256 hex


@_event
class SeatsDrawn(Event):
    """The seat drawing (執位, seed 000, RULES.md 3.2) at the start of a half-session: `winds`
    holds, for each side of the table (E S W N), the wind its player drew; East deals first
    and sits on the E side, the others around him. `source`: "electronic" (the table drew from
    the OS's cryptographic source) or "tiles" (the referee entered the wind tiles drawn)."""

    winds: tuple[int, ...] = ()
    source: str = "electronic"


@_event
class SeatsChanged(Event):
    """換位 (seed 004 定位、換位, RULES.md 4.3) between two games (局) of a CCM stage: `seating`
    holds, for each side (E S W N), the person (0..3, the seat he drew for the stage) who sits
    there from the session's game number `game` (1 first) on; nobody sits a side twice in a
    stage. `source`: "table" (its proposal) or "referee" (his entry)."""

    game: int = 0
    seating: tuple[int, ...] = ()
    source: str = "table"


@_event
class ScoresAsked(Event):
    """問分 (seed 004 三十三): in a stage's 4th game the player at `seat` (of the hand), the
    stage's `person`, asked the referee the four scores; the answer, shown on the public view:
    `chips` (this game's now: with a hand in play, after what it has paid on the spot, 三十六
    現場匯) and `totals` (the stage's 局分 with them), by side
    (E S W N); `game` is the session's game number."""

    person: int = 0
    game: int = 0
    chips: tuple[int, ...] = ()
    totals: tuple[int, ...] = ()


@_event
class RefereeActed(Event):
    """Who carried out the referee's action whose rows it follows (issue 16): `action` its
    name (/api/referee/ACTION), `referee` the enrolled referee's name (None: the profile's
    PIN, no referee enrolled), `wall_time` the time of day it was done (UTC, ISO 8601): `t`
    is the table's own clock; `reason` the referee's written why, for an action that needs
    one (issue 36: accepting the table, voiding, undoing), else ""."""

    action: str
    referee: str | None
    wall_time: str
    reason: str = ""
    ADDED = ("reason",)


@_event
class ShufflerRetried(Event):
    """The shuffler's cycle started again after its fault `fault` (a jam, a miscount), once
    the technician put it right (issue 29): `by` is who asked, the desk or a side's button
    ("East referee", the profile's [buttons] shuffler_retry: a side in words, which no
    public check mistakes for the East wind's tile)."""

    fault: str
    by: str


RECORDS = (
    Fault,
    Acknowledged,
    TrackingCorrected,
    HandVoided,
    ScoreConfirmed,
    SheetSigned,
    PlayersEntered,
    PlayerSigned,
    SignatureWithdrawn,
    VenueCommand,
    HallResumed,
    WallSealed,
    WallRevealed,
    HeadSigned,
    SessionOpened,
    SessionClosed,
    RegistriesRecorded,
    SeatsDrawn,
    SeatsChanged,
    ScoresAsked,
    RefereeActed,
    ShufflerRetried,
)
