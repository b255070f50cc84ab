#!/usr/bin/env bash
# The table's own screen: Chromium in kiosk mode on the display's public view, started from
# the desktop's autostart (labwc on Raspberry Pi OS Bookworm, SOFTWARE.md §6). The public
# view never shows a concealed tile; a referee who needs the hands logs in on his tablet at
# the referee view (/), or on this screen with the PIN and logs out after.
set -euo pipefail
url=${MJTABLE_URL:-http://127.0.0.1:8080/table}
until curl -fsS -o /dev/null "$url"; do sleep 1; done     # wait for the service
exec chromium --kiosk --noerrdialogs --disable-infobars --no-first-run \
    --disable-background-networking --disable-component-update "$url"
