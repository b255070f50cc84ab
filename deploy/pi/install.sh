#!/usr/bin/env bash
# Installs the table's service on its Raspberry Pi (Raspberry Pi OS Bookworm or later, 64-bit),
# from this checkout: `sudo deploy/pi/install.sh [--wheel FILE]`. deploy/pi/README.md is the
# technician's page. Run again, it changes only what differs from this checkout and never the
# technician's own files (the profile, the udev rules, the journals, the device key).
#
#   --wheel FILE      install this wheel as the first release; without it, the package is
#                     built from this checkout. Its dependencies come from the lock it carries
#                     (firmware/tools/requirements.lock), every file's hash checked. Once there
#                     is a release, install.sh keeps it: `mjtable update` installs the next ones
#   --wheelhouse DIR  install offline from DIR, as deploy/pi/wheelhouse.sh made it (the
#                     dependencies' wheels and mjtable's own, unless --wheel): no index asked
#   --no-wheel        no release (a trial, or a re-run for the other files only)
#   --root DIR        lay everything down under DIR (also $DESTDIR): an image being prepared,
#                     or a trial as a normal user. The steps that need the running system (the
#                     user, ownership, apt, the release's venv, the device key) are left to the
#                     image's first boot: the wheel, the wheelhouse if given and this script are
#                     put in /opt/mjtable/firstboot, which mjtable-firstboot.service runs once
#                     (`install.sh --firstboot`) before mjtable.service, both enabled
#   --firstboot       that first boot's run, from /opt/mjtable/firstboot
#
# Lays down: the system user mjtable (in group gpio), Debian's packages it needs (apt-get),
# the first release (a venv with the wheel and, on a Pi, rpi-lgpio: never RPi.GPIO, SOFTWARE.md
# §8.13), /opt/mjtable/current -> /opt/mjtable/releases/<version>-<when> as firmware/tools/update.py
# keeps them, its command /usr/local/bin/mjtable, the unit
# /etc/systemd/system/mjtable.service (enabled, not started: set the profile first), the udev
# rules /etc/udev/rules.d/99-mjtable.rules, the kiosk /opt/mjtable/kiosk.sh started by
# /etc/xdg/autostart/mjtable-kiosk.desktop, /etc/mjtable/table.toml from reference-pi.toml
# (with the tag registry beside it) if there is none, the data directory /var/lib/mjtable and
# the device key in it (firmware/journal/device_key.py: made 0600 by the service's user).
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
checkout=$(cd "$here/../.." && pwd)
locks=$checkout/firmware/tools    # requirements.lock, requirements-pi.lock: deploy/pi/lock.sh
root=${DESTDIR:-}
wheel=""
wheelhouse=""
venv=1
firstboot=0
changed=""    # what this run laid down anew

die() { echo "install.sh: $*" >&2; exit 2; }
say() { echo "install: $*"; }
skip() { echo "install: skipped: $*"; }

while [ $# -gt 0 ]; do
    case $1 in
        --root) [ $# -ge 2 ] || die "--root needs a folder"; root=$2; shift 2 ;;
        --wheel) [ $# -ge 2 ] || die "--wheel needs a file"; wheel=$2; shift 2 ;;
        --wheelhouse) [ $# -ge 2 ] || die "--wheelhouse needs a folder"; wheelhouse=$2; shift 2 ;;
        --no-wheel) venv=0; shift ;;
        --firstboot) firstboot=1; shift ;;
        -h|--help) sed -n '2,/^set /{/^set /d;s/^# \{0,1\}//;p}' "$0"; exit 0 ;;
        *) die "unknown option $1 (--wheel FILE, --wheelhouse DIR, --no-wheel, --root DIR)" ;;
    esac
done
if [ "$firstboot" = 1 ]; then    # the bundle --root put here: its wheel, its wheelhouse
    wheel=$(ls "$checkout"/mjtable-*.whl 2>/dev/null | head -n 1)
    [ -n "$wheel" ] || die "--firstboot: no mjtable wheel in $checkout"
    [ ! -d "$checkout/wheelhouse" ] || wheelhouse=$checkout/wheelhouse
fi
if [ -n "$wheelhouse" ]; then
    [ -d "$wheelhouse" ] || die "--wheelhouse $wheelhouse: no such folder"
    wheelhouse=$(cd "$wheelhouse" && pwd)
    if [ -z "$wheel" ] && [ "$venv" = 1 ]; then
        wheel=$(ls "$wheelhouse"/mjtable-*.whl 2>/dev/null | sort -V | tail -n 1)
        [ -n "$wheel" ] || die "--wheelhouse $wheelhouse: no mjtable wheel in it (wheelhouse.sh puts one)"
    fi
fi
[ -z "$wheel" ] || [ -f "$wheel" ] || die "--wheel $wheel: no such file"
[ -z "$wheel" ] || wheel=$(cd "$(dirname "$wheel")" && pwd)/$(basename "$wheel")
if [ -n "$root" ]; then
    mkdir -p "$root" && root=$(cd "$root" && pwd) || die "--root $root: cannot make it"
    live=0
else
    [ "$(id -u)" = 0 ] || die "run as root (sudo deploy/pi/install.sh), or --root DIR for a trial"
    live=1
fi

model=$(tr -d '\0' 2>/dev/null </proc/device-tree/model || true)
case $model in
    "Raspberry Pi"*) pi=1 ;;
    *) pi=0 ;;
esac
if [ "$pi" = 1 ] && [ "$live" = 1 ]; then
    [ "$(uname -m)" = aarch64 ] || die "$model runs a $(uname -m) system: install the 64-bit one"
    . /etc/os-release
    [ "${VERSION_ID:-0}" -ge 12 ] 2>/dev/null ||
        die "$PRETTY_NAME is older than Raspberry Pi OS Bookworm (12): install a newer one"
fi

put() {  # put SRC DEST MODE: DEST becomes SRC, unless it already is
    local src=$1 dest=$root$2 mode=$3
    mkdir -p "$(dirname "$dest")"
    if [ -f "$dest" ] && cmp -s "$src" "$dest" && [ "$(stat -c %a "$dest")" = "${mode#0}" ]; then
        say "unchanged $2"
    else
        install -m "$mode" "$src" "$dest"
        say "installed $2"
        changed="$changed $2"
    fi
}

keep() {  # keep SRC DEST MODE: the technician's file once there, never overwritten
    if [ -e "$root$2" ]; then say "kept $2 (yours: never overwritten)"; else put "$@"; fi
}

folder() {  # folder DIR MODE
    install -d -m "$2" "$root$1"
}

# The service's user: the readers are its group's (99-mjtable.rules), the GPIO chips gpio's.
if [ "$live" = 0 ]; then
    skip "the system user mjtable, in group gpio (--root)"
elif id mjtable >/dev/null 2>&1; then
    say "user mjtable is there"
else
    useradd --system --user-group --home-dir /var/lib/mjtable --no-create-home \
        --shell /usr/sbin/nologin mjtable
    say "made the system user mjtable"
fi
if [ "$live" = 1 ]; then
    if getent group gpio >/dev/null; then
        usermod -a -G gpio mjtable
    else
        skip "group gpio: none on this system (Raspberry Pi OS has it)"
    fi
fi

folder /opt/mjtable 0755
folder /etc/mjtable 0750          # the profile holds the referee's secret
folder /var/lib/mjtable 0755      # the kiosk reads not-running.txt there (mjtable.service)
folder /var/lib/mjtable/journal 0750

# Debian's packages: the venv, the kiosk's browser, curl and the CJK fonts (東南西北, §8.24).
packages="python3-venv curl chromium fonts-noto-cjk"
[ "$pi" = 0 ] || packages="$packages python3-lgpio"    # no lgpio wheel for every Python
if [ "$live" = 0 ] || ! command -v apt-get >/dev/null; then
    skip "apt-get install $packages (--root or no apt)"
else
    apt-get install -y -q $packages >/dev/null
    say "Debian's packages are there: $packages"
fi

# The first release, as `mjtable update` lays down the next ones (firmware/tools/update.py):
# /opt/mjtable/releases/<version>-<when>/ a venv, /opt/mjtable/current -> it, what the unit runs.
# A venv runs only where it was made (its scripts name its path, its wheels the machine's
# Python): under --root it is left to the image's first boot, the bundle staged for it.
bundle=/opt/mjtable/firstboot
if [ "$venv" = 0 ]; then
    skip "the release in /opt/mjtable/releases and the wheel (--no-wheel)"
elif [ -L "$root/opt/mjtable/current" ]; then
    say "kept the release current -> $(readlink "$root/opt/mjtable/current"):" \
        "updates are sudo mjtable update's (section 9 of deploy/pi/README.md)"
elif [ "$live" = 0 ]; then
    rm -rf "$root$bundle"
    mkdir -p "$root$bundle/config/tables" "$root$bundle/deploy"
    cp -r "$here/." "$root$bundle/deploy/pi"
    cp "$checkout/config/tables/reference-pi.toml" "$checkout/config/tables/sim-tags.csv" \
        "$root$bundle/config/tables/"
    if [ -n "$wheel" ]; then
        cp "$wheel" "$root$bundle/"
    else
        python3 -m pip wheel --quiet --no-input --disable-pip-version-check --no-deps \
            -w "$root$bundle" "$checkout"
    fi
    [ -z "$wheelhouse" ] || cp -r "$wheelhouse/." "$root$bundle/wheelhouse"
    put "$here/mjtable-firstboot.service" /etc/systemd/system/mjtable-firstboot.service 0644
    for link in multi-user.target.wants/mjtable.service \
        multi-user.target.wants/mjtable-firstboot.service \
        mjtable.service.requires/mjtable-firstboot.service; do
        mkdir -p "$(dirname "$root/etc/systemd/system/$link")"
        ln -sfn "/etc/systemd/system/$(basename "$link")" "$root/etc/systemd/system/$link"
    done
    say "staged $(basename "$root$bundle"/mjtable-*.whl)${wheelhouse:+ and its wheelhouse} in" \
        "$bundle; enabled mjtable-firstboot.service, which installs it at the first boot," \
        "and mjtable.service after it"
else
    if [ -n "$wheel" ]; then
        version=$(basename "$wheel" | sed -n 's/^mjtable-\([^-]*\)-.*\.whl$/\1/p')
        [ -n "$version" ] || die "--wheel $wheel: not an mjtable wheel's name"
    else
        version=$(sed -n 's/^version = "\(.*\)"$/\1/p' "$checkout/pyproject.toml")
    fi
    release=/opt/mjtable/releases/$version-$(date +%Y%m%dT%H%M%S)
    python3 -m venv --system-site-packages "$release"
    pip=("$release/bin/python" -m pip install --quiet --no-input --disable-pip-version-check)
    [ -z "$wheelhouse" ] || pip+=(--no-index --find-links "$wheelhouse")
    lock() {  # lock NAME: the lock the release's wheel carries, or this checkout's
        if [ -z "$wheel" ]; then
            cat "$locks/$1"
        else
            "$release/bin/python" -c 'import sys, zipfile
sys.stdout.write(zipfile.ZipFile(sys.argv[1]).read(sys.argv[2]).decode())' \
                "$wheel" "firmware/tools/$1" || die "--wheel $wheel: no firmware/tools/$1 in it"
        fi
    }
    locked=$(mktemp -d)
    trap 'rm -rf "$locked"' EXIT
    lock requirements.lock >"$locked/requirements.lock"
    lock requirements-pi.lock >"$locked/requirements-pi.lock"
    "${pip[@]}" --require-hashes -r "$locked/requirements.lock"
    "${pip[@]}" --no-deps "${wheel:-$checkout}"
    if [ "$pi" = 0 ]; then
        skip "rpi-lgpio: not a Raspberry Pi (${model:-no /proc/device-tree/model})"
    else
        "${pip[@]}" --no-deps --require-hashes -r "$locked/requirements-pi.lock"
        say "installed rpi-lgpio in the release (over apt's python3-lgpio)"
    fi
    ln -sfn "${release#/opt/mjtable/}" /opt/mjtable/current
    say "installed mjtable $version${wheelhouse:+ from $wheelhouse}, every file's hash checked:" \
        "/opt/mjtable/current -> ${release#/opt/mjtable/}"
fi
command=/opt/mjtable/current/bin/mjtable
if [ -L "$root/opt/mjtable/current" ] &&
    [ "$(readlink "$root/usr/local/bin/mjtable" || true)" != "$command" ]; then
    mkdir -p "$root/usr/local/bin"
    ln -sfn "$command" "$root/usr/local/bin/mjtable"
    say "installed /usr/local/bin/mjtable (the current release's command)"
fi

put "$here/mjtable.service" /etc/systemd/system/mjtable.service 0644
keep "$here/99-mjtable.rules" /etc/udev/rules.d/99-mjtable.rules 0644
put "$here/kiosk.sh" /opt/mjtable/kiosk.sh 0755
put "$here/mjtable-kiosk.desktop" /etc/xdg/autostart/mjtable-kiosk.desktop 0644
keep "$checkout/config/tables/reference-pi.toml" /etc/mjtable/table.toml 0640
keep "$checkout/config/tables/sim-tags.csv" /etc/mjtable/sim-tags.csv 0644

if [ "$live" = 0 ]; then
    skip "ownership: mjtable's /var/lib/mjtable, group mjtable on /etc/mjtable (--root)"
else
    chown mjtable:mjtable /var/lib/mjtable /var/lib/mjtable/journal
    chgrp mjtable /etc/mjtable /etc/mjtable/table.toml
fi

if [ "$live" = 0 ] || [ "$venv" = 0 ]; then
    skip "the device key: the service makes it at its first start ([journal] device_key)"
else
    runuser -u mjtable -- /opt/mjtable/current/bin/python -I - /etc/mjtable/table.toml <<'EOF' ||
import sys

from engine.schema import ConfigError
from firmware.journal.device_key import key_path, load
from firmware.table.profile import load_profile
from firmware.table.sessions import data_dir

try:
    profile = load_profile(sys.argv[1])
    key = load(key_path(profile, data_dir(profile) / "session.sqlite"))  # as the service
except ConfigError as err:
    sys.exit(f"install: device key not made: {err}")
print(f"install: device key {key.path}: public half {key.public_hex}")
EOF
        say "the service makes the device key at its first start, once the line above is fixed"
fi

if [ "$live" = 0 ] || ! command -v udevadm >/dev/null || [ ! -S /run/udev/control ]; then
    skip "udevadm control --reload; udevadm trigger (--root, or no udev running: a container)"
else
    udevadm control --reload && udevadm trigger --subsystem-match=tty
fi

if [ "$live" = 0 ] || [ ! -d /run/systemd/system ]; then
    skip "systemctl daemon-reload; systemctl enable mjtable (--root or no systemd)"
else
    systemctl daemon-reload
    systemctl enable --quiet mjtable
    say "mjtable.service enabled; set /etc/mjtable/table.toml, then: sudo systemctl start mjtable"
    if [ -n "$changed" ] && systemctl is-active --quiet mjtable; then
        say "the service runs the former files: between sessions, sudo systemctl restart mjtable"
    fi
fi
