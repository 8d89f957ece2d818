"""A saved encoder that leaves the lab: the sentence-transformers files, the card's "Load" section, and
card values without local paths.

``SentenceTransformer(folder)`` reads ``modules.json`` (Transformer -> Pooling [-> Dense] [-> Normalize]),
``1_Pooling/config.json`` and ``sentence_bert_config.json`` (``max_seq_length``); written in the classic
format (``sentence_transformers.models.*``) that sentence-transformers 2.x to 6.x load. Per lab pooling
(:mod:`engine.encoders.pooling`):

- ``avg``: mean pooling; ``cls_before_pooler``: the [CLS] token (a SimCSE MLP used in training only is not
  part of the sentence vector, so it is not written as a module);
- ``cls``: the [CLS] token, then a ``Dense`` module (Linear(h, h) + Tanh) holding the lab's MLP, or the
  model's own pooler (BERT's dense + tanh) when the encoder has no MLP: the same function, in a module
  sentence-transformers loads without remote code;
- ``avg_first_last`` / ``avg_top2``: not expressible by sentence-transformers' Pooling; no
  sentence-transformers files are written and the card says so (sentence-transformers would otherwise
  silently use mean pooling of the last layer).

A ``Normalize`` module follows when the lab L2-normalises. Nothing here imports sentence-transformers.
"""

from __future__ import annotations

import json
import os
import re
from pathlib import Path
from typing import Any

from engine.core import settings

ST_POOLING = {"avg": "mean", "cls_before_pooler": "cls", "cls": "cls"}
DENSE_DIR = "2_Dense"
_ST = "sentence_transformers.models."


def _dense_weights(encoder: Any) -> dict | None:
    """``linear.weight`` / ``linear.bias`` of the Linear + Tanh applied after [CLS] for pooling ``cls``: the
    lab's MLP (``Sequential(Linear, Tanh)``), else the model's pooler dense layer; None when neither."""
    if encoder.pooling != "cls":
        return None
    linear = encoder.mlp[0] if encoder.mlp is not None else None
    if linear is None:
        pooler = getattr(encoder.model, "pooler", None)
        linear = getattr(pooler, "dense", None)
    if linear is None:
        return None
    return {
        "linear.weight": linear.weight.detach().cpu().float().contiguous(),
        "linear.bias": linear.bias.detach().cpu().float().contiguous(),
    }


def st_expressible(encoder: Any) -> bool:
    """Whether sentence-transformers can compute this encoder's vectors (see the module docstring)."""
    if encoder.pooling not in ST_POOLING:
        return False
    return encoder.pooling != "cls" or _dense_weights(encoder) is not None


def write_sentence_transformers(folder: Path, encoder: Any) -> bool:
    """Write modules.json, 1_Pooling/config.json, sentence_bert_config.json (+ 2_Dense, Normalize) into
    ``folder``; returns False (and writes nothing) when the pooling is not expressible."""
    if not st_expressible(encoder):
        return False
    hidden = int(encoder.hidden_size)
    mode = ST_POOLING[encoder.pooling]
    modules = [
        {"idx": 0, "name": "0", "path": "", "type": _ST + "Transformer"},
        {"idx": 1, "name": "1", "path": "1_Pooling", "type": _ST + "Pooling"},
    ]
    pooling = {
        "word_embedding_dimension": hidden,
        "pooling_mode_cls_token": mode == "cls",
        "pooling_mode_mean_tokens": mode == "mean",
        "pooling_mode_max_tokens": False,
        "pooling_mode_mean_sqrt_len_tokens": False,
    }
    _write_json(folder / "1_Pooling" / "config.json", pooling)
    dense = _dense_weights(encoder)
    if dense is not None:
        from safetensors.torch import save_file

        (folder / DENSE_DIR).mkdir(parents=True, exist_ok=True)
        save_file(dense, str(folder / DENSE_DIR / "model.safetensors"))
        _write_json(
            folder / DENSE_DIR / "config.json",
            {
                "in_features": hidden,
                "out_features": hidden,
                "bias": True,
                "activation_function": "torch.nn.modules.activation.Tanh",
            },
        )
        modules.append({"idx": 2, "name": "2", "path": DENSE_DIR, "type": _ST + "Dense"})
    if encoder.normalize:
        index = len(modules)
        path = f"{index}_Normalize"
        (folder / path).mkdir(parents=True, exist_ok=True)
        modules.append({"idx": index, "name": str(index), "path": path, "type": _ST + "Normalize"})
    _write_json(folder / "modules.json", modules)
    _write_json(
        folder / "sentence_bert_config.json",
        {"max_seq_length": int(encoder.max_length), "do_lower_case": False},
    )
    return True


def _write_json(path: Path, value: object) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "w", encoding="utf-8") as handle:
        handle.write(json.dumps(value, indent=2))
        handle.flush()
        os.fsync(handle.fileno())


# -- no local paths in the card ------------------------------------------------------------------------
_ABSOLUTE = re.compile(r"^(/|~|[A-Za-z]:[\\/]|\\\\)")


def portable_path(text: str) -> str:
    """An absolute local path as the repository-relative path when it lies inside the repository, else as
    its last component (a name: ``/home/me/data`` -> ``data``); other strings unchanged."""
    if not _ABSOLUTE.match(text):
        return text
    path = Path(os.path.expanduser(text))
    if path.is_absolute():  # a path of this machine's kind (a Windows path on Linux is not)
        try:
            return path.resolve().relative_to(settings.REPO_ROOT).as_posix()
        except (ValueError, OSError, RuntimeError):
            pass
    return re.split(r"[\\/]", text.rstrip("\\/"))[-1] or "."


def without_local_paths(value: object) -> object:
    """A copy of a JSON-like value with every absolute path string made :func:`portable_path`."""
    if isinstance(value, dict):
        return {k: without_local_paths(v) for k, v in value.items()}
    if isinstance(value, list):
        return [without_local_paths(v) for v in value]
    return portable_path(value) if isinstance(value, str) else value


# -- the card's "Load" section ------------------------------------------------------------------------
_POOLING_CODE = {
    "avg": [
        "mask = batch['attention_mask'].unsqueeze(-1).float()",
        "vectors = (out.last_hidden_state * mask).sum(1) / mask.sum(1).clamp(min=1e-9)  # mean pooling",
    ],
    "cls_before_pooler": ["vectors = out.last_hidden_state[:, 0]  # the [CLS] token"],
    "avg_first_last": [
        "mask = batch['attention_mask'].unsqueeze(-1).float()",
        "states = (out.hidden_states[1] + out.hidden_states[-1]) / 2  # first + last layer",
        "vectors = (states * mask).sum(1) / mask.sum(1).clamp(min=1e-9)",
    ],
    "avg_top2": [
        "mask = batch['attention_mask'].unsqueeze(-1).float()",
        "states = (out.hidden_states[-2] + out.hidden_states[-1]) / 2  # last two layers",
        "vectors = (states * mask).sum(1) / mask.sum(1).clamp(min=1e-9)",
    ],
}


def _automodel_pooling(meta: dict, has_dense: bool) -> list[str]:
    pooling = str(meta.get("pooling"))
    if pooling == "cls" and has_dense:
        return [
            "from safetensors.torch import load_file",
            "",
            f'dense = load_file(f"{{path}}/{DENSE_DIR}/model.safetensors")  # Linear(h, h) + Tanh',
            "vectors = torch.tanh(torch.nn.functional.linear(",
            '    out.last_hidden_state[:, 0], dense["linear.weight"], dense["linear.bias"]))',
        ]
    return list(_POOLING_CODE.get(pooling, _POOLING_CODE["avg"]))


def load_section(name: str, meta: dict, has_st: bool, has_dense: bool) -> list[str]:
    """The card's "Load" section: the lab, sentence-transformers (when written) and plain transformers."""
    path = f"cache/encoders/{name}"
    lines = [
        "## Load",
        "",
        "In embedlab:",
        "",
        "```python",
        "from engine.encoders import load_encoder",
        "",
        f'encoder = load_encoder("{name}")',
        "vectors = encoder.encode(sentences)",
        "```",
        "",
    ]
    if has_st:
        lines += [
            "With sentence-transformers (same pooling, normalisation and maximum length):",
            "",
            "```python",
            "from sentence_transformers import SentenceTransformer",
            "",
            f'path = "{path}"  # this folder',
            "model = SentenceTransformer(path, trust_remote_code=False)",
            "vectors = model.encode(sentences)",
            "```",
            "",
        ]
    else:
        lines += [
            f"sentence-transformers cannot express the pooling `{meta.get('pooling')}`: no "
            "sentence-transformers files were written (`SentenceTransformer(path)` would use mean pooling "
            "of the last layer instead). Use transformers as below.",
            "",
        ]
    hidden = meta.get("pooling") in ("avg_first_last", "avg_top2")
    lines += [
        "With transformers (the card's pooling, written out):",
        "",
        "```python",
        "import torch",
        "from transformers import AutoModel, AutoTokenizer",
        "",
        f'path = "{path}"  # this folder',
        "tokenizer = AutoTokenizer.from_pretrained(path, trust_remote_code=False)",
        "model = AutoModel.from_pretrained(path, use_safetensors=True, trust_remote_code=False).eval()",
        "batch = tokenizer(sentences, padding=True, truncation=True, "
        f"max_length={meta.get('max_length')}, return_tensors='pt')",
        "with torch.no_grad():",
        "    out = model(**batch" + (", output_hidden_states=True)" if hidden else ")"),
        *_automodel_pooling(meta, has_dense),
    ]
    if meta.get("normalize"):
        lines.append("vectors = torch.nn.functional.normalize(vectors, dim=-1)  # L2-normalised")
    return [*lines, "```", ""]
