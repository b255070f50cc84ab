"""An event's JSON row read back (engine/events.py from_json): a row that names no event is
refused with EventError, never a crash (the guide: bad input gets a clear message naming the
problem). Journals, the bus and the exporters all read rows through it."""

import pytest

from engine import events as ev


@pytest.mark.parametrize("kind", [["TileDiscarded"], {"x": 1}, 7, None, "NoSuchEvent"])
def test_a_row_whose_type_names_no_event_is_refused_by_name(kind):
    """Issue 29 (found by mypy): a type that is a list or an object made from_json raise
    TypeError ("unhashable type") instead of refusing the row."""
    with pytest.raises(ev.EventError, match="unknown event type"):
        ev.from_json({"type": kind, "t": 0.0, "seat": 0})
    assert ev.event_type(kind) is None
