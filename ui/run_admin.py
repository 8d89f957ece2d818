"""Compare's run housekeeping: the table of every run (name, settings, state, size), renaming a run, the
disk the cache takes per part, and deleting ended runs (picked, or all older than some days), never a
running one and always after a confirmation."""

from __future__ import annotations

import time

import pandas as pd
import streamlit as st

from engine.jobs import Job, JobRegistry
from engine.runlog import disk, naming
from ui import runs
from ui.run_facts import settings_line
from ui.text import ui_words

DAY = 86_400.0


def run_bytes(job: Job) -> int:
    """Bytes the run's folder takes on disk (measured again while it is written)."""
    return disk.folder_bytes(job.run_dir, fresh=job.active)


def runs_table(reg: JobRegistry) -> pd.DataFrame:
    """One row per run, newest first: its name, settings line, kind, state, last step, size and error."""
    return pd.DataFrame(
        [
            {
                "run": runs.run_label(job),
                "settings": settings_line(job),
                "kind": job.kind,
                "state": job.state,
                "last step": "no steps yet" if job.rows.last_step is None else str(job.rows.last_step),
                "size": disk.size_text(run_bytes(job)),
                "error": ui_words(job.error or ""),
            }
            for job in reversed(reg.jobs())
        ]
    )


def disk_line() -> None:
    """What the cache takes on disk, per part (runs, encoders, uploads, embedding cache)."""
    usage = disk.cache_usage()
    st.caption(
        "On disk: "
        + " · ".join(f"{part} {disk.size_text(size)}" for part, size in usage.items())
        + f" (cache folder, {disk.size_text(sum(usage.values()))} in all)."
    )


def rename_section(reg: JobRegistry) -> None:
    """Give a run a new name (written into its folder's config.json)."""
    jobs = list(reversed(reg.jobs()))
    if not jobs:
        return
    cols = st.columns([2, 2, 1], vertical_alignment="bottom")
    picked = cols[0].selectbox(
        "Run to rename",
        [job.id for job in jobs],
        format_func=runs.option_label(reg),
        key="compare.rename.pick",
    )
    typed = cols[1].text_input("New name", key="compare.rename.name", max_chars=naming.MAX_NAME)
    if cols[2].button("Rename", key="compare.rename", disabled=not typed.strip()):
        with runs.guard("Rename: "):
            reg.rename(picked, typed)
            st.session_state.pop("compare.rename.name", None)
            st.rerun()


def _age(job: Job) -> float:
    return time.time() - (job.ended or job.started or job.created)


def delete_section(reg: JobRegistry) -> None:
    """Delete ended runs (finished, stopped or failed; their folders in cache/runs), picked by name or all
    those older than some days, after a confirmation; a queued or running run is never offered."""
    done = [job for job in reversed(reg.jobs()) if runs.deletable(job)]
    if not done:
        st.caption("No finished, stopped or failed run to delete.")
        return
    names = {
        job.id: f"{runs.STATE_ICONS.get(job.state, '')} {runs.run_label(job)} ({job.state}, "
        f"{disk.size_text(run_bytes(job))})"
        for job in done
    }
    picked = st.multiselect(
        "Runs to delete",
        list(names),
        format_func=names.get,
        key="compare.delete.pick",
        placeholder="pick finished, stopped or failed runs",
        help="Running and queued runs are not offered: stop them first.",
    )
    days = st.number_input(
        "…or every ended run older than (days)",
        min_value=0.0,
        max_value=36_500.0,
        value=7.0,
        step=1.0,
        key="compare.delete.days",
        help="Finished, stopped or failed runs that ended this many days ago or more; never a running one.",
    )
    older = [job.id for job in done if _age(job) >= days * DAY]
    every_old = st.checkbox(
        f"Delete the {len(older)} ended run(s) older than {days:g} day(s) "
        f"({disk.size_text(sum(run_bytes(reg.get(i)) for i in older))})",
        key="compare.delete.old",
        disabled=not older,
    )
    chosen = list(dict.fromkeys([*picked, *(older if every_old else [])]))
    confirm = st.checkbox(
        "Yes, delete their folders (metrics, snapshots, frames) for good", key="compare.delete.confirm"
    )
    label = f"Delete {len(chosen)} run(s)" if chosen else "Delete run"
    if st.button(label, key="compare.delete", icon=":material/delete:", disabled=not (chosen and confirm)):
        with runs.guard("Delete: "):
            for job_id in chosen:
                job = reg.get(job_id)
                if job is not None and runs.deletable(job):  # a run started meanwhile is kept
                    runs.delete_run(job)
            for key in ("compare.delete.pick", "compare.delete.confirm", "compare.delete.old"):
                st.session_state.pop(key, None)
            st.rerun()
