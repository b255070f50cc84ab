"""A free loopback port for a server that will be stopped and started again on it (a broker's
outage in the benches and tests, a display restarted after a cut).

It is taken below the kernel's ephemeral range: a port the kernel gives out may be handed, while
its server is down, to a client's outgoing connection to that very port (a TCP self-connect:
source and destination are the same port), and the server then cannot listen again ("Address
already in use"). 500 tables reconnecting through a 200-s outage did that to the venue bench.
"""

import random
import socket

RANGE_FILE = "/proc/sys/net/ipv4/ip_local_port_range"
LOWEST = 10000  # under the range: above the well-known and most registered services' ports


def free_port(host: str = "127.0.0.1") -> int:
    """A port no process listens on at `host` now, outside the ephemeral range."""
    low, high = _ephemeral()
    candidates = [p for p in range(LOWEST, 65536) if not low <= p <= high]
    for port in random.sample(candidates, min(200, len(candidates))):
        with socket.socket() as probe:
            try:
                probe.bind((host, port))
            except OSError:
                continue
            return port
    raise OSError(f"no free port on {host} outside the ephemeral range {low}-{high}")


def _ephemeral() -> tuple[int, int]:
    """The kernel's range of ports for outgoing connections (Linux's default without the file)."""
    try:
        with open(RANGE_FILE) as text:
            low, high = (int(n) for n in text.read().split())
    except (OSError, ValueError):
        return 32768, 60999
    return low, high
