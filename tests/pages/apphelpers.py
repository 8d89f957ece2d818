"""Helpers of the AppTest page tests (imported by the tests; fixtures live in conftest.py)."""

from __future__ import annotations

import io
from pathlib import Path

import pandas as pd
from streamlit.testing.v1 import AppTest

REPO_ROOT = Path(__file__).resolve().parents[2]
APP = REPO_ROOT / "app.py"


def button_bytes(button, captured: dict[str, bytes]) -> bytes:
    file_id = button.proto.url.rsplit("/", 1)[-1].split(".")[0]
    return captured[file_id]


def csv_of(button, captured: dict[str, bytes]) -> pd.DataFrame:
    return pd.read_csv(io.BytesIO(button_bytes(button, captured)))


def wait_idle(timeout: float = 240.0) -> None:
    """Until the runs and their UMAP frames are done: while frames are still coming (a finished run's film
    back-filling), the page keeps its live view and shows Plotly charts only afterwards."""
    from ui.runs import registry

    assert registry().wait_idle(timeout, frames=True), "the run or its UMAP frames did not finish in time"


def errors(at: AppTest) -> list[str]:
    return [str(e.value) for e in at.error]
