"""One-click presets of the UI: named lists of runs (kind, run name, config fields) to queue at once.

Each experiment declares its own (:attr:`engine.core.declaration.Experiment.presets`: e.g.
:mod:`engine.probe.presets`, :mod:`engine.simcse.presets`); this module lists them all. A preset only fills
config fields; the user's current settings (encoder, device, seed, data folder) are the base it is laid over,
so its description can depend on them (:func:`presets` takes them). A preset may hold runs of several
experiments (JEPA's collapse question with its SimCSE reference): :func:`queue` gives each run its kind and
the config fields that kind has.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any, NamedTuple

from engine import experiments
from engine.core import paths
from engine.core.declaration import Preset
from engine.lessons.numbers import LECTURE_SUFFIX


class QueuedRun(NamedTuple):
    """One run of a preset, ready to queue: its experiment, its name and its config fields."""

    kind: str
    name: str
    fields: dict[str, Any]


def queue(preset: Preset, settings: dict[str, Any] | None = None, *, short: bool = False) -> list[QueuedRun]:
    """Every run of ``preset`` in its order, with its kind and config fields (:meth:`Preset.fields`). A run
    of the preset's own kind keeps every field (an unknown one is an error at Start, as ever); a run of
    another kind keeps only the fields its config has (the page's settings are the preset kind's)."""
    found = []
    for name in preset.runs:
        kind = preset.kind_of(name)
        fields = preset.fields(name, settings, short=short)
        if kind != preset.kind:
            known = _field_names(kind)
            fields = {key: value for key, value in fields.items() if key in known}
        found.append(QueuedRun(kind, name, fields))
    return found


def _field_names(kind: str) -> set[str]:
    experiment = experiments.EXPERIMENTS[kind]
    return {field.name for field in dataclasses.fields(experiment.config_class)}


#: the measured wall times of the lecture versions, written by ``python benchmarks/bench_lecture_presets.py
#: --record`` (name → seconds, date, machine, command)
LECTURE_TIMES = Path(__file__).with_name("lecture_times.json")


def presets(settings: dict[str, Any] | None = None) -> dict[str, Preset]:
    """Every experiment's presets by name (built on call, so each experiment's code is imported lazily),
    each one marked ``lecture`` followed by its lecture version (:func:`lecture_version`); ``settings``
    (the user's current ones, e.g. the data folder) complete the descriptions."""
    found: dict[str, Preset] = {}
    for preset in experiments.all_presets(settings):
        found[preset.name] = preset
        if preset.lecture:
            lecture = lecture_version(preset)
            found[lecture.name] = lecture
    return found


def lecture_times() -> dict[str, dict[str, Any]]:
    """The lecture versions' measured wall times by preset name (:data:`LECTURE_TIMES`; empty when none)."""
    try:
        return json.loads(LECTURE_TIMES.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}


def lecture_version(preset: Preset) -> Preset:
    """``preset``'s short version (:attr:`Preset.short`, the one ``lessons check --short`` judges) as a preset
    of its own, ``<name> · lecture``: the same runs over a base with the short fields laid on it (a short
    version sets no field its runs set), so that :func:`queue` gives exactly the runs the check runs. Its
    help says how long it took on the project's 2-core CPU (:data:`LECTURE_TIMES`)."""
    timing = lecture_times().get(preset.name)
    took = (
        f"about {timing['seconds']:.0f} s on a {timing['machine']} ({timing['date']})"
        if timing
        else "its time on this machine not measured yet"
    )
    steps = preset.short.get("steps")
    return dataclasses.replace(
        preset,
        name=preset.name + LECTURE_SUFFIX,
        description=(
            f"The lecture version of '{preset.name}': {steps} steps, batch {preset.short.get('batch_size')}, "
            f"the demo corpus; {took}. The lesson's claims hold on it (python -m engine lessons check "
            f"--short). Full version: {preset.description}"
        ),
        base={**preset.base, **preset.short},  # a short version sets no field its runs set (lessons check)
        demo=False,
        lecture=False,
        recorded=None,  # the recorded runs are the full version's
        note=preset.short_note or preset.note,
    )


def lecture_runs_among(configs: Iterable[Mapping[str, Any]], names: Iterable[str]) -> bool:
    """Whether one of the run ``configs`` is a run of the lecture version of one of the presets ``names``:
    every field that version sets for one of its runs (its base, the run's own, its short fields) has that
    value in the config (the user's settings beneath them may differ)."""
    known = presets()
    wanted = [
        known[name + LECTURE_SUFFIX].fields(run)
        for name in names
        if name + LECTURE_SUFFIX in known
        for run in known[name + LECTURE_SUFFIX].runs
    ]
    return any(
        all(key in config and config[key] == value for key, value in fields.items())
        for config in configs
        for fields in wanted
    )


def for_kind(kind: str, settings: dict[str, Any] | None = None) -> dict[str, Preset]:
    return {name: preset for name, preset in presets(settings).items() if preset.kind == kind}


def demo() -> Preset:
    """The Overview's one-click demo (the preset marked ``demo``)."""
    return next(preset for preset in presets().values() if preset.demo)


def default_data_dir() -> str | None:
    """The app's data folder (:func:`engine.core.paths.app_data_dir`) as text, or None."""
    folder = paths.app_data_dir()
    return None if folder is None else str(folder)
