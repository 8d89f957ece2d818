"""Every setting of the lab read and checked here: the declarations (name, environment variable, type, default
and meaning) are :mod:`engine.core.setting_list`.

This is the only module that reads ``EMBEDLAB_*`` variables. Code asks ``settings.get("job_threads")``;
the value is read from the environment at each call (a test or a server may change it), parsed and checked
here, and a bad value is one :class:`~engine.core.errors.ConfigError` line naming the variable.
``python -m engine settings`` prints the table (the README's list is generated from it).

Settings that are not worth an environment variable for a user are still listed here, with ``env=None``
(``settings.get`` returns their default), so a reader finds every tunable number in one place. (A *knob* is
something else: an experiment's config field, :mod:`engine.core.knobs`.)
"""

from __future__ import annotations

import math
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

from engine.core.errors import ConfigError
from engine.core.setting_list import ALL, ENV_PREFIX, SETTINGS, Setting

REPO_ROOT = Path(__file__).resolve().parents[2]
OFF = ("", "none", "off")  # values of a folder setting that turn it off


def _parse(setting: Setting, raw: str) -> Any:
    raw = raw.strip()
    kind = setting.kind
    if kind == "path":
        if raw.lower() in OFF:
            return None
        try:
            return _resolve(raw)
        except RuntimeError as err:  # "~name" of a user this machine does not know
            raise ConfigError(
                f"{setting.env} names a home folder that cannot be found: {_shown(raw)}"
            ) from err
    if kind == "bool":
        lowered = raw.lower()
        if lowered in ("1", "true", "yes", "on"):
            return True
        if lowered in ("0", "false", "no", "off"):
            return False
        raise ConfigError(f"{setting.env} must be 1 or 0, got {_shown(raw)}")
    if kind == "str":
        if setting.choices and raw not in setting.choices:
            raise ConfigError(f"{setting.env} must be one of {', '.join(setting.choices)}, got {_shown(raw)}")
        return raw
    number: Callable[[str], Any] = int if kind == "int" else float
    try:
        value = number(raw)
    except ValueError:
        what = "a whole number" if kind == "int" else "a number"
        raise ConfigError(f"{setting.env} must be {what}, got {_shown(raw)}") from None
    if kind == "float" and not math.isfinite(value):  # NaN fails neither bound; inf overflows later uses
        raise ConfigError(f"{setting.env} must be a finite number, got {_shown(raw)}")
    if (setting.low is not None and value < setting.low) or (
        setting.high is not None and value > setting.high
    ):
        raise ConfigError(
            f"{setting.env} must be between {_bound(setting.low)} and {_bound(setting.high)}, "
            f"got {_shown(raw)}"
        )
    return value


def _shown(raw: str) -> str:
    """A bad value as an error line quotes it: on one line (repr escapes a newline), and cut when long."""
    return repr(raw if len(raw) <= 60 else f"{raw[:60]}…")


def _bound(value: float | None) -> str:
    return "…" if value is None else f"{value:g}"


def _resolve(text: str) -> Path:
    path = Path(text).expanduser()
    return path if path.is_absolute() else (REPO_ROOT / path).resolve()


def get(name: str) -> Any:
    """The value of setting ``name``: its environment variable when set and not empty, else its default."""
    setting = SETTINGS[name]
    raw = os.environ.get(setting.env) if setting.env else None
    if raw is None or (raw.strip() == "" and setting.kind != "path"):
        return default(name)
    return _parse(setting, raw)


def default(name: str) -> Any:
    """The declared default of ``name`` (folders resolved against the repo)."""
    setting = SETTINGS[name]
    if setting.kind == "path" and setting.default is not None:
        return _resolve(str(setting.default))
    return setting.default


def table() -> list[dict[str, str]]:
    """The settings as rows (name, environment variable, type, default, meaning), for the CLI and the docs."""
    return [
        {
            "setting": s.name,
            "variable": s.env or "(fixed)",
            "type": s.kind,
            "default": "unset" if s.default is None else str(s.default),
            "meaning": s.meaning,
        }
        for s in ALL
    ]


def markdown_table() -> str:
    """The settings as a Markdown table (``python -m engine settings --markdown``)."""
    rows = [r for r in table() if r["variable"] != "(fixed)"]
    lines = ["| variable | type | default | meaning |", "|---|---|---|---|"]
    lines += [f"| `{r['variable']}` | {r['type']} | {r['default']} | {r['meaning']} |" for r in rows]
    return "\n".join(lines)


#: glibc's malloc variables (not the lab's), read when a process starts: a training process keeps freed memory
#: for its next step (engine/compute/allocator.py: the same policy set in a process already running, the CLI)
MALLOC_VARIABLES = {"MALLOC_MMAP_THRESHOLD_": str(256 * 2**20), "MALLOC_TRIM_THRESHOLD_": str(512 * 2**20)}


def child_environment() -> dict[str, str]:
    """The environment of a job's child process: this one's, without a progress bar, unbuffered, and with
    :data:`MALLOC_VARIABLES` unless ``malloc_tuning`` is off (or this environment sets them itself)."""
    malloc = MALLOC_VARIABLES if get("malloc_tuning") else {}
    return {**malloc, **os.environ, SETTINGS["no_progress"].env: "1", "PYTHONUNBUFFERED": "1"}


#: variables outside the lab's that a Ray worker needs as this process has them (offline hub, tokenizers)
FORWARDED = ("HF_HUB_OFFLINE", "TRANSFORMERS_OFFLINE", "HF_HOME", "TOKENIZERS_PARALLELISM")


def worker_environment() -> dict[str, str]:
    """The variables a sweep's Ray workers get (a Ray head started elsewhere has its own environment): every
    ``EMBEDLAB_*`` variable set here, those of :data:`FORWARDED`, no progress bar, and this checkout first
    on ``PYTHONPATH`` (before this process's own ``PYTHONPATH``)."""
    chosen = {k: v for k, v in os.environ.items() if k.startswith(ENV_PREFIX) or k in FORWARDED}
    path = os.pathsep.join([str(REPO_ROOT), *filter(None, [os.environ.get("PYTHONPATH")])])
    return {**chosen, SETTINGS["no_progress"].env: "1", "PYTHONPATH": path}


#: OpenMP's own variable (not the lab's): read once, when torch loads its OpenMP runtime.
OMP_WAIT_POLICY = "OMP_WAIT_POLICY"


def torchrun_launch() -> bool:
    """True inside a multi-process torchrun launch (``WORLD_SIZE`` above 1)."""
    return get("torchrun_world_size") > 1


def apply_openmp_wait_policy() -> str:
    """Put the ``omp_wait_policy`` setting in ``OMP_WAIT_POLICY`` unless the environment already sets it, and
    return the policy in force. Call it before anything imports torch: later it changes nothing."""
    return os.environ.setdefault(OMP_WAIT_POLICY, get("omp_wait_policy"))
