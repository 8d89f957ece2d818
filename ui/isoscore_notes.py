"""Why a run's IsoScore is capped: where a shown probe run has fewer items (or a smaller geometry sample) than
dimensions, a note under the chart controls says that IsoScore cannot exceed (n − 2)/(d − 1), and offers
IsoScore* (shrinkage) of its snapshots on demand."""

from __future__ import annotations

import contextlib

import numpy as np
import streamlit as st

from engine import charts, runlog
from engine.jobs import Job
from ui import projector
from ui.controls import encoder_dims
from ui.runs import run_label
from ui.text import plain

PLOTLY = {"displaylogo": False, "toImageButtonOptions": {"format": "png", "scale": 2}}


def items_and_dims(job: Job) -> tuple[int, int] | None:
    """(items, dimensions) the probe run's measures see, where known: its geometry sample when it has one and
    it is smaller, else all its items."""
    found = all_items_and_dims(job)
    sample = job.config_dict.get("sample_size") if job.kind == "probe" else None
    if isinstance(sample, int) and sample >= 2:
        dims = found[1] if found else encoder_dims(job.config_dict.get("encoder"))
        if dims and (found is None or sample < found[0]):
            return sample, dims
    return found


def all_items_and_dims(job: Job) -> tuple[int, int] | None:
    """(items, dimensions) of a probe run's embeddings where known: from a snapshot (holding every item when
    there are fewer than its snapshot limit), else from its Limit and its encoder's size."""
    if job.kind != "probe":
        return None
    config = job.config_dict
    found = runlog.list_snapshots(job.run_dir)
    if found:
        with contextlib.suppress(OSError, ValueError):
            rows, dims = np.load(found[0][1], mmap_mode="r", allow_pickle=False).shape
            if rows < int(config.get("snapshot_limit") or 0) or rows == config.get("limit"):
                return int(rows), int(dims)
            return None
    dims = encoder_dims(config.get("encoder"))
    if config.get("limit") and dims:
        return int(config["limit"]), dims * (2 if config.get("data") == "snli" else 1)
    return None


def capped_note(items: int, dims: int, where: str = "") -> str:
    from engine.metrics import isoscore_cap

    return (
        f"IsoScore is capped{where}: {items:,} items in {dims:,} dimensions can score at most "
        f"{isoscore_cap(items, dims):.2f}, (n − 2)/(d − 1), however evenly they spread, because a covariance "
        "of n points has at most n − 1 directions. Use more items than dimensions, or read IsoScore* "
        "(shrinkage; see the Glossary)."
    )


def isoscore_notes(jobs: list[Job], key: str) -> None:
    """For each shown probe run with fewer items than dimensions: why IsoScore is capped, and IsoScore* of
    its snapshots on demand."""
    for job in jobs:
        shape = items_and_dims(job)
        if shape is None or shape[0] > shape[1]:
            continue
        st.warning(capped_note(*shape, f" for {plain(run_label(job))}"), icon="ℹ️")
        snapshots = runlog.list_snapshots(job.run_dir)
        if not snapshots or job.active:
            continue
        with st.expander(f"IsoScore* of {plain(run_label(job))}'s snapshots"):
            zeta = st.slider(
                "Shrinkage ζ",
                0.0,
                1.0,
                0.2,
                0.05,
                key=f"{key}.zeta.{job.id}",
                help="0: IsoScore itself; 1: the isotropic covariance (IsoScore* = 1).",
            )
            slot = f"{key}.star.{job.id}"
            if st.button("Compute IsoScore*", key=f"{key}.starbtn.{job.id}"):
                loaded = {step: runlog.load_snapshot(path) for step, path in snapshots}
                st.session_state[slot] = (zeta, charts.isoscore_star_series(loaded, zeta))
            done = st.session_state.get(slot)
            if done is not None:
                fig = charts.metric_figure(
                    {f"{run_label(job)}, ζ = {done[0]:g}": done[1]}, "isoscore_star", style=projector.style()
                )
                st.plotly_chart(fig, key=f"{key}.starfig.{job.id}", config=PLOTLY)
