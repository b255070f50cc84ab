"""Shared test fixtures: the rules folder beside the repo and the configured rulesets."""

from pathlib import Path

import pytest

from firmware.config import load_ruleset

REPO = Path(__file__).resolve().parents[1]
SHARED = REPO.parent / "shared"


@pytest.fixture(scope="session")
def wsom():
    return load_ruleset("wsom2006")


@pytest.fixture(scope="session")
def ccm():
    return load_ruleset("ccm2012")
