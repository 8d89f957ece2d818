"""Downloads: CSV of a run, all runs with a run column, zip with configs, UMAP frames, figure HTML."""

from __future__ import annotations

import io
import json
import zipfile

import numpy as np
import pandas as pd
import plotly.graph_objects as go

from engine.runlog import export


def test_metrics_and_runs_csv_round_trip() -> None:
    a = pd.DataFrame({"step": [0, 1], "loss": [1.0, 0.5]})
    b = pd.DataFrame({"step": [0], "loss": [2.0], "silhouette": [0.1]})
    assert pd.read_csv(io.BytesIO(export.metrics_csv(a))).equals(a)
    both = pd.read_csv(io.BytesIO(export.runs_csv({"a": a, "b": b})))
    assert list(both.columns[:3]) == ["run", "step", "loss"]
    assert both["run"].tolist() == ["a", "a", "b"] and both["silhouette"].isna().sum() == 2
    assert export.runs_csv({}) == b"run\n"


def test_runs_zip_holds_metrics_configs_and_summary(tmp_path) -> None:
    (tmp_path / "summary.json").write_text('{"state": "finished"}')
    frame = pd.DataFrame({"step": [0, 1], "loss": [1.0, 0.5]})
    data = export.runs_zip(
        {"run one": (frame, {"steps": 1, "lr": np.float32(0.5)}, tmp_path), "b": (frame, {}, None)}
    )
    with zipfile.ZipFile(io.BytesIO(data)) as archive:
        names = set(archive.namelist())
        assert {
            "all_runs.csv",
            "run-one/metrics.csv",
            "run-one/config.json",
            "run-one/summary.json",
            "b/config.json",
        } <= names
        assert json.loads(archive.read("run-one/config.json"))["steps"] == 1
        assert pd.read_csv(archive.open("all_runs.csv"))["run"].tolist() == ["run one"] * 2 + ["b"] * 2


def test_frames_csv_long_format_with_texts() -> None:
    frames = {10: np.ones((2, 2)), 0: np.zeros((2, 2))}
    points = pd.DataFrame({"text": ["hello, world", "b"], "label": ["p", "n"]})
    table = pd.read_csv(io.BytesIO(export.frames_csv(frames, points)))
    assert table["step"].tolist() == [0, 0, 10, 10]
    assert list(table.columns) == ["step", "point", "x", "y", "label", "text"]
    assert table["text"][0] == "hello, world"
    assert export.frames_csv({}) == b"step,point,x,y\n"


def test_figure_html_is_standalone() -> None:
    html = export.figure_html(go.Figure(go.Scatter(x=[1], y=[2]))).decode()
    assert "<html>" in html[:100] and "plotly" in html.lower() and len(html) > 1_000_000  # plotly.js embedded
