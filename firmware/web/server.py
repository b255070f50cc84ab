"""Serving a Starlette app, the table's display or the venue's dashboard: the check that the
display's port is free before anything starts, and the uvicorn server that ends the open streams
when it stops."""

import socket
from pathlib import Path

import uvicorn
from starlette.applications import Starlette


def port_problem(host: str, port: int) -> str | None:
    """Why the display cannot listen on host:port, or None (checked before anything starts)."""
    if not 0 < port < 65536:
        return f"--port {port}: a port is 1..65535 (0: no display)"
    with socket.socket() as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            probe.bind((host, port))
        except OSError as err:
            return (
                f"the display cannot listen on {host}:{port} ({err.strerror}): choose "
                "another with --port"
            )
    return None


class DisplayServer(uvicorn.Server):
    """uvicorn serving the display, ending the open streams when it stops: its graceful
    shutdown waits for every handler, and a stream never ends by itself (SOFTWARE.md §6,
    §8 #23). The graceful timeout stays as a second guard."""

    def __init__(self, app: Starlette, host: str, port: int, tls: tuple[Path, Path] | None = None):
        """`tls`: the certificate and key files (the profile's [display] tls_cert, tls_key).
        No proxy headers: X-Forwarded-For would let a client pick its throttled address."""
        cert, key = tls or (None, None)
        super().__init__(
            uvicorn.Config(
                app,
                host=host,
                port=port,
                log_level="warning",
                timeout_graceful_shutdown=2,
                lifespan="off",
                proxy_headers=False,
                ssl_certfile=cert,
                ssl_keyfile=key,
            )
        )
        self.display = app

    async def shutdown(self, sockets=None) -> None:
        for stop in list(self.display.state.streams):
            stop.set()
        await super().shutdown(sockets)
