#!/usr/bin/env bash
# The table's own screen: Chromium in kiosk mode on the display's public view, started at the
# desktop's login by /etc/xdg/autostart/mjtable-kiosk.desktop (install.sh; labwc on Raspberry
# Pi OS Bookworm, SOFTWARE.md §6). The public view never shows a concealed tile; a referee who
# needs the hands logs in on his tablet at the referee view (/), or on this screen with the PIN
# and logs out after.
#
# When the service is not running because it cannot start as configured (status 2) or stopped
# refereeing (status 3), systemd does not restart it (mjtable.service) and the screen shows
# why, from the file `mjtable run` left (firmware/table/not_running.py), until the service answers
# again. While it merely restarts, the screen stays as it was.
set -euo pipefail
url=${MJTABLE_URL:-https://127.0.0.1:8080/table}
why=${MJTABLE_NOT_RUNNING:-/var/lib/mjtable/not-running.txt}
page=${XDG_RUNTIME_DIR:-/tmp}/mjtable-not-running.html
shown="" browser=""

show() {  # the browser on $1, started again only when that changes or it has gone
    if [ "$1" = "$shown" ] && kill -0 "$browser" 2>/dev/null; then return; fi
    if [ -n "$browser" ]; then kill "$browser" 2>/dev/null || true; wait "$browser" || true; fi
    chromium --kiosk --noerrdialogs --disable-infobars --no-first-run \
        --disable-background-networking --disable-component-update "$1" &
    browser=$! shown=$1
}

not_running_page() {  # the file's text, escaped, in a page that reloads itself
    {
        echo '<!doctype html><meta charset="utf-8"><meta http-equiv="refresh" content="5">'
        echo '<title>mjtable: not running</title><body style="font: 2em sans-serif;'
        echo 'background: #600; color: #fff; padding: 1em"><h1>The table is not running</h1>'
        echo '<pre style="white-space: pre-wrap">'
        sed -e 's/&/\&amp;/g' -e 's/</\&lt;/g' -e 's/>/\&gt;/g' "$why"
        echo '</pre><p>Call the technician (deploy/pi/README.md: what each failure looks like).'
    } >"$page.new"
    mv "$page.new" "$page"
}

while true; do
    if curl -fsS -o /dev/null --max-time 2 "$url" 2>/dev/null; then
        show "$url"
    elif [ -s "$why" ]; then
        not_running_page
        show "file://$page"
    fi
    sleep 2
done
