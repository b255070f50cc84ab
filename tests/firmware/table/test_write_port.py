"""Issue 29 ("The service's parts are written from outside"): outside firmware/table/, nobody
writes the service's parts; the desk, the venue's commands, the simulated panel and the
shuffle watch act on the table through its write port (firmware/table/commands.py) and read
it through its status. Read with `ast` from the files, nothing imported."""

import ast
from pathlib import Path

from tests.conftest import REPO

# The service's parts that only firmware/table/ may write (firmware/table/service.py).
PARTS = frozenset(
    {"hands", "journal", "venue", "faults", "sitting", "next_session", "publish", "out", "stopped"}
)
TABLE = REPO / "firmware" / "table"


def _reaches(node: ast.AST) -> str | None:
    """The part of a service (`service.hands`, `self.service.venue`, ...) that the chain of
    attributes, subscripts and calls `node` goes through, or None."""
    while isinstance(node, ast.Attribute | ast.Subscript | ast.Call):
        inner = node.func if isinstance(node, ast.Call) else node.value
        if isinstance(node, ast.Attribute) and node.attr in PARTS:
            owner = inner.attr if isinstance(inner, ast.Attribute) else getattr(inner, "id", "")
            if owner == "service":
                return node.attr
        node = inner
    return None


def writes(source: str, name: str = "<source>") -> list[str]:
    """Where `source` writes a service's part: assigns to it or into it, calls through it
    (`service.hands.void(...)`, `service.journal.record(...)`, `service.publish(...)`), or
    binds it to a name, which would hide the writes that follow from this check."""
    found: list[tuple[int, str]] = []
    for node in ast.walk(ast.parse(source, name)):
        if isinstance(node, ast.Assign | ast.AugAssign | ast.AnnAssign | ast.Delete):
            targets = node.targets if isinstance(node, ast.Assign | ast.Delete) else [node.target]
            hit = [part for target in targets for part in [_reaches(target)] if part]
            if isinstance(node, ast.Assign | ast.AnnAssign) and node.value is not None:
                value = node.value
                if isinstance(value, ast.Attribute) and _reaches(value) == value.attr:
                    hit.append(f"{value.attr} (bound to a name)")
            found += [(node.lineno, f"service.{part}") for part in hit]
        elif isinstance(node, ast.Call):
            part = _reaches(node.func)
            if part is not None:
                found.append((node.lineno, f"service.{part} (called through)"))
    return [f"{name}:{line}: {what}" for line, what in sorted(found)]


def outside_the_table() -> list[Path]:
    """The modules of firmware/ outside firmware/table/."""
    return [p for p in sorted((REPO / "firmware").rglob("*.py")) if TABLE not in p.parents]


def test_issue_29_nothing_outside_the_table_writes_the_services_parts():
    """Issue 29: every module of firmware/ outside firmware/table/ acts on the table through
    its write port (`service.commands`), never on `service.hands`, `.journal`, `.venue`,
    the fault board or the listeners."""
    found = []
    for path in outside_the_table():
        found += writes(path.read_text(encoding="utf-8"), str(path.relative_to(REPO)))
    assert found == [], "writes into the table's service from outside firmware/table/:\n" + (
        "\n".join(found)
    )


def test_the_check_sees_each_kind_of_write():
    """The check itself: an assignment into a part, a call through one, an alias of one are
    each found; a read of the status, a call of the port and a part of something that is not
    a service are not."""
    caught = """
self.service.venue = notes
service.hands.voided = None
desk.service.hands.apply(event)
self.service.journal.record(record)
service.publish([])
service.listeners_of = service.hands
"""
    assert [line.split(": ", 1)[1] for line in writes(caught)] == [
        "service.venue",
        "service.hands",
        "service.hands (called through)",
        "service.journal (called through)",
        "service.publish (called through)",
        "service.hands (bound to a name)",
    ]
    allowed = """
status = self.service.status()
self.service.commands.void(t, reason)
self.journal.record(record)
view.venue.players
path = service.commands.journal_path
"""
    assert writes(allowed) == []


def test_the_check_reads_the_modules_that_act_on_the_table():
    """The walk covers the desk, the uplink, the run and the shuffle watch, not the table."""
    outside = {p.relative_to(REPO).as_posix() for p in outside_the_table()}
    assert "firmware/table/commands.py" not in outside
    assert {
        "firmware/desk/desk.py",
        "firmware/uplink/commands.py",
        "firmware/run/simulated.py",
        "firmware/audit/shuffle_watch.py",
    } <= outside
