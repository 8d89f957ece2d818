"""The knobs that several experiments share, each declared once (:mod:`engine.core.knobs`).

The data folder, the encoder, the device, the seed, the steps, the learning rate and the snapshots are knobs
of every experiment; the training set, the views' dropout and rate, the pooler, the batch, the length, the
evaluation, the labelled set and the precision are those of the experiments that train an encoder on views of
sentences (SimCSE, JEPA: :mod:`engine.training`). :class:`Shared` declares each of them once; a config takes
its copy with :func:`shared` (``seed: int = shared("seed")``), so that the CLI flag, the widget, the check and
the settings row are the same in every experiment. An experiment whose copy differs passes the changes with
the reason (``shared("steps", 1000, high=..., override="why")``); ``tests/core/test_knobs_shared.py`` fails on
a copy that differs without one.

This module imports no numeric library: the probe's config reads it too.
"""

from __future__ import annotations

import dataclasses
import typing
from dataclasses import dataclass
from typing import Any

from engine.core.knobs import Knob, knob, knob_of

#: the most steps of a run (and of the every-k-steps knobs)
MAX_STEPS = 10_000_000
#: ``precision`` values: ``auto`` uses mixed precision where the hardware runs it natively, ``fp32`` never
PRECISIONS = ("auto", "fp32")
#: the pooler that reads the encoder's own pooling from its configuration (:mod:`engine.training.encoder`)
NATIVE = "native"
#: the other poolers -> (the encoder's inference pooling, whether an MLP is used in training)
POOLER_CHOICES: dict[str, tuple[str, bool]] = {
    "cls": ("cls_before_pooler", True),
    "cls-mlp": ("cls", True),
    "avg": ("avg", False),
}
#: the views' dropout p and the augmentation rate k: default and range (:mod:`engine.training.augment`)
DROPOUT_P = (0.1, 0.0, 0.9)
AUGMENT_RATE = (0.1, 0.0, 0.9)
#: the options the device field offers (any ``cuda:N`` can be typed on the command line)
DEVICE_OPTIONS = ("auto", "cpu", "cuda", "mps")


@dataclass
class Shared:
    """The declarations themselves: never a run's config, the source of every experiment's copy."""

    # ------------------------------------------------------------------------------ every experiment
    data_dir: str | None = knob(
        None,
        help="folder of real data sets (default: $EMBEDLAB_DATA_DIR, else ../shared/data beside the lab)",
        label="Data folder (real data sets)",
        preset=False,
        widget="page",
        named=False,
    )
    encoder: str | None = knob(
        None,
        help="the encoder (where a training run starts from): the bundled all-MiniLM-L6-v2 (default), its "
        "[CLS] start minilm-cls (engine.encoders.starts), a saved or cached name, a folder or a hub id",
        label="Encoder",
        widget="page",  # a preset may set it: SimCSE Figure 2 starts from minilm-cls
        composed="encoder",
    )
    device: str = knob(
        "auto",
        help="auto (CUDA, else Apple MPS, else CPU), cpu, mps or cuda[:N] (under torchrun each process takes "
        "cuda:LOCAL_RANK)",
        label="Device",
        widget="select",
        options=DEVICE_OPTIONS,
        preset=False,
        named=False,
    )
    #: at most 2**32 − 1: the seeds made from it (a step's, seed × 1,000,003 + step) stay in torch's 64 bits
    seed: int = knob(
        0,
        low=0,
        high=2**32 - 1,
        help="Fixes the random choices (subsets, initialisation, samples, dropout masks).",
        label="Seed",
        widget="number",
        step=1,
        preset=False,
    )
    #: 100, not 250: 250 steps at batch 64 take about 6 minutes on a 2-core CPU, too long for the app's
    #: default run (docs/performance.md: 1.17 s a step)
    steps: int = knob(
        100,
        low=1,
        high=MAX_STEPS,
        unit="steps",
        help="Training steps.",
        label="Steps",
        widget="number",
        step=50,
        recorded=True,
    )
    lr: float = knob(
        3e-5,
        low=0.0,
        high=1.0,
        open_low=True,
        help="AdamW's step size, decayed linearly to 0 (SimCSE's paper: 3e-5).",
        label="Learning rate",
        widget="number",
        fmt="%.0e",
        recorded=True,
    )
    snapshot_every: int = knob(
        0,
        low=0,
        high=MAX_STEPS,
        unit="steps",
        help="Keeps the embeddings of the projected items (a trained encoder's: the labelled set, else the "
        "evaluation sentences) every k steps for the projection and its film (0: never).",
        label="UMAP frame every k steps (0 = off)",
        widget="number",
        step=1,
        named=False,
    )

    # ----------------------------------------------------------- training an encoder (SimCSE, JEPA)
    train: str | None = knob(
        None,
        help="training set: wiki1m, snli, demo, demo-nli or a file (default: wiki1m/snli if present)",
        widget="page",
        recorded=True,
        data_file=True,
    )
    dropout: float = knob(
        DROPOUT_P[0],
        low=DROPOUT_P[1],
        high=DROPOUT_P[2],
        help="Both views pass through standard dropout with rate p; p = 0 is 'no dropout' (the two views are "
        "identical).",
        label="Dropout p (0 = off)",
        widget="slider",
        step=0.01,
        recorded=True,
    )
    augment_rate: float = knob(
        AUGMENT_RATE[0],
        low=AUGMENT_RATE[1],
        high=AUGMENT_RATE[2],
        help="k for crop / word-deletion: the fraction of the words affected",
        label="k (fraction of words)",
        widget="slider",
        step=0.05,
    )
    pooler: str = knob(
        NATIVE,
        choices=(NATIVE, *POOLER_CHOICES),
        help="native: the encoder's own pooling (its sentence-transformers config; cls when it has none, "
        "engine.training.encoder); cls: [CLS] + MLP in training only; cls-mlp: MLP kept; avg: mean of tokens",
        recorded=True,
    )
    batch_size: int = knob(
        64,
        low=2,
        high=1 << 16,
        unit="sentences",
        help="Sentences per step, whatever the number of processes.",
        label="Batch size",
        widget="number",
        recorded=True,
    )
    max_len: int = knob(32, low=4, high=8192, unit="tokens", help="max tokens per sentence")
    eval: str | None = knob(
        None,
        help="evaluation pairs (default: stsb dev if present, else demo-pairs)",
        recorded=True,
        data_file=True,
    )
    eval_limit: int | None = knob(
        250,
        low=2,
        high=100_000_000,
        zero="all",
        unit="pairs",
        help="A fixed subset of the evaluation pairs, the same for every seed.",
        label="STS pairs evaluated (0 = all)",
        widget="number",
        step=50,
        named=False,
        recorded=True,
    )
    eval_every: int = knob(
        10,
        low=1,
        high=MAX_STEPS,
        unit="steps",
        help="Evaluate every k steps (and at the first and last).",
        label="Evaluate every k steps",
        widget="number",
        named=False,
        recorded=True,
    )
    probe: str | None = knob(
        None,
        help="labelled set (e.g. demo) for the labelled-set silhouette / IsoScore",
        widget="page",
        named=False,
        data_file=True,
        composed="switch",
    )
    probe_limit: int | None = knob(
        600,
        low=2,
        high=100_000_000,
        zero="all",
        unit="items",
        help="stratified subset of the labelled set",
        named=False,
    )
    train_limit: int | None = knob(
        None, low=2, high=100_000_000, zero="all", unit="items", help="seeded subset of the training data"
    )
    precision: str = knob(
        "auto",
        choices=PRECISIONS,
        help="auto: the forward in bf16 autocast on CUDA and on CPUs with native bf16 (AVX512-BF16/AMX), "
        "evaluation in float32; fp32: float32 everywhere",
        named=False,
    )


def declaration(name: str) -> Knob:
    """The shared declaration of knob ``name`` (KeyError: not a shared knob)."""
    return knob_of(Shared, name)


NAMES = tuple(field.name for field in dataclasses.fields(Shared))


def shared(name: str, default: Any = dataclasses.MISSING, *, override: str = "", **changes: Any) -> Any:
    """A config field declared as the shared knob ``name``; ``default`` and ``changes`` (any argument of
    :func:`~engine.core.knobs.knob`) differ from the declaration only with ``override``, the reason why."""
    spec = dict(next(f for f in dataclasses.fields(Shared) if f.name == name).metadata["knob"])
    if default is not dataclasses.MISSING:
        changes["default"] = default
    if changes and not override:
        raise TypeError(f"the shared knob {name!r} differs ({', '.join(changes)}): say why with override=")
    spec.update(changes, override=override)
    return knob(spec.pop("default"), **spec)


def shared_block(name: str, names: str) -> type:
    """A dataclass of the shared knobs ``names`` (separated by white space), in that order, each as
    :func:`shared` declares it: a config's base for the knobs it takes unchanged. A config that lists it
    after the base of its own knobs (``class C(block, Own)``) has its own knobs first, then these; a field
    that the config declares again (an override) keeps its place among them."""
    hints = typing.get_type_hints(Shared)
    return dataclasses.make_dataclass(name, [(each, hints[each], shared(each)) for each in names.split()])
