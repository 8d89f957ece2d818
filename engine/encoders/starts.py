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


# ------------------------------------------------------------------------------ raw BERT starts (issue 58)

#: raw masked-language-model BERTs, the paper's kind of start (Gao et al. 2021 train from BERT-base): the
#: full Figure 2 preset's (``bert-base-uncased``, the paper's) and its lecture version's (a 4-layer, 256-wide
#: one of Turc et al. 2019's small BERTs, fast enough for a class on a CPU)
RAW_FULL = "bert-base-uncased"
RAW_LECTURE = "google/bert_uncased_L-4_H-256_A-4"
RAW_STARTS = (RAW_FULL, RAW_LECTURE)
#: the starts a raw-start preset may use: a run from any of them is that preset's run
RAW_OR_STAND_IN = (*RAW_STARTS, MINILM_CLS.name)


@dataclass(frozen=True)
class Chosen:
    """The start a preset uses: ``encoder`` (its runs' encoder field) and ``why``, one line for the page."""

    encoder: str
    why: str

    @property
    def raw(self) -> bool:
        """Whether it is a raw MLM BERT (else the lab's stand-in, :data:`MINILM_CLS`)."""
        return self.encoder in RAW_STARTS


def raw_or_stand_in(repo_id: str) -> Chosen:
    """``repo_id`` (a raw BERT of :data:`RAW_STARTS`) where the local Hugging Face cache holds it whole or the
    hub answers for it (:mod:`engine.core.hub`: the cache first, never the network when ``HF_HUB_OFFLINE``),
    else :data:`MINILM_CLS`; with the reason in one line."""
    from engine.core import hub

    if hub.cached_model(repo_id) is not None:
        return Chosen(
            repo_id, f"Start: {repo_id}, a raw MLM BERT as in the paper, from the local Hugging Face cache."
        )
    if hub.can_download(repo_id):
        return Chosen(
            repo_id, f"Start: {repo_id}, a raw MLM BERT as in the paper, from the Hugging Face hub."
        )
    reason = "the hub is off (HF_HUB_OFFLINE)" if hub.is_offline() else "the hub cannot be reached"
    return Chosen(
        MINILM_CLS.name,
        f"Start: {MINILM_CLS.name}, the lab's stand-in for a raw BERT: {repo_id} is not in the local Hugging "
        f"Face cache and {reason}.",
    )
