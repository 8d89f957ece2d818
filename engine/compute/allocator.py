"""The memory allocator's policy of a training process: freed memory is kept for the next step.

A training step allocates and frees the same large buffers every time (the probe's Gram blocks, a batch's
activations). glibc's malloc serves a request above its mmap threshold with fresh pages from the kernel and
returns them when freed, and gives the top of its heap back above its trim threshold; both thresholds move
with what the process freed before ("dynamic mmap threshold", mallopt(3)). So the same loop ran at a speed
that depended on the process's history: in the app's warm spare, which loads the bundled encoder before its
run, the probe trained at 93 % (90–101 %) of the same run from the command line, against 102 % (91–106 %) in
a child started cold (5 interleaved rounds, 2026-11-26, docs/performance.md). With both thresholds set (256
MiB and 512 MiB), buffers of a step are reused, the spare trains at 99 % (96–104 %) of the command line, and
the command line itself is as fast as before. Every training process has the same policy: the app starts its
children with glibc's variables (``settings.child_environment``), the CLI sets it at start
(:func:`keep_freed_memory`, in a process already running); the setting ``malloc_tuning``
(``EMBEDLAB_MALLOC_TUNING=0``) turns it off. Elsewhere than glibc (macOS, musl) nothing is changed.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import platform

from engine.core import settings

M_TRIM_THRESHOLD = -1  # mallopt(3) parameters (glibc's malloc.h)
M_MMAP_THRESHOLD = -3
#: requests below this come from the heap (glibc's own dynamic threshold stops at 32 MiB), and free memory at
#: the heap's top is kept up to that (glibc's rule: twice the mmap threshold); the children of the app get
#: the same values as variables at their start (settings.MALLOC_VARIABLES)
MMAP_THRESHOLD = int(settings.MALLOC_VARIABLES["MALLOC_MMAP_THRESHOLD_"])
TRIM_THRESHOLD = int(settings.MALLOC_VARIABLES["MALLOC_TRIM_THRESHOLD_"])


def glibc() -> ctypes.CDLL | None:
    """The C library when it is glibc (the only one whose mallopt takes these parameters), else None."""
    if platform.system() != "Linux" or platform.libc_ver()[0] != "glibc":
        return None
    name = ctypes.util.find_library("c")
    return ctypes.CDLL(name) if name else None


def keep_freed_memory() -> bool:
    """Set the mmap and trim thresholds of this process's malloc (module doc); True when they were set."""
    if not settings.get("malloc_tuning"):
        return False
    libc = glibc()
    if libc is None:
        return False
    return bool(libc.mallopt(M_MMAP_THRESHOLD, MMAP_THRESHOLD)) and bool(
        libc.mallopt(M_TRIM_THRESHOLD, TRIM_THRESHOLD)
    )
