"""A preset's recorded runs: the full-length runs that ``python -m engine lessons check --seeds N`` wrote and
the repository ships (``docs/run-folders``), read as one group per run of the preset (its seeds), to be
played for a class without training (issue 58, item 1). Nothing is written: the folders are only read.

:class:`RecordedGroup` is *the runs drawn on the page* while it is shown: ``groups`` maps each group's name
(the preset's run name) to its members' run folders, ``frames`` to their metrics, ``summaries`` to their
``summary.json``; ``recorded`` (the dates the runs ran, from their ``status.json``), ``command``, ``seeds``,
``start`` (the encoder they started from, from their ``config.json``) and ``steps`` say what they are. A
page's text reads its figures from this object, never from elsewhere.
"""

from __future__ import annotations

import datetime
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pandas as pd

from engine import runlog
from engine.core import paths
from engine.core.declaration import Preset, Recorded
from engine.core.errors import DataError, one_line
from engine.runlog.files import read_json

#: where the repository ships run folders (the layout under it is the cache's: ``cache/...``)
SHIPPED = Path(__file__).resolve().parents[2] / "docs" / "run-folders"


@dataclass(frozen=True)
class RecordedGroup:
    """The recorded runs of one preset, by group (see the module's docstring)."""

    preset: str
    groups: dict[str, list[Path]]
    frames: dict[str, list[pd.DataFrame]]
    summaries: dict[str, list[dict[str, Any]]]
    recorded: tuple[str, str]
    command: str
    seeds: int
    start: str
    steps: int
    kinds: dict[str, str] = field(default_factory=dict)

    @property
    def folders(self) -> list[Path]:
        """Every run folder drawn, group by group."""
        return [folder for members in self.groups.values() for folder in members]

    def dates(self) -> str:
        """When the runs ran: ``2026-12-02`` or ``2026-12-01 – 2026-12-02``."""
        first, last = self.recorded
        return first if first == last else f"{first} – {last}"

    def caption(self) -> str:
        """What the charts show, in one line: recorded, when, with which command, seeds and start."""
        seeds = f"{self.seeds} seeds" if self.seeds > 1 else "1 seed"
        return (
            f"Recorded runs, not trained now: “{self.preset}”, {len(self.groups)} groups × {seeds}, "
            f"full length ({self.steps} steps), from {self.start}; recorded {self.dates()} with "
            f"`{self.command}`. Each line is a group's mean over its seeds, the band ± 1 sd."
        )

    def headline(self) -> str:
        """The caption in one line, for a projector's screen above the charts: recorded, what, when."""
        seeds = f"{self.seeds} seeds" if self.seeds > 1 else "1 seed"
        return (
            f"Recorded {self.dates()}, not trained now: “{self.preset}”, {len(self.groups)} groups, "
            f"mean ± 1 sd of {seeds}."
        )


def member_folders(preset: Preset, recorded: Recorded, root: Path = SHIPPED) -> dict[str, list[Path]]:
    """Each run of ``preset`` → its seeds' folders, ``<folder>/<preset>/<run>[-seed-<s>]`` under ``root``
    (the layout of ``lessons check``, :func:`engine.lessons.check`); a run none of whose folders exists is
    left out."""
    base = root / recorded.folder / paths.safe_name(preset.name)
    found: dict[str, list[Path]] = {}
    for run in preset.runs:
        labels = [run if seed == 0 else f"{run}-seed-{seed}" for seed in range(recorded.seeds)]
        members = [base / paths.safe_name(label) for label in labels]
        members = [member for member in members if (member / runlog.METRICS).is_file()]
        if members:
            found[run] = members
    return found


def read_recorded(preset: Preset, root: Path = SHIPPED) -> RecordedGroup:
    """The recorded runs of ``preset`` (it declares ``recorded``), read from ``root``; a
    :class:`~engine.core.errors.DataError` (one line) when it declares none, none is shipped, or a folder
    cannot be read."""
    recorded = preset.recorded
    if recorded is None:
        raise DataError(f"the preset “{preset.name}” has no recorded runs")
    groups = member_folders(preset, recorded, root)
    if not groups:
        raise DataError(f"no recorded runs of “{preset.name}” under {root / recorded.folder}")
    frames = {name: [runlog.read_metrics(member) for member in members] for name, members in groups.items()}
    summaries = {
        name: [_json(member / "summary.json") for member in members] for name, members in groups.items()
    }
    statuses = [_json(member / "status.json") for members in groups.values() for member in members]
    configs = [_json(member / "config.json") for members in groups.values() for member in members]
    return RecordedGroup(
        preset=preset.name,
        groups=groups,
        frames=frames,
        summaries=summaries,
        recorded=_dates(statuses),
        command=recorded.command,
        seeds=max(len(members) for members in groups.values()),
        start=_start(configs),
        steps=max([_count(config.get("steps")) for config in configs] + [_last_step(frames)]),
        kinds={name: preset.kind_of(name) for name in groups},
    )


#: the latest time a status may say (unix seconds, year 2100): a larger one is damage, not a date
LATEST = 4.1e9


def _json(path: Path) -> dict[str, Any]:
    """A run's JSON file as a dict ({} when it is missing); DataError (one line) when it is not one."""
    try:
        found = read_json(path) if path.is_file() else {}
    except (OSError, ValueError) as err:
        raise DataError(f"{path}: cannot be read ({one_line(err)})") from None
    if not isinstance(found, dict):
        raise DataError(f"{path}: not a JSON object")
    return found


def _count(value: Any) -> int:
    """A whole number of steps, 0 for anything else."""
    return value if isinstance(value, int) and not isinstance(value, bool) and value >= 0 else 0


def _last_step(frames: dict[str, list[pd.DataFrame]]) -> int:
    """The last step any run logged (0 without one)."""
    found = [
        pd.to_numeric(frame["step"], errors="coerce").max()
        for runs in frames.values()
        for frame in runs
        if "step" in frame
    ]
    found = [step for step in found if pd.notna(step) and 0 <= step < 2**31]
    return int(max(found)) if found else 0


def _dates(statuses: list[dict[str, Any]]) -> tuple[str, str]:
    """The first start and the last end of the runs, as UTC dates ("?" when no status says)."""
    times = [status.get(key) for status in statuses for key in ("started", "ended")]
    times = [t for t in times if isinstance(t, int | float) and not isinstance(t, bool) and 0 < t < LATEST]
    if not times:
        return ("?", "?")
    day = lambda stamp: datetime.datetime.fromtimestamp(stamp, datetime.UTC).date().isoformat()  # noqa: E731
    return (day(min(times)), day(max(times)))


def _start(configs: list[dict[str, Any]]) -> str:
    """The encoders the runs started from (``minilm-cls``; the bundled one where none is named)."""
    names = {
        value if isinstance(value := config.get("encoder"), str) and value else None for config in configs
    }
    return " / ".join(sorted(name or "all-MiniLM-L6-v2 (bundled)" for name in names))
