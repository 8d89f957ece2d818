"""CSV downloads never carry a live spreadsheet formula from user text (CSV injection)."""

from __future__ import annotations

import io

import numpy as np
import pandas as pd
import pytest

from engine.runlog import export


@pytest.mark.parametrize(
    ("cell", "written"),
    [
        ('=HYPERLINK("http://x","click")', '\'=HYPERLINK("http://x","click")'),
        ("+SUM(A1)", "'+SUM(A1)"),
        ("-2+3", "'-2+3"),
        ("@cmd", "'@cmd"),
        ("\tTAB", "'\tTAB"),
        ("-1", "-1"),
        ("+3.5", "+3.5"),
        ("-2e-3", "-2e-3"),
        ("plain text", "plain text"),
        ("a=b", "a=b"),
        ("", ""),
    ],
)
def test_a_text_cell_is_neutralised_only_when_a_spreadsheet_would_run_it(cell: str, written: str) -> None:
    assert export.neutralise_cell(cell) == written


def test_every_csv_download_neutralises_user_text() -> None:
    points = pd.DataFrame({"text": ['=HYPERLINK("http://evil")', "fine"], "label": ["@x", "-"]})
    frames = export.frames_csv({0: np.zeros((2, 2), dtype=np.float32)}, points)
    read = pd.read_csv(io.BytesIO(frames), keep_default_na=False)
    assert read["text"].tolist() == ['\'=HYPERLINK("http://evil")', "fine"]
    assert read["label"].tolist() == ["'@x", "'-"]
    metrics = pd.DataFrame({"step": [0, 1], "loss": [-0.5, -1.0], "note": ["=1+1", "ok"]})
    read = pd.read_csv(io.BytesIO(export.metrics_csv(metrics)))
    assert read["loss"].tolist() == [-0.5, -1.0]  # numbers stay numbers
    assert read["note"].tolist() == ["'=1+1", "ok"]
    stacked = pd.read_csv(io.BytesIO(export.runs_csv({"a": metrics})))
    assert stacked["note"].tolist() == ["'=1+1", "ok"]


def test_a_zip_of_runs_never_holds_two_entries_of_one_name(tmp_path) -> None:
    import zipfile as zf

    frame = pd.DataFrame({"step": [0], "loss": [1.0]})
    runs = {name: (frame, {"kind": "probe"}, None) for name in ("a b", "a-b", "a/b", "日本", "中文", "???")}
    with zf.ZipFile(io.BytesIO(export.runs_zip(runs))) as archive:
        names = archive.namelist()
    assert len(names) == len(set(names))
    assert sum(name.endswith("/metrics.csv") for name in names) == len(runs)
