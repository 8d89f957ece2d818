"""A command's progress bar on stderr (tqdm), fed by the runner's events."""

from __future__ import annotations

import sys

from engine.runlog.events import Event, Progress, Row


class ProgressBar:
    """A stderr progress bar over steps (tqdm), fed by the runner's events."""

    def __init__(self, total: int | None, enabled: bool = True):
        from tqdm import tqdm

        self.bar = tqdm(
            total=total,
            file=sys.stderr,
            unit="step",
            disable=not enabled,
            mininterval=0.5,
            dynamic_ncols=True,
        )
        self.last_step = 0

    def __call__(self, event: Event) -> None:
        if isinstance(event, Progress):  # set-up: in place on a terminal, one plain line each otherwise
            if self.bar.disable or sys.stderr.isatty():
                self.bar.set_description_str(event.phase)
            else:
                print(event.phase, file=sys.stderr, flush=True)
        elif isinstance(event, Row):
            self.bar.update(max(0, event.step - self.last_step))
            self.last_step = event.step
            shown = {
                k: event.get(k)
                for k in ("loss", "isoscore", "silhouette", "sts_spearman")
                if event.get(k) is not None
            }
            self.bar.set_postfix({k: f"{v:.4f}" for k, v in shown.items()}, refresh=False)

    def close(self) -> None:
        self.bar.close()
