"""Issue 32 item 9: a profile naming a file with 100 000 characters (the fuzzing campaign's
mutant) is refused with one line naming the key, never an OSError traceback, whichever
command reads it."""

import re

import pytest

from firmware.cli import main
from firmware.table.profile import TABLES_DIR, ProfileError, load_profile

SIM = (TABLES_DIR / "sim.toml").read_text()
LONG = "x" * 100_000
UPLINK = (
    '\n[uplink]\nhost = "127.0.0.1"\nport = 1883\ntls = false\nca_file = ""\nuser = ""\n'
    'password_file = ""\nvenue = "hall"\nkey_file = ""\nkeepalive_seconds = 10\n'
)
MUTANTS = {
    "[tags] registry": SIM.replace('registry = "sim-tags.csv"', f'registry = "{LONG}"'),
    "[display] tls_cert": SIM.replace('tls_cert = ""', f'tls_cert = "{LONG}"'),
    "[display] tls_key": SIM.replace('tls_key = ""', f'tls_key = "{LONG}"'),
    "[journal] device_key": SIM.replace('device_key = ""', f'device_key = "{LONG}"'),
    "[journal] data_dir": SIM.replace("[journal]", f'[journal]\ndata_dir = "{LONG}"', 1),
    "[uplink] ca_file": SIM + UPLINK.replace('ca_file = ""', f'ca_file = "a/{LONG}"'),
    "[uplink] password_file": SIM
    + UPLINK.replace('password_file = ""', f'password_file = "{LONG}"'),
    "[uplink] key_file": SIM + UPLINK.replace('key_file = ""', f'key_file = "{LONG}"'),
}
COMMANDS = [
    ["run", "--hands", "1", "--speed", "10000", "--port", "0"],
    ["selftest", "--no-buttons"],
    ["session", "list"],
    ["session", "new"],
]


@pytest.mark.parametrize("key", MUTANTS)
def test_issue_32_item_9_a_file_name_no_file_system_holds_is_refused_in_one_line(
    tmp_path, capsys, monkeypatch, key
):
    """Issue 32 item 9: each key naming a file, given 100 000 characters: load_profile refuses
    it naming the key; `run`, `selftest` and `session` exit 2 with one short line."""
    (tmp_path / "sim-tags.csv").write_text((TABLES_DIR / "sim-tags.csv").read_text())
    profile = tmp_path / "table.toml"
    profile.write_text(MUTANTS[key])
    monkeypatch.chdir(tmp_path)
    with pytest.raises(ProfileError, match=re.escape(f"{key}: a file name of 100")):
        load_profile(profile)
    for command in COMMANDS:
        assert main([*command, "--profile", str(profile)]) == 2, command
        out, err = capsys.readouterr()
        assert (
            out == "" and "Traceback" not in err and len(err.splitlines()) == 1 and len(err) < 500
        ), err
        assert key in err and "a file name of" in err
