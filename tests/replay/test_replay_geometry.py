"""Replay of the geometry lens: the covariance spectrum figure, and a probe run (its class alignment) beside a
SimCSE run on the alignment–uniformity plane; read back from the lesson's embedded JSON."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from engine import runlog
from engine.cli import main
from engine.replay import lesson
from tests.replay.test_replay import decode, embedded, make_probe_run, make_simcse_run


def plotly_array(array) -> np.ndarray:
    """A Plotly data array of a figure's JSON (base64 ``bdata`` with its dtype, or a list)."""
    if isinstance(array, dict):
        return decode(array["bdata"], array["dtype"]).astype(float)
    return np.asarray(array, dtype=float)


@pytest.fixture
def geometry_run(tmp_path: Path) -> Path:
    return make_probe_run(
        tmp_path / "probe-geo", steps=70, n=30, snapshot_every=0, frames=False, geometry=True
    )


def test_the_lesson_draws_the_spectrum_of_each_shown_step(geometry_run: Path) -> None:
    payload = embedded(lesson([geometry_run], compute=False)[0].decode("utf-8"))
    found = runlog.read_spectrum(geometry_run)
    assert list(found.steps) == list(range(5, 71, 5))  # 14 logged spectra
    lines = [t for t in payload["spectrum"]["data"] if t.get("mode") == "lines"]
    assert len(lines) == 12  # evenly spaced, first and last kept
    steps = [int(t["name"].split()[1]) for t in lines]
    assert steps[0] == 5 and steps[-1] == 70
    for trace, step in zip(lines, steps):
        np.testing.assert_allclose(plotly_array(trace["y"]), found.at(step), rtol=1e-12)
    layout = payload["spectrum"]["layout"]
    assert layout["yaxis"]["type"] == "log" and layout["template"] == {}  # no Plotly template in the file
    assert 'id="spectrum"' in lesson([geometry_run], compute=False)[0].decode("utf-8")


def test_a_probe_run_and_a_simcse_run_share_the_plane_with_the_class_alignment_named(
    geometry_run: Path, tmp_path: Path
) -> None:
    simcse = make_simcse_run(tmp_path / "simcse-run")
    payload = embedded(lesson([geometry_run, simcse], compute=False)[0].decode("utf-8"))
    probe, contrastive = payload["runs"]
    assert "class_alignment" in probe["curves"] and "alignment" not in probe["curves"]
    assert "alignment" in contrastive["curves"]
    labels = {m["key"]: m["label"] for m in payload["metrics"]}
    assert labels["class_alignment"].startswith("Class alignment") and labels["alignment"].startswith(
        "Alignment"
    )
    assert set(probe["relations"]) == {"iso_sil", "align_uniform"} and set(contrastive["relations"]) == {
        "align_uniform"
    }
    plane = probe["relations"]["align_uniform"]
    assert (
        plane["legend"] == "probe-geo (class alignment)"
        and contrastive["relations"]["align_uniform"]["legend"] == "simcse-run"
    )
    np.testing.assert_allclose(decode(plane["y"], "<f8"), 1.2 - np.arange(1, 71) / 70)
    np.testing.assert_allclose(decode(plane["x"], "<f8"), -3.0 + 2 * np.arange(1, 71) / 70)
    titles = {r["kind"]: r["y"] for r in payload["relations"]}
    assert titles["align_uniform"] == "l_align (probe runs: class alignment)"
    assert payload["spectrum"]["layout"]["title"]["text"].startswith(
        "Covariance spectrum"
    )  # the probe's only


def test_a_damaged_spectrum_is_a_warning_and_the_lesson_goes_on(
    geometry_run: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with open(geometry_run / runlog.SPECTRUM, "a") as handle:
        handle.write("75,not-a-number\n")
    out = tmp_path / "x.html"
    assert main(["replay", str(geometry_run), "--out", str(out)]) == 0
    assert "spectrum.csv is damaged" in capsys.readouterr().err
    assert embedded(out.read_text(encoding="utf-8"))["spectrum"] is None
