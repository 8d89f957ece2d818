"""The live projection's share of the server: a running job's newest frame is rebuilt at most a quarter of
the time.

A live projection's refresh (every ``projection_seconds``) reads the newest snapshot, takes its PCA until
UMAP's first frame, and builds its figure: about 30 ms on an idle server, but 0.3-2 s on two cores loaded
by training and other work, where the drawing threads yield (engine.compute.priority). A refresh that takes
longer than its period keeps the page running without a pause, its charts greyed out on the projector
(measured with ``benchmarks/bench_projector_busy.py``: docs/performance.md, "The UMAP frames leave the
server"). So after a build of ``c`` seconds the refreshes of the next ``c / DUTY`` seconds show the frame
they have (the same description: the browser draws nothing new).
"""

from __future__ import annotations

import time
from collections.abc import Callable, MutableMapping
from typing import Any

#: the most of the time that building live projection frames may take
DUTY = 0.25


def kept(
    state: MutableMapping[str, Any], key: str, job_id: str, clock: Callable[[], float] = time.monotonic
) -> dict | None:
    """The description last built for ``job_id``'s live projection under ``key``, while it is still to be
    held; None when a new one is due."""
    held = state.get(f"{key}.projlive.hold")
    if held is None or held["job"] != job_id or clock() >= held["until"]:
        return None
    return held["description"]


def keep(
    state: MutableMapping[str, Any],
    key: str,
    job_id: str,
    built: dict,
    seconds: float,
    clock: Callable[[], float] = time.monotonic,
) -> None:
    """Hold ``built``, which took ``seconds`` to make, for ``seconds / DUTY`` from now."""
    state[f"{key}.projlive.hold"] = {"job": job_id, "until": clock() + seconds / DUTY, "description": built}
