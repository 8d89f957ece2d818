"""Helpers for the data tests: write small files in ``tmp_path``."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest


@pytest.fixture
def write(tmp_path: Path) -> Callable[..., Path]:
    """``write("x.csv", "a,b\\n1,2\\n")`` (str is UTF-8 encoded) or bytes as is; returns the path."""

    def _write(name: str, content: str | bytes) -> Path:
        path = tmp_path / name
        path.write_bytes(content.encode("utf-8") if isinstance(content, str) else content)
        return path

    return _write


@pytest.fixture
def write_jsonl(tmp_path: Path) -> Callable[..., Path]:
    def _write(name: str, rows: list[dict]) -> Path:
        path = tmp_path / name
        path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
        return path

    return _write
