"""JavaScript lives in .js files: no string literal of a Python file of the app (engine/, ui/, views/, app.py)
reads as JavaScript. The chart renderer and the replay's script are package data (engine/web/), read where
they are used."""

from __future__ import annotations

import ast
import re
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
#: what JavaScript has and the app's texts (prose, formulas, CSS, HTML, Graphviz) do not
JAVASCRIPT = re.compile(
    r"function\s*\w*\s*\([^)]*\)\s*\{|=>\s*[{(\w]|\bdocument\.\w|\bwindow\.\w|\b(?:const|let|var)\s+\w+\s*=|"
    r"addEventListener|querySelector|\bPlotly\.(?:react|newPlot|restyle|relayout|extendTraces|purge)\("
)


def sources() -> list[Path]:
    found = [REPO / "app.py"]
    for folder in ("engine", "ui", "views"):
        found += sorted((REPO / folder).rglob("*.py"))
    return found


def javascript_in(path: Path) -> list[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    return [
        f"{path}:{node.lineno}: {JAVASCRIPT.search(node.value).group(0)!r}"
        for node in ast.walk(tree)
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and JAVASCRIPT.search(node.value)
    ]


def test_no_python_string_holds_javascript() -> None:
    found = [line for path in sources() for line in javascript_in(path)]
    assert found == [], "\n".join(found)


def test_the_check_finds_javascript_in_a_string(tmp_path: Path) -> None:
    sample = tmp_path / "sample.py"
    sample.write_text("SCRIPT = \"document.getElementById('x').addEventListener('click', () => go());\"\n")
    assert len(javascript_in(sample)) == 1
