"""The import graph of engine/, ui/ and the page scripts (views/), read from the source (module-level and
function-level imports, ``TYPE_CHECKING`` ones too, and ``importlib.import_module("...")`` calls of a
literal name): no import circles, engine's parts import only the floors below them as docs/architecture.md
lists them, engine never imports streamlit, no experiment imports the job server, page scripts only compose
and draw, and reading the registries imports neither torch nor plotly."""

from __future__ import annotations

import ast
import re
import subprocess
import sys
from pathlib import Path

from engine import experiments
from ui.navigation import FOLDER, PAGES

REPO = Path(__file__).resolve().parents[2]
#: the library, the Streamlit helpers and the page scripts' folder (as the app's navigation names it)
PACKAGES = ("engine", "ui", FOLDER)
#: circles in ui/ known and being removed (the lead empties this list when they are gone)
KNOWN_UI_CIRCLES: list[set[str]] = []


def modules() -> dict[str, Path]:
    """Every module of the packages by dotted name (a package by its own name)."""
    found = {}
    for package in PACKAGES:
        for path in (REPO / package).rglob("*.py"):
            parts = list(path.relative_to(REPO).with_suffix("").parts)
            if parts[-1] == "__init__":
                parts.pop()
            found[".".join(parts)] = path
    return found


def _resolve(name: str, known: dict[str, Path]) -> str | None:
    """The module of ours that ``name`` (a module, or a name inside one) is, or None."""
    while name and name not in known:
        name = name.rpartition(".")[0]
    return name or None


def _imported_by_name(node: ast.AST) -> list[str] | None:
    """The module an ``import_module("name")`` (or ``importlib.import_module``) call names, when it is a
    literal; None for any other node."""
    if not isinstance(node, ast.Call) or not node.args:
        return None
    func = node.func
    name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", None)
    first = node.args[0]
    if name == "import_module" and isinstance(first, ast.Constant) and isinstance(first.value, str):
        return [first.value]
    return None


def imports(module: str, path: Path, known: dict[str, Path]) -> set[str]:
    """The modules of ours and the top-level names of others (``streamlit``, ``torch``) that ``module``
    imports anywhere in its source (an ``import_module`` call of a literal name included)."""
    found: set[str] = set()
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        by_name = _imported_by_name(node)
        if by_name is not None:
            names = by_name
        elif isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parent = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join(parent + ([node.module] if node.module else []))
            names = [
                f"{base}.{alias.name}" if f"{base}.{alias.name}" in known else base for alias in node.names
            ]
        else:
            continue
        for name in names:
            ours = _resolve(name, known)
            found.add(ours if ours else name.split(".")[0])
    found.discard(module)
    return found


def graph() -> dict[str, set[str]]:
    known = modules()
    return {module: imports(module, path, known) for module, path in known.items()}


def circles(edges: dict[str, set[str]]) -> list[set[str]]:
    """The strongly connected components of more than one module (Tarjan), i.e. the import circles."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[set[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for other in edges.get(node, ()):
            if other not in edges:
                continue
            if other not in index:
                visit(other)
                low[node] = min(low[node], low[other])
            elif other in on_stack:
                low[node] = min(low[node], index[other])
        if low[node] == index[node]:
            component = set()
            while True:
                top = stack.pop()
                on_stack.discard(top)
                component.add(top)
                if top == node:
                    break
            if len(component) > 1:
                found.append(component)

    for node in sorted(edges):
        if node not in index:
            visit(node)
    return found


def test_the_circle_finder_finds_a_circle() -> None:
    assert circles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [{"a", "b", "c"}]
    assert circles({"a": {"b"}, "b": set()}) == []


def test_no_import_circles() -> None:
    found = circles(graph())
    in_engine = [c for c in found if all(m.startswith("engine") for m in c)]
    assert in_engine == []
    others = [c for c in found if c not in in_engine and c not in KNOWN_UI_CIRCLES]
    assert others == []


def test_engine_never_imports_streamlit() -> None:
    offenders = [m for m, deps in graph().items() if m.startswith("engine") and "streamlit" in deps]
    assert offenders == []


def test_the_import_finder_follows_import_module_calls(tmp_path: Path) -> None:
    source = tmp_path / "m.py"
    source.write_text("import importlib\ndef f():\n    importlib.import_module('engine.jobs')\n")
    assert "engine.jobs" in imports("engine.x", source, modules())


def test_no_experiment_imports_the_job_server() -> None:
    packages = {e.config_class.__module__.rpartition(".")[0] for e in experiments.EXPERIMENTS.values()}
    assert packages == {"engine.probe", "engine.simcse", "engine.jepa"}
    offenders = {
        module: sorted(dep for dep in deps if dep == "engine.jobs" or dep.startswith("engine.jobs."))
        for module, deps in graph().items()
        if any(module == p or module.startswith(p + ".") for p in packages)
    }
    assert {module: deps for module, deps in offenders.items() if deps} == {}


def test_the_registries_import_neither_torch_nor_plotly() -> None:
    """The CLI's --help, the replay and the pages read the registries: they stay light."""
    code = (
        "import sys; import engine.experiments, engine.core.measures, engine.lessons.texts, "
        "engine.lessons.presets; "
        "print(sorted(m for m in ('torch', 'plotly', 'streamlit') if m in sys.modules))"
    )
    done = subprocess.run([sys.executable, "-c", code], cwd=REPO, capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "[]"


def test_the_graph_reads_the_page_scripts() -> None:
    """The page scripts are in the graph (they moved from pages/ to views/ once, unseen by this test)."""
    pages = {script.removesuffix(".py").replace("/", ".") for script, _, _ in PAGES}
    assert pages and pages <= set(graph()), sorted(pages - set(graph()))


def test_page_scripts_only_compose_and_draw() -> None:
    """A page script imports the library and the Streamlit helpers, never a numeric library, another page
    script, or the job server's internals."""
    numeric = {"torch", "numpy", "sklearn", "umap", "scipy", "transformers"}
    offenders = {
        module: sorted(dep for dep in deps if dep in numeric or dep.startswith(f"{FOLDER}."))
        for module, deps in graph().items()
        if module.startswith(f"{FOLDER}.")
    }
    assert {module: deps for module, deps in offenders.items() if deps} == {}


def package_graph(edges: dict[str, set[str]]) -> dict[str, set[str]]:
    """The import graph between engine's parts (each subpackage, each module at its root), every import of
    every module counted (function-level ones too)."""

    def part(module: str) -> str:
        return ".".join(module.split(".")[:2])

    parts: dict[str, set[str]] = {}
    for module, deps in edges.items():
        if module.startswith("engine."):
            mine = parts.setdefault(part(module), set())
            mine.update(part(dep) for dep in deps if dep.startswith("engine.") and part(dep) != part(module))
    return parts


def test_engines_parts_form_layers_with_no_upward_import() -> None:
    """engine's parts import one another in one direction only: no loop between two parts, even one closed by
    an import inside a function (the run folder's naming once read the presets, which read an experiment,
    which writes run folders). A loop's parts are printed with the imports that close it."""
    edges = graph()
    loops = circles(package_graph(edges))
    closing = sorted(
        f"{module} -> {dep}"
        for loop in loops
        for module, deps in edges.items()
        for dep in deps
        if ".".join(module.split(".")[:2]) in loop
        and ".".join(dep.split(".")[:2]) in loop
        and ".".join(dep.split(".")[:2]) != ".".join(module.split(".")[:2])
    )
    assert loops == [], closing


def documented_floors() -> list[str]:
    """engine's parts in the order docs/architecture.md's tree lists them, bottom to top (``  core/``,
    ``  cli.py``: the lines indented by two spaces under ``engine/``)."""
    text = (REPO / "docs" / "architecture.md").read_text(encoding="utf-8")
    tree = text.split("\nengine/", 1)[1].split("\nbenchmarks/", 1)[0]
    names = re.findall(r"^  ([A-Za-z_]+)(?:/|\.py)\s", tree, flags=re.M)
    return [f"engine.{name}" for name in names]


def test_the_documented_floors_match_the_import_graph() -> None:
    """Every part of engine is on a floor of docs/architecture.md and imports only the floors listed before
    it (function-level imports and ``import_module`` calls included): the picture is the graph."""
    floors = documented_floors()
    parts = package_graph(graph())
    assert sorted(set(parts) - set(floors)) == [], "parts missing from docs/architecture.md"
    gone = [f for f in floors if not (REPO / f.replace(".", "/")).exists() and f not in parts]
    assert gone == [], "docs/architecture.md lists parts that do not exist"
    upward = sorted(
        f"{part} -> {dep}"
        for part, deps in parts.items()
        for dep in deps
        if floors.index(dep) > floors.index(part)
    )
    assert upward == [], upward


def test_the_layer_check_sees_a_loop_closed_inside_a_function() -> None:
    edges = {
        "engine.runlog.naming": {"engine.lessons.presets"},
        "engine.lessons.presets": {"engine.runlog.files"},
    }
    assert circles(package_graph(edges)) == [{"engine.runlog", "engine.lessons"}]
