"""No experiment imports another experiment's package, and the training core imports none: read from the
source with ast (module-level and function-level imports, relative ones resolved), so that a lazy import
inside a function is caught too. The experiments are the registry's (engine.experiments.EXPERIMENTS)."""

from __future__ import annotations

import ast
from pathlib import Path

from engine import experiments

REPO = Path(__file__).resolve().parents[2]
#: packages whose code more than one experiment runs: they import no experiment
SHARED = ("engine.training",)


def experiment_packages() -> set[str]:
    """``engine.probe``, ``engine.simcse``, ``engine.jepa``: the packages of the registered experiments."""
    return {e.config_class.__module__.rpartition(".")[0] for e in experiments.EXPERIMENTS.values()}


def imported(path: Path, source: str | None = None) -> set[str]:
    """Every module name ``path`` (or ``source`` read as that file) imports, anywhere in it (``from . import
    x`` resolved to its package)."""
    parts = list(path.relative_to(REPO).with_suffix("").parts)
    package = parts[:-1]
    found: set[str] = set()
    text = path.read_text(encoding="utf-8") if source is None else source
    for node in ast.walk(ast.parse(text)):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                base = ".".join(package[: len(package) - node.level + 1] + ([base] if base else []))
            found.add(base)
            found.update(f"{base}.{alias.name}" for alias in node.names)
    return found


def crossings(packages: set[str], shared: tuple[str, ...] = SHARED) -> dict[str, list[str]]:
    """``{module file: [the other experiments' packages it imports]}`` for every file of an experiment's
    package or of a shared one."""
    owners = sorted(packages | set(shared))
    found: dict[str, list[str]] = {}
    for owner in owners:
        for path in sorted((REPO / owner.replace(".", "/")).rglob("*.py")):
            names = imported(path)
            others = sorted(
                other
                for other in packages - {owner}
                if any(name == other or name.startswith(other + ".") for name in names)
            )
            if others:
                found[str(path.relative_to(REPO))] = others
    return found


def test_no_experiment_imports_another_and_the_training_core_imports_none() -> None:
    packages = experiment_packages()
    assert {"engine.probe", "engine.simcse", "engine.jepa"} <= packages
    assert crossings(packages) == {}


def test_a_function_level_import_of_another_experiment_is_found() -> None:
    """The walk is not vacuous: a lazy import inside a function, and a relative one, are imports."""
    path = REPO / "engine" / "jepa" / "step.py"
    lazy = imported(path, "def f():\n    from engine.simcse.augmentations import VIEWS\n    return VIEWS\n")
    assert "engine.simcse.augmentations" in lazy
    relative = imported(path, "from ..simcse import augmentations\n")
    assert "engine.simcse" in relative and "engine.simcse.augmentations" in relative
