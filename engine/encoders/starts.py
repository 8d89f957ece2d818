"""Starts the lab derives from the bundled encoder, offline and with no file of their own.

SimCSE's figures start from a raw masked-language model (BERT-base): its sentence vectors crowd into a narrow
cone and the contrastive objective spreads them (Gao, Yao & Chen 2021, Sec. 5; Ethayarajh 2019). The bundled
all-MiniLM-L6-v2 is no such start at its own pooling: sentence-transformers trained its *mean* of token
states contrastively on about a billion pairs, so SimCSE finds the positive from the first step.

Its **[CLS] state** was never trained as a sentence vector (the model was trained with mean pooling and
carries no pooler weights), so read there it is the lab's stand-in for the paper's raw start: on STS-B dev it
scores 0.775 where the mean scores 0.87 (docs/results.md), its vectors are anisotropic, and SimCSE with
[CLS] + MLP in training (the paper's unsup setting, ``--mlp_only_train``) lifts it within a few dozen steps.
It is not a raw MLM: its token states are sentence-trained, which docs/results.md weighs against the paper.

A start is chosen by its :attr:`Start.name` wherever an encoder is (``--encoder minilm-cls``, the sidebars'
*Encoder*); :func:`engine.encoders.loading.resolve_source` loads it from the bundled folder with the pooling
it declares, so that the pooler ``native`` resolves to [CLS] with the MLP in training.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Start:
    """One derived start: ``name`` (what a user types, and what run names show), ``title`` (what a page and a
    model card show), the inference ``pooling`` it declares (:data:`engine.encoders.pooling.POOLERS`) and
    ``about`` (one sentence: what it is, for the sidebar's help and the model card)."""

    name: str
    title: str
    pooling: str
    about: str


MINILM_CLS = Start(
    name="minilm-cls",
    title="all-MiniLM-L6-v2 at [CLS] (not sentence-trained there)",
    pooling="cls_before_pooler",
    about=(
        "the bundled all-MiniLM-L6-v2 read at its [CLS] token, which its mean-pooling training never made a "
        "sentence vector: the lab's stand-in for SimCSE's raw BERT start (anisotropic, STS-B dev 0.775 "
        "against 0.87 at its own mean pooling)"
    ),
)

#: every derived start by name
STARTS: dict[str, Start] = {start.name: start for start in (MINILM_CLS,)}


def start_named(name: object) -> Start | None:
    """The start called ``name`` (case and surrounding spaces ignored), or None."""
    if not isinstance(name, str):
        return None
    return STARTS.get(name.strip().lower())
