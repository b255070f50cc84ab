"""Issue 29, lazy commands: each `mjtable` command imports only its package, so a quick command
such as `mjtable score` does not pay for the whole firmware at every start (several seconds on a
Pi). Counted in modules, never in seconds: a count does not depend on how busy the machine is."""

import argparse
import importlib
import subprocess
import sys

from firmware.cli import COMMANDS
from tests.conftest import REPO

OURS = ("engine", "drivers", "firmware")

# Runs `mjtable ARGS...` as the console script does, then prints our modules loaded by the end.
COUNT = """
import sys
from firmware.cli import main
try:
    status = main(sys.argv[1:])
except SystemExit as stop:
    status = stop.code
ours = sorted(m for m in sys.modules if m.split(".")[0] in {ours!r})
print("\\n".join(ours), file=sys.stderr)
print("STATUS", status, file=sys.stderr)
"""


def modules_loaded(*argv: str) -> tuple[list[str], str]:
    """Our modules `mjtable ARGV` has imported when it ends, and its standard output."""
    done = subprocess.run(
        [sys.executable, "-c", COUNT.format(ours=OURS), *argv],
        capture_output=True,
        text=True,
        cwd=REPO,
        check=True,
        timeout=120,
    )
    lines = done.stderr.splitlines()
    assert lines[-1] == "STATUS 0", done.stderr
    return [line for line in lines[:-1] if line.startswith(OURS)], done.stdout


def test_score_imports_fewer_than_40_of_our_modules():
    """Issue 29: `mjtable score` imports under 40 of our modules (it imported all 176)."""
    loaded, out = modules_loaded("score", "123m 456p 789s EE 55p", "--win", "E", "--self-drawn")
    assert "Total" in out  # it really scored the hand
    assert len(loaded) < 40, loaded
    assert not [m for m in loaded if m.startswith(("drivers", "firmware.table", "firmware.run"))]


def test_help_lists_every_command_without_importing_one():
    """Issue 29: `mjtable --help` names every command with its line of help from the table in
    firmware/cli.py, importing none of the commands' packages."""
    loaded, out = modules_loaded("--help")
    for name, (_, line) in COMMANDS.items():
        assert f"    {name:<9} {line}" in out.splitlines(), name
    assert set(loaded) <= {"engine", "engine.schema", "firmware", "firmware.cli"}, loaded


def test_each_module_adds_exactly_the_commands_that_name_it():
    """Issue 29: the table and the packages agree, so a lazily loaded command is the one named."""
    for module in sorted({module for module, _ in COMMANDS.values()}):
        commands = argparse.ArgumentParser().add_subparsers()
        importlib.import_module(module).add_parser(commands)
        named = {name for name, (where, _) in COMMANDS.items() if where == module}
        assert set(commands.choices) == named, module
