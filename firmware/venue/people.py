"""Who works at the venue (issue 36 item 3): organisers and floor referees, each a person with
his own secret, so that a roaming referee's phone opens the pager and nothing else.

Each role's people are a referees file as the table keeps them (firmware/desk/referees.py:
salted scrypt hashes, read again when it changes), made with `mjtable referee add NAME
--data-dir DIR`; the dashboard's login (firmware/web/login.py) checks and throttles their
secrets as the table's display does. Without any file, the organiser's PIN opens everything
as before; with people enrolled, each logs in by name.
"""

from pathlib import Path

from firmware.desk.referees import FILE, Referees

ORGANISER, FLOOR_REFEREE = "organiser", "floor referee"


class VenuePeople:
    """The organisers in `organisers` and the floor referees in `floor_referees` (folders
    holding a referees file; None: no one of that role). A name in both is an organiser."""

    def __init__(self, organisers: Path | None = None, floor_referees: Path | None = None):
        self.files = [
            (role, Referees(Path(folder) / FILE))
            for role, folder in ((FLOOR_REFEREE, floor_referees), (ORGANISER, organisers))
            if folder is not None
        ]

    def load(self) -> dict[str, dict]:
        """name -> the referees file's entry with its "role" (RefereeError: unreadable)."""
        return {
            name: {**entry, "role": role}
            for role, referees in self.files
            for name, entry in referees.load().items()
        }

    def is_secret_of(self, name: str, secret: str, enrolled: dict[str, dict]) -> bool:
        """One hash, as the table's: a decoy's for a name nobody has."""
        if not self.files:
            return False
        return self.files[0][1].is_secret_of(name, secret, enrolled)

    def role(self, name: str | None) -> str | None:
        """The role of the person a session is from; the organiser's PIN (None) is an
        organiser's."""
        if name is None:
            return ORGANISER
        entry = self.load().get(name)
        return entry["role"] if entry else None
