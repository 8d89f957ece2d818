"""An encoder's own defaults, read before it loads: the pooling, normalisation and max length of a
sentence-transformers layout (:func:`st_settings`, from ``modules.json``, the Pooling module's config and
``sentence_bert_config.json``), and the pooling a SimCSE checkpoint is evaluated with, from its name
(:func:`simcse_pooling`; Gao et al. 2021's released checkpoints). :mod:`engine.encoders.loading` picks among
them (its docstring gives the order).
"""

from __future__ import annotations

import json
import logging
import re
from collections.abc import Callable
from pathlib import Path

from engine.core.errors import one_line

log = logging.getLogger(__name__)


def _read_json(path: Path | None) -> dict | list | None:
    if path is None or not path.is_file():
        return None
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError, UnicodeDecodeError) as err:
        log.warning("ignoring unreadable %s: %s", path, one_line(err))
        return None


def st_settings(get_file: Callable[[str], Path | None]) -> dict:
    """Pooling/normalize/max_length from a sentence-transformers layout (``modules.json``); {} when absent."""
    modules = _read_json(get_file("modules.json"))
    if not isinstance(modules, list):
        return {}
    out: dict = {"normalize": False}
    for module in modules:
        kind = str(module.get("type", "")) if isinstance(module, dict) else ""
        if kind.endswith("Normalize"):
            out["normalize"] = True
        elif kind.endswith("Pooling"):
            sub = str(module.get("path") or "1_Pooling").strip("/")
            cfg = _read_json(get_file(f"{sub}/config.json")) or {}
            if not isinstance(cfg, dict):
                cfg = {}
            if cfg.get("pooling_mode_cls_token") or cfg.get("pooling_mode") == "cls":
                out["pooling"] = "cls_before_pooler"
            elif cfg.get("pooling_mode", "mean") == "mean" and cfg.get("pooling_mode_mean_tokens", True):
                out["pooling"] = "avg"
            else:
                log.warning("unsupported sentence-transformers pooling %s; using avg", cfg)
                out["pooling"] = "avg"
        elif kind.endswith("Dense"):
            log.warning(
                "sentence-transformers Dense module ignored (only the transformer + pooling are used)"
            )
    st_cfg = _read_json(get_file("sentence_bert_config.json")) or {}
    if isinstance(st_cfg, dict) and isinstance(st_cfg.get("max_seq_length"), int):
        out["max_length"] = st_cfg["max_seq_length"]
    return out


def simcse_pooling(identity: str) -> str | None:
    """``cls_before_pooler`` for unsup-SimCSE checkpoints, ``cls`` (pooler output) for sup-SimCSE ones."""
    text = identity.lower().replace("\\", "/")
    if re.search(r"(^|/)unsup-simcse", text):
        return "cls_before_pooler"
    if re.search(r"(^|/)sup-simcse", text):
        return "cls"
    return None
