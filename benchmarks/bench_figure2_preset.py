"""The app's "SimCSE Figure 2" preset through the job registry, as the app runs it, timed end to end.

    python benchmarks/bench_figure2_preset.py [--data-dir ../shared/data] [--steps 100] [--workers N]

The preset's four runs (:func:`engine.lessons.presets.presets`, laid over the sidebar's SimCSE settings: wiki
sentences, STS-B dev, batch 64, ``--steps``) are queued as one group on a :class:`engine.jobs.JobRegistry`
with process isolation and a warm spare, as the app's preset button does (``ui.runs.submit_runs``); no
browser and no page draw here, so this is the lab's training side alone. Printed: the wall time from the
click to the last run's end (goal on this project's 2-core machine: <= 8 min), each run's state, training
and evaluation seconds and final STS-B dev Spearman. ``--workers`` sets how many of the group's runs go side
by side (the setting ``figure2_workers``; 1: one after another, the app before groups).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
GOAL_SECONDS = 8 * 60


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data-dir", default=str(REPO.parent / "shared" / "data"))
    parser.add_argument("--steps", type=int, default=100)
    parser.add_argument(
        "--workers", type=int, help="runs side by side (default: the setting figure2_workers)"
    )
    args = parser.parse_args()
    if not (Path(args.data_dir) / "stsb").is_dir():
        print(f"{args.data_dir} holds no stsb/: the preset would evaluate on the demo pairs", file=sys.stderr)
        return 2
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ["EMBEDLAB_CACHE_DIR"] = tempfile.mkdtemp(prefix="bench-figure2-preset-")
    if args.workers is not None:
        os.environ["EMBEDLAB_FIGURE2_WORKERS"] = str(args.workers)
    from engine import jobs
    from engine.lessons.presets import presets

    sidebar = {
        "mode": "unsup",
        "train": "wiki1m",
        "data_dir": args.data_dir,
        "steps": args.steps,
        "batch_size": 64,
    }
    runs = presets(sidebar)["SimCSE Figure 2"].configs(sidebar)
    registry = jobs.JobRegistry(project=False)
    try:
        registry.wait_spare_warm(60)  # a lecturer opens the page, then clicks
        started = time.perf_counter()
        queued = [registry.submit("simcse", config, name=name, group="preset") for name, config in runs]
        registry.wait_idle(timeout=3600)
        wall = time.perf_counter() - started
    finally:
        registry.shutdown(timeout=30)
    print(f"group width {registry.group_width()}, {len(queued)} runs of {args.steps} steps")
    for job in queued:
        summary = job.summary or json.loads((job.run_dir / "summary.json").read_text())
        print(
            f"  {job.name:16s} {job.state:9s} training {summary.get('train_seconds', 0):6.1f} s, evaluation "
            f"{summary.get('eval_seconds', 0):5.1f} s, "
            f"STS-B dev {100 * summary.get('sts_spearman_end', 0):.2f}"
        )
    ok = wall <= GOAL_SECONDS and all(job.state == "finished" for job in queued)
    print(
        f"the preset, click to last run's end: {wall:.0f} s ({wall / 60:.1f} min)   "
        f"goal <= {GOAL_SECONDS / 60:.0f} min   "
        f"{'OK' if ok else 'MISSED'}"
    )
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
