"""The untouched encoder as the reference of a SimCSE run: its STS score at its native pooling.

An encoder is trained with one pooling; pooling it otherwise handicaps it before any training step (the
bundled all-MiniLM-L6-v2 is a mean-pooling model: STS-B dev with SimCSE's ``cls`` is far below its mean
pooling, docs/results.md). ``--pooler native`` (the default) is therefore the encoder's own pooling
(:func:`engine.training.encoder.resolve_pooler`).

:func:`sts_baseline` is the Spearman correlation of the untouched encoder at its native pooling on a run's
evaluation pairs (same set, same seeded subset, same maximum length), in float32, cached in
``cache/baselines/`` by the encoder's identity and the evaluation's settings: the reference line of the STS
charts (``sts_baseline`` in a SimCSE run's summary).
"""

from __future__ import annotations

import hashlib
import json
import logging
from pathlib import Path
from typing import Any

from engine.core import paths
from engine.core.atomic import write_text_atomic
from engine.core.errors import one_line
from engine.core.shared_knobs import NATIVE, POOLER_CHOICES
from engine.training.encoder import resolve_pooler

log = logging.getLogger(__name__)

_CACHE_FORMAT = 1


def _identity(encoder: str | None) -> dict[str, Any]:
    """What names the encoder's weights: its source, and for a folder the size and time of its files."""
    from engine.encoders.loading import resolve_source

    source = resolve_source(encoder)
    ident: dict[str, Any] = {"kind": source.kind, "location": source.location}
    folder = Path(source.location)
    if source.kind != "hub" and folder.is_dir():
        ident["files"] = sorted(
            (p.name, p.stat().st_size, p.stat().st_mtime_ns)
            for p in folder.iterdir()
            if p.is_file() and p.suffix in (".json", ".safetensors", ".txt")
        )
    return ident


def _cache_file(key: dict[str, Any]) -> Path:
    digest = hashlib.sha256(json.dumps(key, sort_keys=True, default=str).encode()).hexdigest()[:24]
    folder = paths.cache_dir() / "baselines"
    folder.mkdir(parents=True, exist_ok=True)
    return folder / f"sts-{digest}.json"


def sts_baseline(
    encoder: str | None = None,
    eval: str | None = None,  # noqa: A002 - the knob's name
    eval_limit: int | None = 250,
    *,
    data_dir: str | None = None,
    seed: int = 0,
    max_len: int = 32,
    device: str = "auto",
) -> dict[str, Any]:
    """STS Spearman of the untouched ``encoder`` at its native pooling on the evaluation pairs a SimCSE run
    with these settings uses: ``{"sts_spearman", "pooler", "pooling", "eval_set", "max_len"}``; computed
    once per key, then read from ``cache/baselines/``."""
    from engine.simcse.config import SimCSEConfig
    from engine.training.data import load_eval

    config = SimCSEConfig(
        encoder=encoder, eval=eval, eval_limit=eval_limit, data_dir=data_dir, seed=seed, max_len=max_len
    )
    evalset = load_eval(config)
    pooler = resolve_pooler(NATIVE, encoder)
    key = {
        "format": _CACHE_FORMAT,
        "encoder": _identity(encoder),
        "pooler": pooler,
        "eval": evalset.label,
        "data_dir": str(paths.data_dir(data_dir)),
        "eval_limit": eval_limit,
        "seed": seed,
        "max_len": max_len,
    }
    cached = _cache_file(key)
    try:
        return json.loads(cached.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        pass
    result = {
        "sts_spearman": _measure(config, evalset, POOLER_CHOICES[pooler][0], device),
        "pooler": pooler,
        "pooling": POOLER_CHOICES[pooler][0],
        "eval_set": evalset.label,
        "max_len": max_len,
    }
    _write(cached, result)
    return result


def _measure(config: Any, evalset: Any, pooling: str, device: str) -> float:
    """Spearman of the pairs' cosines against gold, the untouched encoder in float32 (no MLP added)."""
    from engine.encoders import load_encoder
    from engine.metrics import sts_spearman

    model = load_encoder(config.encoder, pooling=pooling, device=device, max_length=config.max_len)
    vectors = model.encode(evalset.sentences, batch_size=128)
    return float(sts_spearman(vectors[evalset.left], vectors[evalset.right], evalset.gold))


def _write(path: Path, result: dict[str, Any]) -> None:
    try:
        write_text_atomic(path, json.dumps(result, indent=2))
    except OSError as err:  # a cache that cannot be written only costs the next run the measurement
        log.warning("cannot cache the STS baseline in %s: %s", path, one_line(err))
