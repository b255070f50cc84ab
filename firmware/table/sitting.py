"""The sitting's clock, and when the walls may rise for a new hand (issue 15, RULES.md 4.3).

A sitting (CCM's 局) has the time the competition gives it: the venue's `start_session` says
how many minutes (firmware/uplink/commands.py, noted in firmware/table/venue_notes.py). It is
counted on table time from that command, so a restart goes on where it was and an outage
never counts. The head referee announces five minutes before time; once time is up the hand
in play is finished (win or draw) and no new hand begins. The venue's pause at a round's end
holds the next hand the same way, until the venue resumes (or the table's referee resumes the
hand's clocks).
Where the rule book's games have their time (CCM's 局, issue 13), the clock is the game's
(firmware/table/game_clock.py), the venue's minutes being each game's; its break holds the next
game.
"""

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from firmware.table.game_clock import GameClock

HAND_ON_TABLE = (
    "raise refused",
    "raise was pressed but the hand on the table is not over here",
    "the referee finishes the hand or voids it (void_hand), then the walls can rise",
)
NOTICE_SECONDS = 300.0  # RULES.md 4.3: the head referee announces 5 minutes before time
FIVE_MINUTES = "5 minutes left in the sitting"
TIME_UP = "the sitting's time is up: the hand in play is finished, no new hand begins"
HALL_PAUSED = (
    "hall paused",
    "raise was pressed but the venue has paused the hall; the next hand starts when it resumes",
    "wait for the venue to resume the hall",
)
SITTING_OVER = (
    "time up",
    "raise was pressed but the sitting's time is up (RULES.md 4.3): no new hand begins",
    "the sitting is over; the venue's next start_session begins the next one",
)


def seconds_left(notes, now: float) -> float | None:
    """The sitting's time left at table time `now` from the venue's notes (a VenueNotes):
    None when it has no limit, 0 once time is up."""
    if notes.minutes is None or notes.started is None:
        return None
    return max(0.0, notes.minutes * 60 - (now - notes.started))


def notice(left: float | None, words: tuple[str, str] = (FIVE_MINUTES, TIME_UP)) -> str | None:
    """What the screens say of the time `left` (the sitting's, or the game's `words`): the
    five minutes' announcement, then that time is up; None before."""
    if left is None or left > NOTICE_SECONDS:
        return None
    return words[1] if left <= 0 else words[0]


class Sitting:
    """`notes()` is what the venue has told the table now (the service's VenueNotes);
    `out(line)` prints a console line, `publish(events)` refreshes the screens and the
    uplink's state."""

    def __init__(self, notes, out, publish):
        self.notes, self.out, self.publish = notes, out, publish
        self.told: tuple[float | None, str] | None = None  # (the sitting's start, notice)
        self.game: GameClock | None = None  # the games' clock, where games have their time

    def count_games(self, game: "GameClock") -> None:
        """The rule book's games have their time: the sitting is counted by theirs."""
        self.game = game

    @property
    def hall_paused(self) -> bool:
        return self.notes().paused

    def refusal(self, t: float, hand_on_table: bool) -> tuple[str, str, str] | None:
        """Why the walls may not rise for a new hand now, as a fault's (kind, message,
        advice), or None."""
        if hand_on_table:
            return HAND_ON_TABLE
        if self.hall_paused:
            return HALL_PAUSED
        if self.game is not None:
            return None
        return SITTING_OVER if seconds_left(self.notes(), t) == 0 else None

    def on_break(self, t: float) -> bool:
        """The break between games (seed 004 第五條) at `t`: the walls stay down. Every
        screen counts it down, so a press of raise then is no fault (issue 33: 72 faults in
        one break)."""
        return self.game is not None and bool(self.game.break_left(t))

    def left(self, t: float) -> float | None:
        """The time left at `t`: the game's where games have their time, else the sitting's
        (None: no limit, or the game's first hand not begun)."""
        return seconds_left(self.notes(), t) if self.game is None else self.game.left(t)

    def time_up(self, t: float) -> bool:
        """The game's time is up at `t`: the hand in play, or one beginning now, is its last
        (seed 004 第五條; §32 then bars a win that would end it with the winner not first)."""
        return self.game is not None and self.game.left(t) == 0

    def hand_started(self, t: float) -> None:
        if self.game is not None:
            self.game.hand_started(t)

    def record(self, session, table, t: float):
        """The hand that ended at table time `t` on the sheet (session.record), the game
        ended by time if its time was up by then. The sheet's row."""
        return session.record(table) if self.game is None else self.game.record(table, t)

    def poll(self, t: float) -> None:
        """Tell the five minutes' mark and the end of time once each per sitting: a console
        line, and the screens and the venue updated at that moment."""
        if self.game is not None:
            self.game.poll(t)
            return
        notes = self.notes()
        said = notice(seconds_left(notes, t))
        if said is None or (notes.started, said) == self.told:
            return
        self.told = (notes.started, said)
        self.out(f"{t:9.1f}  {said}")
        self.publish([])
