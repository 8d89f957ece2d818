"""Saved encoders in ``cache/encoders/<name>/``: save (atomic), list, rename, delete.

A saved encoder is a Hugging Face folder (``save_pretrained`` of model and tokenizer, safetensors) plus
``embedlab.json`` (pooling, normalize, max length, MLP present, card), ``pooler.safetensors`` (the MLP), the
sentence-transformers files where its pooling allows them, and a README.md card whose "Load" section shows
the lab, ``SentenceTransformer(path)`` and ``AutoModel.from_pretrained(path)`` (:mod:`.portable`); the card
holds no absolute local paths. It is written to a hidden temp folder (``.tmp-NAME-*``) in the same parent
and renamed into place, so a half-written encoder is never listed or loadable. Replacing an encoder takes two
renames (the old folder aside to ``.old-NAME-*``, the new one into place); a process killed between them
leaves no ``NAME``, and :func:`recover` (run before every save, list and load by name) finishes the
replacement with the complete new copy, or puts the old one back, so an encoder is never lost.
"""

from __future__ import annotations

import json
import logging
import math
import os
import shutil
import time
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path

from engine.core import paths
from engine.core.errors import ConfigError, EmbedlabError, EncoderError, one_line
from engine.encoders.card import render_card
from engine.encoders.encoder import Encoder
from engine.encoders.layout import recover
from engine.encoders.loading import (
    BUNDLED_ID,
    BUNDLED_NAME,
    META_FILE,
    META_FORMAT,
    MLP_FILE,
    bundled_path,
    is_bundled,
    quiet_transformers,
    read_meta,
)
from engine.encoders.portable import (
    portable_path,
    st_expressible,
    without_local_paths,
    write_sentence_transformers,
)
from engine.encoders.starts import start_named

log = logging.getLogger(__name__)
_STALE_TMP_S = 3600.0


@dataclass(frozen=True)
class EncoderInfo:
    """One row of :func:`list_encoders`."""

    name: str
    path: Path
    base_model: str
    pooling: str
    card: dict = field(default_factory=dict)
    created: str = ""
    mlp: bool = False
    bundled: bool = False


def _clean(value: object) -> object:
    """JSON-safe copy of a card: NaN/inf -> None, numpy scalars -> Python, unknown objects -> str."""
    if isinstance(value, dict):
        return {str(k): _clean(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_clean(v) for v in value]
    if hasattr(value, "item") and callable(value.item) and getattr(value, "ndim", 1) == 0:
        value = value.item()
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if value is None or isinstance(value, (str, int, bool)):
        return value
    return str(value)


def _target_name(name: str) -> str:
    safe = paths.safe_name(name, what="encoder name")
    if is_bundled(safe) or start_named(safe) is not None:
        raise ConfigError(f"encoder name {name!r} is reserved for the bundled encoder; choose another")
    return safe


def check_save_name(name: str, *, overwrite: bool = False) -> str:
    """The folder name an encoder saved as ``name`` gets (sanitised), checked before any training: a
    reserved name, or an existing encoder when ``overwrite`` is false, is a one-line ConfigError that says
    the cleaned name."""
    safe = _target_name(name)
    recover()
    if not overwrite and (paths.encoders_dir() / safe).exists():
        shown = repr(safe) if safe == str(name) else f"{safe!r} (from {str(name)!r})"
        raise ConfigError(
            f"an encoder named {shown} already exists; choose another name or allow replacing it"
        )
    return safe


def parameter_count(encoder: Encoder) -> int:
    """The weights of ``encoder``: its transformer's and its MLP pooler's (each tensor counted once)."""
    modules = [encoder.model] + ([encoder.mlp] if encoder.mlp is not None else [])
    tensors = {id(p): p for module in modules for p in module.parameters()}
    return int(sum(p.numel() for p in tensors.values()))


def folder_bytes(folder: Path) -> int:
    """The bytes of every file under ``folder`` (links not followed)."""
    return sum(p.stat().st_size for p in folder.rglob("*") if p.is_file() and not p.is_symlink())


def _write_text(path: Path, text: str) -> None:
    """``text`` into ``path``, never through a symbolic link there (issue 55: one line naming it)."""
    paths.no_link_here(path, what="saving an encoder")
    with open(path, "w", encoding="utf-8") as handle:
        handle.write(text)
        handle.flush()
        os.fsync(handle.fileno())


def _remove_stale_tmp(root: Path) -> None:
    recover(root)
    now = time.time()
    for child in root.glob(".tmp-*"):
        try:
            if now - child.stat().st_mtime > _STALE_TMP_S:
                shutil.rmtree(child, ignore_errors=True)
        except OSError:
            continue


def save_encoder(encoder: Encoder, name: str, card: dict | None = None, *, overwrite: bool = True) -> Path:
    """Save to ``cache/encoders/<safe name>/`` atomically (temp folder + rename); returns the folder.

    An existing encoder of that name is replaced (``overwrite=False`` raises ConfigError instead).
    """
    root = paths.encoders_dir()
    safe = check_save_name(name, overwrite=overwrite)
    target = paths.inside(root, safe, what="encoder name")
    _remove_stale_tmp(root)
    meta = {
        "format": META_FORMAT,
        "version": 1,
        "name": safe,
        "base_model": portable_path(str((card or {}).get("base_model") or encoder.base_model)),
        "pooling": encoder.pooling,
        "normalize": encoder.normalize,
        "max_length": encoder.max_length,
        "mlp": encoder.mlp is not None,
        "hidden_size": encoder.hidden_size,
        "created": datetime.now(UTC).isoformat(timespec="seconds"),
        "parameters": parameter_count(encoder),
        "sentence_transformers": st_expressible(encoder),
        "card": without_local_paths(_clean(dict(card or {}))),
    }
    tmp = root / f".tmp-{safe}-{os.getpid()}-{os.urandom(3).hex()}"
    tmp.mkdir()
    try:
        with quiet_transformers():
            encoder.model.save_pretrained(tmp)
        encoder.tokenizer.save_pretrained(tmp)
        write_sentence_transformers(tmp, encoder)
        if encoder.mlp is not None:
            from safetensors.torch import save_file

            state = {k: v.detach().cpu().contiguous() for k, v in encoder.mlp.state_dict().items()}
            save_file(state, str(tmp / MLP_FILE))
        meta["size_bytes"] = folder_bytes(tmp)  # the weights, tokenizer and pooler files: what a copy takes
        _write_text(tmp / "README.md", render_card(safe, meta))
        _write_text(tmp / META_FILE, json.dumps(meta, indent=2, allow_nan=False))
        _replace_dir(tmp, target)
    except BaseException as err:
        shutil.rmtree(tmp, ignore_errors=True)
        if isinstance(err, OSError):
            raise EncoderError(f"cannot save encoder {safe!r}: {one_line(err)}") from err
        raise
    return target


def _replace_dir(src: Path, target: Path) -> None:
    """Rename ``src`` to ``target``; an existing target is first moved aside to ``.old-NAME-*`` and removed
    after. A kill between the two renames is repaired by :func:`recover`."""
    old = None
    if target.exists():
        old = target.with_name(f".old-{target.name}-{os.urandom(3).hex()}")
        os.replace(target, old)
    os.replace(src, target)
    if old is not None:
        shutil.rmtree(old, ignore_errors=True)


def _bundled_info() -> EncoderInfo | None:
    try:
        path = bundled_path()
    except EmbedlabError:
        return None
    card = {"description": "bundled offline sentence-transformers model (mean pooling, normalised)"}
    return EncoderInfo(BUNDLED_NAME, path, BUNDLED_ID, "avg", card, "", False, True)


def list_encoders() -> list[EncoderInfo]:
    """The bundled encoder, then saved encoders by name; corrupt/foreign entries skipped with a warning."""
    infos = [info for info in [_bundled_info()] if info is not None]
    root = paths.encoders_dir()
    recover(root)
    for child in sorted(root.iterdir(), key=lambda p: p.name):
        if child.name.startswith("."):
            continue
        if not child.is_dir():
            log.warning("skipping %s in %s: not an encoder folder", child.name, root)
            continue
        try:
            meta = read_meta(child)
            if not (child / "config.json").is_file():
                raise EncoderError(f"{child} has no config.json")
        except EncoderError as err:
            log.warning("skipping encoder folder %s: %s", child.name, one_line(err))
            continue
        card = meta.get("card") if isinstance(meta.get("card"), dict) else {}
        infos.append(
            EncoderInfo(
                name=child.name,
                path=child,
                base_model=str(meta.get("base_model", "")),
                pooling=str(meta.get("pooling", "")),
                card=card,
                created=str(meta.get("created", "")),
                mlp=bool(meta.get("mlp", False)),
            )
        )
    return infos


def _existing(name: str) -> Path:
    root = paths.encoders_dir()
    if is_bundled(name):
        raise ConfigError("the bundled encoder cannot be renamed or deleted")
    path = paths.inside(root, name, what="encoder name")
    if paths.safe_name(name, what="encoder name") != str(name).strip() or not path.is_dir():
        raise EncoderError(f"no saved encoder named {name!r} in {root}")
    return path


def rename_encoder(old: str, new: str) -> Path:
    """Rename a saved encoder (the new name is sanitised; an existing name is never overwritten)."""
    source = _existing(old)
    meta = read_meta(source)
    root = paths.encoders_dir()
    safe = _target_name(new)
    target = paths.inside(root, safe, what="encoder name")
    if target.exists():
        raise ConfigError(f"an encoder named {safe!r} already exists; choose another name")
    meta["name"] = safe
    tmp_meta = source / f".{META_FILE}.tmp"
    _write_text(tmp_meta, json.dumps(meta, indent=2, allow_nan=False))
    os.replace(tmp_meta, source / META_FILE)
    readme = render_card(safe, meta)
    _write_text(source / "README.md", readme)
    os.rename(source, target)
    return target


def delete_encoder(name: str) -> None:
    """Delete a saved encoder folder (only inside ``cache/encoders``): hidden first, then removed."""
    path = _existing(name)
    root = paths.encoders_dir()
    if path.parent != root.resolve():
        raise ConfigError(f"encoder {name!r} is not inside {root}")
    trash = root / f".tmp-trash-{path.name}-{os.urandom(3).hex()}"
    os.replace(path, trash)
    shutil.rmtree(trash, ignore_errors=True)
