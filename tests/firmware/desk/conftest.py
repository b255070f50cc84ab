"""The desk's fixtures: a CCM hand at the desk whose dealer has no chips left."""

import pytest

from firmware.journal.store import Journal
from tests.support.deskkit import DeskGame


@pytest.fixture
def ccm_desk(tmp_path, ccm):
    """A CCM hand at the desk, East to discard."""
    with Journal(tmp_path / "j.sqlite") as journal:
        game = DeskGame(journal, ccm)
        game.start()
        yield game
