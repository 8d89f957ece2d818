"""The length-bucketed forward of a training batch (:class:`Towers`) and its tokenisation (:func:`tokenize`).

On a CPU the training forward runs a batch as a few length buckets: the same vectors on fewer padded tokens;
on CUDA, MPS and other accelerators, and for narrow encoders, one forward (:func:`bucket_limit`). The lengths
that plan the buckets are read on the host from the tokenizer's attention mask, before the batch moves to the
device (no read-back).
"""

from __future__ import annotations

import copy
from typing import Any

import torch
from torch import nn

BUCKET_ROWS = (
    32  # at least this many sequences per length bucket (smaller GEMMs lose more than padding costs)
)
MAX_BUCKETS = 4  # measured at batch 64 × 2 views on 2 cores: 4 buckets beat 3 and 8 (docs/performance.md)
#: the narrowest encoder that buckets: below it a step is bound by per-operation overhead, not by FLOPs, and
#: one forward is faster (2 layers of width 64: buckets 5–14 % slower; MiniLM, 384: 15 % faster; 2026-11-27)
BUCKET_MIN_WIDTH = 256


def bucket_limit(device: torch.device | str, width: int | None = None) -> int:
    """The most length buckets a training forward on ``device`` runs, from the device's type (and the
    encoder's ``width``, its hidden size) alone: no sync, nothing read from a device.

    :data:`MAX_BUCKETS` on a CPU, where a step is compute-bound and every padded token costs its FLOPs,
    unless the encoder is narrower than :data:`BUCKET_MIN_WIDTH`; 1 (one forward) on CUDA, MPS and any other
    accelerator, where a step is bound by kernel launches and four forwards cost about four times one (H200,
    bundled MiniLM, batch 64: one forward 3.4× faster, issue 38).
    """
    if torch.device(device).type != "cpu" or (width is not None and width < BUCKET_MIN_WIDTH):
        return 1
    return MAX_BUCKETS


class Towers(nn.Module):
    """The trained modules (transformer + training MLP) behind one ``forward``, so DDP can wrap them.

    On a CPU ``forward`` runs a padded batch as a few length buckets (:func:`length_buckets`): the rows
    sorted by length, each bucket cut to its own longest row. The vectors are those of one padded forward
    (padding is masked out), computed on ~20 % fewer tokens at batch 64 × 2 views, length 32; only the
    dropout masks are drawn in another order. It stays one ``forward`` call, so DDP still sees one forward
    per step. ``max_buckets`` (default :func:`bucket_limit` of the encoder's device and width, fixed here)
    caps them; 1 is one padded forward.
    """

    def __init__(self, encoder: Any, use_mlp: bool, max_buckets: int | None = None):
        super().__init__()
        self.model = encoder.model
        self.mlp = encoder.mlp if use_mlp else None
        self.use_mlp = use_mlp
        self._forward = encoder.forward  # a bound method, not a sub-module
        right_padded = getattr(encoder.tokenizer, "padding_side", "right") == "right"
        width = getattr(encoder, "hidden_size", None)
        limit = bucket_limit(encoder.device, width) if max_buckets is None else int(max_buckets)
        self.max_buckets = limit if right_padded else 1

    def forward(self, batch: Any, lengths: torch.Tensor | None = None) -> torch.Tensor:
        """The pooled vectors of ``batch``; ``lengths``: its rows' token counts on the host (the tokenizer's,
        :func:`tokenize`), else summed from the attention mask where it lives (the host on a CPU)."""
        mask = batch["attention_mask"]
        buckets = None
        if self.max_buckets > 1:
            lengths = mask.sum(dim=1) if lengths is None else lengths
            buckets = length_buckets(lengths, mask.shape[1], self.max_buckets)
        if buckets is None:
            return self._forward(batch, use_mlp=self.use_mlp)
        rows, width = mask.shape
        parts = []
        for index, length in buckets:
            sub = {
                key: value[index, :length] if value.dim() == 2 and value.shape == (rows, width) else value
                for key, value in batch.items()
            }
            parts.append(self._forward(sub, use_mlp=self.use_mlp))
        inverse = torch.argsort(torch.cat([index for index, _ in buckets])).to(mask.device)
        return torch.cat(parts)[inverse]


def length_buckets(
    lengths: torch.Tensor, width: int | None = None, limit: int = MAX_BUCKETS
) -> list[tuple[torch.Tensor, int]] | None:
    """``(row indices, length)`` per bucket of a right-padded batch sorted by length, or None for one forward
    (too few rows for two buckets, or no padding to cut). ``lengths``: the rows' token counts (or the
    attention mask itself), read where they are: pass host tensors to keep a device out of it; ``width``:
    the padded length (default: the mask's)."""
    if lengths.dim() == 2:
        lengths, width = lengths.sum(dim=1), lengths.shape[1]
    count = min(limit, len(lengths) // BUCKET_ROWS)
    if count < 2 or int(lengths.min()) == width:
        return None
    order = torch.argsort(lengths, stable=True)
    return [(index, max(1, int(lengths[index].max()))) for index in torch.tensor_split(order, count)]


def tokenize(towers: nn.Module, encoder: Any, texts: list[str], max_len: int) -> tuple[Any, Any]:
    """``texts`` tokenised for ``towers`` (DDP-wrapped or not): the batch on the device, and where the towers
    bucket it the rows' lengths, read on the host from the tokenizer's attention mask before the batch goes
    to the device (no read-back); None where they run one forward."""
    limit = getattr(getattr(towers, "module", towers), "max_buckets", 1)
    if limit < 2:
        return encoder.tokenize(texts, max_length=max_len), None
    if encoder.device.type == "cpu":
        batch = encoder.tokenize(texts, max_length=max_len)
        return batch, batch["attention_mask"].sum(dim=1)
    host = copy.copy(encoder)  # the same tokenisation, left on the host
    host.device = torch.device("cpu")
    batch = host.tokenize(texts, max_length=max_len)
    lengths = batch["attention_mask"].sum(dim=1)  # before the move: BatchEncoding.to moves in place
    return batch.to(encoder.device), lengths
