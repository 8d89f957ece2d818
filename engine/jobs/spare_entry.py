"""What runs inside a warm spare child (:class:`engine.jobs.spare.SparePool`): import, warm up, then run the
job that arrives on stdin exactly as ``python -m engine`` would (the child's program,
:func:`engine.cli.serve_spare`, hands this part the command line's ``main``: the CLI is above the jobs).

Kept apart from the pool: this code runs in the child, the pool in the server.
"""

from __future__ import annotations

import contextlib
import importlib
import json
import logging
import os
import select
import sys
from collections.abc import Callable

from engine.compute.allocator import keep_freed_memory
from engine.core import settings
from engine.core.errors import one_line
from engine.experiments import EXPERIMENTS

log = logging.getLogger(__name__)

#: what any run needs besides its experiment's code: the encoders' cache, the measures (scipy), the data
RUN_MODULES = ("engine.encoders", "engine.metrics", "engine.data")
#: what a run that loads an encoder needs (not the demo: its embeddings are known without loading,
#: :mod:`engine.encoders.bundled_record`)
ENCODER_MODULES = ("transformers.models.bert.modeling_bert", "transformers.models.bert.tokenization_bert")


def _import_all(modules: tuple[str, ...]) -> None:
    for module in modules:
        with contextlib.suppress(Exception):
            importlib.import_module(module)


def preload_run_code() -> None:
    """Import every registered experiment's run code (torch, the training loops) and :data:`RUN_MODULES`."""
    for experiment in EXPERIMENTS.values():
        if experiment.load_code is not None:
            with contextlib.suppress(Exception):
                experiment.load_code()
    _import_all(RUN_MODULES)


def warm_optimiser() -> None:
    """Build a throwaway ``torch.optim.Adam``: its first construction imports ``torch._dynamo`` (about 1 s
    on 2 cores, 2026-12-07), which a run's first update would otherwise wait on."""
    import torch

    torch.optim.Adam([torch.zeros(1, requires_grad=True)])


def preload_encoder_code() -> None:
    """Import transformers' BERT (:data:`ENCODER_MODULES`)."""
    _import_all(ENCODER_MODULES)


def warm_encoder_if_on() -> None:
    """:func:`warm_default_encoder` unless the setting ``warm_encoder`` (``EMBEDLAB_WARM_ENCODER=0``) is off;
    a failure is a warning (a colder start, no more)."""
    try:
        if settings.get("warm_encoder"):
            warm_default_encoder()
    except Exception as err:  # noqa: BLE001 - a failed warm-up only means a colder start
        log.warning("warm-up of the bundled encoder failed: %s", one_line(err))


#: a spare's warm-up in the order a first click needs it: the run code (all the one-click demo needs on a
#: fresh cache), the optimiser's first construction, then transformers' BERT, then the bundled encoder
#: loaded and handed over
WARM_UP_STAGES: tuple[Callable[[], None], ...] = (
    preload_run_code,
    warm_optimiser,
    preload_encoder_code,
    warm_encoder_if_on,
)


def job_waiting() -> bool:
    """Whether a job (or the end of stdin) is waiting on stdin, without reading it."""
    try:
        return bool(select.select([sys.stdin], [], [], 0)[0])
    except (OSError, ValueError):
        return False


def warm_up(waiting: Callable[[], bool] = job_waiting) -> list[str]:
    """Run :data:`WARM_UP_STAGES` in order, the first always, then each only while no job is ``waiting``: a
    click that came early waits for the stage under way, not the whole warm-up (its run imports and loads
    what it needs itself). The names of the stages done."""
    done: list[str] = []
    for stage in WARM_UP_STAGES:
        if done and waiting():
            break
        stage()
        done.append(stage.__name__)
    return done


def warm_default_encoder() -> None:
    """Load the bundled encoder and let each experiment encode ahead what its first run needs (its
    ``warm_up``: the probe's demo corpus, into the embedding cache, once per cache folder), then hand the
    loaded encoder to this process's next ``load_encoder()`` of the same settings: the overview's one-click
    demo (and any run on the bundled encoder) then skips loading and encoding.
    The setting ``warm_encoder`` (``EMBEDLAB_WARM_ENCODER=0``) turns it off (spares then only import)."""
    from engine.encoders import encode_cached, known, load_encoder
    from engine.encoders.loading import hand_over

    encoder = load_encoder()
    for experiment in EXPERIMENTS.values():
        if experiment.warm_up:
            experiment.warm_up(lambda texts: encode_cached(encoder, texts))
    known.remember(known.identity(None, None), encoder)  # later runs find these embeddings unloaded
    hand_over(encoder)


def serve_one(run: Callable[[list[str]], int], ready_fd: int | None = None) -> None:
    """Entry of a spare child: warm up (:func:`warm_up`, until a job arrives), say so on ``ready_fd`` (one
    byte, then closed), read its job (``{"argv": CLI argv, "env": environment}``, one JSON line) from stdin,
    run it with ``run`` (the CLI's ``main``: as ``python -m engine *argv`` would), exit."""
    keep_freed_memory()  # before the warm-up: its frees must not set the run's allocator policy
    warm_up()
    if ready_fd is not None:
        with contextlib.suppress(OSError):
            os.write(ready_fd, b"w")
            os.close(ready_fd)
    line = sys.stdin.readline()
    if not line.strip():  # the registry discarded the spare (or is gone)
        return
    job = json.loads(line)
    os.environ.update(job.get("env") or {})
    sys.exit(run(job["argv"]))
