"""The pages and ui/ hand on the registered experiment (:class:`~engine.core.declaration.Experiment`), not
its kind's string (issue 50, item 1): no function of ui/ takes a ``kind`` text to look the experiment up
again, and no page script hands a ui function an experiment's ``.kind``. A key, a URL or a run's kind is
derived from ``experiment.kind`` inside; ui code that starts from a run's kind (a queued preset run, the
Overview's demo) looks the experiment up once, with :func:`engine.experiments.get`."""

from __future__ import annotations

import ast
import re
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
UI = sorted((REPO / "ui").glob("*.py"))
PAGES = [*sorted((REPO / "views").glob("*.py")), REPO / "app.py"]


def functions(tree: ast.AST) -> list[ast.FunctionDef | ast.AsyncFunctionDef]:
    return [node for node in ast.walk(tree) if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))]


def parameters(node: ast.FunctionDef | ast.AsyncFunctionDef) -> list[ast.arg]:
    found = [*node.args.posonlyargs, *node.args.args, *node.args.kwonlyargs]
    return found + [arg for arg in (node.args.vararg, node.args.kwarg) if arg is not None]


def kind_text_parameters(source: str) -> list[str]:
    """``function(parameter: annotation)`` for each parameter named ``kind`` (or ``<something>_kind``) that
    is text: annotated ``str`` (``str | None`` too) or not annotated at all."""
    found = []
    for node in functions(ast.parse(source)):
        for arg in parameters(node):
            if arg.arg != "kind" and not arg.arg.endswith("_kind"):
                continue
            annotation = ast.unparse(arg.annotation) if arg.annotation is not None else ""
            if not annotation or re.search(r"\bstr\b", annotation):
                found.append(f"{node.name}({arg.arg}: {annotation or '?'})")
    return found


def ui_names(tree: ast.AST) -> tuple[set[str], set[str]]:
    """The ui modules (``from ui import fields``) and the ui functions (``from ui.controls import sources``)
    that a page script imports, by the names it calls them."""
    modules, names = set(), set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module == "ui":
            modules |= {alias.asname or alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and (node.module or "").startswith("ui."):
            names |= {alias.asname or alias.name for alias in node.names}
        elif isinstance(node, ast.Import):
            modules |= {alias.asname or alias.name for alias in node.names if alias.name.startswith("ui")}
    return modules, names


def kinds_handed_to_ui(source: str) -> list[str]:
    """Each call of a ui function in a page script that gets an ``<x>.kind`` as an argument (a string made
    from it, ``f"{EXPERIMENT.kind}.x"``, is a key, not a kind handed on)."""
    tree = ast.parse(source)
    modules, names = ui_names(tree)
    found = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call):
            continue
        func = node.func
        to_ui = (isinstance(func, ast.Name) and func.id in names) or (
            isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) and func.value.id in modules
        )
        arguments = [*node.args, *(keyword.value for keyword in node.keywords)]
        if to_ui and any(isinstance(arg, ast.Attribute) and arg.attr == "kind" for arg in arguments):
            found.append(ast.unparse(node))
    return found


def test_no_ui_function_takes_a_kind_string() -> None:
    offenders = {path.name: kind_text_parameters(path.read_text(encoding="utf-8")) for path in UI}
    assert {name: found for name, found in offenders.items() if found} == {}


def test_the_ui_functions_take_the_experiment() -> None:
    """The walk is not vacuous: the page helpers (fields, links, controls, runs, run_name) take an
    ``experiment: Experiment``."""
    taking = {
        f"{path.stem}.{node.name}"
        for path in UI
        for node in functions(ast.parse(path.read_text(encoding="utf-8")))
        if any(
            arg.arg == "experiment"
            and arg.annotation is not None
            and "Experiment" in ast.unparse(arg.annotation)
            for arg in parameters(node)
        )
    }
    assert {
        "fields.draw",
        "fields.key",
        "links.open_link",
        "controls.preset_buttons",
        "runs.submit_runs",
    } <= taking
    assert {"runs.shown_jobs", "run_name.name_field", "experiment.figure_of"} <= taking
    assert len(taking) >= 30


def test_no_page_script_hands_a_kind_to_ui() -> None:
    for path in PAGES:
        source = path.read_text(encoding="utf-8")
        assert "EXPERIMENT.kind" not in source, f"{path.name} hands on EXPERIMENT.kind: pass EXPERIMENT"
        assert kinds_handed_to_ui(source) == [], path.name


def test_the_checks_see_a_kind_string() -> None:
    """The checks are not blind: a ui function taking ``kind: str`` again, or a page handing a ui function
    ``EXPERIMENT.kind``, is found."""
    assert kind_text_parameters("def key(kind: str, name: str) -> str: ...") == ["key(kind: str)"]
    assert kind_text_parameters("def shown(kind: str | None = None): ...") == ["shown(kind: str | None)"]
    assert kind_text_parameters("def shown(run_kind): ...") == ["shown(run_kind: ?)"]
    assert kind_text_parameters("def key(experiment: Experiment, name: str) -> str: ...") == []
    page = "from ui import fields\nfrom ui.controls import sources\n"
    assert kinds_handed_to_ui(page + "fields.draw(EXPERIMENT.kind, 'steps')") == [
        "fields.draw(EXPERIMENT.kind, 'steps')"
    ]
    assert kinds_handed_to_ui(page + "sources(prefix=preset.kind)") == ["sources(prefix=preset.kind)"]
    assert kinds_handed_to_ui(page + "fields.draw(EXPERIMENT, 'steps')") == []
    assert kinds_handed_to_ui(page + "experiments.get(preset.kind)") == []
