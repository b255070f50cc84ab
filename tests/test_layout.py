"""The layout of DESIGN.md (issue 11, "Tests"): the import direction of DESIGN.md's Layout
(engine imports nothing of ours, drivers nothing either but drivers/sim/ uses engine,
firmware uses both), no import cycle among the modules of engine/, drivers/ and firmware/,
pyproject.toml's package list matching the tree (DESIGN.md, "Resources ... are package
data"), and no test module imported by another (issue 29). Read with `ast` from the files,
nothing imported: every import counts, one inside a function or under TYPE_CHECKING too (a
cycle that such an import hides is still two modules that need each other).
"""

import ast
import graphlib
import itertools
import tomllib
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.conftest import REPO

OURS = ("engine", "drivers", "firmware")


@dataclass(frozen=True)
class Import:
    source: str  # the importing module
    target: str  # the imported module of ours
    where: str  # file:line, and whether inside a function

    def __str__(self) -> str:
        return f"{self.source} -> {self.target} ({self.where})"


def module_name(path: Path) -> str:
    parts = path.relative_to(REPO).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


MODULES = {
    module_name(path): path
    for top in OURS
    for path in sorted((REPO / top).rglob("*.py"))
    if "__pycache__" not in path.parts
}


def resolve(name: str) -> str | None:
    """The module of ours that `import name` runs last, or None for someone else's."""
    while name and name not in MODULES:
        name = name.rpartition(".")[0]
    return name or None


def imported_from(node: ast.ImportFrom, package: str) -> str:
    """The module a `from ... import` names, a relative one resolved within `package`."""
    base = node.module or ""
    if node.level:
        anchor = package.rsplit(".", node.level - 1)[0] if node.level > 1 else package
        base = f"{anchor}.{base}" if base else anchor
    return base


def imports_of(module: str) -> Iterator[Import]:
    path = MODULES[module]
    tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    in_function = {
        id(node)
        for scope in ast.walk(tree)
        if isinstance(scope, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda)
        for node in ast.walk(scope)
    }
    for_types = {
        id(node)
        for block in ast.walk(tree)
        if isinstance(block, ast.If) and "TYPE_CHECKING" in ast.unparse(block.test)
        for statement in block.body
        for node in ast.walk(statement)
    }
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = imported_from(node, package)
            # `from package import module` imports the module; `from module import name` not
            names = [
                f"{base}.{a.name}" if f"{base}.{a.name}" in MODULES else base for a in node.names
            ]
        else:
            continue
        where = f"{path.relative_to(REPO)}:{node.lineno}"
        if id(node) in in_function:
            where += ", inside a function"
        if id(node) in for_types:
            where += ", under TYPE_CHECKING"
        for name in names:
            target = resolve(name)
            if target and target != module:
                yield Import(module, target, where)


@pytest.fixture(scope="module")
def imports() -> list[Import]:
    """Every import of ours, read once for this module's tests when they run (not at import:
    every xdist worker imports this module to collect it)."""
    return [found for module in MODULES for found in imports_of(module)]


RINGS = {  # DESIGN.md, firmware/: a package imports only from lower rings, plus engine and drivers
    "engine": 0,
    "drivers": 0,
    "firmware.resources": 1,
    "firmware.cli_args": 1,
    "firmware.percentiles": 1,
    "firmware.ports": 1,
    "firmware.journal": 2,
    "firmware.web": 2,
    "firmware.texts": 3,
    "firmware.bus": 3,
    "firmware.audit": 3,
    "firmware.table": 4,
    "firmware.display": 5,
    "firmware.uplink": 5,
    "firmware.sim": 5,
    "firmware.desk": 6,
    "firmware.venue": 7,
    "firmware.tools": 7,
    "firmware.score": 7,
    "firmware.run": 8,
    "firmware.bench": 9,
    "firmware.cli": 10,
}

# Imports allowed to cross the rings: none since the restructuring (issue 29) cut the last. A
# crossing listed here must still exist (test_every_known_exception_still_exists): it only shrinks.
EXCEPTIONS: set[tuple[str, str]] = set()


def package_of(module: str) -> str:
    """The ring's unit a module belongs to: its package under firmware/, or engine, drivers."""
    parts = module.split(".")
    if parts[0] != "firmware":
        return parts[0]
    return ".".join(parts[:2]) if len(parts) > 1 else "firmware"


def allowed(source: str, target: str) -> bool:
    """DESIGN.md's import direction: engine imports nothing of ours, drivers nothing but drivers
    (drivers/sim/ also engine), firmware's packages only packages of lower rings."""
    top = target.split(".")[0]
    if source.split(".")[0] == "engine":
        return top == "engine"
    if source == "drivers.sim" or source.startswith("drivers.sim."):
        return top in ("drivers", "engine")
    if source.split(".")[0] == "drivers":
        return top == "drivers"
    mine, theirs = package_of(source), package_of(target)
    if mine == theirs or theirs == "firmware":
        return True
    if (mine, theirs) in EXCEPTIONS:
        return True
    return RINGS[theirs] < RINGS[mine]


def test_imports_go_one_way(imports):
    """DESIGN.md, Layout and firmware/: engine imports nothing of ours, drivers nothing but
    drivers/ (drivers/sim/ also engine), firmware's packages only packages of lower rings
    (siblings in one ring not each other)."""
    wrong = [str(found) for found in imports if not allowed(found.source, found.target)]
    assert wrong == [], "imports against DESIGN.md's direction:\n" + "\n".join(wrong)


def cycle_of(edges: list[Import]) -> list[Import]:
    """A cycle among `edges` as its imports, or [] (graphlib names one when there is one)."""
    graph: dict[str, dict[str, Import]] = {}
    for edge in edges:
        graph.setdefault(edge.source, {}).setdefault(edge.target, edge)
    try:
        graphlib.TopologicalSorter({m: set(targets) for m, targets in graph.items()}).prepare()
    except graphlib.CycleError as err:
        modules = err.args[1]  # [a, b, ..., a], each importing the one before it
        return [graph[after][before] for before, after in itertools.pairwise(modules)][::-1]
    return []


def test_no_import_cycle(imports):
    """DESIGN.md, Layout: the modules of engine/, drivers/ and firmware/ import one another
    without a cycle, counting the imports inside functions (they run, later: a cycle they hide
    is still one). An import under TYPE_CHECKING never runs; it only names a type for mypy."""
    cycle = cycle_of([edge for edge in imports if "TYPE_CHECKING" not in edge.where])
    assert cycle == [], "an import cycle:\n" + "\n".join(f"    {edge}" for edge in cycle)


def test_the_cycle_check_sees_a_cycle_hidden_in_a_function():
    """The check itself: a two-module cycle, one side inside a function, is found."""
    edges = [Import("a", "b", "a.py:1"), Import("b", "a", "b.py:9, inside a function")]
    assert sorted(cycle_of(edges), key=str) == edges
    assert cycle_of(edges[:1]) == []


def test_pyproject_lists_every_package():
    """pyproject.toml names every package (one is not where its name says: config/ installs
    as firmware.config_data), so a new package of the tree must be added there."""
    setuptools = tomllib.loads((REPO / "pyproject.toml").read_text())["tool"]["setuptools"]
    tree = {name for name, path in MODULES.items() if path.name == "__init__.py"}
    listed = set(setuptools["packages"])
    assert listed == tree | {"firmware.config_data"}, (
        f"pyproject.toml [tool.setuptools] packages: missing {sorted(tree - listed)}, "
        f"not in the tree {sorted(listed - tree - {'firmware.config_data'})}"
    )
    assert setuptools["package-dir"] == {"firmware.config_data": "config"}
    assert (REPO / "config" / "__init__.py").is_file()


def test_every_firmware_package_has_its_ring():
    """DESIGN.md, firmware/: each package of firmware/ stands in one ring, none forgotten."""
    packages = {package_of(m) for m in MODULES if m.startswith("firmware.")}
    assert packages == set(RINGS) - {"engine", "drivers"}


def test_every_known_exception_still_exists(imports):
    """The exceptions list only shrinks: an exception whose import is gone must leave it."""
    seen = {(package_of(i.source), package_of(i.target)) for i in imports}
    assert seen >= EXCEPTIONS, f"cut already, remove from EXCEPTIONS: {EXCEPTIONS - seen}"


def test_the_ring_check_refuses_an_import_upwards_and_between_siblings():
    """The check itself: the journal may not import the desk (ring 6 over ring 2),
    the simulated world not the uplink (siblings in ring 5); the desk may import the table."""
    assert not allowed("firmware.journal.store", "firmware.desk.desk")
    assert not allowed("firmware.sim.world", "firmware.uplink.client")
    assert allowed("firmware.desk.desk", "firmware.table.service")


# -- tests/ (issue 29: tests mirrored by package) ----------------------------------------------

TEST_FILES = {
    module_name(path): path
    for path in sorted((REPO / "tests").rglob("*.py"))
    if "__pycache__" not in path.parts
}


def is_test_module(name: str) -> bool:
    """A test module: tests/**/test_*.py, which pytest collects."""
    return name.split(".")[0] == "tests" and name.rpartition(".")[2].startswith("test_")


def imported_test_modules(module: str, text: str) -> list[str]:
    """The test modules that `text`, the source of `module`, imports: by an import statement
    (absolute or relative) or by importlib with a name it spells out."""
    package = module.rpartition(".")[0]
    found = []
    for node in ast.walk(ast.parse(text)):
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = imported_from(node, package)
            names = [base] + [f"{base}.{alias.name}" for alias in node.names]
        elif isinstance(node, ast.Call) and ast.unparse(node.func).endswith(
            ("import_module", "__import__")
        ):
            names = [ast.unparse(arg).strip("'\"f") for arg in node.args[:1]]
            names = [n for n in names if n.startswith("tests.")]
            if names:
                found.append(f"{module}:{node.lineno} imports {names[0]} (by its name)")
            continue
        else:
            continue
        found += [f"{module}:{node.lineno} imports {n}" for n in names if is_test_module(n)]
    return found


def test_no_test_module_is_imported_by_another():
    """Issue 29: a helper two test files share lives in tests/support/, a fixture in its
    package's conftest.py; no module imports a test module (a test function imported is
    collected, and run, twice; a test file read as a library is changed for its callers)."""
    wrong = [
        found
        for module, path in TEST_FILES.items()
        for found in imported_test_modules(module, path.read_text(encoding="utf-8"))
    ]
    assert wrong == [], "test modules imported:\n" + "\n".join(wrong)


def test_the_check_sees_a_test_module_imported_every_way():
    """The check itself: from, import, relative and importlib imports of a test module are
    found; an import of tests/support/ or of a conftest is not one."""
    text = "\n".join(
        [
            "from tests.engine.test_moves import Hand",
            "import tests.firmware.run.test_power_cut",
            "from tests.engine import test_table",
            "from .test_wall import E",
            "importlib.import_module(f'tests.{name}')",
            "from tests.support.moveskit import Hand",
            "from tests.conftest import REPO",
        ]
    )
    assert [
        line.split(" imports ")[0] for line in imported_test_modules("tests.engine.x", text)
    ] == [f"tests.engine.x:{n}" for n in (1, 2, 3, 4, 5)]
