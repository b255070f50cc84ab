#!/usr/bin/env bash
# Downloads into DIR every wheel a release installs, for a venue without internet:
# `deploy/pi/wheelhouse.sh [--platform ARCH] [--wheel FILE] DIR`, then on the table (or for an
# image, install.sh --root) `sudo deploy/pi/install.sh --wheelhouse DIR`, which asks no index.
#
#   --platform ARCH  the table's machine (uname -m): aarch64, a Pi's, by default; x86_64 for a
#                    trial on a PC (the booted test's)
#   --wheel FILE     mjtable's wheel to put in DIR; without it, built from this checkout
#
# The wheels are those of firmware/tools/requirements.lock (and, for aarch64, rpi-lgpio's
# requirements-pi.lock), for CPython 3.11 (Raspberry Pi OS Bookworm's) on glibc 2.36 or older,
# each file's hash checked against the lock. Run on any machine with Python 3 and pip that
# reaches the package index (its pip configuration applies: a venue's mirror too).
set -euo pipefail
checkout=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
PYTHON_VERSION=3.11 GLIBC_MINOR=36    # Debian Bookworm's Python and glibc 2.36
arch=aarch64
wheel=""
dir=""

die() { echo "wheelhouse.sh: $*" >&2; exit 2; }

while [ $# -gt 0 ]; do
    case $1 in
        --platform) [ $# -ge 2 ] || die "--platform needs a machine (aarch64, x86_64)"; arch=$2; shift 2 ;;
        --wheel) [ $# -ge 2 ] || die "--wheel needs a file"; wheel=$2; shift 2 ;;
        -h|--help) sed -n '2,/^set /{/^set /d;s/^# \{0,1\}//;p}' "$0"; exit 0 ;;
        -*) die "unknown option $1 (--platform ARCH, --wheel FILE)" ;;
        *) [ -z "$dir" ] || die "one folder only ($dir, $1)"; dir=$1; shift ;;
    esac
done
[ -n "$dir" ] || die "give the folder to fill: wheelhouse.sh [--platform ARCH] DIR"
case $arch in
    aarch64|x86_64) ;;
    *) die "--platform $arch: aarch64 (a Pi) or x86_64" ;;
esac
[ -z "$wheel" ] || [ -f "$wheel" ] || die "--wheel $wheel: no such file"
mkdir -p "$dir"

platforms=(--platform "linux_$arch")
for minor in $(seq 17 "$GLIBC_MINOR"); do    # manylinux_2_17 (manylinux2014) to Bookworm's
    platforms+=(--platform "manylinux_2_${minor}_$arch")
done
[ "$arch" != x86_64 ] || platforms+=(--platform manylinux2010_x86_64 --platform manylinux1_x86_64)
download=(python3 -m pip download --quiet --no-input --disable-pip-version-check
    --dest "$dir" --only-binary=:all: --python-version "$PYTHON_VERSION"
    --implementation cp "${platforms[@]}" --require-hashes)
"${download[@]}" -r "$checkout/firmware/tools/requirements.lock"
[ "$arch" != aarch64 ] || "${download[@]}" --no-deps -r "$checkout/firmware/tools/requirements-pi.lock"
if [ -n "$wheel" ]; then
    cp "$wheel" "$dir/"
else
    python3 -m pip wheel --quiet --no-input --disable-pip-version-check --no-deps -w "$dir" "$checkout"
fi
echo "wheelhouse.sh: $(ls "$dir" | wc -l) files for $arch in $dir:" \
    "sudo deploy/pi/install.sh --wheelhouse $dir"
