"""Issue 29, reader frames at the service (firmware/table/service.py): a reader's error frame
reaches the referee by the error's name, and a reader's seat buttons are presses only on a table
whose profile wires the panels to the reader's board ([buttons] kind = "zone_reader")."""

import dataclasses

import pytest

from drivers.reader_frames import ERR_ANTENNA, ERR_STACKER_MISSED, ReaderError, SeatButton
from firmware.journal.store import Journal
from firmware.texts.notices import fault_text
from tests.support.servicekit import Clock, dealt_service, take_queued


@pytest.fixture
def service(tmp_path):
    """A WSOM service on the simulated profile, whose buttons are on pins ([buttons] gpio)."""
    journal = Journal(tmp_path / "j.sqlite")
    yield dealt_service(journal, Clock())
    journal.close()


def told(service, *records) -> list:
    """The fault records the referee is shown after the service takes `records`."""
    before = service.status().faults
    for record in records:
        service.actor.record(record)
    take_queued(service)
    return [f for f in service.status().faults if f not in before]


def test_a_reader_error_is_shown_by_its_name(service):
    """Issue 29: drivers/README.md's error codes reach the referee by their meaning, with the
    antenna they concern; a code the README does not list, by its number."""
    faults = told(
        service, ReaderError(ERR_ANTENNA, 3), ReaderError(ERR_STACKER_MISSED), ReaderError(0x42)
    )
    assert [f.message for f in faults] == [
        "the tile reader reports an antenna open or short (error 1) on antenna 3",
        "the tile reader reports the stacker missed a tile (a tile passed unread) (error 5)",
        "the tile reader reports error 66",
    ]
    assert all(f.device == "reader" and f.advice for f in faults)


def test_reader_buttons_are_ignored_where_the_pins_carry_them(service):
    """Issue 29: on a table whose buttons are on pins, a reader's SeatButton frames press
    nothing (a call for the referee raises no call); the referee is told once, not per frame."""
    assert service.profile.kinds["buttons"] == "gpio"
    state = service.status().state
    faults = told(service, SeatButton(2, "referee"), SeatButton(0, "win"), SeatButton(1, "claim"))
    assert [(f.device, f.kind) for f in faults] == [("reader", "stray buttons")]
    assert '[buttons] kind = "gpio"' in faults[0].message
    assert fault_text({"device": "reader", "kind": "stray buttons"}) == (
        "a tile reader sends seat buttons this table does not take"
    )
    assert service.status().state == state
    assert told(service, SeatButton(3, "referee")) == []


def test_reader_buttons_are_presses_where_the_profile_wires_them_to_the_reader(service):
    """Issue 29 and reference-pi.toml: with [buttons] kind = "zone_reader" the reader's
    SeatButton frame is the same press as a pin's: West's call for the referee."""
    kinds = {**service.profile.kinds, "buttons": "zone_reader"}
    service.profile = dataclasses.replace(service.profile, kinds=kinds, buttons={})
    faults = told(service, SeatButton(2, "referee"))
    assert [f.kind for f in faults] == ["referee"] and "W player" in faults[0].message
