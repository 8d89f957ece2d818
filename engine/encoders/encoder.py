"""The :class:`Encoder`: a Hugging Face model + tokenizer + pooler (+ optional SimCSE MLP).

A text longer than the model's window is cut before it is tokenised (:func:`cut_for_window`): tokenising a
50 MB cell whole took 7.4 GB and 75 s only for all but its first ``max_length`` tokens to be dropped.
"""

from __future__ import annotations

import hashlib
import inspect
import json
import re
import weakref
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass

import numpy as np
import torch
import torch.nn.functional as F
from torch import nn

from engine.compute.device import resolve_device
from engine.core import stopping
from engine.core.errors import ConfigError, DataError, EncoderError
from engine.encoders.pooling import POOLERS, PoolerSpec, check_pooling

Progress = Callable[[int, int], None]
# config keys that do not change what the model computes
_VOLATILE_CONFIG = {
    "transformers_version",
    "_name_or_path",
    "architectures",
    "torch_dtype",
    "dtype",
    "use_cache",
}


#: characters of a text tokenised first per token of the window: a head of ``max_length * CHARS_PER_TOKEN``
#: characters (8,192 for a 512-token window) holds the whole window for any natural text (English averages
#: about 4 characters a word piece); when it does not (long runs of spaces), the head grows 4 times a try
CHARS_PER_TOKEN = 16
_LAST_SPACE = re.compile(r"\s\S*\Z")


def cut_for_window(tokenizer: object, text: str, max_length: int) -> str:
    """The head of ``text`` that yields the same first ``max_length`` tokens as the whole text.

    The head ends at a whitespace (tokenizers split words at whitespace before cutting them into pieces:
    WordPiece, byte-level BPE, SentencePiece), so its tokens are the whole text's first ones; it is kept
    once it holds at least ``max_length`` tokens (the window with its special tokens needs fewer). A text
    with no whitespace in its head (a single giant word) is cut at the character bound itself.
    """
    cut = max_length * CHARS_PER_TOKEN
    while cut < len(text):
        head = text[:cut]
        space = _LAST_SPACE.search(head)
        if space is not None and space.start() > 0:
            head = head[: space.start()]
        pieces = tokenizer(head, add_special_tokens=False, truncation=True, max_length=max_length)  # type: ignore[operator]
        if len(pieces["input_ids"]) >= max_length or space is None:
            return head
        cut *= 4
    return text


def check_texts(texts: Sequence[str] | str) -> list[str]:
    """A list of strings (a bare string becomes a one-item list); DataError naming the first bad item."""
    if isinstance(texts, str):
        return [texts]
    try:
        items = list(texts)
    except TypeError as err:
        raise DataError(f"texts must be a list of strings, got {type(texts).__name__}") from err
    for i, text in enumerate(items):
        if not isinstance(text, str):
            raise DataError(f"text #{i} is not a string (got {type(text).__name__}: {text!r:.40})")
    return items


def _tensor_bytes(tensor: torch.Tensor) -> memoryview:
    flat = tensor.detach().contiguous().reshape(-1)
    return memoryview(flat.view(torch.uint8).cpu().numpy())


_DIGESTS: weakref.WeakKeyDictionary[nn.Module, tuple[tuple, str]] = weakref.WeakKeyDictionary()


def module_digest(module: nn.Module) -> str:
    """sha256 of a module's state (names, shapes, dtypes, bytes), cached per module and recomputed only
    after a tensor changed: in-place updates (optimizer steps) bump torch's tensor version counters."""
    tensors = list(module.state_dict().items())
    key = tuple(
        (n, t.data_ptr(), t._version, tuple(t.shape), str(t.dtype), str(t.device)) for n, t in tensors
    )
    hit = _DIGESTS.get(module)
    if hit is not None and hit[0] == key:
        return hit[1]
    digest = hashlib.sha256()
    for name, tensor in tensors:
        digest.update(f"{name}:{tuple(tensor.shape)}:{tensor.dtype};".encode())
        digest.update(_tensor_bytes(tensor))
    _DIGESTS[module] = (key, digest.hexdigest())
    return digest.hexdigest()


@dataclass(frozen=True)
class TokenizedTexts:
    """Texts tokenised once for repeated encoding (:meth:`Encoder.pretokenize`): length-sorted batches on
    the device, each with the positions of its texts in the input order."""

    count: int
    batches: tuple[tuple[np.ndarray, object], ...]


class Encoder:
    """Sentence encoder; see ``engine.encoders`` for the contract.

    ``encode`` is the inference path (eval mode, no grad, MLP only when the pooling keeps it, normalised when
    ``normalize``); ``forward`` is the training path (grad kept, raw pooled vectors, MLP on request).
    """

    def __init__(
        self,
        *,
        name: str,
        model: nn.Module,
        tokenizer: object,
        pooling: str,
        device: torch.device | str = "cpu",
        max_length: int = 512,
        normalize: bool = False,
        mlp: nn.Module | None = None,
        source: str = "",
        base_model: str = "",
    ) -> None:
        self.name = name
        self.model = model
        self.tokenizer = tokenizer
        self.pooling = check_pooling(pooling)
        self.mlp = mlp
        self.device = resolve_device(device)
        self.max_length = int(max_length)
        self.normalize = bool(normalize)
        self.source = source or name
        self.base_model = base_model or name
        self.hidden_size = int(model.config.hidden_size)
        self._inputs = set(inspect.signature(model.forward).parameters)

    # -- modes and devices -------------------------------------------------------------------------
    @property
    def spec(self) -> PoolerSpec:
        return POOLERS[check_pooling(self.pooling)]

    def modules(self) -> list[nn.Module]:
        return [self.model] + ([self.mlp] if self.mlp is not None else [])

    def parameters(self) -> Iterator[nn.Parameter]:
        """All trainable parameters: the transformer's, then the MLP's (if any)."""
        for module in self.modules():
            yield from module.parameters()

    def to(self, device: torch.device | str) -> Encoder:
        self.device = resolve_device(device)
        for module in self.modules():
            module.to(self.device)
        return self

    def train(self, mode: bool = True) -> Encoder:
        for module in self.modules():
            module.train(mode)
        return self

    def eval(self) -> Encoder:
        return self.train(False)

    # -- computing ---------------------------------------------------------------------------------
    def tokenize(self, texts: Sequence[str], max_length: int | None = None):
        """Tokenise with padding and truncation at ``max_length`` (default ``self.max_length``), on device."""
        limit = int(max_length or self.max_length)
        batch = self.tokenizer(
            self._heads(check_texts(texts), limit),
            padding=True,
            truncation=True,
            max_length=limit,
            return_tensors="pt",
        )
        return batch.to(self.device)

    def _heads(self, texts: list[str], limit: int) -> list[str]:
        """Each text cut to the head that fills the window (:func:`cut_for_window`): same tokens, bounded
        work and memory whatever the text's length."""
        bound = limit * CHARS_PER_TOKEN
        return [cut_for_window(self.tokenizer, t, limit) if len(t) > bound else t for t in texts]

    def pool(self, model_output: object, attention_mask: torch.Tensor, use_mlp: bool) -> torch.Tensor:
        """Pooled (B, h): the pooler's vector, then the MLP when ``use_mlp`` (ours, else for ``cls`` the
        model's pooler output, as released sup-SimCSE checkpoints store their MLP there)."""
        vectors = self.spec.fn(model_output, attention_mask)
        if not use_mlp:
            return vectors
        if self.mlp is not None:
            return self.mlp(vectors)
        pooled = getattr(model_output, "pooler_output", None)
        if self.pooling == "cls" and pooled is not None:
            return pooled
        if self.pooling == "cls":
            raise EncoderError(
                f"pooling 'cls' needs an MLP but encoder {self.name!r} has none and its model has no pooler; "
                "use cls_before_pooler"
            )
        return vectors

    def forward(self, batch, use_mlp: bool) -> torch.Tensor:
        """Run the model on a tokenised batch and pool, keeping gradients (training path)."""
        inputs = {k: v for k, v in batch.items() if k in self._inputs}
        output = self.model(**inputs, output_hidden_states=self.spec.needs_hidden_states, return_dict=True)
        return self.pool(output, batch["attention_mask"], use_mlp)

    @contextmanager
    def _inference(self) -> Iterator[None]:
        """Eval mode and no autograd inside; the modules' training flags restored on exit."""
        was_training = [module.training for module in self.modules()]
        self.eval()
        try:
            with torch.inference_mode():
                yield
        finally:
            for module, mode in zip(self.modules(), was_training, strict=True):
                module.train(mode)

    def _embed(self, batch) -> np.ndarray:
        """Inference vectors of one tokenised batch (MLP when the pooling keeps it, normalised if set)."""
        vectors = self.forward(batch, use_mlp=self.spec.keeps_mlp)
        if self.normalize:
            vectors = F.normalize(vectors.float(), p=2, dim=1)
        return vectors.float().cpu().numpy()

    def encode(
        self, texts: Sequence[str], batch_size: int = 64, progress: Progress | None = None
    ) -> np.ndarray:
        """Embeddings (n, h) float32 in the input order; texts sorted by length inside for speed."""
        items = check_texts(texts)
        if int(batch_size) < 1:
            raise ConfigError(f"batch size must be at least 1, got {batch_size}")
        batch_size = int(batch_size)
        total = len(items)
        out = np.zeros((total, self.hidden_size), dtype=np.float32)
        order = sorted(range(total), key=lambda i: -len(items[i]))
        with self._inference():
            for start in range(0, total, batch_size):
                idx = order[start : start + batch_size]
                out[idx] = self._embed(self.tokenize([items[i] for i in idx]))
                if progress is not None:
                    progress(min(start + batch_size, total), total)
                stopping.check()  # a run stopped while its corpus is encoded ends after this batch
        return out

    def pretokenize(self, texts: Sequence[str], batch_size: int = 64) -> TokenizedTexts:
        """Tokenise ``texts`` once, sorted by token count into batches padded to their own longest text,
        for :meth:`encode_tokenized` (an evaluation set encoded again after every few training steps)."""
        items = check_texts(texts)
        if int(batch_size) < 1:
            raise ConfigError(f"batch size must be at least 1, got {batch_size}")
        if not items:
            return TokenizedTexts(0, ())
        ids = self.tokenizer(
            self._heads(items, self.max_length), truncation=True, max_length=self.max_length
        )["input_ids"]
        order = np.argsort([-len(row) for row in ids], kind="stable")
        batches = tuple(
            (idx, self.tokenize([items[i] for i in idx]))
            for idx in (
                order[start : start + int(batch_size)] for start in range(0, len(items), int(batch_size))
            )
        )
        return TokenizedTexts(len(items), batches)

    def encode_tokenized(
        self,
        tokenized: TokenizedTexts,
        should_stop: Callable[[], bool] | None = None,
        progress: Progress | None = None,
    ) -> np.ndarray | None:
        """:meth:`encode` of pretokenised texts (same vectors); None when ``should_stop()`` turns true
        between two batches. ``progress(done, total)`` after each batch."""
        out = np.zeros((tokenized.count, self.hidden_size), dtype=np.float32)
        done = 0
        with self._inference():
            for idx, batch in tokenized.batches:
                if should_stop is not None and should_stop():
                    return None
                out[idx] = self._embed(batch)
                done += len(idx)
                if progress is not None:
                    progress(done, tokenized.count)
        return out

    # -- identity ----------------------------------------------------------------------------------
    def _weights_digest(self) -> str:
        """sha256 of every weight's bytes (model, then MLP); see :func:`module_digest`."""
        return hashlib.sha256("".join(module_digest(m) for m in self.modules()).encode()).hexdigest()

    @property
    def fingerprint(self) -> str:
        """Stable hash of what determines the embeddings: source, config, tokenizer, weights, MLP, pooling,
        normalize, max_length. Changes as soon as a weight is updated in place (training)."""
        config = {k: v for k, v in self.model.config.to_dict().items() if k not in _VOLATILE_CONFIG}
        tok = self.tokenizer
        ident = {
            "source": self.source,
            "config": config,
            "tokenizer": [type(tok).__name__, len(tok), getattr(tok, "do_lower_case", None)],
            "weights": self._weights_digest(),
            "mlp": self.mlp is not None,
            "pooling": self.pooling,
            "normalize": self.normalize,
            "max_length": self.max_length,
        }
        text = json.dumps(ident, sort_keys=True, default=str)
        return hashlib.sha256(text.encode()).hexdigest()

    def __repr__(self) -> str:
        return (
            f"Encoder(name={self.name!r}, pooling={self.pooling!r}, mlp={self.mlp is not None}, "
            f"normalize={self.normalize}, max_length={self.max_length}, device={self.device})"
        )
