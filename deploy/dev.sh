#!/usr/bin/env bash
# The two README commands: `deploy/dev.sh run` (the table's main job) and `deploy/dev.sh test`,
# and `deploy/dev.sh check` (lint, format, types; .ci/run runs it before the tests).
# Each sets up what it needs on a fresh machine with Python 3.11+ and is safe to run again:
# a virtual environment in .venv, refreshed when pyproject.toml or the lock changes. The
# table's dependencies are held at the lock's versions (firmware/tools/requirements.lock, its
# hashes left to the table's installs: an editable install has none), so the tests run what a
# table runs.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
venv="$root/.venv"
python=${PYTHON:-python3}

if ! "$python" -c 'import sys; sys.exit(sys.version_info < (3, 11))' 2>/dev/null; then
    echo "deploy/dev.sh: mjtable needs Python 3.11 or newer as '$python' (set PYTHON=...)" >&2
    exit 2
fi
if [ ! -x "$venv/bin/python" ]; then
    "$python" -m venv "$venv"
fi
lock=$root/firmware/tools/requirements.lock
if [ ! -f "$venv/.installed" ] || [ "$root/pyproject.toml" -nt "$venv/.installed" ] ||
    [ "$lock" -nt "$venv/.installed" ]; then
    "$venv/bin/python" -m pip install --quiet --disable-pip-version-check \
        -c <(sed -e '/^ *--hash=/d' -e 's/ \\$//' "$lock") -e "$root[dev]"
    touch "$venv/.installed"
fi

command=${1:-}
[ $# -gt 0 ] && shift
case "$command" in
    run)
        # The simulated table with its display (config/tables/sim.toml), journal in journal/.
        cd "$root"
        exec "$venv/bin/mjtable" run "$@"
        ;;
    test)
        cd "$root"
        exec "$venv/bin/python" -m pytest "$@"
        ;;
    check)
        # Each of the three runs; the check fails if any did, naming it.
        cd "$root"
        failed=()
        "$venv/bin/ruff" check . || failed+=("ruff check")
        "$venv/bin/ruff" format --check . || failed+=("ruff format --check")
        "$venv/bin/mypy" || failed+=("mypy")  # files: pyproject.toml's [tool.mypy]
        if [ ${#failed[@]} -gt 0 ]; then
            printf 'deploy/dev.sh check: %s failed\n' "${failed[@]}" >&2
            exit 1
        fi
        ;;
    *)
        echo "usage: deploy/dev.sh run | test [pytest arguments] | check" >&2
        exit 2
        ;;
esac
