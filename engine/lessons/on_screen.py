"""A lesson's words about the runs on screen: every number it prints is one of those runs' own.

Issue 58: the text beside a run never quotes other runs' figures. When a page (or the HTML lesson) draws
runs, its text is the lesson without its recorded figures (:func:`without_figures`) followed by
:func:`on_screen_text`: for each run shown, or each group of seeds of one run (a recorded group: its means
and sd over the seeds), the lesson's measures start → end, read from its ``metrics.csv`` as the lessons check
reads them (:func:`engine.lessons.check.read_trace`: the first and last logged value), then its settings
(steps, batch, seeds, evaluation set: its ``config.json`` and ``summary.json``), then what these runs can
and cannot separate: each of the lesson's claims whose runs are on screen, judged by the lessons check's rules
(:mod:`engine.lessons.judging`: a gap counts beyond twice the seeds' pooled sd), with one seed saying that a
gap between runs is no finding (a margin needs the spread between seeds, which one run does not measure).

A shown run is matched to a preset's run by the fields that set its runs apart (:func:`run_of`), so that
runs queued by a preset, started by hand with the same switches, or shipped under other names are read alike.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from engine import experiments
from engine.core.declaration import Lesson, Preset
from engine.core.lesson_claims import DIRECTIONS, ORDERS, Claim
from engine.core.measures import MEASURES
from engine.encoders.starts import MINILM_CLS, RAW_OR_STAND_IN, RAW_STARTS
from engine.lessons.judging import Trace, holds
from engine.lessons.numbers import PLACEHOLDER, _format

#: the fields a user sets whatever the preset (never part of a run's identity)
_USER_FIELDS = frozenset({"seed", "data_dir", "device", "name", "precision"})


@dataclass(frozen=True)
class Shown:
    """Runs on screen as one line of the text: one run folder, or the folders of one run's seeds (their
    means); ``label`` names it (default: the preset run it matches, else its config's name)."""

    folders: tuple[Path, ...]
    label: str | None = None


@dataclass(frozen=True)
class _Read:
    """A :class:`Shown` read: its traces (one per folder), first config and summaries."""

    label: str
    traces: tuple[Trace, ...]
    configs: tuple[Mapping[str, Any], ...]
    summaries: tuple[Mapping[str, Any], ...]

    @property
    def config(self) -> Mapping[str, Any]:
        return self.configs[0]


def _json(path: Path) -> dict[str, Any]:
    try:
        found = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return found if isinstance(found, dict) else {}


def _read(shown: Shown, kind: str, name_text: Callable[[str], str] = str) -> _Read | None:
    from engine.lessons.check import read_trace  # the lessons check's reader (it imports the presets)

    folders = [Path(folder) for folder in shown.folders]
    if not folders:
        return None
    configs = tuple(_json(folder / "config.json") for folder in folders)
    matched = run_of(configs[0], kind)
    label = shown.label or (
        matched[1] if matched else name_text(str(configs[0].get("name") or folders[0].name))
    )
    traces = tuple(read_trace(folder) for folder in folders)
    summaries = tuple(_json(folder / "summary.json") for folder in folders)
    return _Read(label, traces, configs, summaries)


def group_by_seed(folders: Sequence[Path]) -> list[Shown]:
    """``folders`` as groups of seeds: folders whose configs are equal but for the user's fields (seed, data
    folder, device, name) are one :class:`Shown`, in the order of their first folder."""
    groups: dict[str, list[Path]] = {}
    for folder in folders:
        config = _json(Path(folder) / "config.json")
        identity = json.dumps({k: v for k, v in config.items() if k not in _USER_FIELDS}, sort_keys=True)
        groups.setdefault(identity, []).append(Path(folder))
    return [Shown(tuple(members)) for members in groups.values()]


def _identity(preset: Preset, run: str) -> dict[str, Any]:
    """The fields that make ``run`` that run of ``preset``: its full fields but the short version's (a
    lecture and a full run are the same run) and the user's."""
    return {
        key: value
        for key, value in preset.fields(run).items()
        if key not in preset.short and key not in _USER_FIELDS
    }


def _same(key: str, value: Any, wanted: Any) -> bool:
    """Whether a run's ``value`` of field ``key`` is the preset's ``wanted`` one: a raw-start preset's runs
    are its runs whichever start they used (a raw BERT or its stand-in: they depend on the cache)."""
    if key == "encoder" and wanted in RAW_OR_STAND_IN:
        return value in RAW_OR_STAND_IN
    return bool(value == wanted)


def run_of(config: Mapping[str, Any], kind: str) -> tuple[str, str] | None:
    """The (preset, run) of ``kind``'s lesson presets that ``config`` is (every field that makes it that run
    has that value), or None."""
    from engine.lessons.presets import presets

    lesson = experiments.lessons().get(kind)
    names = dict.fromkeys(claim.preset for claim in (lesson.claims if lesson else ()))
    known = presets()
    for name in names:
        preset = known.get(name)
        if preset is None:
            continue
        for run in preset.runs:
            if preset.kind_of(run) != config.get("kind", kind):
                continue
            wanted = _identity(preset, run)
            if all(key in config and _same(key, config[key], value) for key, value in wanted.items()):
                return name, run
    return None


def without_figures(text: str) -> str:
    """``text`` without a recorded figure: each parenthesis holding a placeholder dropped, then each sentence
    or clause (between ``.`` or ``;``) still holding one; what is left ends with a full stop."""
    text = re.sub(r"\s*\([^()]*\{[^()]*\)", "", text)
    kept: list[str] = []
    for piece in re.split(r"(?<=[.;])\s+", text):
        if not piece or PLACEHOLDER.search(piece):
            if kept and kept[-1].endswith(";"):  # the clause after it is gone: its sentence ends there
                kept[-1] = kept[-1][:-1] + "."
            continue
        kept.append(piece)
    if not kept:
        return ""
    joined = " ".join(kept).strip()
    joined = joined[0].upper() + joined[1:]
    return joined if joined.endswith((".", ":")) else joined.rstrip(",;:") + "."


def _mean_sd(values: Sequence[float]) -> tuple[float, float]:
    mean = sum(values) / len(values)
    if len(values) < 2:
        return mean, 0.0
    return mean, math.sqrt(sum((v - mean) ** 2 for v in values) / (len(values) - 1))


def _ends(read: _Read, measure: str) -> tuple[list[float], list[float]] | None:
    found = [trace.values(measure) for trace in read.traces]
    if not found or not all(found):
        return None
    return [v[0] for v in found], [v[-1] for v in found]


def _figure(values: Sequence[float]) -> str:
    mean, sd = _mean_sd(values)
    return _format(mean, None) + (f" ± {_format(sd, None)}" if len(values) > 1 and sd > 0 else "")


def _label(measure: str) -> str:
    return MEASURES[measure].label if measure in MEASURES else measure


def _line(read: _Read, measures: Sequence[str]) -> str:
    parts = []
    for measure in measures:
        ends = _ends(read, measure)
        if ends is None:
            continue
        parts.append(f"{_label(measure)} {_figure(ends[0])} → {_figure(ends[1])}")
    return f"{read.label}: " + (", ".join(parts) if parts else "no measure of the lesson logged yet")


def _settings(reads: Sequence[_Read]) -> str:
    """The shown runs' steps, batch, seeds and evaluation set, in words, from their own files."""
    config = reads[0].config
    seeds = sorted({c["seed"] for r in reads for c in r.configs if isinstance(c.get("seed"), int)})
    per = max(len(r.traces) for r in reads)
    words = []
    if "steps" in config:
        batch = f" of batch {config['batch_size']}" if "batch_size" in config else ""
        words.append(f"{config['steps']} steps{batch}")
    evaluated = next((s.get("eval_set") for r in reads for s in r.summaries if s.get("eval_set")), None)
    if evaluated:
        words.append(f"evaluated on {evaluated}")
    seeds_text = ", ".join(str(seed) for seed in seeds)
    if per > 1:
        words.append(f"means ± sd over seeds {seeds_text}")
    elif seeds:
        words.append(f"one seed each (seed {seeds_text})")
    return ", ".join(words)


#: what a judged comparison says, by (several seeds?, held?)
_SAYS = {
    (True, True): "beyond twice the seeds' pooled spread",
    (True, False): "not beyond twice the seeds' pooled spread: no finding",
    (False, True): "on this seed",
    (False, False): "not on this seed",
}


def _verdict(claim: Claim, by_run: Mapping[tuple[str, str], _Read]) -> tuple[str, str] | None:
    """What the runs on screen say of ``claim``: (what it says, the verdict), None when its runs are not all
    on screen or it is no comparison."""
    keys = [(claim.preset, run) for run in claim.runs]
    if claim.expect not in DIRECTIONS + ORDERS or any(key not in by_run for key in keys):
        return None
    measured = {run: list(by_run[key].traces) for run, key in zip(claim.runs, keys, strict=True)}
    result = holds(claim, measured)
    several = min(len(traces) for traces in measured.values()) > 1
    verdict = "not measured yet" if result is None else _SAYS[several, bool(result)]
    if claim.expect in DIRECTIONS:
        margin = " by more than the lesson's margin" if claim.by > 0 else ""
        return f"{_label(claim.measure)} {claim.expect}{margin}", verdict
    mine, than = (by_run[key].label for key in keys)
    paper = " (the paper's order)" if claim.source == "paper" else ""
    return f"{mine} ends {claim.expect} {than} on {_label(claim.measure)}{paper}", verdict


def _verdicts(lesson: Lesson, by_run: Mapping[tuple[str, str], _Read]) -> list[str]:
    """The sentences of :func:`_verdict` over ``lesson``'s claims, once each; a change (rises, falls) with
    the runs it holds in gathered in one sentence."""
    changes: dict[tuple[str, str], list[str]] = {}
    orders: dict[str, str] = {}
    for claim in lesson.claims:
        found = _verdict(claim, by_run)
        if found is None:
            continue
        said, verdict = found
        if claim.expect in DIRECTIONS:
            run = by_run[claim.preset, claim.run].label
            runs = changes.setdefault((said, verdict), [])
            runs.extend([run] if run not in runs else [])
        else:
            orders.setdefault(said, verdict)
    sentences = [f"{said} in {', '.join(runs)}: {verdict}." for (said, verdict), runs in changes.items()]
    return sentences + [f"{said}: {verdict}." for said, verdict in orders.items()]


def _can_and_cannot(reads: Sequence[_Read]) -> str:
    """What one seed of each run can and cannot separate, in words (empty for groups of seeds)."""
    if any(len(read.traces) > 1 for read in reads):
        return ""
    steps = reads[0].config.get("steps")
    length = f"{steps} steps of one seed" if steps else "One seed"
    return (
        f"{length} can show each run's change from its start; an order between the runs it cannot: a gap "
        "between their ends is a finding only beyond the spread between seeds, which one run does not "
        "measure (docs/results.md measures it over seeds)."
    )


def on_screen_text(kind: str, shown: Sequence[Shown], name_text: Callable[[str], str] = str) -> str:
    """What experiment ``kind``'s lesson says of the runs ``shown``: each run's (or group's) lesson measures
    start → end, their settings, what one seed can and cannot separate, and the comparisons of the lesson's
    claims whose runs are all on screen, judged on them (see the module's text); empty when the experiment
    has no lesson or nothing is shown. ``name_text``: how a user's run name is written (the page's escape)."""
    lesson = experiments.lessons().get(kind)
    reads = [read for read in (_read(one, kind, name_text) for one in shown) if read is not None]
    if lesson is None or not reads:
        return ""
    by_run = {found: read for read in reads if (found := run_of(read.config, kind)) is not None}
    presets = {preset for preset, _ in by_run}
    claims = [c for c in lesson.claims if c.preset in presets] or list(lesson.claims)
    measures = [m for m in dict.fromkeys(c.measure for c in claims) if any(_ends(r, m) for r in reads)]
    text = "On screen: " + "; ".join(_line(read, measures) for read in reads)
    settings = _settings(reads)
    text += f" ({settings})." if settings else "."
    raw = sorted({str(r.config.get("encoder")) for r in reads} & set(RAW_STARTS))
    checked_on = (
        f"These runs start from {', '.join(raw)}, a raw BERT: the lesson's claims were checked on "
        f"{MINILM_CLS.name} only, so what they show here is measured, not checked."
        if raw
        else ""
    )
    said = [checked_on, _can_and_cannot(reads), *_verdicts(lesson, by_run)]
    return " ".join([text, *(sentence for sentence in said if sentence)])


def beside(kind: str, shown: Sequence[Shown], name_text: Callable[[str], str] = str) -> Lesson:
    """Experiment ``kind``'s lesson beside the runs ``shown``: its texts without a recorded figure
    (:func:`without_figures`; a point to watch left empty is dropped), the introduction ending with
    :func:`on_screen_text`, so that every number it prints is one of those runs' own."""
    taught = experiments.lessons()[kind]
    intro = " ".join(
        part for part in (without_figures(taught.intro), on_screen_text(kind, shown, name_text)) if part
    )
    watch = tuple(text for text in (without_figures(item) for item in taught.watch) if text)
    measures = {name: without_figures(text) for name, text in taught.measures.items()}
    return replace(taught, intro=intro, watch=watch, measures=measures)
