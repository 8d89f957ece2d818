"""Downloads: a run's metrics as CSV, several runs as one CSV (``run`` column) or a zip with their configs,
UMAP frames as CSV, a figure as standalone HTML. Everything returns bytes; nothing touches streamlit.

Text cells that a spreadsheet would run as a formula (starting with ``=``, ``+``, ``-``, ``@``, tab or
carriage return, and not a plain number) are written with a leading ``'`` (OWASP's advice on CSV injection):
a sentence or label from a user's file never becomes a live ``=HYPERLINK(...)`` when the CSV is opened.
"""

from __future__ import annotations

import io
import json
import re
import zipfile
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from engine import runlog
from engine.core.errors import ConfigError, one_line
from engine.core.paths import safe_name

_FORMULA_START = ("=", "+", "-", "@", "\t", "\r")
_PLAIN_NUMBER = re.compile(r"^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$")


def neutralise_cell(value: Any) -> Any:
    """``'`` before a text cell a spreadsheet would evaluate; numbers and other cells unchanged."""
    if isinstance(value, str) and value.startswith(_FORMULA_START) and not _PLAIN_NUMBER.match(value):
        return "'" + value
    return value


def safe_frame(frame: pd.DataFrame) -> pd.DataFrame:
    """A copy whose text columns are neutralised (:func:`neutralise_cell`)."""
    text_columns = [
        c for c in frame.columns if frame[c].dtype == object or pd.api.types.is_string_dtype(frame[c])
    ]
    if not text_columns:
        return frame
    out = frame.copy()
    for column in text_columns:
        out[column] = out[column].map(neutralise_cell)
    return out


def metrics_csv(frame: pd.DataFrame) -> bytes:
    """One run's metrics as CSV (UTF-8, no index)."""
    return safe_frame(frame).to_csv(index=False).encode("utf-8")


def runs_csv(runs: Mapping[str, pd.DataFrame]) -> bytes:
    """Several runs' metrics stacked into one CSV whose first column ``run`` names the run."""
    frames = [
        frame.assign(run=name)[["run", *[c for c in frame.columns if c != "run"]]]
        for name, frame in runs.items()
    ]
    frames = [frame for frame in frames if len(frame.columns)]
    if not frames:
        return b"run\n"
    return safe_frame(pd.concat(frames, ignore_index=True, sort=False)).to_csv(index=False).encode("utf-8")


def frames_csv(frames: Mapping[int, np.ndarray], points: pd.DataFrame | None = None) -> bytes:
    """UMAP frames as one long CSV: ``step, point, x, y, label, text`` (label/text when known)."""
    parts = []
    for step in sorted(frames):
        coords = np.asarray(frames[step])
        part = pd.DataFrame(
            {"step": step, "point": np.arange(len(coords)), "x": coords[:, 0], "y": coords[:, 1]}
        )
        if points is not None and len(points) == len(coords):
            part["label"] = points["label"].to_numpy()
            part["text"] = points["text"].to_numpy()
        parts.append(part)
    if not parts:
        return b"step,point,x,y\n"
    return (
        safe_frame(pd.concat(parts, ignore_index=True))
        .to_csv(index=False, float_format="%.5g")
        .encode("utf-8")
    )


def runs_zip(runs: Mapping[str, tuple[pd.DataFrame, Mapping[str, Any], Path | None]]) -> bytes:
    """A zip with ``all_runs.csv`` and, per run, ``<run>/metrics.csv``, ``config.json`` (and
    ``summary.json``); one folder a run, never two entries of one name (:func:`_folder_names`).

    ``runs`` maps a run name to ``(metrics, config, run_dir or None)``.
    """
    buffer = io.BytesIO()
    folders = _folder_names(list(runs))
    with zipfile.ZipFile(buffer, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("all_runs.csv", runs_csv({name: item[0] for name, item in runs.items()}))
        for name, (frame, config, run_dir) in runs.items():
            folder = folders[name]
            archive.writestr(f"{folder}/metrics.csv", metrics_csv(frame))
            archive.writestr(
                f"{folder}/config.json", json.dumps(runlog.jsonable(dict(config)), indent=2, sort_keys=True)
            )
            summary = Path(run_dir) / runlog.SUMMARY if run_dir is not None else None
            if summary is not None and summary.is_file():
                archive.writestr(f"{folder}/summary.json", summary.read_bytes())
    return buffer.getvalue()


def _folder_names(names: list[str]) -> dict[str, str]:
    """One distinct folder of the zip per run: its safe name (``run`` when nothing usable is left), with
    ``-2``, ``-3``, ... when two runs' names make the same one (``a b`` and ``a-b``): never two entries of
    one name in the zip."""
    taken: set[str] = {"all_runs.csv"}
    folders: dict[str, str] = {}
    for name in names:
        try:
            base = safe_name(name, what="run name")
        except ConfigError:
            base = "run"
        folder, number = base, 1
        while folder in taken:
            number += 1
            folder = f"{base}-{number}"
        taken.add(folder)
        folders[name] = folder
    return folders


def file_stem(name: str, fallback: str = "run") -> str:
    """A run's name as the start of a download's file name (:func:`engine.core.paths.safe_name`: letters,
    digits, ``.``, ``_`` and ``-``; ``Demo: clusters form (2)`` is ``Demo-clusters-form-2``); ``fallback``
    when nothing usable is left."""
    try:
        return safe_name(name, what="run name")
    except ConfigError:
        return fallback


def figure_html(fig: Any) -> bytes:
    """A Plotly figure as a standalone HTML page (plotly.js embedded: works offline)."""
    return fig.to_html(include_plotlyjs=True, full_html=True).encode("utf-8")


#: the figure formats kaleido draws (Plotly's static export: it drives a Chrome or Chromium of this machine)
IMAGE_FORMATS = {"svg": "image/svg+xml", "pdf": "application/pdf"}
NO_KALEIDO = (
    "SVG and PDF need Plotly's static export: pip install kaleido (a dependency of the lab: pip install -e "
    ". installs it); it draws with a Chrome or Chromium of this machine"
)


def image_export_ready() -> bool:
    """Whether kaleido is installed (SVG and PDF figures can be made)."""
    import importlib.util

    return importlib.util.find_spec("kaleido") is not None


def figure_image(fig: Any, fmt: str) -> bytes:
    """A Plotly figure as SVG or PDF (:data:`IMAGE_FORMATS`) through kaleido; one ConfigError line when it
    is not installed or cannot draw (no Chrome or Chromium found)."""
    if fmt not in IMAGE_FORMATS:
        raise ConfigError(f"a figure exports as {', '.join(IMAGE_FORMATS)}, not {fmt!r}")
    if not image_export_ready():
        raise ConfigError(NO_KALEIDO)
    try:
        return fig.to_image(format=fmt)
    except Exception as err:  # noqa: BLE001 - kaleido's own errors (no browser found, ...) in one line
        raise ConfigError(f"the figure could not be drawn as {fmt.upper()}: {one_line(err)}") from None
