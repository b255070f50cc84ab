"""A real Mosquitto broker for the venue tests (SOFTWARE.md §5.2, pitfall 22): Debian's
mosquitto started as a plain process on a free loopback port with a test config, stopped and
started again on the same port to play a broker outage. `.ci/run` installs mosquitto.

`users` (name -> password) turns on password files and `acl` (mosquitto's acl_file text)
turns on access control, as a venue's broker has them (deploy/mosquitto/); without them the
broker takes anonymous clients.
"""

import os
import shutil
import socket
import subprocess
import time
from pathlib import Path

from firmware.ports import free_port

MOSQUITTO = shutil.which("mosquitto") or "/usr/sbin/mosquitto"
PASSWD = shutil.which("mosquitto_passwd") or "/usr/bin/mosquitto_passwd"


class Broker:
    def __init__(self, folder: Path, users: dict[str, str] | None = None, acl: str | None = None):
        self.folder, self.port = Path(folder), free_port()
        self.folder.mkdir(parents=True, exist_ok=True)
        lines = [f"listener {self.port} 127.0.0.1", "persistence false", "log_dest stdout"]
        if os.geteuid() == 0:  # else it reads as user mosquitto: pytest's tmp_path is 0700
            lines.append("user root")
        if users:
            passwords = self.folder / "passwd"
            passwords.write_text("")
            for name, password in users.items():
                subprocess.run([PASSWD, "-b", str(passwords), name, password], check=True)
            lines += ["allow_anonymous false", f"password_file {passwords}"]
        else:
            lines.append("allow_anonymous true")
        if acl is not None:
            rules = self.folder / "acl"
            rules.write_text(acl)
            lines.append(f"acl_file {rules}")
        self.config = self.folder / "mosquitto.conf"
        self.config.write_text("\n".join(lines) + "\n")
        self.log = self.folder / "mosquitto.log"
        self.proc: subprocess.Popen | None = None

    @property
    def address(self) -> str:
        return f"127.0.0.1:{self.port}"

    def start(self, seconds: float = 10.0) -> "Broker":
        """Start it and wait until it takes connections."""
        log = self.log.open("ab")
        self.proc = subprocess.Popen(
            [MOSQUITTO, "-c", str(self.config)], stdout=log, stderr=subprocess.STDOUT
        )
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"mosquitto exited: {self.log.read_text()[-2000:]}")
            try:
                socket.create_connection(("127.0.0.1", self.port), timeout=0.2).close()
                return self
            except OSError:
                time.sleep(0.05)
        raise RuntimeError(f"mosquitto did not listen on {self.port} within {seconds} s")

    def stop(self) -> None:
        """SIGTERM, as a broker restarted by its operator (kill() plays a crash)."""
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            self.proc.wait(timeout=10)
        self.proc = None

    def kill(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait(timeout=10)
        self.proc = None
