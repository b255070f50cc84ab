#!/usr/bin/env bash
# Give a table its broker user and print the [uplink] section of its profile (docs/venue.md).
#   deploy/mosquitto/add-table.sh NAME
# NAME is the table's [table] name: the ACL (acl beside this script) lets user NAME publish
# only as table NAME. Each run makes a new random password (run it again to change one) and
# writes it to NAME.password in OUT; copy that file beside the table's profile with the venue
# CA's certificate (venue-ca.crt) and the venue's public key (venue.pub: never venue.key, the
# private key that only the venue server holds), which the section names.
# From the environment: PASSWD_FILE (/etc/mosquitto/passwd), OUT (.), VENUE (the venue's id
# in the topics, "hall"), BROKER (the broker's host name as its certificate names it; this
# host's).
set -euo pipefail
passwd_file=${PASSWD_FILE:-/etc/mosquitto/passwd}
out=${OUT:-.}
venue=${VENUE:-hall}
broker=${BROKER:-$(hostname -f)}

if [ $# -ne 1 ]; then
    echo "usage: $0 NAME" >&2
    exit 2
fi
name=$1
# A word of the topics and a user name at once: no MQTT wildcard, no level separator.
if ! [[ $name =~ ^[A-Za-z0-9_.-]{1,64}$ ]]; then
    echo "$0: NAME is 1 to 64 letters, digits, '-', '_' or '.', not '$name'" >&2
    exit 2
fi
if [ "$name" = venue ] || [ "$name" = homeassistant ]; then
    echo "$0: '$name' is the venue's own user (the acl beside this script); name the table otherwise" >&2
    exit 2
fi

password=$(head -c 18 /dev/urandom | base64 | tr '+/' '-_')
[ -e "$passwd_file" ] || install -m 640 /dev/null "$passwd_file"
mosquitto_passwd -b "$passwd_file" "$name" "$password"
if [ "$(id -u)" -eq 0 ] && getent group mosquitto >/dev/null; then
    chown root:mosquitto "$passwd_file"  # the broker drops to user mosquitto to read it
fi
(umask 077 && printf '%s\n' "$password" >"$out/$name.password")
echo "added $name to $passwd_file (reload the broker: systemctl reload mosquitto);" \
    "its password is in $out/$name.password" >&2

cat <<EOF
[uplink]
host = "$broker"
port = 8883
venue = "$venue"
tls = true
ca_file = "venue-ca.crt"
user = "$name"
password_file = "$name.password"
key_file = "venue.pub"
keepalive_seconds = 30
EOF
