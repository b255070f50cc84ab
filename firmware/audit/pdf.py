"""The score sheet (firmware/audit/sheet.py's document) as a PDF printable on A4.

fpdf2 (pure Python, pinned in pyproject.toml) writes it: no browser on the machine that
exports, the same file from the same journal anywhere. A sheet with text outside Latin-1
(Chinese names, CCM's rule references) is printed in Noto Sans CJK TC, Debian's
fonts-noto-cjk, embedded as the subset used; one in Latin-1 needs no font file.
"""

import json
import os

from fpdf import FPDF

from firmware.audit.sheet import ExportError
from firmware.audit.sheet_csv import offence_words

CJK_FONT = "/usr/share/fonts/opentype/noto/NotoSansCJK-Regular.ttc"
CJK_TC = 3  # the collection's Traditional Chinese face (0 JP, 1 KR, 2 SC, 3 TC, 4 HK)
ROW = 5.5  # mm per table row
# the columns of the hands' table: (title, width in mm); each player's three after "Winners"
HEAD = (("Hand", 11), ("Dealer", 24), ("Result", 13), ("Winners", 30))
PLAYER = (("change", 12), ("penalty", 12), ("total", 14))
TAIL = (("Dead", 11), ("Zero sum", 15), ("Confirmed", 17))


def as_pdf(document: dict) -> bytes:
    """The sheet on A4 landscape: players, hands, penalties, checks, games, signatures."""
    pdf = FPDF(orientation="landscape", format="A4")
    pdf.set_auto_page_break(True, margin=12)
    pdf.set_title(f"Score sheet {document['session_id'] or ''}".strip())
    pdf.set_creator("mjtable export sheet")
    font = _font(pdf, document)
    pdf.add_page()
    pdf.set_font(font, size=14)
    pdf.cell(0, 8, f"Score sheet: {document['ruleset_title'] or 'no hand played'}")
    pdf.ln(8)
    pdf.set_font(font, size=8)
    pdf.cell(
        0,
        5,
        f"journal {os.path.basename(document['journal'])}, session {document['session_id'] or '-'}",
    )
    pdf.ln(7)
    _players(pdf, font, document["players"])
    _hands(pdf, font, document["hands"])
    _offences(pdf, font, document["hands"])
    _games(pdf, font, document["games"])
    _signatures(pdf, font, document)
    _text(  # issue 35: what `mjtable verify --key --anchors` checks this sheet's journal by
        pdf,
        f"Device key {document['key_fingerprint'] or '-'}; journal head signed last "
        f"{document['final_head'] or '-'}",
    )
    return bytes(pdf.output())


def _font(pdf: FPDF, document: dict) -> str:
    """Helvetica for a sheet in Latin-1, else the CJK font (ExportError if it is missing)."""
    try:
        json.dumps(document, ensure_ascii=False).encode("latin-1")
        return "helvetica"
    except UnicodeEncodeError:
        pass
    if not os.path.isfile(CJK_FONT):
        raise ExportError(
            f"the sheet has Chinese text and {CJK_FONT} is missing: install Debian's "
            "fonts-noto-cjk, or export it as csv or json"
        )
    pdf.add_font("noto-cjk", fname=CJK_FONT, collection_font_number=CJK_TC)
    return "noto-cjk"


def _section(pdf: FPDF, font: str, title: str) -> None:
    pdf.ln(4)
    pdf.set_font(font, size=10)
    pdf.cell(0, 6, title)
    pdf.ln(6)
    pdf.set_font(font, size=8)


def _cell(pdf: FPDF, width: float, text, align: str = "C") -> None:
    """One bordered cell, its text cut to fit."""
    text = str(text)
    while text and pdf.get_string_width(text) > width - 1.5:
        text = text[:-1]
    pdf.cell(width, ROW, text, border=1, align=align)


def _text(pdf: FPDF, line: str) -> None:
    """A paragraph from the left margin, wrapped."""
    pdf.multi_cell(0, 4.5, line, new_x="LMARGIN", new_y="NEXT")


def _players(pdf: FPDF, font: str, players: list[dict]) -> None:
    for n, player in enumerate(players, 1):
        _cell(pdf, 12, f"P{n}")
        _cell(pdf, 70, player["name"], "L")
        _cell(pdf, 50, player["federation_id"] or "no federation id", "L")
        pdf.ln(ROW)


def _hands(pdf: FPDF, font: str, hands: list[dict]) -> None:
    _section(pdf, font, "Hands (changes, penalty points and running totals by player)")
    names: list[str] = []
    for hand in hands:
        if hand["names"] != names:  # the first row, and each CCM seat change
            names = hand["names"]
            for title, width in HEAD:
                _cell(pdf, width, title)
            for name in names:
                _cell(pdf, sum(w for _, w in PLAYER), name)
            for title, width in TAIL:
                _cell(pdf, width, title)
            pdf.ln(ROW)
            pdf.set_x(pdf.l_margin + sum(w for _, w in HEAD))
            for title, width in PLAYER * 4:
                _cell(pdf, width, title)
            pdf.ln(ROW)
        winners = ", ".join(names[w] for w in hand["winners"]) or "-"
        values = (hand["number"], names[hand["dealer"]], hand["result"], winners)
        for (_, width), value in zip(HEAD, values, strict=True):
            _cell(pdf, width, value)
        for player in range(4):
            amounts = (hand["changes"][player], hand["penalties"][player])
            for (_, width), amount in zip(PLAYER, amounts + (hand["totals"][player],), strict=True):
                _cell(pdf, width, f"{amount:+d}" if amount else "0", "R")
        check = "ok" if hand["zero_sum"]["ok"] else "NOT ZERO"
        tail = (hand["dead"], check, "yes" if hand["confirmed"] else "no")
        for (_, width), value in zip(TAIL, tail, strict=True):
            _cell(pdf, width, value)
        pdf.ln(ROW)


def _offences(pdf: FPDF, font: str, hands: list[dict]) -> None:
    """Each penalty in words, what was held outside the table, and the checks that failed."""
    lines = [
        f"Hand {h['number']}: {offence_words(o, h['names'])}"
        + (f", paid to {h['names'][o['to']]}" if o["to"] is not None else "")
        + (", dead points" if o["dead"] else "")
        for h in hands
        for o in h["offences"]
    ]
    problems = [f"Hand {h['number']}: {p}" for h in hands for p in h["zero_sum"]["problems"]]
    changed = [
        f"Hand {h['number']}: changed after it was confirmed"
        for h in hands
        if h["changed_since_confirmed"]
    ]
    held = [
        f"Hand {h['number']}: "
        + ", ".join(
            f"{name} {amount:+d}" for name, amount in zip(h["names"], h["held"], strict=True)
        )
        for h in hands
        if h["held"] and any(h["held"])
    ]
    sections = (
        ("Penalties", lines),
        ("Held outside the table until the game ends (seed 004 §32)", held),
        ("Checks", problems + changed),
    )
    for title, items in sections:
        if items or title == "Checks":
            _section(pdf, font, title)
            for line in items or ["every hand's payments and penalties sum to zero"]:
                _text(pdf, line)


def _games(pdf: FPDF, font: str, games: list[dict]) -> None:
    if not games:
        return
    _section(pdf, font, "Games")
    for n, game in enumerate(games, 1):
        _text(
            pdf,
            f"Game {n}: {game['hands']} hands, ended by {game['ended']}; chips {game['chips']}, "
            f"held {game['held']}, dead points {game['dead']}",
        )


def _signatures(pdf: FPDF, font: str, document: dict) -> None:
    _section(pdf, font, "Signatures")
    for s in document["signatures"]:
        _text(
            pdf,
            f"Signed by referee {s['referee']} up to hand {s['hand']}{_at(s)} "
            f"(journal head {s['journal_head'][:16]})",
        )
    if not document["signatures"]:
        _text(pdf, "Not signed at the table.")
    pdf.ln(6)
    last = {s["person"]: s for s in document["player_signatures"]}  # each one's latest
    referee = document["signatures"][-1] if document["signatures"] else None
    lines = [("Referee", referee and f"{referee['referee']}, up to hand {referee['hand']}")]
    lines += [
        (
            f"P{n + 1} {p['name']}",
            (s := last.get(n)) and f"signed up to hand {s['hand']} ({s['via']}){_at(s)}",
        )
        for n, p in enumerate(document["players"])
    ]
    for who, signed in lines:  # a line for each: who signed and when, or blank to sign
        _cell(pdf, 60, who, "L")
        _cell(pdf, 120, signed or "", "L")
        pdf.ln(ROW + 2)


def _at(signature: dict) -> str:
    """ " at 2026-12-02 14:05 UTC", from the time of day journaled with it, if any."""
    when = signature.get("wall_time")
    return f" at {when[:10]} {when[11:16]} UTC" if when else ""
