"""The venue's fixtures: a folder the shipped broker can read (tests/support/shipped.py)."""

import os
import tempfile
from pathlib import Path

import pytest


@pytest.fixture
def reachable():
    """A folder user mosquitto can read (the broker, started as root, drops to it): pytest's
    tmp_path lies under one only root may enter."""
    with tempfile.TemporaryDirectory(prefix="mjtable-test-") as folder:
        os.chmod(folder, 0o755)
        yield Path(folder)
