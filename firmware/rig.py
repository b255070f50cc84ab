"""One table running: the service and the devices its profile names, going on with the
journal's session, the referee display, and the tasks they run as (`mjtable run`)."""

import asyncio
import signal
import sys

from firmware.desk import Desk
from firmware.display.app import DisplayServer, create_app
from firmware.service import assemble


class Rig:
    """Built from `mjtable run`'s `args` (hands, port, json_summary, history). `clock` is the
    table's clock; `gpio` and `paths` (zones, stacker) stand in for the profile's pins and
    readers' device paths: a simulation's."""

    def __init__(self, args, profile, ruleset, journal, clock, loop, gpio=None, paths=None):
        out = (lambda line: None) if args.json_summary else (lambda line: print(line, flush=True))
        self.service, devices = assemble(
            profile, ruleset, journal, clock, loop, out, args.hands, gpio, paths
        )
        service = self.service
        self.shuffler, self.readers = devices.shuffler, devices.readers
        service.hands.resume(clock(), args.history)
        for reader in self.readers:
            reader.start()
        self.display = self.serving = None
        if args.port:
            self.display = DisplayServer(
                create_app(Desk(service, profile.name), profile.referee_pin),
                profile.host,
                args.port,
            )
            self.serving = asyncio.create_task(self.display.serve())
            print(
                f"referee display: http://{profile.host}:{args.port}/ (public view: /table)",
                file=sys.stderr if args.json_summary else sys.stdout,
                flush=True,
            )
        for signum in (signal.SIGINT, signal.SIGTERM):
            loop.add_signal_handler(signum, service.actor.done.set)
        self.worker = asyncio.create_task(service.run())

    async def stop(self) -> None:
        self.worker.cancel()
        if self.display is not None:
            self.display.should_exit = True
            await self.serving
        for reader in self.readers:
            reader.close()
        self.shuffler.close()
