"""A table profile with [display] keys changed (sim.toml's copy), and a self-signed TLS
certificate for 127.0.0.1, for the tests of TLS and of the profile's checks."""

import json
import re
import shutil
import subprocess

import pytest

from firmware.table.profile import TABLES_DIR


def make_certificate(folder) -> tuple:
    """A self-signed certificate for 127.0.0.1 and its key, made by openssl."""
    if shutil.which("openssl") is None:
        pytest.skip("openssl is needed to make a test certificate")
    cert, key = folder / "display.crt", folder / "display.key"
    subprocess.run(
        ["openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1"]
        + ["-nodes", "-days", "1", "-subj", "/CN=127.0.0.1"]
        + ["-addext", "subjectAltName=IP:127.0.0.1", "-keyout", str(key), "-out", str(cert)],
        check=True,
        capture_output=True,
    )
    return cert, key


def profile_text(**display) -> str:
    """sim.toml with [display] keys replaced."""
    text = (TABLES_DIR / "sim.toml").read_text()
    for key, value in display.items():
        text, found = re.subn(rf"(?m)^{key} = .*$", f"{key} = {json.dumps(value)}", text)
        assert found == 1, key
    return text


def write_profile(tmp_path, **display):
    shutil.copy(TABLES_DIR / "sim-tags.csv", tmp_path)
    path = tmp_path / "table.toml"
    path.write_text(profile_text(**display))
    return path
