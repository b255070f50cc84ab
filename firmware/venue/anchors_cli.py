"""`mjtable venue anchors export --records FILE -o OUT`: the anchors the venue kept (firmware/
venue/anchors.py) written to a new file, for `mjtable verify --anchors OUT` anywhere.

Exit status 0 written, 2 a records file that cannot be read or an output that exists.
"""

import sys

from firmware import cli_args
from firmware.venue.anchors import RecordsError, export_file


def add_parser(actions) -> None:
    """`anchors export` under `mjtable venue`."""
    anchors = actions.add_parser("anchors", help="the seals and signed heads the venue kept")
    what = anchors.add_subparsers(dest="anchors_action", required=True, metavar="ACTION")
    e = what.add_parser("export", help="write them to a file for mjtable verify --anchors")
    e.add_argument(
        "--records",
        type=cli_args.path,
        required=True,
        metavar="FILE",
        help="the venue's records (mjtable venue --records)",
    )
    e.add_argument("--venue", default="", help="the venue's name, said in the file")
    e.add_argument(
        "-o", "--output", type=cli_args.path, required=True, metavar="FILE", help="a new file"
    )
    e.set_defaults(run=run)


def run(args) -> int:
    try:
        count = export_file(args.records, args.venue, args.output)
    except RecordsError as err:
        print(f"mjtable venue anchors export: {err}", file=sys.stderr)
        return 2
    except FileExistsError:
        print(f"mjtable venue anchors export: {args.output}: exists", file=sys.stderr)
        return 2
    except OSError as err:
        print(f"mjtable venue anchors export: {args.output}: {err.strerror}", file=sys.stderr)
        return 2
    print(f"{args.output}: {count} anchors")
    return 0
