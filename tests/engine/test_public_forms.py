"""Players' hidden tiles never reach a public view (DESIGN.md firmware/display, issue 6;
docs/events.md: `public_json()` is what the public gets). The rule is kept in engine/events.py,
beside HIDDEN (issue 29): where only part of an event is concealed, its own public_json()
leaves that part out, so the display, the history and the venue's bus cannot forget it."""

from engine import events as ev

FOUR = (36, 37, 38, 39)  # the four tiles of one kind: a kong in a concealed hand


def test_a_kong_declared_from_the_concealed_hand_shows_no_tile():
    """A kong of four concealed tiles is declared face down: the public learns who declared
    it, not what; the referee's form keeps the tiles."""
    declared = ev.KongDeclared(12.5, 2, FOUR)
    public = declared.public_json()
    assert "tiles" not in public
    assert public == {"type": "KongDeclared", "t": 12.5, "seat": 2}
    assert declared.to_json()["tiles"] == list(FOUR)


def test_a_tile_added_to_an_exposed_pung_is_public():
    """A kong made by adding one tile to an exposed pung shows that tile: the pung lies face
    up, so the public form is the whole event."""
    added = ev.KongDeclared(12.5, 2, (39,))
    assert added.public_json() == added.to_json()


def test_an_alerts_proposed_penalty_tiles_are_backs_in_public():
    """A proposed penalty names the tiles of the offender's hand that would become penalty
    tiles; until it is applied they are concealed: the public sees how many (backs), never
    which, and the referee's form and the event itself keep them."""
    penalty = {"offence": "false_win", "points": 10, "penalty_tiles": [17, 42, 88]}
    alert = ev.Alert(30.0, 1, "RULES.md 3.9", "S declared a false win", True, 4, penalty)
    public = alert.public_json()
    assert public["penalty"]["penalty_tiles"] == [ev.BACK] * 3
    assert {k: v for k, v in public["penalty"].items() if k != "penalty_tiles"} == {
        "offence": "false_win",
        "points": 10,
    }
    assert not {17, 42, 88} & set(_numbers(public["penalty"]))
    assert alert.to_json()["penalty"]["penalty_tiles"] == [17, 42, 88]
    assert alert.penalty["penalty_tiles"] == [17, 42, 88]  # not altered in place


def test_an_alert_without_a_penalty_is_public_as_it_is():
    """Nothing concealed to take out: the public form is the referee's."""
    alert = ev.Alert(30.0, None, "RULES.md 3.4", "a tile the wall does not hold", True, 5)
    assert alert.public_json() == alert.to_json()


def _numbers(value) -> list:
    """Every number anywhere in a JSON value."""
    if isinstance(value, dict):
        return [n for v in value.values() for n in _numbers(v)]
    if isinstance(value, list):
        return [n for v in value for n in _numbers(v)]
    return [value] if isinstance(value, int) and not isinstance(value, bool) else []
