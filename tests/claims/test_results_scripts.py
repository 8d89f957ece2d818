"""The scripts that ``results:script`` blocks run import only what the README's install gives (issue 56): the
standard library, the lab (``engine``), a sibling script, and the base dependencies of pyproject.toml; never
a test package (``tests/`` on sys.path, pytest, hypothesis: the dev extra), so that ``python -m engine results
--check`` regenerates every table on a fresh clone after ``pip install torch==2.13.0 -e .``."""

from __future__ import annotations

import ast
import importlib.metadata
import re
import shlex
import sys
import tomllib
from pathlib import Path

import pytest

from engine.claims import results
from engine.core.settings import REPO_ROOT

DOCUMENTS = ("README.md", "docs/results.md")


def scripts_of_the_results() -> list[Path]:
    """Every script a results:script block of :data:`DOCUMENTS` runs, once each."""
    found: dict[Path, None] = {}
    for name in DOCUMENTS:
        for block in results.blocks((REPO_ROOT / name).read_text(encoding="utf-8")):
            if block.kind == "script":
                found[REPO_ROOT / shlex.split(block.args)[0]] = None
    return list(found)


def base_distributions() -> set[str]:
    """The base dependencies of pyproject.toml (no extra), as normalised distribution names."""
    project = tomllib.loads((REPO_ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    return {_normal(re.split(r"[<>=!~;\[ ]", spec, maxsplit=1)[0]) for spec in project["dependencies"]}


def _normal(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def imported_modules(source: str) -> set[str]:
    """The top-level modules a script imports (absolute imports, at any depth of the file)."""
    names: set[str] = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            names |= {alias.name.split(".")[0] for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names.add(node.module.split(".")[0])
    return names


def outside_the_install(script: Path) -> list[str]:
    """The modules ``script`` imports that the README's install does not give, and any mention of the
    tests folder (a sys.path entry into it)."""
    base = base_distributions()
    owners = importlib.metadata.packages_distributions()
    siblings = {path.stem for path in script.parent.glob("*.py")}
    source = script.read_text(encoding="utf-8")
    wrong = []
    for module in sorted(imported_modules(source)):
        if module in sys.stdlib_module_names or module == "engine" or module in siblings:
            continue
        if not any(_normal(dist) in base for dist in owners.get(module, [])):
            wrong.append(module)
    if re.search(r"""["'/]tests["'/]""", source):
        wrong.append("the tests folder")
    return wrong


def test_the_results_run_scripts() -> None:
    assert {path.name for path in scripts_of_the_results()} >= {"alpha_req_check.py", "run_tables.py"}


@pytest.mark.parametrize("script", scripts_of_the_results(), ids=lambda path: path.name)
def test_a_results_script_imports_only_the_base_install(script: Path) -> None:
    assert outside_the_install(script) == [], f"{script.name} needs more than the README's install"


def test_a_test_package_import_is_found(tmp_path: Path) -> None:
    script = tmp_path / "check.py"
    script.write_text(
        "import sys\nimport numpy\nsys.path.insert(0, 'tests/metrics')\n"
        "from test_collapse import known_decay\nimport pytest\n",
        encoding="utf-8",
    )
    assert outside_the_install(script) == ["pytest", "test_collapse", "the tests folder"]
