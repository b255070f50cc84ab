"""Home Assistant's MQTT discovery of a table (issue 34, docs/uplink.md): with `[uplink]
home_assistant = true` the table publishes, retained on each connection, one config per
entity under `<prefix>/<component>/<table>/<entity>/config`, so that a venue's Home
Assistant shows every table, one device each, with no YAML.

The entities read the table's own retained `status` and `state` through value templates:
nothing is published for Home Assistant alone but the configs. "Online" is a connectivity
binary sensor on `status` (on, or off once the table stops or its last will comes); every
other entity is available while that status is "online", so a table killed shows its
entities unavailable rather than its last state as if it were live. The online sensor
itself has no availability: its "off" is the news.
"""

from firmware.bus.contract import (
    PHASES,
    QOS,
    STATUSES,
    Leaf,
    Status,
    discovery_topic,
    table_topic,
)

MANUFACTURER = "mjtable"
ONLINE, OFFLINE = STATUSES
STATUS_TEMPLATE = "{{ value_json.status }}"


def discovery_configs(
    prefix: str, venue: str, table: str, status: Status
) -> list[tuple[str, dict]]:
    """(topic, config) of each of the table's entities; `status` says the firmware and the
    model its device shows."""
    node = f"mjtable_{venue}_{table}"
    status_topic = table_topic(venue, table, Leaf.STATUS)
    state_topic = table_topic(venue, table, Leaf.STATE)
    available = {
        "availability": [
            {
                "topic": status_topic,
                "value_template": STATUS_TEMPLATE,
                "payload_available": ONLINE,
                "payload_not_available": OFFLINE,
            }
        ]
    }

    def state(field: str, template: str | None = None, **more) -> dict:
        """An entity of the `state` payload's `field` (`template` where the value is not
        the field as it is)."""
        value = template or f"{{{{ value_json.{field} }}}}"
        return {"state_topic": state_topic, "value_template": value, **available, **more}

    entities = [
        (
            "binary_sensor",
            "online",
            "Online",
            {
                "state_topic": status_topic,
                "value_template": STATUS_TEMPLATE,
                "payload_on": ONLINE,
                "payload_off": OFFLINE,
                "device_class": "connectivity",
            },
        ),
        ("sensor", "state", "State", state("phase", device_class="enum", options=list(PHASES))),
        ("sensor", "hand", "Hand", state("hand_number", icon="mdi:counter")),
        (
            "sensor",
            "players",
            "Players",
            state(
                "players",
                "{{ value_json.players | map(attribute='name') | select | join(', ') }}",
                json_attributes_topic=state_topic,
                json_attributes_template="{{ {'players': value_json.players} | tojson }}",
            ),
        ),
        (
            "sensor",
            "scores",
            "Scores",
            state(
                "scores",
                "{{ value_json.scores | join(' ') }}",
                json_attributes_topic=state_topic,
                json_attributes_template="{{ {'scores': value_json.scores} | tojson }}",
            ),
        ),
        (
            "sensor",
            "alerts_waiting",
            "Alerts waiting",
            state("alerts_waiting", state_class="measurement", icon="mdi:bell-alert"),
        ),
        ("sensor", "shuffler", "Shuffler", state("shuffler", icon="mdi:cog")),
    ]
    device = {
        "identifiers": [node],
        "name": f"Mahjong table {table}",
        "model": status.model,
        "sw_version": status.firmware,
        "manufacturer": MANUFACTURER,
    }
    origin = {"name": MANUFACTURER, "sw_version": status.firmware}
    return [
        (
            discovery_topic(prefix, component, table, entity),
            {
                "name": name,
                "unique_id": f"{node}_{entity}",
                "qos": QOS,
                **config,
                "device": device,
                "origin": origin,
            },
        )
        for component, entity, name, config in entities
    ]
