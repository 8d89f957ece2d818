"""The numbers of the lessons' texts, filled from the runs of the claims that back them.

A lesson's text never types a measured number: it names one through a placeholder ``{key.figure}`` (or
``{key.figure:spec}``, a Python format spec), where ``key`` is a :class:`~engine.core.lesson_claims.Claim`'s
``key`` and ``figure`` one of

- the claim's measured figures (:func:`engine.lessons.judging.figures`, means over the seeds): ``start``,
  ``end``, ``than_start``, ``than_end``, ``change``, ``r``, ``rho``, ``share``, …;
- the settings of the claim's run (its ``config.json``): ``steps``, ``lr``, ``batch_size``, …;
- ``reported.NAME``: a figure the paper reports (the claim's ``reported``; a paper's claim);
- ``here``: "goes the paper's way here" or "does not go the paper's way here", as a paper's claim went on
  the lab's runs (compared on the lab's start, not checked: the words of ``lessons check``).

``python -m engine lessons check --record`` writes every checked claim's figures, with the settings, seeds
and date of its runs, to :data:`RESULTS` (committed); :func:`fill_lesson` prints them into the texts and
ends the introduction with where they come from. A placeholder with no recorded figure prints "…".
:func:`stray_digits` finds a digit that no claim fills (``tests/lessons/test_lesson_figures.py`` fails on
one).
"""

from __future__ import annotations

import datetime as _dt
import json
import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import replace
from pathlib import Path
from typing import Any

from engine.core.atomic import write_text_atomic
from engine.core.declaration import Lesson
from engine.core.lesson_claims import Claim
from engine.lessons.judging import AGAINST, ALONG, Verdict

#: the name the app gives a preset's short version (engine.lessons.presets imports it from here)
LECTURE_SUFFIX = " · lecture"

RESULTS = Path(__file__).with_name("results.json")
PLACEHOLDER = re.compile(r"\{([a-z][a-z0-9_]*)\.([a-z_]+(?:\.[A-Za-z0-9_]+)?)(?::([^{}]*))?\}")
#: a preset's ``settings`` mark in the results file: its claims record every field the preset queues besides
#: the recorded knobs (:func:`recorded_settings`; presets recorded before 2026-11-29 lack the mark and record
#: those only). The text is a mark kept in results.json: it names the knobs' old list, SETTINGS.
QUEUED = "the preset's queued fields and SETTINGS"
#: digits a lesson may write that are no measurement (a citation year, a name, a definition); each with why
NOT_MEASURED: Mapping[str, str] = {
    "(2021)": "a citation's year",
    "(2024)": "a citation's year",
    "2021": "a citation's year (Chen & He 2021, Gao, Yao & Chen 2021)",
    "2025": "a citation's year (Balestriero & LeCun 2025)",
    "2024": "a citation's year (Mickus et al. 2024)",
    "Fig. 2": "the paper's figure",
    "Figure 2": "the paper's figure",
    "all-MiniLM-L6-v2": "the encoder's name",
    "issue 36": "the SimCSE authors' GitHub issue, the reference of the same-mask setting",
    "N(0, I)": "SIGReg's target, by definition",
    "(n − 2)/(d − 1)": "IsoScore's bound, by definition",
    "1/√d": "the per-dimension std of isotropic unit vectors, by definition",
    "2 − 2 cos": "the loss's formula",
    "fixed 0.1": "the paper's name of the ablation",
    "dropout 0.1": "the paper's setting",
}


def load(path: Path = RESULTS) -> dict[str, Any]:
    """The recorded figures (``{"claims": {"<preset> / <key>": …}, "presets": {name: …}}``); empty when
    none. Read against the file's schema (:mod:`engine.lessons.results_file`): what is damaged is dropped
    with one warning, never an exception (every page imports the lessons' texts; issue 47)."""
    from engine.lessons.results_file import load_checked

    return load_checked(Path(path))


def recorded_settings(kind: str | None = None) -> tuple[str, ...]:
    """The knobs recorded with a claim's figures (declared ``recorded=True``): experiment ``kind``'s, or (no
    kind, or one not registered) every registered experiment's, each name once, in declaration order."""
    from engine import experiments
    from engine.core.knobs import knobs

    known = experiments.EXPERIMENTS.get(kind) if kind is not None else None
    chosen = [known] if known is not None else list(experiments.EXPERIMENTS.values())
    found = dict.fromkeys(item.name for e in chosen for item in knobs(e.config_class) if item.recorded)
    return tuple(found)


def _settings(folders: Iterable[Path], queued: Iterable[str] = ()) -> dict[str, Any]:
    """The run's recorded knobs (:func:`recorded_settings`) and the fields its preset ``queued``, read from
    its config.json, and the training and evaluation sets it resolved to (``train_set``, ``eval_set``, from
    its summary.json)."""
    for folder in folders:
        try:
            config = json.loads((Path(folder) / "config.json").read_text(encoding="utf-8"))
        except (OSError, ValueError):
            continue
        names = dict.fromkeys(
            [*recorded_settings(config.get("kind") if isinstance(config.get("kind"), str) else None), *queued]
        )
        found = {name: config[name] for name in names if name in config}
        try:
            summary = json.loads((Path(folder) / "summary.json").read_text(encoding="utf-8"))
        except (OSError, ValueError):
            summary = {}
        if isinstance(summary, dict) and isinstance(summary.get("eval_set"), str):
            found["eval_set"] = summary["eval_set"]
        sets = summary.get("train_and_eval") if isinstance(summary, dict) else None
        if isinstance(sets, list) and sets and isinstance(sets[0], str):
            found["train_set"] = sets[0]
        return found
    return {}


def record(
    verdicts: Iterable[Verdict],
    folders: Mapping[tuple[str, str], list[Path]],
    *,
    length: str,
    seeds: int,
    path: Path = RESULTS,
    today: str | None = None,
    queued: Mapping[tuple[str, str], Iterable[str]] | None = None,
) -> Path:
    """Write the figures of every keyed claim judged, with its run's settings (:func:`recorded_settings` and
    the fields ``queued[(preset, run)]`` its preset sets, so that a preset changed since is seen), and each
    preset's length, seeds and date, over those already in ``path`` (the other presets' stay; a recorded
    preset's claims that were not judged now, a claim since removed, are dropped)."""
    queued = queued or {}
    data = load(path)
    date = today or _dt.date.today().isoformat()
    verdicts = list(verdicts)
    short = length == "short"
    judged = {version_name(verdict.claim.preset, short) for verdict in verdicts}
    data["claims"] = {
        name: found
        for name, found in data["claims"].items()
        if name.rpartition(" / ")[0] not in judged  # "<version> / <key>" (a preset's name may hold " / ")
    }
    for verdict in verdicts:
        claim = verdict.claim
        data["presets"][version_name(claim.preset, short)] = {
            "date": date,
            "length": length,
            "seeds": list(range(seeds)),
            "command": "python -m engine lessons check"
            + (" --short" if length == "short" else "")
            + (f" --seeds {seeds}" if seeds > 1 else "")
            + f' --preset "{claim.preset}" --record',
            "settings": QUEUED,
        }
        if not claim.key:
            continue
        data["claims"][entry(claim, short)] = {
            "preset": claim.preset,
            "run": claim.run,
            "than": claim.than,
            "measure": claim.measure,
            "expect": claim.expect,
            "outcome": verdict.outcome,
            "holds": verdict.holds,
            "figures": {name: round(value, 6) for name, value in sorted(verdict.figures.items())},
            "settings": _settings(
                folders.get((claim.preset, claim.run), []), queued.get((claim.preset, claim.run), ())
            ),
        }
    path = Path(path)
    write_text_atomic(path, json.dumps(data, indent=1, sort_keys=True, ensure_ascii=False) + "\n")
    return path


def version_name(preset: str, short: bool = False) -> str:
    """The name a preset's figures are recorded under: the preset's own for its full version, ``<preset> ·
    lecture`` for the short one (:data:`LECTURE_SUFFIX`, the name the app gives it)."""
    return preset + LECTURE_SUFFIX if short else preset


def entry(claim: Claim, short: bool = False) -> str:
    """The claim's name in the results file: its preset's version (:func:`version_name`) and its key (a key is
    unique within its lesson)."""
    return f"{version_name(claim.preset, short)} / {claim.key}"


def recorded_version(claim: Claim, results: Mapping[str, Any], short: bool) -> bool:
    """Which version's figures a lesson shown beside ``short`` (lecture) or full runs prints for ``claim``
    (True: the short one): that version's when recorded, else the other's (its provenance names it)."""
    claims = results.get("claims", {})
    if entry(claim, short) in claims or entry(claim, not short) not in claims:
        return short
    return not short


def _format(value: Any, spec: str | None) -> str:
    """A figure as the lessons print it: three significant digits (a whole number as is) unless ``spec``
    says otherwise, and a minus sign, not a hyphen."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        return str(value)
    if spec:
        text = format(value, spec)
    elif float(value).is_integer():
        text = str(int(value))
    else:
        text = f"{value:.3g}"
    return "−" + text[1:] if text.startswith("-") else text


def lookup(
    claims: Mapping[str, Claim], results: Mapping[str, Any], *, short: bool = False
) -> Callable[[str, str], Any]:
    """``(key, figure) -> value`` (None when not recorded) over ``claims`` (by key) and the results: the
    short version's figures where ``short`` and recorded (:func:`recorded_version`), else the full one's."""

    def find(key: str, figure: str) -> Any:
        claim = claims.get(key)
        if claim is None:
            raise KeyError(f"no claim has key {key!r}")
        if figure.startswith("reported."):
            return claim.reported.get(figure.partition(".")[2])
        found = results.get("claims", {}).get(entry(claim, recorded_version(claim, results, short)), {})
        if figure == "here":  # a paper's claim: whether it held on the lab's runs
            held = found.get("holds")
            return None if held is None else (ALONG if held else AGAINST)  # not checked: never "holds"
        if figure in found.get("figures", {}):
            return found["figures"][figure]
        return found.get("settings", {}).get(figure)

    return find


def fill(text: str, find: Callable[[str, str], Any]) -> str:
    """``text`` with each placeholder replaced by its figure ("…" when none is recorded)."""

    def one(match: re.Match[str]) -> str:
        value = find(match.group(1), match.group(2))
        return "…" if value is None else _format(value, match.group(3))

    return PLACEHOLDER.sub(one, text)


def placeholders(text: str) -> list[tuple[str, str]]:
    """The (key, figure) pairs a text names."""
    return [(m.group(1), m.group(2)) for m in PLACEHOLDER.finditer(text)]


def texts(lesson: Lesson) -> list[str]:
    """Every text of a lesson: its introduction, what to watch, and what to watch in each measure."""
    return [lesson.intro, *lesson.watch, *lesson.measures.values()]


def stray_digits(text: str) -> list[str]:
    """The words of ``text`` holding a digit that no placeholder fills and :data:`NOT_MEASURED` allows not."""
    bare = PLACEHOLDER.sub("", text)
    for allowed in sorted(NOT_MEASURED, key=len, reverse=True):
        bare = bare.replace(allowed, "")
    return [word for word in bare.split() if any(ch.isdigit() for ch in word)]


def provenance(lesson: Lesson, results: Mapping[str, Any], *, short: bool = False) -> str:
    """Where the lesson's figures come from: each preset version whose figures it prints, with its length,
    steps, batch, training and evaluation sets, seeds and date."""
    keys = {key for text in texts(lesson) for key, figure in placeholders(text) if "." not in figure}
    claims = {claim.key: claim for claim in lesson.claims}
    shown = [claims[key] for key in sorted(keys) if key in claims]
    names = {version_name(c.preset, recorded_version(c, results, short)): c for c in shown}
    parts = []
    for name in sorted(names, key=lambda n: [c.preset for c in lesson.claims].index(names[n].preset)):
        meta = results.get("presets", {}).get(name)
        if meta is None:
            parts.append(f"“{name}” not measured yet")
            continue
        seeds = meta["seeds"]
        spread = f"seeds {seeds[0]}–{seeds[-1]}, means" if len(seeds) > 1 else f"seed {seeds[0]}"
        setting = _runs_in_words(names[name], results, meta["length"] == "short")
        parts.append(
            f"“{name}”, {meta['length']} preset{setting}, {spread}, {meta['date']} (`{meta['command']}`)"
        )
    return f"Figures measured by the lessons check: {'; '.join(parts)}." if parts else ""


def _runs_in_words(claim: Claim, results: Mapping[str, Any], short: bool) -> str:
    """The recorded run's steps, batch and data, in words (``, 10 steps of batch 16 on demo, evaluated on
    demo-pairs``); empty when none were recorded."""
    found = results.get("claims", {}).get(entry(claim, short), {}).get("settings", {})
    words = ""
    if "steps" in found:
        words += f", {found['steps']} steps" + (
            f" of batch {found['batch_size']}" if "batch_size" in found else ""
        )
    data = found.get("train_set") or found.get("train") or found.get("data")
    if data:
        words += f" on {data}"
    if "eval_set" in found:
        words += f", evaluated on {found['eval_set']}"
    elif "eval" in found:  # recorded before the evaluation set was: the check's data folder held STS-B
        limit = found.get("eval_limit")
        words += f", evaluated on {found['eval'] or 'STS-B dev'}" + (f" ({limit} pairs)" if limit else "")
    return words


def fill_lesson(lesson: Lesson, results: Mapping[str, Any] | None = None, *, short: bool = False) -> Lesson:
    """The lesson with every placeholder filled from ``results`` (default: :data:`RESULTS`), with the short
    (lecture) version's figures where ``short`` and recorded, and its introduction ending with the figures'
    :func:`provenance`."""
    results = load() if results is None else results
    find = lookup({claim.key: claim for claim in lesson.claims if claim.key}, results, short=short)
    source = provenance(lesson, results, short=short)
    intro = fill(lesson.intro, find) + (f" {source}" if source else "")
    return replace(
        lesson,
        intro=intro,
        watch=tuple(fill(text, find) for text in lesson.watch),
        measures={name: fill(text, find) for name, text in lesson.measures.items()},
    )
