"""The table's part of issue 35 (docs/fairness.md): the session's signed header when the
table starts on a journal, the sign-off signed at once, and the close when it stops
(firmware/journal/header.py, firmware/journal/signing.py)."""

from firmware.journal import header, signing
from firmware.journal.failures import StorageFailure


def attach_signer(service) -> None:
    """Each sign-off record the journal takes between hands is signed at once."""
    hands = service.hands
    service.journal.signer = signing.Signer(
        service.journal, hands.device_key, lambda: hands.session.hand_number, lambda: hands.in_play
    )


def open_session(service, t: float) -> None:
    """The signed header, at the journal's start or when the table goes on with it."""
    profile, key = service.profile, service.hands.device_key
    service.closed = False
    service.opened = header.open_session(
        service.journal,
        key,
        t,
        table=profile.name,
        venue=profile.uplink.venue if profile.uplink is not None else "",
        rules=header.rules_digest(getattr(service.ruleset, "config", {})),
        profile=profile.path,
        dice=service.dice_source,
    )


def close_session(service, t: float) -> None:
    """The table stops: with no hand in play the walls sealed and not raised are revealed,
    the session closed and signed; with one in play, its head signed. Nothing when the
    journal cannot be written (the table stopped refereeing for that)."""
    hands, journal = service.hands, service.journal
    if service.stopped is not None or service.closed:
        return
    service.closed = True
    try:
        if hands.in_play:
            hands.device_key.sign_journal(journal, t, hands.session.hand_number, signing.STOPPED)
            return
        hands.walls.drop(t)
        if service.opened is None:  # a table that never opened the session it stops
            hands.device_key.sign_journal(journal, t, hands.session.hand_number, signing.STOPPED)
            return
        number = hands.session.hand_number
        header.close_session(journal, hands.device_key, t, number, _reason(service), service.opened)
    except StorageFailure as failure:
        service.stop_refereeing(t, failure)


def _reason(service) -> str:
    if service.next_session is not None:
        return "next session"
    wanted = service.hands.wanted
    done = wanted is not None and len(service.hands.session.sheet) >= wanted
    return "hands done" if done else "stopped"
