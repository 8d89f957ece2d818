"""Collapse, seen coming, in the page's words: a warning above the charts for each shown run whose RankMe has
fallen below the declared share of its start (:data:`engine.core.measures.COLLAPSE_ONSET`), naming the step
the charts mark (:mod:`engine.charts.onset_marks`). The page reruns when a run's onset appears
(:func:`ui.live_state.signature` lists the runs that collapse), so the line comes while the run trains."""

from __future__ import annotations

import streamlit as st

from engine.charts.onset_marks import onsets
from engine.core.measures import COLLAPSE_ONSET
from engine.jobs import Job
from ui.run_facts import run_label
from ui.text import plain


def collapse_line(label: str, step: float, running: bool) -> str:
    """The warning's words for run ``label`` whose RankMe fell below the share at ``step``."""
    now = "collapse is beginning" if running else "collapse began"
    return (
        f"{label}: {now}: its RankMe fell below {COLLAPSE_ONSET:.0%} of its start at step {step:g} "
        "(marked on the charts): the embeddings use fewer and fewer directions."
    )


def collapse_notes(jobs: list[Job]) -> None:
    """A warning for each run of ``jobs`` whose collapse onset is logged (its name escaped: user text)."""
    for job in jobs:
        label = run_label(job)
        found = onsets({label: job.rows.metrics()})
        if label in found:
            st.warning(plain(collapse_line(label, found[label], job.active)), icon=":material/trending_down:")
