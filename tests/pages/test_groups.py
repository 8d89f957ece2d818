"""Compare's groups section (ui/groups.py) on a group made with engine.groups' API in the test: the list with
members by status, read again from group.json at the next rerun (a sweep that goes on), the band chart (± std
and min–max against NumPy, the runs drawn thin on request), the summary's mean ± std against NumPy and the
two CSV downloads."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
from apphelpers import APP, button_bytes, csv_of, errors, plotly_specs, values
from streamlit.testing.v1 import AppTest

from engine import groups, runlog
from engine.core import paths

STEPS = range(0, 50, 10)


def _rows(seed: int) -> list[dict]:
    rng = np.random.default_rng(seed)
    return [
        {"step": s, "loss": 1 / (s + 1), "isoscore": 0.3 - s / 200 + rng.normal() * 0.01,
         "silhouette": s / 100 + rng.normal() * 0.01, "seconds": float(s)}
        for s in STEPS
    ]  # fmt: skip


def _member(group: groups.Group, member_id: str, seed: int, rows: list[dict], state: str) -> None:
    folder = groups.member_dirs(group)[member_id]
    writer = runlog.RunWriter(folder, list(rows[0]), {"kind": "probe", **group.base, "seed": seed})
    for row in rows:
        writer.append(row)
    iso = [r["isoscore"] for r in rows]
    sil = [r["silhouette"] for r in rows]
    summary = {
        "isoscore_start": iso[0],
        "isoscore_end": iso[-1],
        "silhouette_start": sil[0],
        "silhouette_end": sil[-1],
        "pearson_r": float(np.corrcoef(iso, sil)[0, 1]),
    }
    if state != "running":
        writer.finish(state, summary)


def _make_group() -> groups.Group:
    base = {"data": "demo", "steps": 40, "metric_every": 10, "snapshot_every": 0}
    group = groups.create_group(paths.groups_dir() / "seeds-demo", "probe", base, {"seed": [0, 1, 2]})
    for seed, member in enumerate(group.members):
        status = "done" if seed < 2 else "running"
        rows = _rows(seed) if status == "done" else _rows(seed)[:2]
        _member(group, member.id, seed, rows, "finished" if status == "done" else status)
        group = group.with_member(replace(member, status=status, attempts=1))
    groups.write_group(group)
    return group


def _band_traces(at: AppTest) -> list[dict]:
    return [t for spec in plotly_specs(at) for t in spec["data"] if str(t.get("name", "")).startswith("all")]


def test_groups_section_lists_draws_summarises_and_downloads(fresh_registry, downloads) -> None:
    group = _make_group()
    at = AppTest.from_file(str(APP), default_timeout=120)
    at.run()
    at.switch_page("views/compare.py").run()
    assert not at.exception and not errors(at)
    listed = at.dataframe[0].value
    row = listed[listed["group"] == "seeds-demo"].iloc[0]
    assert (row["members"], row["done"], row["running"], row["failed"]) == (3, 2, 1, 0)
    assert row["grid"] == "seed: 0, 1, 2"

    # the band: ± std over the shared steps of the three members (the running one has logged 2 steps)
    traces = _band_traces(at)
    low, high, mean = traces[-3], traces[-2], traces[-1]
    assert high["fill"] == "tonexty" and "mean of 3" in mean["name"]
    matrix = np.array([[r["isoscore"] for r in _rows(seed)][:2] for seed in range(3)])
    assert values(mean["x"]) == [0, 10]
    np.testing.assert_allclose(values(mean["y"]), matrix.mean(axis=0), atol=1e-9)
    np.testing.assert_allclose(values(high["y"]), matrix.mean(axis=0) + matrix.std(axis=0, ddof=1), atol=1e-9)
    assert values(low["y"]) != values(high["y"])

    at.radio(key="compare.group.band").set_value("min–max").run()
    at.toggle(key="compare.group.runs").set_value(True).run()
    traces = _band_traces(at)
    assert len(traces) == 3 + 3  # three thin runs, then the band and the mean
    np.testing.assert_allclose(values(traces[-3]["y"]), matrix.min(axis=0), atol=1e-9)
    np.testing.assert_allclose(values(traces[-2]["y"]), matrix.max(axis=0), atol=1e-9)

    # the summary: the two finished members
    table = at.dataframe[1].value
    finished = [[r["isoscore"] for r in _rows(seed)][-1] for seed in (0, 1)]
    shown = table[table["figure"] == "isoscore_end"].iloc[0]
    assert shown["mean ± std"] == f"{np.mean(finished):.4f} ± {np.std(finished, ddof=1):.4f}"
    assert shown["n"] == 2

    buttons = {b.label: b for b in at.get("download_button")}
    summary_csv = csv_of(buttons["group summary (CSV)"], downloads)
    assert set(summary_csv["figure"]) >= {"isoscore_end", "pearson_r"}
    metrics_csv = csv_of(buttons["members' metrics (CSV)"], downloads)
    assert list(metrics_csv.columns[:2]) == ["cell", "member"] and len(metrics_csv) == 5 + 5 + 2
    assert b"isoscore" in button_bytes(buttons["members' metrics (CSV)"], downloads)
    page = button_bytes(buttons["band figure (HTML)"], downloads)
    assert b"<html>" in page[:100] and b"tonexty" in page

    # the sweep goes on: its last member ends, and the next rerun reads group.json again
    group = groups.read_group(group.path)
    last = group.members[2]
    _member(group, last.id, 2, _rows(2), "finished")
    groups.write_group(group.with_member(replace(last, status="done")))
    at.run()
    row = at.dataframe[0].value.iloc[0]
    assert (row["done"], row["running"]) == (3, 0)
    assert "mean of 3" in _band_traces(at)[-1]["name"] and len(values(_band_traces(at)[-1]["x"])) == 5


def test_no_group_says_how_to_make_one(fresh_registry) -> None:
    at = AppTest.from_file(str(APP), default_timeout=120)
    at.run()
    at.switch_page("views/compare.py").run()
    assert not at.exception
    assert any("claims" in str(c.value) for c in at.caption)
