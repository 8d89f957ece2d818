"""Helpers of the AppTest page tests (imported by the tests; fixtures live in conftest.py)."""

from __future__ import annotations

import io
from pathlib import Path

import pandas as pd
from streamlit.testing.v1 import AppTest

REPO_ROOT = Path(__file__).resolve().parents[2]
APP = REPO_ROOT / "app.py"


def button_bytes(button, captured: dict[str, bytes]) -> bytes:
    """The bytes a download button gives (made now when the button makes them on click)."""
    file_id = button.proto.deferred_file_id or button.proto.url.rsplit("/", 1)[-1].split(".")[0]
    data = captured[file_id]
    data = data() if callable(data) else data
    return data.encode() if isinstance(data, str) else data


def csv_of(button, captured: dict[str, bytes]) -> pd.DataFrame:
    return pd.read_csv(io.BytesIO(button_bytes(button, captured)))


def wait_idle(timeout: float = 240.0) -> None:
    """Until the runs and their UMAP frames are done: while frames are still coming (a finished run's film
    back-filling), the page keeps its live view and shows Plotly charts only afterwards."""
    from ui.runs import registry

    assert registry().wait_idle(timeout, frames=True), "the run or its UMAP frames did not finish in time"


def start_without_data_folder(at: AppTest, timeout: float) -> None:
    """Press Start on the Isotropy page for rt-polarity with no data folder (a run that fails at its start),
    and wait until it has ended."""
    at.switch_page("views/isotropy.py").run()
    at.selectbox(key="probe.data").set_value("rt-polarity")
    at.text_input(key="probe.data_dir").set_value("")
    at.number_input(key="probe.steps").set_value(2)
    at.run()
    at.button(key="probe.start").click().run()
    wait_idle(timeout)


def start_off(at: AppTest, kind: str) -> str:
    """The reason beside the page's Start button, which must be off (a user cannot press it)."""
    assert at.button(key=f"{kind}.start").proto.disabled, "Start is on"
    reasons = [c.value for c in at.sidebar.caption if c.value.startswith("Start is off: ")]
    assert len(reasons) == 1, reasons
    return reasons[0].removeprefix("Start is off: ")


def errors(at: AppTest) -> list[str]:
    return [str(e.value) for e in at.error]


def run_on_disk(
    name: str,
    kind: str = "probe",
    *,
    rows: list[dict] | None = None,
    config: dict | None = None,
    snapshot: tuple[int, int] | None = None,
    state: str = "finished",
    summary: dict | None = None,
    error: str | None = None,
) -> str:
    """A run folder written as a run writes it (``cache/runs/<name>``): its rows, snapshots of ``snapshot``
    (items, dims) shape at each row's step, and its end state; the run is named ``name``. Returns the run's
    id (its folder name)."""
    import numpy as np

    from engine import runlog
    from engine.core import paths

    rows = (
        rows
        if rows is not None
        else [
            {
                "step": s,
                "loss": 1.0 / (s + 1),
                "accuracy": 0.5,
                "isoscore": 0.5 - s / 10,
                "silhouette": s / 10,
                "seconds": float(s),
            }
            for s in range(4)
        ]
    )
    columns = list(dict.fromkeys(key for row in rows for key in row)) or ["step", "loss"]
    base = (
        {
            "kind": kind,
            "data": "demo",
            "steps": 3,
            "snapshot_every": 1 if snapshot else 0,
            "snapshot_limit": 2000,
            "limit": None,
        }
        if kind == "probe"
        else {"kind": kind, "mode": "unsup", "steps": 3, "data_dir": None, "eval": None, "snapshot_every": 0}
    )
    writer = runlog.RunWriter(paths.runs_dir() / name, columns, {**base, "name": name, **(config or {})})
    if snapshot:
        writer.save_points(
            [f"sentence {i}" for i in range(snapshot[0])],
            ["a", "b"] * (snapshot[0] // 2) + ["a"] * (snapshot[0] % 2),
        )
    for row in rows:
        if snapshot:
            writer.save_snapshot(row["step"], np.random.default_rng(row["step"]).normal(size=snapshot))
        writer.append(row)
    writer.finish(state, summary, error)
    return name


def elements_in_order(at: AppTest, root=None) -> list:
    """The main area's elements, depth first, in the order the page draws them."""
    found = []
    for child in (root if root is not None else at.main).children.values():
        if hasattr(child, "children") and child.children:
            found += elements_in_order(at, child)
        else:
            found.append(child)
    return found


def plotly_specs(at: AppTest) -> list[dict]:
    """The Plotly figures of the page, as the JSON the browser gets: Streamlit's Plotly charts (the film),
    then the panels of its live views (every run chart, live or finished: ui/live.py)."""
    import json

    specs = [json.loads(chart.proto.spec) for chart in at.get("plotly_chart")]
    for element in at.get("bidi_component"):
        proto = element.proto
        data = json.loads(proto.json) if proto.json else json.loads(proto.mixed.json)
        specs += [panel["figure"] for panel in ((data or {}).get("description") or {}).get("panels") or []]
    return specs


def charts_drawn(at: AppTest) -> int:
    """The charts of the page: its Plotly charts and the panels of its live views (custom components v2;
    the runs a session watched live stay in its live view when they end, ui/live.py live_charts)."""
    import json

    panels = 0
    for element in at.get("bidi_component"):
        proto = element.proto
        data = json.loads(proto.json) if proto.json else json.loads(proto.mixed.json)
        panels += len(((data or {}).get("description") or {}).get("panels") or [])
    return len(at.get("plotly_chart")) + panels


def values(array) -> list[float]:
    """A Plotly data array of a figure's JSON (a list, or base64 ``bdata`` with its dtype) as numbers."""
    import base64

    import numpy as np

    if isinstance(array, dict) and "bdata" in array:
        return np.frombuffer(base64.b64decode(array["bdata"]), dtype=array["dtype"]).tolist()
    return list(array)
