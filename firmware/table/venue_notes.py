"""What the venue has told the table to show (docs/uplink.md, issue 15), and the players
entered at the desk (issue 16): one value the table owns.

It is written only through the table's write port (firmware/table/commands.py `note_venue`)
and taken up again from the journal after a restart (firmware/table/resume.py), whatever is
attached; the display, the uplink and the sitting's clock (firmware/table/sitting.py) read it.
"""

from dataclasses import dataclass, replace


@dataclass(frozen=True)
class VenueNotes:
    """What the venue has told this table to show. `players` are four {"name",
    "federation_id"} by player (the seat each drew for the sitting, East first), None before
    a `start_session`; `referee_on_way` is {"referee", "alert", "of" ("fault", "ruling" or
    None: either), "at" (wall clock)} until the referee acknowledges that fault or alert at
    the table, or the fault is cleared; `paused`:
    the venue's pause is in force (a round's end), until the venue or the table's referee
    resumes; `minutes`: the sitting's time limit (None: none), counted from `started`, the
    table time of its `start_session`."""

    players: tuple[dict, ...] | None = None
    message: str | None = None
    referee_on_way: dict | None = None
    paused: bool = False
    minutes: int | None = None
    started: float | None = None

    def seen_at_table(self, seen) -> "VenueNotes":
        """The faults or alerts `seen` ((of, id) pairs, of "fault" or "ruling": faults and
        the hand's alerts number apart) were acknowledged or cleared at the table: whoever
        was on the way for one of them has come."""
        on_way = self.referee_on_way
        if on_way and any(
            number == on_way["alert"] and on_way.get("of") in (None, of) for of, number in seen
        ):
            return replace(self, referee_on_way=None)
        return self

    def noted(self, name: str, args: dict, at: float | None, t: float) -> "VenueNotes":
        """The notes after a venue command taken (its arguments checked) at table time `t`;
        `at` is when, by the wall. A start_session begins a new sitting, with its time or
        none."""
        if name == "start_session":
            players = tuple(
                {"name": p["name"], "federation_id": p["federation_id"]} for p in args["players"]
            )
            return replace(self, players=players, minutes=args.get("minutes"), started=t)
        if name == "message":
            return replace(self, message=args["text"] or None)
        if name == "acknowledge":
            of = args.get("of")
            on_way = {"referee": args["referee"], "alert": args["alert"], "of": of, "at": at}
            return replace(self, referee_on_way=on_way)
        if name in ("pause", "resume"):
            return replace(self, paused=name == "pause")
        return self  # resend: the bus's own, nothing the table shows
