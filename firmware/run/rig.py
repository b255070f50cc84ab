"""One table running: the service and the devices its profile names, going on with the
journal's session, the referee display, the venue uplink, and the tasks they run as (`mjtable
run`)."""

import asyncio
import contextlib
import signal
import sys

from firmware.audit.shuffle_watch import follow
from firmware.desk.desk import Desk
from firmware.desk.referees import Referees, referees_file
from firmware.display.app import create_app
from firmware.resources import ruleset_path
from firmware.table.service import assemble
from firmware.table.sessions import data_dir
from firmware.web.auth import SHIPPED_BROADCAST_TOKEN, loopback
from firmware.web.server import DisplayServer

LAST_WORD_SECONDS = 1.0  # at most, for the open pages and the venue to take the last state


class Rig:
    """Built from `mjtable run`'s `args` (hands, port, json_summary, history, cut, uplink:
    the profile's [uplink] as `--venue` has it; a re-deriving run has none). `clock`
    is the table's clock; where the profile names the simulated kinds, `simulation`
    (firmware/run/simulated.py) holds the pins and the readers' links they are built on.
    `mjtable run` has refused a display the profile may not serve (the shipped PIN or plain
    HTTP beyond this machine) before it got here."""

    def __init__(self, args, profile, ruleset, journal, clock, loop, simulation=None):
        out = (lambda line: None) if args.json_summary else (lambda line: print(line, flush=True))
        gpio, links = (simulation.gpio, simulation.links) if simulation else (None, None)
        self.service, devices = assemble(
            profile, ruleset, journal, clock, loop, out, args.hands, gpio, links
        )
        service = self.service
        follow(service)  # a rigged shuffler's walls are a fault (issue 17)
        self.shuffler, self.readers = devices.shuffler, devices.readers
        self.display = self.serving = None
        if args.port:
            self.desk = desk = Desk(service, profile.name, profile.broadcast_delay_seconds)
            referees = Referees(referees_file(profile))  # each his own secret (issue 19)
            app = create_app(
                desk,
                profile.referee_pin,
                profile.broadcast_token,
                profile.host,
                referees=referees,
                data_dir=data_dir(profile),  # the signing key of referee sessions (issue 16)
            )
            self.display = DisplayServer(app, profile.host, args.port, profile.tls)
            self.serving = asyncio.create_task(self.display.serve())
            told = sys.stderr if args.json_summary else sys.stdout
            scheme = "https" if profile.tls else "http"
            print(
                f"referee display: {scheme}://{profile.host}:{args.port}/ (public view: /table; "
                f"broadcast: /broadcast?token=..., {profile.broadcast_delay_seconds:g} s late)",
                file=told,
                flush=True,
            )
            if profile.broadcast_token == SHIPPED_BROADCAST_TOKEN and not loopback(profile.host):
                print(
                    f"WARNING: {profile.path} keeps the shipped broadcast_token: the broadcast "
                    "opens only from this machine until [display] broadcast_token is changed",
                    file=sys.stderr,
                    flush=True,
                )
        self.uplink = self.uplinking = None
        settings = args.uplink
        if settings is not None:
            rules = args.ruleset or profile.ruleset
            self.uplink = _uplink(service, settings, profile, rules)
            self.uplinking = asyncio.create_task(self.uplink.run())
        # After the desk, which then follows the hand taken up: its history, its alerts.
        service.resume(clock(), args.history, args.cut)
        for reader in self.readers:
            reader.start()
        for signum in (signal.SIGINT, signal.SIGTERM):
            loop.add_signal_handler(signum, service.actor.done.set)
        self.worker = asyncio.create_task(service.run())

    async def stop(self) -> None:
        self.worker.cancel()
        self.service.close(self.service.clock())  # before the uplink's last rows (issue 35)
        if self.uplink is not None and self.uplinking is not None:  # its last rows and state,
            self.uplink.close()  # then offline, or as it lies
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self.uplinking, LAST_WORD_SECONDS)
        if self.display is not None and self.serving is not None:
            await self.desk.delivered(LAST_WORD_SECONDS)  # why it stopped, on every screen
            self.display.should_exit = True
            await self.serving
        for reader in self.readers:
            reader.close()
        self.shuffler.close()


def _uplink(service, settings, profile, rules: str):
    """The venue uplink of `service`, woken by each of its publications; the venue's commands
    taken on the actor's turn, like a referee's action (firmware/uplink/commands.py), never
    again under an id the journal says was taken (what they noted, the table takes up itself).
    Its status names the profile, the rule book `rules` (a name or a file) and the device key
    (firmware/uplink/identity.py), its birth count kept beside the key."""
    from firmware.uplink.broker import REFUSED_ADVICE
    from firmware.uplink.client import Uplink  # the MQTT client only for a table with a venue
    from firmware.uplink.commands import VenueCommands
    from firmware.uplink.identity import BIRTH_FILE, Identity
    from firmware.uplink.messages import status_state
    from firmware.uplink.seen import FILE_NAME as SEEN_FILE

    table, key = profile.name, service.hands.device_key
    identity = Identity(
        profile=profile.path,
        rules=ruleset_path(rules),
        key_fingerprint=key.fingerprint,
        journal=service.journal.path,
        births=key.path.parent / BIRTH_FILE,
        dice=service.dice_source,
    )

    def on_command(payload: bytes) -> None:
        taken = service.commands.submit(lambda t: commands.receive(t, payload))
        taken.add_done_callback(lambda done: done.cancelled() or done.exception())

    def on_refused(leaf: str, what: str) -> None:  # issue 36 item 5: referee and venue
        told = service.commands.submit(
            lambda t: service.commands.report_fault(
                t, "uplink", f"refused {leaf}", what, REFUSED_ADVICE, transient=True
            )
        )
        told.add_done_callback(lambda done: done.cancelled() or done.exception())

    uplink = Uplink(
        settings,
        service.journal,
        table,
        lambda: status_state(service.status(), uplink.alerts),
        identity,
        on_command,
        on_refused,
    )
    seen = key.path.parent / SEEN_FILE  # the ids taken outlive the session (issue 35)
    commands = VenueCommands(
        service, settings.key, settings.venue, table, resend=uplink.resend, seen=seen
    )
    commands.recall(service.commands.rows())
    service.commands.subscribe(lambda events: uplink.changed())
    return uplink
