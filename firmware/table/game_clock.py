"""The game's clock: CCM's 局 has its time (issue 13; seed 004 第五條 比賽時間, RULES.md 4.3, 4.13).

Seed 004: 「四圈一局比賽中，每局規定限時兩小時，每局結束後休息15分鐘。兩圈一局比賽中，每局規定限時
一小時，兩局結束後休息15分鐘。每局結束前5分鐘，由裁判長報時提醒各位運動員。滿足規定時間後的最後一次
成牌或荒牌，比賽結束。」 A game's minutes are the venue's (its start_session), else the table
profile's ([table] game_minutes), else the rule book's ([game] minutes). They run on table time
from the start of the game's first hand (its walls raised: the journal's hand row), so a
restart goes on where it was and an outage never counts. Five minutes before time the notice
is on both views and the console. Once time is up the game ends with the next win or draw
that ends a hand (最後一次成牌或荒牌): the hand in play, or the next one if time ran out
between hands; that hand is told so (the input GameTimeUp, firmware/table/hands.py), for §32's
ban on a win leaving its winner not first. However a game ended (time, chips, rounds: seed
§31 局結), a new one gets a new clock when its first hand starts, after the break ([game]
break_minutes, after every break_after_games games) unless the table's referee resumes play
earlier at the desk (a HallResumed record). Everything here follows from journaled table
times and records, so a resumed table ends the same games at the same hands.
"""

from engine import events as ev
from firmware.table.sitting import notice

FIVE_MINUTES = "5 minutes left in this game (seed 004 第五條)"
TIME_UP = "the game's time is up: the hand in play is its last (seed 004 第五條)"
WORDS = (FIVE_MINUTES, TIME_UP)


class GameClock:
    """The clock of the game in play of `session` (engine/session.py). `rules` is the rule
    book's [game]; `profile_minutes` the profile's (None: none); `notes()` the venue's
    VenueNotes now; `out(line)` a console line, `publish(events)` the screens refreshed."""

    def __init__(self, session, rules: dict, profile_minutes: int | None, notes, out, publish):
        self.session, self.rules, self.profile_minutes = session, rules, profile_minutes
        self.notes, self.out, self.publish = notes, out, publish
        self.started: float | None = None  # the table time its first hand started
        self.ended: float | None = None  # when the game before ended, its break not lifted
        self.told: tuple[float | None, str] | None = None  # (the game's start, notice)

    @property
    def minutes(self) -> int:
        """The venue's minutes win, then the profile's, then the rule book's."""
        return self.notes().minutes or self.profile_minutes or self.rules["minutes"]

    def left(self, t: float) -> float | None:
        """Seconds left in the game at table time `t`, 0 once time is up; None before its
        first hand starts."""
        if self.started is None:
            return None
        return max(0.0, self.minutes * 60 - (t - self.started))

    def break_left(self, t: float) -> float | None:
        """Seconds of the break left at `t`; None when none holds the next game."""
        if self.ended is None:
            return None
        left = self.rules["break_minutes"] * 60 - (t - self.ended)
        return left if left > 0 else None

    def hand_started(self, t: float) -> None:
        """A hand started at `t` (a voided one too: its time was played): the first of a
        game starts its clock, and the break is over."""
        if self.started is None:
            self.started, self.ended = t, None

    def record(self, table, t: float):
        """Settle the hand that ended at `t` (session.record): the game ends with it if its
        time was up by then. A game over starts its break. The sheet's row."""
        games = len(self.session.games)
        row = self.session.record(table, time_up=self.left(t) == 0)
        if len(self.session.games) > games:
            self.started, minutes = None, self.rules["break_minutes"]
            rest = minutes and len(self.session.games) % self.rules["break_after_games"] == 0
            self.ended = t if rest else None
            self.out(
                f"{t:9.1f}  game {games + 1} over: {self.session.games[-1]['ended']}"
                + (f"; {minutes} minutes' break before game {games + 2}" if rest else "")
            )
        return row

    def lift(self) -> None:
        """The table's referee begins the next game now: the break is over."""
        self.ended = None

    def recall(self, rows) -> None:
        """After a restart: a break the table's referee lifted (a HallResumed record since
        the game ended) is over."""
        for row in rows:
            if self.ended is None:
                return
            if row.kind == "device" and '"HallResumed"' in row.json:
                record = row.event()
                if isinstance(record, ev.HallResumed) and record.t >= self.ended:
                    self.ended = None

    def poll(self, t: float) -> None:
        """Tell the five minutes' mark and the end of time once each per game: a console
        line, and the screens updated at that moment."""
        said = notice(self.left(t), WORDS)
        if said is None or (self.started, said) == self.told:
            return
        self.told = (self.started, said)
        self.out(f"{t:9.1f}  {said}")
        self.publish([])

    def to_json(self, t: float) -> dict:
        """What both views show of it: the game's number, its minutes, the seconds left (None
        before its first hand), the notice, and the break's seconds left (None: no break)."""
        left = self.left(t)
        return {
            "game": len(self.session.games) + 1,
            "minutes": self.minutes,
            "seconds_left": left,
            "notice": notice(left, WORDS),
            "break_left": self.break_left(t),
        }
