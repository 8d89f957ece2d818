"""The lab's settings, declared once: name, environment variable, type, default, meaning and limits.

:mod:`engine.core.settings` reads and checks them (the only module that reads the environment); this one
only lists them, so a reader finds every tunable number of the lab in one place.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

ENV_PREFIX = "EMBEDLAB_"  # every variable of the lab starts so


@dataclass(frozen=True)
class Setting:
    """One setting: ``env`` (None: not from outside), ``kind`` (int, float, bool, str, path), its default."""

    name: str
    env: str | None
    kind: str
    default: Any
    meaning: str
    low: float | None = None
    high: float | None = None
    choices: tuple[str, ...] = ()


def _s(name: str, kind: str, default: Any, meaning: str, *, env: bool = True, **limits: Any) -> Setting:
    return Setting(name, f"{ENV_PREFIX}{name.upper()}" if env else None, kind, default, meaning, **limits)


ALL: tuple[Setting, ...] = (
    # ---------------------------------------------------------------- folders
    _s(
        "cache_dir",
        "path",
        "cache",
        "the lab's cache (runs, encoders, embeddings, uploads); relative to the repo",
    ),
    _s(
        "data_dir",
        "path",
        None,
        "folder of the real data sets in their original formats (CLI: --data-dir wins)",
    ),
    _s(
        "app_data_dir",
        "path",
        "../shared/data",
        "the app's data folder when EMBEDLAB_DATA_DIR is unset, relative to the repo; 'none' turns it off",
    ),
    # ---------------------------------------------------------------- user files
    _s("max_rows", "int", 200_000, "row cap of a user data file", low=1),
    _s("max_file_mb", "float", 512.0, "byte cap of a user data file, in MB", low=0.001),
    _s("max_columns", "int", 1000, "column cap of a user data file (checked on its header first)", low=1),
    # ---------------------------------------------------------------- runs in the app
    _s(
        "job_isolation",
        "str",
        "process",
        "where the app runs a job: its own child process, or a worker thread",
        choices=("process", "thread"),
    ),
    _s(
        "job_threads",
        "int",
        None,
        "torch threads of a job's child (0: torch's default; unset: chosen per kind)",
        low=0,
    ),
    _s(
        "malloc_tuning",
        "bool",
        True,
        "training processes keep freed memory for their next step (glibc's mmap and trim thresholds, "
        "engine/compute/allocator.py): the same speed in the app's warm spare as from the command line",
    ),
    _s(
        "warm_encoder",
        "bool",
        True,
        "a warm spare child also loads the bundled encoder and the demo embeddings",
    ),
    _s(
        "ui_nice",
        "int",
        10,
        "nice value of the app's drawing threads once a run starts (0 keeps them)",
        low=0,
        high=19,
    ),
    _s("no_progress", "bool", False, "no progress bar on stderr in the CLI (set for the app's children)"),
    _s(
        "stop_grace_seconds",
        "float",
        10.0,
        "a stopped child still running after this long is killed",
        low=0.0,
    ),
    _s(
        "spare_after_idle_seconds",
        "float",
        3.0,
        "the job worker idles this long before it starts a warm spare",
        env=False,
    ),
    _s(
        "small_machine_cpus",
        "int",
        4,
        "up to this many CPUs, a child leaves one to the server and browser",
        env=False,
    ),
    _s("stderr_lines", "int", 40, "lines of a child's stderr kept to explain its failure", env=False),
    _s("speed_window", "int", 30, "steps over which a run's speed (steps/s) is measured", env=False),
    _s(
        "gil_switch_seconds",
        "float",
        0.001,
        "GIL switch interval with in-thread jobs (training waits at most this)",
        env=False,
    ),
    # ---------------------------------------------------------------- UMAP frames
    _s(
        "keep_snapshots",
        "int",
        3,
        "embedding snapshots of a running run kept in memory for the projection worker",
        env=False,
    ),
    _s(
        "snapshot_cap_mb",
        "float",
        500.0,
        "embedding snapshots a run may write, in MB; past it (or on a full disk) a run keeps its rows "
        "and stops writing snapshots, with a warning",
        low=1.0,
    ),
    _s(
        "snapshot_float16",
        "bool",
        False,
        "store embedding snapshots as float16: half the disk, but measures recomputed from a snapshot "
        "(IsoScore*, the geometry lens) then differ from the logged float32 ones (IsoScore by up to 1 %)",
    ),
    _s("film_frames", "int", 40, "frames a finished run's UMAP film gets (missing ones back-filled)", low=1),
    _s(
        "live_frame_share",
        "float",
        0.2,
        "share of one CPU the UMAP projection worker may use while a run trains (on small machines)",
        low=0.01,
        high=1.0,
    ),
    _s("umap_neighbors", "int", 15, "neighbours of the UMAP graph", env=False),
    _s("umap_first_epochs", "int", 200, "UMAP epochs of a run's first frame", env=False),
    _s("umap_refit_epochs", "int", 40, "UMAP epochs of a warm-started frame", env=False),
    # ---------------------------------------------------------------- pages
    _s("live_seconds", "float", 1.0, "refresh period of the live curves", low=0.1),
    _s(
        "live_points",
        "int",
        200,
        "points per curve while a run refreshes (the browser redraws them all)",
        low=10,
    ),
    _s("projection_seconds", "float", 2.0, "refresh period of the live projection", low=0.1),
    _s("chart_points", "int", 1500, "points per curve of a finished run's chart", env=False),
    _s("hover_chars", "int", 160, "characters of a sentence shown on hover", env=False),
    # ---------------------------------------------------------------- encoders
    _s(
        "allow_partial_weights",
        "bool",
        False,
        "load an encoder whose checkpoint lacks weights of its model (they start random)",
    ),
    # ---------------------------------------------------------------- threads
    _s(
        "omp_wait_policy",
        "str",
        "PASSIVE",
        "OpenMP wait policy that python -m engine.simcse.figure2_runs puts in "
        "OMP_WAIT_POLICY before torch loads, unless OMP_WAIT_POLICY is already set: PASSIVE threads sleep at "
        "barriers instead of spinning while a sibling thread waits for a shared core",
        env=False,
        choices=("PASSIVE", "ACTIVE"),
    ),
    _s(
        "figure2_workers",
        "int",
        0,
        "runs trained side by side, each in its own process with its share of the "
        "CPUs: those of python -m engine.simcse.figure2_runs and, in the app, those a preset queues together "
        "(0: one per CPU); two one-thread runs on 2 cores do 1.3x the steps of one two-thread run",
        low=0,
    ),
    # ---------------------------------------------------------------- sweeps on Ray (engine.sweep)
    Setting(
        "ray_address",
        "RAY_ADDRESS",
        "str",
        None,
        "Ray's own variable: the Ray cluster a sweep with --ray joins (e.g. auto, ray://head:10001) when "
        "--address is not given; unset: start a local Ray",
    ),
    # ---------------------------------------------------------------- torchrun's launch (engine.training)
    Setting(
        "torchrun_world_size",
        "WORLD_SIZE",
        "int",
        1,
        "torchrun's own variable: the processes of the launch (above 1: SimCSE and JEPA train with DDP)",
        low=1,
    ),
    Setting("torchrun_rank", "RANK", "int", 0, "torchrun's own variable: this process's rank", low=0),
    Setting(
        "torchrun_local_rank",
        "LOCAL_RANK",
        "int",
        None,
        "torchrun's own variable: this process's rank on its machine (its GPU); unset: the rank",
        low=0,
    ),
    # ---------------------------------------------------------------- python -m engine results
    _s(
        "results_script_seconds",
        "float",
        600.0,
        "how long a results:script block's script may run before python -m engine results ends it "
        "(its table is then kept)",
        low=1.0,
    ),
    # ---------------------------------------------------------------- hub
    _s("hub_timeout_seconds", "float", 3.0, "how long the hub reachability probe may take", low=0.1),
    Setting(
        "hf_hub_offline",
        "HF_HUB_OFFLINE",
        "str",
        None,
        "the hub's own variable: 1, true, yes or on keeps the lab off the network (as tests and CI run)",
    ),
    Setting(
        "transformers_offline",
        "TRANSFORMERS_OFFLINE",
        "str",
        None,
        "transformers' own variable, read as HF_HUB_OFFLINE",
    ),
    Setting(
        "hf_hub_cache",
        "HF_HUB_CACHE",
        "str",
        None,
        "the hub's own variable: the local Hugging Face cache of models (unset: $HF_HOME/hub, else "
        "huggingface_hub's default), where a preset looks for a raw start offline",
    ),
    Setting(
        "hf_home",
        "HF_HOME",
        "str",
        None,
        "the hub's own variable: Hugging Face's home folder (its cache of models is hub/ in it)",
    ),
    Setting(
        "hf_endpoint",
        "HF_ENDPOINT",
        "str",
        None,
        "the hub's own variable: its base URL (unset: huggingface_hub's, else https://huggingface.co)",
    ),
)

#: every setting by name
SETTINGS: dict[str, Setting] = {setting.name: setting for setting in ALL}
