"""The lecture versions of the presets (``<name> · lecture``) through the job registry, as the app's preset
button queues them, timed from the click to the last run's end.

    python benchmarks/bench_lecture_presets.py            # every preset that declares a lecture version
    python benchmarks/bench_lecture_presets.py --preset "Does JEPA collapse?" --record

The lecture version is the preset's short version (:attr:`engine.core.declaration.Preset.short`: the demo
corpus, a few small steps), the one ``python -m engine lessons check --short`` judges, so its lesson's claims
are checked there. Each preset's runs are queued as the app does (``ui.controls.preset_buttons``: one group a
kind, process isolation, a warm spare waited for first: a lecturer opens the page, then clicks). Printed:
each run's state and training seconds, and the wall time against the goal (<= 90 s on this project's
2-core CPU). ``--record`` writes the times to ``engine/lessons/lecture_times.json``, which the presets' help
reads.
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import platform
import shlex
import sys
import tempfile
import time
import uuid
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
GOAL_SECONDS = 90.0


def time_preset(name: str) -> tuple[float, list]:
    """Queue ``name``'s lecture version on a fresh job registry and wait for its end: (seconds, jobs)."""
    from engine import jobs
    from engine.lessons.numbers import LECTURE_SUFFIX
    from engine.lessons.presets import presets, queue

    found = presets()
    queued = queue(found[name + LECTURE_SUFFIX])
    registry = jobs.JobRegistry(project=False)
    try:
        registry.wait_spare_warm(60)
        started = time.perf_counter()
        made = []
        for kind in dict.fromkeys(run.kind for run in queued):
            mine = [run for run in queued if run.kind == kind]
            group = uuid.uuid4().hex if len(mine) > 1 else None
            made += [registry.submit(kind, run.fields, name=run.name, group=group) for run in mine]
        registry.wait_idle(timeout=1800)
        return time.perf_counter() - started, made
    finally:
        registry.shutdown(timeout=30)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--preset", action="append", help="a preset's name (repeat; default: every lecture one)"
    )
    parser.add_argument(
        "--record", action="store_true", help="write the times to engine/lessons/lecture_times.json"
    )
    args = parser.parse_args()
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ["EMBEDLAB_CACHE_DIR"] = tempfile.mkdtemp(prefix="bench-lecture-presets-")
    from engine.lessons.presets import LECTURE_TIMES, lecture_times, presets

    names = args.preset or [preset.name for preset in presets().values() if preset.lecture]
    times = lecture_times()
    missed = False
    for name in names:
        wall, made = time_preset(name)
        for job in made:
            summary = job.summary or {}
            print(f"  {job.name:60s} {job.state:9s} training {summary.get('train_seconds', 0):6.1f} s")
        ok = wall <= GOAL_SECONDS and all(job.state == "finished" for job in made)
        missed |= not ok
        print(
            f"{name} · lecture: {wall:.1f} s, click to last run's end   goal <= {GOAL_SECONDS:.0f} s   "
            f"{'OK' if ok else 'MISSED'}"
        )
        times[name] = {
            "seconds": round(wall, 1),
            "date": datetime.date.today().isoformat(),
            "machine": f"{os.cpu_count()}-core {platform.machine()} CPU, load {os.getloadavg()[0]:.1f}",
            "command": "python benchmarks/bench_lecture_presets.py " + shlex.join(sys.argv[1:]),
        }
    if args.record:
        LECTURE_TIMES.write_text(json.dumps(times, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
        print(f"recorded in {LECTURE_TIMES.relative_to(REPO)}")
    return 1 if missed else 0


if __name__ == "__main__":
    sys.exit(main())
