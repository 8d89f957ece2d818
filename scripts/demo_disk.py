"""The disk a demo click takes: the "demo" preset queued through the job registry as the Overview's button
queues it (a child process, the app's UMAP film back-filled, the finished run compacted), then ``du -sh`` of
its run folder.

    EMBEDLAB_CACHE_DIR=/tmp/demo-disk python -m scripts.demo_disk

Writes into the cache folder of the setting ``cache_dir`` (set it to a scratch folder, as above).
"""

from __future__ import annotations

import subprocess
import time

from engine.core import paths
from engine.jobs import JobRegistry
from engine.lessons.presets import demo

#: the projection worker compacts a finished run at its next look for work (it looks every 0.5 s)
SETTLE_SECONDS = 3.0


def main() -> None:
    reg = JobRegistry(paths.runs_dir(), isolation="process", warm=False)
    try:
        preset = demo()
        ((_, config),) = preset.configs()
        job = reg.submit(preset.kind, config, name=preset.name)
        if not reg.wait_idle(900, frames=True):
            raise SystemExit("the demo run and its film did not finish within 15 minutes")
        time.sleep(SETTLE_SECONDS)
        print(f"{job.name}: {job.state}, {len(job.frames())} frames, snapshots kept:")
        print(" ".join(path.name for path in sorted((job.run_dir / "snapshots").glob("*.npy"))))
        print(subprocess.run(["du", "-sh", str(job.run_dir)], capture_output=True, text=True).stdout.strip())
    finally:
        reg.shutdown()


if __name__ == "__main__":
    main()
