#!/usr/bin/env bash
# Makes the release's lock files again: `deploy/pi/lock.sh` from a checkout with its venv
# (deploy/dev.sh check makes it), after any change to pyproject.toml's dependencies or to
# rpi-lgpio's pin below; tests/firmware/tools/test_lock.py fails while they are stale.
#
#   firmware/tools/requirements.lock     every package a release installs, the transitive ones
#                                        too, for Python 3.11 (a Pi's, Raspberry Pi OS Bookworm)
#                                        on every platform (markers where they differ)
#   firmware/tools/requirements-pi.lock  rpi-lgpio alone, a Pi's (never RPi.GPIO, SOFTWARE.md
#                                        §8.13): its lgpio is Debian's python3-lgpio
#
# Each package pinned with the hashes of all its files on PyPI (the wheels of every platform,
# the sdist), so that `pip install --require-hashes` refuses any other file. They are package
# data: `mjtable update` installs a new wheel with the lock that wheel carries. Made by uv
# (pinned in pyproject.toml's dev extra); options go to `uv pip compile`, e.g.
# `deploy/pi/lock.sh --upgrade-package starlette`.
set -euo pipefail
checkout=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
RPI_LGPIO=rpi-lgpio==0.6    # the RPi.GPIO API over lgpio (HARDWARE.md §5)
uv=${UV:-$checkout/.venv/bin/uv}
[ -x "$uv" ] || { echo "lock.sh: no $uv: pip install -e '.[dev]' first (or UV=...)" >&2; exit 2; }
cd "$checkout"
compile=("$uv" pip compile --quiet --generate-hashes --no-header --no-annotate
    --python-version 3.11 --index-url https://pypi.org/simple)
"${compile[@]}" --universal --no-emit-package mjtable pyproject.toml \
    --output-file firmware/tools/requirements.lock "$@"
echo "$RPI_LGPIO" | "${compile[@]}" --no-deps --python-platform aarch64-unknown-linux-gnu - \
    --output-file firmware/tools/requirements-pi.lock "$@"
for lock in firmware/tools/requirements*.lock; do
    echo "lock.sh: $lock: $(grep -c '^[a-z]' "$lock") packages"
done
