"""The desk's `new_session` (issue 19), over the sessions on disk of
firmware/table/sessions.py."""

from datetime import date
from pathlib import Path

from firmware.display import ActionRefused
from firmware.table.sessions import current_session, data_dir, new_session


def begin_next(service, t, body) -> dict:
    """The desk's `new_session`: between hands, the next session of the table's data
    directory is begun and made current, and the service stops (NEXT_SESSION) to start
    again on it. Refused with a hand in play, or when the table was started on a journal
    of its own choosing (`--journal`), which is no session of the data directory."""
    status = service.status()
    if status.in_play:
        raise ActionRefused("a hand is in play: a new session begins between hands")
    port = service.commands
    folder, journal = data_dir(service.profile), Path(port.journal_path).resolve()
    current = current_session(folder)
    if current is None or current.resolve() != journal:
        raise ActionRefused(
            f"the table runs on the journal {port.journal_path}, not on the current "
            f"session of {folder}: stop it and start it on the session wanted"
        )
    path = new_session(folder, service.profile.name, date.today())
    port.begin_next_session(t, path)
    return {"done": "new_session", "session": path.name}
