"""The runs behind the pages: the server's job registry, the error guard, run labels, run picker, Start."""

from __future__ import annotations

import contextlib
import logging
import secrets
import threading
import uuid
from collections.abc import Callable, Iterator
from typing import Any

import pandas as pd
import streamlit as st

from engine import runlog
from engine.compute import priority
from engine.core import paths
from engine.core.declaration import Experiment
from engine.core.errors import ConfigError, EmbedlabError, one_line
from engine.jobs import Job, JobRegistry
from engine.jobs.server_exit import stop_runs_at_exit
from engine.runlog.states import RunState
from ui import projector, run_facts, run_name
from ui.run_facts import progress_text as progress_text
from ui.run_facts import run_label as run_label
from ui.text import message, plain

log = logging.getLogger("embedlab.ui")
STARTED_HERE = "_runs.started_here"  # session key: ids of the runs this browser session queued
OWNER_KEY = "_runs.owner"  # session key: this session's owner token (its runs across a reload: issue 55)
STATE_ICONS = {
    RunState.QUEUED: "…",
    RunState.RUNNING: "▶",
    RunState.FINISHED: "✓",
    RunState.STOPPED: "■",
    RunState.FAILED: "✗",
    RunState.INTERRUPTED: "!",
}


@st.cache_resource(show_spinner=False)
def registry() -> JobRegistry:
    """The one job registry of this server process: survives reruns, page switches, reloads, closed tabs."""
    reg = JobRegistry()  # its worker thread starts the runs' children: made before the UI yields (below)
    stop_runs_at_exit(reg)  # SIGTERM to the server stops its runs too (issue 55)
    try:
        reg.attach_finished()
    except Exception as err:  # noqa: BLE001 - a broken cache folder must not stop the app
        log.warning("could not list old runs: %s", one_line(err))
    return reg


@contextlib.contextmanager
def guard(what: str = "") -> Iterator[None]:
    """Show any user error (and any unexpected one) as a single st.error line, never a traceback."""
    try:
        yield
    except EmbedlabError as err:
        st.error(message(what, one_line(err)), icon=":material/warning:")
    except Exception as err:  # noqa: BLE001 - the UI must keep working
        log.exception("unexpected error in the UI")
        st.error(message(what, one_line(err)), icon=":material/warning:")


def option_label(reg: JobRegistry, *, short: bool = False, picked: list[str] = ()) -> Callable[[str], str]:
    """A run in a picker: its state, its name and its settings line (``✓ rt-polarity · 300 steps — probe ·
    rt-polarity · 300 steps · lr 0.001 · seed 0``); ``short`` (projector mode's compact chips): its state
    and name alone, less the part that the names of the ``picked`` runs share (a preset's name, on the
    chart's title)."""
    from engine.charts.legend import common_part, without_part

    part = common_part([run_label(reg.get(i)) for i in picked if reg.get(i) is not None]) if short else ""

    def fmt(job_id: str) -> str:
        job = reg.get(job_id)
        if job is None:
            return job_id
        if short:
            name = without_part(run_label(job), part) if job_id in picked else run_label(job)
            return f"{STATE_ICONS.get(job.state, '')} {name}"
        return f"{STATE_ICONS.get(job.state, '')} {run_label(job)} — {run_facts.settings_line(job)}"

    return fmt


@st.cache_resource(show_spinner=False)
def yield_to_training() -> int:
    """Once per server, at the first Start of a run not at the lecture pace: the server's event loop, and the
    script threads it starts from then on, take a lower CPU priority than the runs' children
    (:mod:`engine.compute.priority`). Not before: at start-up the pages must not wait behind umap-learn's
    JIT warm-up and the warm spare child."""
    try:
        return priority.yield_to_training([threading.main_thread().native_id, None])
    except EmbedlabError as err:
        log.warning("UI threads keep their priority: %s", one_line(err))
        return 0


def submit_runs(
    experiment: Experiment, runs: list[tuple[str, dict[str, Any]]], preset: str | None = None
) -> list[Job]:
    """Queue runs of ``experiment`` (``preset``: the name of the preset they come from); a user error shows
    one line and queues nothing more. The page then shows these runs."""
    reg = registry()
    if not all(config.get("lecture_pace") for _, config in runs):
        yield_to_training()  # a paced run trains in a second, then is only drawn: the drawing keeps its turn
    made = []
    group = uuid.uuid4().hex if len(runs) > 1 else None  # a preset's runs go side by side (engine.jobs)
    names = run_names(experiment, runs, preset)
    for (_, config), name in zip(runs, names):
        made.append(reg.submit(experiment.kind, config, name=name, group=group))
        st.session_state.setdefault(STARTED_HERE, set()).add(made[-1].id)
        owned_runs().setdefault(owner_token(), set()).add(made[-1].id)
    st.session_state[f"{experiment.kind}.shown"] = [job.id for job in made]
    return made


def run_names(
    experiment: Experiment, runs: list[tuple[str, dict[str, Any]]], preset: str | None = None
) -> list[str | None]:
    """The names of runs of ``experiment`` to queue: a preset's runs (their keys are its run keys;
    ``preset`` names it, else the first preset of the experiment with those keys) ``<preset title> · <what
    differs>``; the page's ▶ Start (one run named after its kind) the name field's
    (:func:`ui.run_name.typed_name`), else None (named from its settings); any other run keeps its name."""
    from engine.lessons.presets import for_kind
    from engine.runlog.naming import preset_run_names

    keys = [key for key, _ in runs]
    for found in for_kind(experiment.kind, runs[0][1] if runs else None).values():
        if list(found.runs) == keys and preset in (None, found.name):
            named = preset_run_names(found.name, experiment, found.base, found.runs)
            return [named[key] for key in keys]
    if keys == [experiment.kind]:
        return [run_name.typed_name(experiment)]
    return list(keys)


def started_here(job: Job) -> bool:
    """Whether this browser session (this tab) queued ``job``, or the tab it was reloaded from (its URL's
    owner token, :func:`owner_token`): its ■ Stop acts on those runs alone."""
    if job.id in st.session_state.get(STARTED_HERE, set()):
        return True
    token = known_token()
    return token is not None and job.id in owned_runs().get(token, set())


@st.cache_resource(show_spinner=False)
def owned_runs() -> dict[str, set[str]]:
    """The runs each owner token queued, kept by the server (never in the URL: a token names no run)."""
    return {}


def known_token() -> str | None:
    """This session's owner token: the session's own, else its URL's when the server issued it (a reload or
    a tab's restore; a token never issued is ignored). Put back in the URL when a page switch dropped it."""
    from ui.links import OWNER

    token = st.session_state.get(OWNER_KEY)
    if token is None:
        asked = st.query_params.get(OWNER)
        token = asked if asked in owned_runs() else None
        if token is not None:
            st.session_state[OWNER_KEY] = token
    if token is not None and st.query_params.get(OWNER) != token:
        st.query_params[OWNER] = token
    return token


def owner_token() -> str:
    """This session's owner token (made at its first Start: 128 random bits, ``secrets``), in its URL."""
    token = known_token()
    if token is None:
        token = st.session_state[OWNER_KEY] = secrets.token_urlsafe(16)
        owned_runs()[token] = set()
        known_token()
    return token


def cancelled(job: Job) -> bool:
    """A run that ended without a single row and without an error: cancelled while queued, or stopped during
    its set-up. It has nothing to show ("No metrics yet" forever), so no picker chooses it by itself."""
    return not job.active and job.state != RunState.FAILED and job.rows.last_step is None


def default_shown(pool: list[Job]) -> list[str]:
    """What a run picker shows when nothing is chosen: the active runs, else the newest run with rows (or a
    failed one: its error is worth reading) with the other runs of its preset (:func:`preset_mates`), else
    the newest run."""
    active = [job.id for job in pool if job.active]
    if active:
        return active
    newest = list(reversed(pool))
    worth = [job for job in newest if not cancelled(job)]
    own = [job for job in worth if not borrowed(job)]  # not another page's preset's reference run
    if own or worth:
        return [job.id for job in preset_mates((own or worth)[0], worth)]
    return [job.id for job in newest[:1]]


def borrowed(job: Job) -> bool:
    """Whether ``job`` is a reference run that another experiment's preset queued beside its own runs (the
    unsupervised SimCSE run of JEPA's collapse question): most runs of its group are of another kind."""
    if job.group is None:
        return False
    kinds = [other.kind for other in registry().jobs() if other.group == job.group]
    return kinds.count(job.kind) * 2 < len(kinds)


def preset_of(job: Job) -> str | None:
    """The preset whose run ``job`` is, by its name (``<preset> · <what differs>``), else None."""
    from engine.lessons.presets import presets

    label = run_label(job)
    names = sorted(presets(), key=len, reverse=True)  # "SimCSE Figure 2 · lecture" before "SimCSE Figure 2"
    return next((name for name in names if label.startswith(name + " · ")), None)


def preset_mates(job: Job, newest: list[Job]) -> list[Job]:
    """``job`` and the runs queued with it (its group in this server), else the runs of the same preset
    made just before it (``newest``: newest first; each name once): a preset's runs are shown together."""
    if job.group is not None:
        mates = [other for other in newest if other.group == job.group]
        return list(reversed(mates))
    preset = preset_of(job)
    if preset is None:
        return [job]
    found, names = [], set()
    for other in newest:
        if preset_of(other) != preset or run_label(other) in names:
            break
        found.append(other)
        names.add(run_label(other))
    return list(reversed(found))


def linked_runs(ids: list[str]) -> list[str]:
    """The runs the page's URL names (``?runs=ID,ID``: a reload or a new tab shows the same runs), those
    still known; each other name is refused with a note, escaped (:func:`ui.link_values.run_names`)."""
    from ui.link_values import run_names
    from ui.links import RUNS, ignored_note

    asked = st.query_params.get(RUNS)
    if not asked:
        return []
    found, ignored = run_names(asked, ids)
    if ignored:
        st.warning(ignored_note(ignored), icon=":material/link_off:")
    return found


def remember_runs(picked: list[str]) -> None:
    """The picked runs in the page's URL (``?runs=``), so that a reload or a copied address shows them."""
    from ui.links import RUNS

    text = ",".join(picked)
    if st.query_params.get(RUNS, "") != text:
        if text:
            st.query_params[RUNS] = text
        elif RUNS in st.query_params:
            del st.query_params[RUNS]


def shown_jobs(
    experiment: Experiment | None, *, label: str = "Runs shown", beside: tuple[str, ...] = ()
) -> list[Job]:
    """The run picker of the page of ``experiment`` (None: Compare, the runs of every experiment): this
    session's last submissions (less those cancelled before their first row: after ■ Stop), else the runs
    the page's URL names (:func:`linked_runs`), else :func:`default_shown` of its own runs; ``beside``: the
    kinds of the experiments whose runs it also offers (a preset's reference run of another experiment).
    The picked runs go into the URL."""
    reg = registry()
    kind = experiment.kind if experiment is not None else None
    pool = [job for job in reg.jobs() if kind is None or job.kind == kind or job.kind in beside]
    ids = [job.id for job in reversed(pool)]
    key = f"{kind or 'all'}.shown"
    chosen = [i for i in st.session_state.get(key, []) if i in ids]
    kept = [i for i in chosen if not cancelled(reg.get(i))]
    if kept != chosen:
        chosen = kept
    if not chosen and key not in st.session_state:
        chosen = linked_runs(ids)
    if not chosen:
        chosen = default_shown([job for job in pool if kind is None or job.kind == kind or job.group])
    st.session_state[key] = chosen
    with st.container(key="run-picker"):  # projector mode keeps it beside its Leave button (ui/projector.py)
        picked = st.multiselect(
            label,
            ids,
            key=key,
            format_func=option_label(reg, short=projector.on(), picked=chosen),
            placeholder="pick runs to show",
            label_visibility="collapsed" if projector.on() else "visible",  # a projector's rows are few
        )
    remember_runs(picked)
    return [reg.get(i) for i in picked if reg.get(i) is not None]


def metrics_by_run(jobs: list[Job]) -> dict[str, pd.DataFrame]:
    return {run_label(job): job.rows.metrics() for job in jobs}


def changing(job: Job, reg: JobRegistry | None = None) -> bool:
    """Whether a run's charts or frames still change (:func:`ui.run_facts.changing`); ``reg``: the job
    registry (default: this server's, :func:`registry`)."""
    return run_facts.changing(job, reg or registry())


FIX_HINT = "Change the setting it names, then press ▶ Start again."


def failed_lines(jobs: list[Job]) -> None:
    """Each failed run's error in the pages' words (with how to fix it), each interrupted run's note."""
    for job in jobs:
        if job.state == RunState.FAILED:
            st.error(
                message(f"{run_label(job)} failed: ", job.error or "unknown error") + " " + FIX_HINT,
                icon=":material/error:",
            )
        elif job.state == RunState.INTERRUPTED:
            st.warning(
                plain(
                    f"{run_label(job)} was interrupted (its process ended); its rows up to the last step "
                    "are kept."
                )
            )


def deletable(job: Job) -> bool:
    """Whether the run's folder may be deleted: it is not queued or running (in this server or, by its
    writer's lock, in another process) and it lies directly inside ``cache/runs``."""
    if job.active or job is registry().current:
        return False
    folder = job.run_dir.resolve()
    if folder.parent != paths.runs_dir().resolve() or not folder.name:
        return False
    with contextlib.suppress(OSError, ValueError):
        if runlog.writer_alive(folder, runlog.read_json(folder / runlog.STATUS)):
            return False
    return True


def delete_run(job: Job) -> None:
    """Delete a finished, stopped or failed run: its folder inside ``cache/runs`` and its entry in the job
    registry (so no page lists it again). A running run, or a folder elsewhere, is refused (one line)."""
    if not deletable(job):
        raise ConfigError(f"{run_label(job)} is running or not in the lab's run folder: it cannot be deleted")
    registry().delete(job.id)
