#!/usr/bin/env bash
# Removes what deploy/pi/install.sh laid down: `sudo deploy/pi/uninstall.sh [--purge]`.
# Keeps the journals and the device key (/var/lib/mjtable: every session the table refereed),
# the profile with its secrets and certificate (/etc/mjtable) and the user mjtable who owns
# them, unless --purge, which removes those too. --root DIR (or $DESTDIR) as for install.sh.
set -euo pipefail

root=${DESTDIR:-}
purge=0

die() { echo "uninstall.sh: $*" >&2; exit 2; }
say() { echo "uninstall: $*"; }
skip() { echo "uninstall: skipped: $*"; }

while [ $# -gt 0 ]; do
    case $1 in
        --root) [ $# -ge 2 ] || die "--root needs a folder"; root=$2; shift 2 ;;
        --purge) purge=1; shift ;;
        -h|--help) sed -n '2,/^set /{/^set /d;s/^# \{0,1\}//;p}' "$0"; exit 0 ;;
        *) die "unknown option $1 (--purge, --root DIR)" ;;
    esac
done
if [ -n "$root" ]; then
    [ -d "$root" ] || die "--root $root: no such folder"
    live=0
else
    [ "$(id -u)" = 0 ] || die "run as root (sudo deploy/pi/uninstall.sh), or --root DIR"
    live=1
fi

gone() {  # gone PATH...: removed, each said
    local path
    for path; do
        if [ -e "$root$path" ] || [ -L "$root$path" ]; then
            rm -rf -- "$root$path"
            say "removed $path"
        fi
    done
}

if [ "$live" = 0 ] || [ ! -d /run/systemd/system ]; then
    skip "systemctl disable --now mjtable (--root or no systemd)"
else
    systemctl disable --now --quiet mjtable 2>/dev/null || true
    systemctl disable --quiet mjtable-firstboot 2>/dev/null || true
fi
# the links are systemctl enable's, or install.sh --root's in an image
gone /etc/systemd/system/mjtable.service /etc/systemd/system/mjtable-firstboot.service \
    /etc/systemd/system/mjtable.service.requires \
    /etc/systemd/system/multi-user.target.wants/mjtable.service \
    /etc/systemd/system/multi-user.target.wants/mjtable-firstboot.service
[ "$live" = 0 ] || [ ! -d /run/systemd/system ] || systemctl daemon-reload

gone /etc/udev/rules.d/99-mjtable.rules
if [ "$live" = 0 ] || ! command -v udevadm >/dev/null || [ ! -S /run/udev/control ]; then
    skip "udevadm control --reload (--root, or no udev running: a container)"
else
    udevadm control --reload
fi

gone /etc/xdg/autostart/mjtable-kiosk.desktop /usr/local/bin/mjtable /opt/mjtable

if [ "$purge" = 1 ]; then
    gone /etc/mjtable /var/lib/mjtable
    if [ "$live" = 0 ]; then
        skip "userdel mjtable (--root)"
    elif id mjtable >/dev/null 2>&1; then
        userdel mjtable
        say "removed the user mjtable"
    fi
else
    say "kept /var/lib/mjtable (the journals, the device key) and /etc/mjtable (the profile):" \
        "--purge removes them"
fi
