"""An event as the public sees it, on the public view, in its history and on the venue's bus:
the engine's public form (engine/events.py public_json, which keeps every concealed tile
out) with the public's own words for an alert or a fault (firmware/texts/notices.py), in
both languages beside them (issue 16 "Every screen")."""

from engine import events as ev
from firmware.texts.citations import cite
from firmware.texts.notices import alert_text, both, fault_advice, fault_text, offence_text


def public_event(obj: dict) -> dict:
    """An event as the public may see it: its public_json() (engine/events.py: no concealed
    tile), an alert's or a fault's message the public's own (issue 20 item 4). An event the
    schema does not know is cut to its type, time and seat, since nothing says which of its
    fields are concealed."""
    try:
        event = ev.from_json(obj)
    except ev.EventError:
        return {"type": obj.get("type"), "t": obj.get("t"), "seat": obj.get("seat")}
    out = event.public_json()
    if isinstance(event, ev.Alert):
        out["message"] = alert_text(out)
        out = alert_texts(out)
    if isinstance(event, ev.Fault):
        out.update(message=fault_text(out), advice=fault_advice(out))
        out = fault_texts(out)
    return out


def alert_texts(alert: dict) -> dict:
    """The public's words in both languages beside the message (issue 16 "Every screen"): the
    page shows its language's; the referee's detailed message stays the engine's, English."""
    penalty = alert.get("penalty")
    if penalty:
        penalty = penalty | {
            "offence_text": both(offence_text, penalty.get("offence", "")),
            "rule_text": both(cite, penalty.get("rule")),  # issue 33: the rule book's article
        }
    return alert | {
        "text": both(alert_text, alert),
        "penalty": penalty,
        "rule_text": both(cite, alert.get("rule")),
    }


def fault_texts(fault: dict) -> dict:
    return fault | {"text": both(fault_text, fault), "advice_text": both(fault_advice, fault)}
