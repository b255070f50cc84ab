"""The uplink's fixtures: the venue subscribed to every table's topics on the test's broker."""

import pytest

from tests.support.uplinkkit import Venue


@pytest.fixture
def venue(broker):
    consumer = Venue(broker.port)
    yield consumer
    consumer.close()
