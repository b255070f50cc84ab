"""The display's fixtures: the WSOM scene behind a fake source, and where the screenshots go
(README's docs/*.png with the options of tests/conftest.py, else a temporary folder, so no
test writes into the checkout)."""

from pathlib import Path

import pytest

from tests.support.displaykit import FakeSource
from tests.support.scenes import view_of, wsom_scene


@pytest.fixture
def scene(wsom):
    return wsom_scene(wsom)


@pytest.fixture
def source(scene):
    return FakeSource(view_of(scene))


@pytest.fixture
def screenshot_path(request, tmp_path) -> Path:
    path = request.config.getoption("--screenshot")
    return Path(path).resolve() if path else tmp_path / "display.png"


@pytest.fixture
def broadcast_screenshot_path(request, tmp_path) -> Path:
    path = request.config.getoption("--broadcast-screenshot")
    return Path(path).resolve() if path else tmp_path / "broadcast.png"


@pytest.fixture
def result_screenshot_path(request, tmp_path) -> Path:
    path = request.config.getoption("--result-screenshot")
    return Path(path).resolve() if path else tmp_path / "result.png"
