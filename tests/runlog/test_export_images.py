"""Figures export as SVG and PDF through kaleido (engine/runlog/export.py), or say in one line why not."""

from __future__ import annotations

import pytest

from engine.core.errors import ConfigError
from engine.runlog import export


def figure():
    import plotly.graph_objects as go

    return go.Figure(go.Scatter(x=[0, 1, 2], y=[1.0, 0.5, 0.2], name="a <run>"), layout={"title": "loss"})


def test_a_figure_exports_as_svg_and_pdf() -> None:
    if not export.image_export_ready():
        pytest.skip("kaleido not installed (a base dependency: pip install -e .)")
    try:
        svg = export.figure_image(figure(), "svg")
    except ConfigError as err:  # kaleido found no Chrome or Chromium
        pytest.skip(str(err))
    assert svg.lstrip().startswith(b"<svg") and b">loss</text>" in svg
    assert export.figure_image(figure(), "pdf").startswith(b"%PDF")


def test_without_kaleido_it_is_one_line_naming_the_install(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(export, "image_export_ready", lambda: False)
    with pytest.raises(ConfigError, match="pip install kaleido") as err:
        export.figure_image(figure(), "svg")
    assert "\n" not in str(err.value)
    with pytest.raises(ConfigError, match="not 'png'"):
        export.figure_image(figure(), "png")
