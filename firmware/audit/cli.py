"""`mjtable export sheet JOURNAL --format csv|json|pdf [--excel] [-o FILE]`
(firmware/audit/sheet.py; `--excel`: the CSV with UTF-8's byte order mark, sheet_csv.py)
and `mjtable export hands JOURNAL --format jsonl|mjai [-o FILE]` (firmware/audit/hands.py).

Each reads the journal without writing to it and writes to standard output, or to the new
file `-o FILE` (never over an existing one); a PDF goes to standard output only when it is
not a terminal. Exit status 0 written, 2 a bad journal or destination, or hands that the
format cannot hold (CCM's for mjai). `rendered` makes the sheet's file in each format, for the
desk's download too (firmware/display/app.py).
"""

import json
import sys

from firmware import cli_args
from firmware.audit import hands as export_hands
from firmware.audit import sheet as export_sheet
from firmware.audit.sheet_csv import as_csv
from firmware.journal.failures import JournalError
from firmware.journal.replay import ReplayError


def add_parser(commands) -> None:
    p = commands.add_parser("export")
    what = p.add_subparsers(dest="what", required=True, metavar="WHAT")
    s = what.add_parser("sheet", help="the session's score sheet: CSV, JSON or PDF (A4)")
    h = what.add_parser("hands", help="every event by hand (jsonl), or WSOM hands as mjai")
    for sub, formats in ((s, tuple(export_sheet.MEDIA)), (h, export_hands.FORMATS)):
        sub.add_argument("journal", type=cli_args.path, help="the journal file (SQLite)")
        sub.add_argument("--format", choices=formats, required=True)
        sub.add_argument("-o", "--output", type=cli_args.path, metavar="FILE", help="a new file")
        sub.set_defaults(run=run)
    s.add_argument("--excel", action="store_true", help="CSV for Excel: UTF-8 with its BOM")


def run(args) -> int:
    try:
        if args.what == "sheet" and args.excel and args.format != "csv":
            raise export_sheet.ExportError("--excel is for --format csv (a BOM for Excel)")
        if args.what == "sheet":
            data = rendered(export_sheet.sheet(args.journal), args.format, args.excel)
        else:
            data = export_hands.export(args.journal, args.format)
        write(data, args.output, binary=args.format == "pdf")
    except (JournalError, ReplayError, export_sheet.ExportError, export_hands.Inexpressible) as err:
        print(f"mjtable export {args.what}: {err}", file=sys.stderr)
        return 2
    return 0


def rendered(document: dict, fmt: str, excel: bool = False) -> bytes:
    """The sheet's document as the file of `fmt` (export_sheet.MEDIA's); `excel`: the CSV
    begins with a BOM."""
    if fmt == "csv":
        return as_csv(document, excel)
    if fmt == "json":
        return (json.dumps(document, ensure_ascii=False, indent=1) + "\n").encode("utf-8")
    from firmware.audit.pdf import as_pdf  # fpdf2 takes a second to import: for a PDF only

    return as_pdf(document)


def write(data: bytes, output: str | None, binary: bool) -> None:
    """`data` to the new file `output`, or to standard output (binary: not to a terminal)."""
    if output is None:
        if binary and sys.stdout.isatty():
            raise export_sheet.ExportError(
                "a PDF is not printed on a terminal: give -o FILE or redirect it"
            )
        sys.stdout.flush()
        sys.stdout.buffer.write(data)
        sys.stdout.buffer.flush()
        return
    try:
        with open(output, "xb") as out:
            out.write(data)
    except FileExistsError:
        raise export_sheet.ExportError(
            f"{output}: exists: an export never overwrites a file"
        ) from None
    except OSError as err:
        raise export_sheet.ExportError(f"{output}: cannot write it: {err.strerror}") from None
