"""The venue's fixtures: where the hall board's screenshot goes (README's docs/board.png with
tests/conftest.py's `--board-screenshot`, else a temporary folder, so no test writes into the
checkout)."""

from pathlib import Path

import pytest


@pytest.fixture
def board_screenshot_path(request, tmp_path) -> Path:
    path = request.config.getoption("--board-screenshot")
    return Path(path).resolve() if path else tmp_path / "board.png"
