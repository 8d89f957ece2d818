"""``--threads N``: torch's intra-op threads, bounded by this machine's CPUs."""

from __future__ import annotations

import os

from engine.core.errors import ConfigError

#: the most torch threads per CPU ``--threads`` may ask for: more only oversubscribes, and torch's pool of
#: 100000 threads died with MemoryError (a segfault, exit 139, under the app; issue 47)
THREADS_PER_CPU = 4


def set_threads(threads: int | None) -> None:
    """``--threads N``: torch's intra-op threads (e.g. one core left to a web UI on a small machine), at
    most :data:`THREADS_PER_CPU` per CPU of this machine."""
    if threads is None:
        return
    most = THREADS_PER_CPU * (os.cpu_count() or 1)
    if not 1 <= threads <= most:
        raise ConfigError(
            f"--threads must be between 1 and {most} ({THREADS_PER_CPU} per CPU here), got {threads}"
        )
    import torch

    torch.set_num_threads(threads)
