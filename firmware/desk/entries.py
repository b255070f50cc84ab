"""What the referee enters at the desk beside his rulings (issue 12, engine/reports.py): the
offences the sensors cannot see (`report`), the reports held between hands carried into the
next hand once its walls are up, and the forfeits the session proposes (engine/session.py).

A report is a journaled engine input (ViolationReported). Once a hand is over, the ended
hand holds it for the next one (journaled as its input, so a restart loses nothing), and the
next hand gets it as its first inputs; after a restart, those its journal does not show
carried yet. Before the first hand, or after a void, no hand is there to hold it: the
referee is told to enter it once the walls are up.
"""

from dataclasses import replace

from engine import events as ev
from engine.penalties import EXPOSED
from engine.reports import REFUSED
from engine.seats import LETTERS
from firmware.display import ActionRefused
from firmware.texts.notices import both, offence_text


class Entries:
    def __init__(self, service):
        self.service = service
        self.carried_into = None  # the table the held reports went into
        self.forfeits_told = 0

    def offences(self) -> dict:
        """The offences the referee may report under this rule book, for the page's form:
        each with its rule, whether it is timed (`seconds`) and whether he names tiles."""
        ruleset = self.service.ruleset
        catalogue = ruleset.table_rules.penalties
        return {
            "ruleset": ruleset.name,
            "offences": [
                {
                    "name": o.name,
                    "rule": o.rule,
                    "timed": bool(o.per_seconds or o.forfeit_after),
                    "tiles": o.penalty_tiles == EXPOSED,
                    "text": both(offence_text, o.name),  # in the page's language (issue 16)
                }
                for o in (catalogue.offences.values() if catalogue is not None else ())
            ],
        }

    def report(self, t, body) -> dict:
        """An offence the referee saw: refused (409) if the rule book has no such offence,
        no hand is there to hold it, or the engine refuses it as entered."""
        ruleset = self.service.ruleset
        catalogue = ruleset.table_rules.penalties
        offences = catalogue.offences if catalogue is not None else {}
        if body["offence"] not in offences:
            raise ActionRefused(
                f"the rule book {ruleset.name} has no offence {body['offence']!r} (its "
                f"offences: {', '.join(offences) or 'none'})"
            )
        if self.service.status().table is None:
            raise ActionRefused(
                "no hand is on the table to hold the report: enter it once the walls of the "
                "next hand are up, and it applies to that hand"
            )
        event = ev.ViolationReported(
            t, body["seat"], body["offence"], body.get("seconds", 0), tuple(body.get("tiles", ()))
        )
        outputs = self.service.commands.apply(event)
        refusal = next(
            (o for o in outputs if isinstance(o, ev.Alert) and o.message.startswith(REFUSED)),
            None,
        )
        if refusal is not None:
            raise ActionRefused(refusal.message)
        return {"done": "report", "events": [o.to_json() for o in outputs]}

    def follow(self, status) -> bool:
        """On each update: a new hand on the table gets the held reports; a new forfeit is
        told. True if the service's state changed."""
        changed = False
        if status.in_play and status.table is not self.carried_into:
            self.carried_into = status.table
            held = status.session.carried()
            for report in held[status.table.referee.carried :]:
                self.service.commands.apply(replace(report, t=status.t))
                changed = True
        forfeits = status.session.forfeits
        if len(forfeits) > self.forfeits_told:
            new, self.forfeits_told = forfeits[self.forfeits_told :], len(forfeits)
            for forfeit in new:
                self._tell(status.t, forfeit)
            changed = True
        return changed

    def _tell(self, t, forfeit) -> None:
        """A player's 暫停 and lateness over the half-session's limit: a journaled fault the
        referee acknowledges (seed 000 選手叫「暫停」: 作棄權論); the head referee decides."""
        self.service.commands.report_fault(
            t,
            "table",
            "forfeit",
            f"the player on the {LETTERS[forfeit.player]} side has {forfeit.points} points of "
            f"time-out and lateness this half-session, more than {forfeit.limit} (after hand "
            f"{forfeit.hand}): a forfeit (RULES.md 3.13, seed 000 選手叫「暫停」)",
            "the head referee decides the forfeit; acknowledge once it is told",
            transient=True,
        )
