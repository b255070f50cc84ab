"""firmware/ports.py: a server stopped and started again gets its port back (issue 36: the
venue bench's broker could not listen again after its outage at --speed 0.3)."""

import socket

from firmware import ports


def test_the_port_is_free_and_outside_the_ephemeral_range():
    """A port inside the range can be taken by a reconnecting client's own outgoing connection
    while the server is down (a TCP self-connect); one outside it cannot."""
    low, high = ports._ephemeral()
    for _ in range(20):
        port = ports.free_port()
        assert not low <= port <= high and port >= ports.LOWEST
        with socket.socket() as server:
            server.bind(("127.0.0.1", port))  # free: nobody listens there


def test_a_port_taken_is_not_given(monkeypatch):
    """Ports in use are skipped, and the search says why when none is left."""
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        busy = taken.getsockname()[1]
        monkeypatch.setattr(ports, "LOWEST", busy)
        monkeypatch.setattr(ports, "_ephemeral", lambda: (busy + 1, 65535))
        try:
            ports.free_port()
        except OSError as err:
            assert "outside the ephemeral range" in str(err)
        else:
            raise AssertionError("the one port in use was given")
