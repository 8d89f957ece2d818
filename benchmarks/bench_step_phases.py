"""The phases of a training step, for ``bench_step.py --split`` / ``--profile``: wall time per phase (data
and views, tokenisation, host-to-device, the transformer's forward, the rest of the step, backward, the
optimiser, EMA, metrics, writing rows, events), each taken out of the phase it is nested in, and
torch.profiler's table of operations."""

from __future__ import annotations

import functools
import statistics
import time
from collections.abc import Callable
from typing import Any

import torch


class Phases:
    """Exclusive wall time per named phase (a phase nested in another is taken out of it), for the one
    thread running at a time; :meth:`patch` times a function or method wherever it is called from."""

    def __init__(self) -> None:
        self.totals: dict[str, float] = {}
        self.stack: list[float] = []

    def wrap(self, name: str, fn: Callable) -> Callable:
        @functools.wraps(fn)
        def timed(*args: Any, **kwargs: Any) -> Any:
            start = time.perf_counter()
            self.stack.append(0.0)
            try:
                return fn(*args, **kwargs)
            finally:
                took = time.perf_counter() - start
                self.totals[name] = self.totals.get(name, 0.0) + took - self.stack.pop()
                if self.stack:
                    self.stack[-1] += took

        return timed

    def patch(self, name: str, owner: Any, *attributes: str) -> None:
        for attribute in attributes:
            setattr(owner, attribute, self.wrap(name, getattr(owner, attribute)))

    def take(self) -> dict[str, float]:
        out, self.totals = self.totals, {}
        return out


PHASES = (
    "data and views",
    "tokenisation",
    "host-to-device",
    "forward (transformer)",
    "step: rest (buckets, pooling, MLP, loss, autocast)",
    "backward",
    "optimiser",
    "EMA",
    "metrics",
    "writing rows",
    "events",
)


def patch_phases(phases: Phases) -> None:
    """Time the lab's and the plain loop's phases (this process only; before any trainer is built)."""
    import transformers
    from transformers.tokenization_utils_base import BatchEncoding, PreTrainedTokenizerBase

    import engine.jepa.step as jepa_step
    import engine.simcse.step as simcse_step
    from engine.jepa.evaluation import CollapseEvaluator
    from engine.runlog import RunWriter
    from engine.training.evaluation import Evaluator

    phases.patch("data and views", simcse_step, "view_groups")
    phases.patch("data and views", jepa_step, "context_view")
    phases.patch("tokenisation", PreTrainedTokenizerBase, "__call__")
    phases.patch("host-to-device", BatchEncoding, "to")
    phases.patch("forward (transformer)", transformers.BertModel, "forward")
    phases.patch(PHASES[4], simcse_step.Trainer, "step")
    phases.patch(PHASES[4], jepa_step.Trainer, "step")
    phases.patch("backward", torch.Tensor, "backward")
    phases.patch("optimiser", torch.optim.AdamW, "step")
    phases.patch("optimiser", torch.optim.Optimizer, "zero_grad")
    phases.patch("optimiser", torch.optim.lr_scheduler.LambdaLR, "step")
    phases.patch("optimiser", torch.amp.GradScaler, "step", "update")
    phases.patch("EMA", jepa_step, "ema_update")
    phases.patch("metrics", Evaluator, "__call__")
    phases.patch("metrics", CollapseEvaluator, "__call__")
    phases.patch("writing rows", RunWriter, "append", "append_spectrum", "save_snapshot")


def print_split(per_round: dict[str, list[dict[str, float]]], totals: dict[str, list[float]]) -> None:
    """Median ms per step of each phase (the rest: the loop, the runner, the hand-over between threads)."""
    names = list(per_round)
    widths = [max(14, len(name) + 2) for name in names]
    print(f"{'ms per step (median over rounds)':<52}" + "".join(f"{n:>{w}}" for n, w in zip(names, widths)))
    for phase in (*PHASES, "rest (loop, runner)", "total"):
        cells = []
        for name, width in zip(names, widths, strict=True):
            if phase == "total":
                values = totals[name]
            elif phase.startswith("rest"):
                values = [t - sum(r.values()) for t, r in zip(totals[name], per_round[name], strict=True)]
            else:
                values = [r.get(phase, 0.0) for r in per_round[name]]
            cells.append(f"{statistics.median(values) * 1000:{width}.1f}")
        print(f"{phase:<52}" + "".join(cells))


def profile(run: Callable[[], Any], steps: int, rows: int = 15) -> None:
    """torch.profiler over ``steps`` calls of ``run``: the ops by self CPU time."""
    from torch.profiler import ProfilerActivity
    from torch.profiler import profile as torch_profile

    with torch_profile(activities=[ProfilerActivity.CPU]) as prof:
        for _ in range(steps):
            run()
    print(prof.key_averages().table(sort_by="self_cpu_time_total", row_limit=rows, max_name_column_width=48))
