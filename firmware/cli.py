"""`mjtable`: the command line of the table's firmware.

Each subcommand is a small function; argument errors exit with status 2 and one line naming the
problem, as argparse does. A command's package is imported only when that command runs (issue
29): `mjtable score` on a Pi would otherwise pay for the whole firmware at every start.
"""

import argparse
import importlib
import sys

from engine.schema import ConfigError

# command: (the module whose add_parser(commands) adds it, its one line in `mjtable --help`),
# in the order of that list.
COMMANDS = {
    "run": ("firmware.run.cli", "run the table (by default the simulated table)"),
    "score": ("firmware.score.cli", "score winning hands"),
    "bench": ("firmware.bench.cli", "measure speed (figures for README)"),
    "simulate": ("firmware.sim.simulate", "play simulated hands against the engine"),
    "replay": ("firmware.journal.replay", "re-apply a journal's inputs and check its outputs"),
    "journal": ("firmware.journal.cli", "journal files: a safe copy, an export"),
    "verify": ("firmware.audit.verify", "check a journal's chain, signatures and seals"),
    "key": ("firmware.tools.key", "the table's device key: its fingerprint, to publish"),
    "venue": ("firmware.venue.cli", "the venue dashboard: every table on the broker"),
    "selftest": ("firmware.tools.selftest", "check every device of the table, one by one"),
    "logs": ("firmware.tools.support", "the table's logs: a bundle for a support ticket"),
    "enroll": ("firmware.tools.enroll", "enroll a new tile set's tags into a tag registry"),
    "session": ("firmware.table.sessions", "the table's sessions on disk: new, list"),
    "referee": ("firmware.desk.referees", "the referees' own secrets at this table"),
    "update": (
        "firmware.tools.update",
        "install a new version between hands, checked by its selftest",
    ),
    "rollback": ("firmware.tools.update", "switch back to the release before this one"),
    "export": ("firmware.audit.cli", "a journal's score sheet or hand records"),
}


def parser(argv: list[str]) -> argparse.ArgumentParser:
    """The parser for `argv`: the named command's own options, imported from its package; with
    no known command, every command as a name and its line of help (for --help and errors)."""
    top = argparse.ArgumentParser(prog="mjtable", description=__doc__.splitlines()[0])
    commands = top.add_subparsers(dest="command", required=True, metavar="COMMAND")
    if argv and argv[0] in COMMANDS:  # `mjtable -h score` is the list: -h comes first
        importlib.import_module(COMMANDS[argv[0]][0]).add_parser(commands)
    else:
        for name, (_, line) in COMMANDS.items():
            commands.add_parser(name, help=line)
    return top


def main(argv=None) -> int:
    argv = sys.argv[1:] if argv is None else list(argv)
    args = parser(argv).parse_args(argv)
    try:
        return args.run(args)
    except ConfigError as err:
        # a ProfileError is raised only once firmware.table.profile is loaded: no import here
        profile = sys.modules.get("firmware.table.profile")
        if profile is not None and isinstance(err, profile.ProfileError):
            print(f"mjtable {args.command}: --profile: {err}", file=sys.stderr)
        else:
            print(f"mjtable {args.command}: config: {err}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:  # the reader went away (| head): stop quietly
        sys.stderr.close()
        return 0


if __name__ == "__main__":
    sys.exit(main())
