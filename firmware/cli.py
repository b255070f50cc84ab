"""`mjtable`: the command line of the table's firmware.

Each subcommand is a small function; argument errors exit with status 2 and one line naming the
problem, as argparse does.
"""

import argparse
import sys

from engine.schema import ConfigError
from firmware.audit import cli as export
from firmware.audit import verify
from firmware.bench import cli as bench
from firmware.desk import referees
from firmware.journal import cli as journal_cli
from firmware.journal import replay
from firmware.run import cli as run
from firmware.score import cli as score
from firmware.sim import simulate
from firmware.table import sessions
from firmware.table.profile import ProfileError
from firmware.tools import enroll, selftest, support, update
from firmware.venue import cli as venue


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="mjtable", description=__doc__.splitlines()[0])
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    run.add_parser(commands)
    score.add_parser(commands)
    bench.add_parser(commands)
    simulate.add_parser(commands)
    replay.add_parser(commands)
    journal_cli.add_parser(commands)
    verify.add_parser(commands)
    venue.add_parser(commands)
    selftest.add_parser(commands)
    support.add_parser(commands)
    enroll.add_parser(commands)
    sessions.add_parser(commands)
    referees.add_parser(commands)
    update.add_parser(commands)
    export.add_parser(commands)
    args = parser.parse_args(argv)
    try:
        return args.run(args)
    except ProfileError as err:  # a command's --profile that cannot be loaded
        print(f"mjtable {args.command}: --profile: {err}", file=sys.stderr)
        return 2
    except ConfigError as err:
        print(f"mjtable {args.command}: config: {err}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:  # the reader went away (| head): stop quietly
        sys.stderr.close()
        return 0


if __name__ == "__main__":
    sys.exit(main())
