"""A run's settings as a plain dict: the one conversion of a config (an experiment's config dataclass, or
the mapping read back from a run folder's ``config.json``) that the runner, the jobs, run names and lessons
use."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import asdict, is_dataclass
from typing import Any


def config_dict(config: Any) -> dict[str, Any]:
    """``config``'s fields as a new dict: ``dataclasses.asdict`` of a config dataclass instance, a copy of a
    mapping, and ``{}`` for anything else (no settings known, e.g. ``None``)."""
    if is_dataclass(config) and not isinstance(config, type):
        return asdict(config)
    return dict(config) if isinstance(config, Mapping) else {}
