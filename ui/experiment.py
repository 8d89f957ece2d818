"""The run panel of an experiment page (SimCSE, Isotropy): everything below the page's own settings."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pandas as pd
import plotly.graph_objects as go
import streamlit as st

from engine.jobs import Job
from ui import controls, downloads, live, runs


def run_panel(kind: str, sidebar: Callable[[], dict[str, Any]], metrics: list[str],
              relation: Callable[[dict[str, pd.DataFrame]], go.Figure], empty: str) -> None:
    """The page's sidebar settings (``sidebar()`` draws them and returns the run's config), then ▶ Start and
    the presets of ``kind``; the live panel of the shown runs with ``relation`` (the experiment's figure of
    two metrics) under the curves, and their downloads, or ``empty`` when there is no run yet; last the
    sidebar's Stop button and progress. ``kind`` is also the run name and the prefix of the widget keys."""
    with runs.guard():
        config = sidebar()
        if st.sidebar.button("▶ Start", type="primary", key=f"{kind}.start", width="stretch"):
            with runs.guard("Start: "):
                runs.submit_runs(kind, [(kind, config)])
                st.rerun()
        controls.preset_buttons(kind, config)

    refreshing: list[Job] = []  # runs whose progress the live panel refreshes (the sidebar then need not)
    with runs.guard():
        jobs = runs.shown_jobs(kind)
        if jobs:
            refreshing = live.live_panel(jobs, metrics, kind, extras=lambda shown: [relation(shown)])
            downloads.downloads(jobs, kind, figure=lambda: relation(runs.metrics_by_run(jobs)))
        else:
            st.info(empty)

    with runs.guard():
        controls.sidebar_controls_footer(kind, shown_live=refreshing)
