"""No module of the product over 400 lines (DEVELOPERS.md: one concept a module, none over ~400 lines):
engine/, ui/, views/, app.py, scripts/ and benchmarks/. Tests are left out: a test file mirrors the module it
tests and grows with its cases."""

from __future__ import annotations

from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
LIMIT = 400
PRODUCT = ("engine", "ui", "views", "scripts", "benchmarks")


def modules(root: Path) -> list[Path]:
    """The Python modules of the product under ``root`` (a repo), app.py included."""
    found = [path for part in PRODUCT for path in sorted((root / part).rglob("*.py"))]
    return [*found, root / "app.py"]


def too_long(paths: list[Path], limit: int = LIMIT) -> dict[str, int]:
    """``{path: lines}`` of the modules over ``limit`` lines."""
    counts = {str(path): len(path.read_text(encoding="utf-8").splitlines()) for path in paths}
    return {path: lines for path, lines in counts.items() if lines > limit}


def test_no_module_of_the_product_is_over_400_lines() -> None:
    assert too_long(modules(REPO)) == {}


def test_the_check_counts_lines(tmp_path: Path) -> None:
    long, short = tmp_path / "long.py", tmp_path / "short.py"
    long.write_text("x = 1\n" * (LIMIT + 1), encoding="utf-8")
    short.write_text("x = 1\n" * LIMIT, encoding="utf-8")
    assert too_long([long, short]) == {str(long): LIMIT + 1}
    assert len(modules(REPO)) > 100  # it reads the product, not an empty list
