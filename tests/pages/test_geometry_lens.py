"""The geometry lens on the pages: the covariance spectrum chart, the measure picker and the relation of any
two measures (with r and ρ), on both experiment pages and Compare; the probe's class alignment beside SimCSE's
alignment on one plane; the Isotropy sidebar's geometry sample, fixed sample, objective and margin fields.
The runs are written to disk as a run writes them (no training), except the one Start of the sidebar test."""

from __future__ import annotations

import numpy as np
import pandas as pd
from apphelpers import APP, errors, plotly_specs, start_off, values, wait_idle
from streamlit.testing.v1 import AppTest

from engine import charts, runlog
from engine.core import paths

STEPS = 10
BASELINE = 0.8125  # a SimCSE run summary's sts_baseline (the untouched encoder)


def lens_run(name: str, kind: str) -> tuple[str, pd.DataFrame]:
    """A finished run of ``kind`` with the isotropy family every step and a spectrum every 3rd step
    (d = 5)."""
    rng = np.random.default_rng(len(name))
    rows = []
    for s in range(STEPS):
        t = s / (STEPS - 1)
        row = {
            "step": s,
            "loss": 1.0 / (s + 1),
            "isoscore": 0.5 - 0.3 * t + 0.01 * rng.random(),
            "rankme": 5 - 3 * t + 0.1 * np.sin(s),
            "average_cosine": 0.1 + 0.5 * t**2,
            "uniformity": -3 + 2 * t if kind == "probe" else -2 - t,
            "alignment": 1.2 - t if kind == "probe" else 0.2,
        }
        row.update(
            {"accuracy": 0.5 + t / 2, "silhouette": 0.6 * t + 0.01 * rng.random()}
            if kind == "probe"
            else {"sts_spearman": 0.6 + 0.1 * t}
        )
        rows.append({**row, "seconds": float(s)})
    config = (
        {"kind": "probe", "data": "demo", "steps": STEPS - 1, "snapshot_every": 0, "limit": None}
        if kind == "probe"
        else {
            "kind": "simcse",
            "mode": "unsup",
            "steps": STEPS - 1,
            "data_dir": None,
            "eval": None,
            "snapshot_every": 0,
        }
    )
    writer = runlog.RunWriter(paths.runs_dir() / name, list(rows[0]), {**config, "name": name})
    for row in rows:
        if row["step"] % 3 == 0:
            writer.append_spectrum(row["step"], np.geomspace(1.0, 10.0 ** (-1 - row["step"] / 3), 5))
        writer.append(row)
    writer.finish(
        "finished", {"eval_set": "demo-pairs", "sts_baseline": BASELINE} if kind == "simcse" else None
    )
    return name, pd.DataFrame(rows)


def page_with(page: str, key: str, runs: list[str]) -> AppTest:
    at = AppTest.from_file(str(APP), default_timeout=120)
    at.run()
    at.switch_page(page).run()
    at.multiselect(key=key).set_value(runs).run()
    assert not at.exception and not errors(at)
    return at


def figures(at: AppTest) -> dict[str, dict]:
    """The page's Plotly figures by title (without the "<br><sup>on ..." line of the data measured on)."""
    return {spec["layout"]["title"]["text"].split("<br>")[0]: spec for spec in plotly_specs(at)}


def legend_of(rows: pd.DataFrame, x: str, y: str) -> str:
    from scipy import stats

    return f"r = {stats.pearsonr(rows[x], rows[y])[0]:.3f}, ρ = {stats.spearmanr(rows[x], rows[y])[0]:.3f}"


def spectrum_of(found: dict[str, dict]) -> dict:
    return next(spec for title, spec in found.items() if title.startswith("Covariance spectr"))


def test_isotropy_page_spectrum_picker_and_any_pair(fresh_registry) -> None:
    name, rows = lens_run("probe-lens", "probe")
    at = page_with("views/isotropy.py", "probe.shown", [name])
    found = figures(at)
    spectrum = spectrum_of(found)
    lines = [t for t in spectrum["data"] if t["mode"] == "lines"]
    assert [t["name"] for t in lines] == ["step 0", "step 3", "step 6", "step 9"]
    np.testing.assert_allclose(values(lines[-1]["y"]), np.geomspace(1.0, 1e-4, 5))
    assert spectrum["layout"]["yaxis"]["type"] == "log"
    paper = found["IsoScore vs Silhouette (Mickus et al. 2024, Fig. 3)"]
    assert paper["data"][0]["name"].endswith(legend_of(rows, "isoscore", "silhouette"))
    plane = found["Alignment vs uniformity (SimCSE Fig. 2; lower-left is better)"]
    assert plane["data"][0]["name"].endswith("(class alignment)")
    assert (
        "Training loss" in found and "Class alignment (lower is better)" not in found
    )  # not picked at first

    at.multiselect(key="probe.measures").set_value(["isoscore", "class_alignment"]).run()
    found = figures(at)
    assert {"IsoScore", "Class alignment (lower is better)"} <= set(found) and "Training loss" not in found
    assert not any(title.startswith("Covariance spectrum") for title in found)

    at.selectbox(key="probe.relx").set_value("rankme")
    at.selectbox(key="probe.rely").set_value("average_cosine").run()
    assert not at.exception and not errors(at)
    pair = figures(at)["RankMe vs Average cosine"]
    assert pair["data"][0]["name"].endswith(legend_of(rows, "rankme", "average_cosine"))
    np.testing.assert_allclose(values(pair["data"][0]["x"]), rows["rankme"], rtol=1e-6)


def baseline_of(spec: dict) -> list[tuple[float, str]]:
    """The reference lines of a figure: (y, label) of each horizontal line with its annotation."""
    lines = [shape["y0"] for shape in spec["layout"].get("shapes", []) if shape.get("xref") == "paper"]
    notes = {note["y"]: note["text"] for note in spec["layout"].get("annotations", [])}
    return [(y, notes.get(y, "")) for y in lines]


def test_simcse_page_spectrum_picker_and_any_pair(fresh_registry) -> None:
    name, rows = lens_run("simcse-lens", "simcse")
    at = page_with("views/simcse.py", "simcse.shown", [name])
    at.multiselect(key="simcse.measures").set_value(["sts_spearman", "spectrum"]).run()
    found = figures(at)
    # the STS chart draws the untouched encoder's score (the run summary's sts_baseline) as a labelled line
    assert baseline_of(found[charts.label("sts_spearman")]) == [
        (BASELINE, f"untouched encoder: {BASELINE:.3f}")
    ]
    assert len([t for t in spectrum_of(found)["data"] if t["mode"] == "lines"]) == 4
    assert found["Uniformity vs STS Spearman ρ"]["data"][0]["name"].endswith(
        legend_of(rows, "uniformity", "sts_spearman")
    )
    at.multiselect(key="simcse.measures").set_value(["rankme", "average_cosine"]).run()
    assert {"RankMe (effective rank)", "Average cosine"} <= set(
        figures(at)
    ) and "Training loss" not in figures(at)
    assert all(not baseline_of(spec) for spec in figures(at).values())  # only on the STS chart
    at.selectbox(key="simcse.relx").set_value("isoscore")
    at.selectbox(key="simcse.rely").set_value("rankme").run()
    pair = figures(at)["IsoScore vs RankMe"]
    assert pair["data"][0]["name"].endswith(legend_of(rows, "isoscore", "rankme"))


def test_compare_puts_a_probe_and_a_simcse_run_on_one_plane_and_one_spectrum(fresh_registry) -> None:
    probe, _ = lens_run("probe-cmp", "probe")
    simcse, _ = lens_run("simcse-cmp", "simcse")
    at = page_with("views/compare.py", "all.shown", [probe, simcse])
    found = figures(at)
    plane = found["Alignment vs uniformity (SimCSE Fig. 2; lower-left is better)"]
    names = [t["name"] for t in plane["data"] if t.get("showlegend") is not False]
    assert len(names) == 2
    assert any(n.startswith("probe-cmp") and n.endswith("(class alignment)") for n in names), names
    assert any(n.startswith("simcse-cmp") and "class" not in n for n in names), names
    assert plane["layout"]["yaxis"]["title"]["text"] == "l_align (probe runs: class alignment)"
    assert (
        "Alignment (lower is better)" in found and "Class alignment (lower is better)" in found
    )  # never mixed
    spectrum = spectrum_of(found)
    assert len(spectrum["data"]) == 4 and {t["name"].split(" · ")[1] for t in spectrum["data"]} == {
        "step 0",
        "step 9",
    }
    at.selectbox(key="compare.relx").set_value("rankme")
    at.selectbox(key="compare.rely").set_value("uniformity").run()
    pair = figures(at)["RankMe vs Uniformity"]
    assert len(pair["data"]) == 2 and all("r = " in t["name"] for t in pair["data"])


def test_isotropy_sidebar_geometry_sample_fixed_sample_objective_and_margin(app) -> None:
    from ui import runs

    app.switch_page("views/isotropy.py").run()
    sample = app.number_input(key="probe.sample_size")
    assert (
        sample.label == "Geometry sample size (0 = all items)"
        and "Range: 0 (all items) or 2 to 10,000,000" in sample.help
    )
    assert app.checkbox(key="probe.fixed_sample").proto.disabled  # no sample, nothing to fix
    assert not [box for box in app.number_input if box.key == "probe.margin"]  # the classifier has no margin
    app.selectbox(key="probe.objective").set_value("triplet").run()
    margin = app.number_input(key="probe.margin")
    assert "Range: 0 to 1,000,000" in margin.help
    margin.set_value(-1.0).run()
    assert "“Triplet margin” must be from 0 to 1,000,000" in start_off(app, "probe")  # Start is off
    assert not runs.registry().jobs()  # nothing started
    app.number_input(key="probe.margin").set_value(0.5)
    app.number_input(key="probe.sample_size").set_value(200)
    app.number_input(key="probe.geometry_every").set_value(3)
    app.number_input(key="probe.steps").set_value(100_000).run()
    app.checkbox(key="probe.fixed_sample").check().run()
    app.button(key="probe.start").click().run()
    assert not errors(app)
    job = runs.registry().jobs()[-1]
    try:
        config = job.config
        assert (
            config.objective,
            config.margin,
            config.sample_size,
            config.fixed_sample,
            config.geometry_every,
        ) == ("triplet", 0.5, 200, True, 3)
    finally:
        job.stop()
        wait_idle(120)


def test_a_damaged_spectrum_file_is_named_and_the_other_charts_stay(fresh_registry) -> None:
    name, _ = lens_run("probe-torn", "probe")
    with open(paths.runs_dir() / name / runlog.SPECTRUM, "a") as handle:
        handle.write("12,not-a-number\n")
    at = page_with("views/isotropy.py", "probe.shown", [name])
    found = figures(at)
    assert "IsoScore" in found and not any(title.startswith("Covariance spectr") for title in found)
    assert any("no spectrum shown" in c.value and "spectrum.csv is damaged" in c.value for c in at.caption)
