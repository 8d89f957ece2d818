"""Safety rules checked on the source itself, so a new call site cannot slip past review.

- every Hugging Face ``from_pretrained`` call passes ``trust_remote_code=False`` (directly or via a dict
  literal named in the call), never True;
- no ``pickle``/``joblib``/``dill`` import; ``torch.load`` only with ``weights_only=True``;
  ``np.load`` only with ``allow_pickle=False``;
- the Streamlit server binds to localhost and caps uploads;
- ``engine/`` never imports streamlit; ``app.py``/``views/``/``ui/`` never import torch, sklearn or umap.
"""

from __future__ import annotations

import ast
import tomllib
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
SOURCES = sorted(
    [
        *REPO.glob("engine/**/*.py"),
        *REPO.glob("views/*.py"),
        *REPO.glob("ui/**/*.py"),
        REPO / "app.py",
        *REPO.glob("benchmarks/*.py"),
        *REPO.glob("scripts/*.py"),
    ]
)


def _calls(tree: ast.AST, name: str) -> list[ast.Call]:
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            func = node.func
            called = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", None)
            if called == name:
                found.append(node)
    return found


def _keyword(call: ast.Call, name: str) -> ast.expr | None:
    return next((k.value for k in call.keywords if k.arg == name), None)


def _dict_literals_with(tree: ast.AST, key: str) -> dict[str, ast.expr]:
    """``name = {"key": value, ...}`` assignments, so ``**common`` can be checked."""
    out = {}
    for node in ast.walk(tree):
        if isinstance(node, (ast.Assign, ast.AnnAssign)) and isinstance(node.value, ast.Dict):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            for k, v in zip(node.value.keys, node.value.values):
                if isinstance(k, ast.Constant) and k.value == key:
                    for target in targets:
                        if isinstance(target, ast.Name):
                            out[target.id] = v
    return out


@pytest.mark.parametrize("path", [p for p in SOURCES if p.exists()], ids=lambda p: str(p.relative_to(REPO)))
def test_source_file_follows_the_safety_rules(path: Path) -> None:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    shared = _dict_literals_with(tree, "trust_remote_code")
    for call in _calls(tree, "from_pretrained"):
        value = _keyword(call, "trust_remote_code")
        if value is None:
            spread = [k.value.id for k in call.keywords if k.arg is None and isinstance(k.value, ast.Name)]
            value = next((shared[name] for name in spread if name in shared), None)
        assert isinstance(value, ast.Constant) and value.value is False, (
            f"{path}:{call.lineno}: from_pretrained without trust_remote_code=False"
        )
    for call in _calls(tree, "load"):
        func = call.func
        owner = (
            func.value.id if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) else None
        )
        if owner == "torch":
            value = _keyword(call, "weights_only")
            assert isinstance(value, ast.Constant) and value.value is True, (
                f"{path}:{call.lineno}: torch.load"
            )
        if owner in ("np", "numpy"):
            value = _keyword(call, "allow_pickle")
            assert isinstance(value, ast.Constant) and value.value is False, f"{path}:{call.lineno}: np.load"
    for node in ast.walk(tree):
        names = []
        if isinstance(node, ast.Import):
            names = [alias.name.split(".")[0] for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module:
            names = [node.module.split(".")[0]]
        assert not set(names) & {"pickle", "cPickle", "dill", "joblib", "cloudpickle"}, (
            f"{path}: imports {names}"
        )
        rel = path.relative_to(REPO).parts
        if rel[0] == "engine":
            assert "streamlit" not in names, f"{path}: engine/ must not import streamlit"
        if rel[0] in ("views", "ui", "app.py"):
            assert not set(names) & {"torch", "sklearn", "umap"}, f"{path}: pages and ui only call the engine"


def test_server_binds_to_localhost_and_caps_uploads() -> None:
    config = tomllib.loads((REPO / ".streamlit" / "config.toml").read_text())
    assert config["server"]["address"] == "127.0.0.1"
    assert 0 < config["server"]["maxUploadSize"] <= 200
    assert config["browser"]["gatherUsageStats"] is False


def _magic_values(path: Path) -> list[int]:
    """Lines of ``path`` that Streamlit's magic would write: a bare expression that is neither a call nor a
    docstring (streamlit/runtime/scriptrunner/magic.py)."""
    lines = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        body = getattr(node, "body", None)
        for index, statement in enumerate(body if isinstance(body, list) else []):
            if not isinstance(statement, ast.Expr) or isinstance(statement.value, ast.Call):
                continue
            value = statement.value
            docstring = index == 0 and isinstance(value, ast.Constant) and isinstance(value.value, str)
            if not docstring:
                lines.append(statement.lineno)
    return lines


def test_pages_need_no_magic_and_the_server_runs_without_it(tmp_path: Path) -> None:
    """Magic is off (a page is compiled from its source, never parsed to an ast beside numba's parsing thread:
    CPython gh-106905), so no page script may rely on it: a bare value would silently not be shown."""
    assert tomllib.loads((REPO / ".streamlit" / "config.toml").read_text())["runner"]["magicEnabled"] is False
    scripts = [REPO / "app.py", *sorted((REPO / "views").glob("*.py"))]
    assert {str(p.relative_to(REPO)): _magic_values(p) for p in scripts if _magic_values(p)} == {}
    written = tmp_path / "page.py"
    written.write_text('"""A page."""\nimport streamlit as st\n\nvalue = 1\nvalue\nst.write(value)\n')
    assert _magic_values(written) == [5]  # the check sees a bare value
