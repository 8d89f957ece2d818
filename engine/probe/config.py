"""Settings of one probe run (``python -m engine probe``), each declared once (:mod:`engine.core.knobs`): the
CLI flags, the Isotropy page's sidebar, the checks and the settings table are made from these declarations;
the knobs the probe shares with the other experiments are declared in :mod:`engine.core.shared_knobs`."""

from __future__ import annotations

from dataclasses import dataclass

from engine.core.errors import ConfigError
from engine.core.knobs import knob, validate
from engine.core.shared_knobs import shared

MAX_STEPS = 1_000_000
OBJECTIVES = ("classifier", "triplet")


@dataclass
class ProbeConfig:
    """Settings of one probe run (CLI: ``python -m engine probe``)."""

    data: str = knob(
        "demo",
        help="built-in name (demo, rt-polarity, snli, wordnet-pos, wordnet-supersenses, ...), a file, "
        "or an .npz of embeddings and labels",
        widget="page",
        recorded=True,
        data_file=True,
        composed="text",
    )
    data_dir: str | None = shared("data_dir")
    text_col: str | None = knob(None, help="text column of a user file", label="Text column", widget="page")
    label_col: str | None = knob(
        None,
        help="label column (demo: 'sentiment' for polarity labels)",
        label="Label column",
        widget="page",
        composed="demo-label",
    )
    split: str | None = knob(None, help="split of the data set where it has several (e.g. snli: validation)")
    encoder: str | None = shared(
        "encoder",
        composed=None,
        override="the Isotropy page's encoder picker is neither a preset's nor a link's",
    )
    pooling: str | None = knob(None, help="override the encoder's pooling (cls, cls_before_pooler, avg, ...)")
    steps: int = shared(
        "steps",
        1000,
        high=MAX_STEPS,
        unit="updates",
        help="Full-batch Adam updates of the embeddings and the classifier.",
        label="Steps (Adam updates)",
        override="a probe step is one full-batch update of the embeddings, not a training batch: the paper's "
        "1,000 by default, at most 1,000,000",
    )
    lr: float = shared(
        "lr",
        1e-3,
        high=10.0,
        what="learning rate",
        help="Adam's step size (the paper: 1e-3). Too high and the loss diverges.",
        override="the probe moves the embeddings themselves with Adam (Mickus et al. 2024: 1e-3), not an "
        "encoder's weights with AdamW",
    )
    metric_every: int = knob(
        1,
        low=1,
        high=MAX_STEPS,
        unit="steps",
        help="Measure every k steps (and at the first and last).",
        label="Metrics every k steps",
        widget="number",
        named=False,
        recorded=True,
    )
    sample_size: int | None = knob(
        None,
        low=2,
        high=10_000_000,
        zero="all items",
        unit="items",
        help="Every geometry measure (IsoScore, silhouette, spectrum, effective rank, average cosine, I(W), "
        "alignment, uniformity) on a seeded sample of this many items, a fresh one at each logged step; "
        "0: on all items, exactly.",
        label="Geometry sample size (0 = all items)",
        widget="number",
        step=500,
    )
    limit: int | None = knob(
        None,
        low=2,
        high=10_000_000,
        zero="all",
        unit="items",
        help="A stratified, seeded subset of the data of this many items; it must leave more items than "
        "classes.",
        label="Limit (items, 0 = all)",
        widget="number",
        step=100,
    )
    seed: int = shared("seed")
    device: str = shared("device")
    snapshot_every: int = shared("snapshot_every")
    snapshot_limit: int = knob(
        2000,
        low=2,
        high=1_000_000,
        unit="items",
        help="A seeded subset of the items kept in the snapshots and the film.",
        label="Points projected",
        widget="number",
        step=500,
        named=False,
    )
    vectors: str | None = knob(
        None,
        help="word2vec/GloVe text file of word vectors for word-level data (default: the encoder's input "
        "embedding table, one-piece words)",
        data_file=True,
    )
    objective: str = knob(
        "classifier",
        choices=OBJECTIVES,
        help="classifier: a linear classifier on the embeddings (the paper; CE, or per-label BCE). "
        "triplet: no classifier; a same-label positive must be closer than a negative by the margin, "
        "triples drawn afresh every update (the paper's Appendix B).",
        label="Objective",
        widget="select",
    )
    margin: float = knob(
        1.0,
        low=0.0,
        high=1e6,
        help="The triplet margin: how much closer (Euclidean distance) the positive must be than the "
        "negative (PyTorch's TripletMarginLoss default: 1).",
        label="Triplet margin",
        widget="number",
        step=0.1,
    )
    #: 10 keeps them under 10 % of the probe's metric work (engine.probe.measure)
    geometry_every: int = knob(
        10,
        low=0,
        high=MAX_STEPS,
        unit="logged steps",
        help="The spectrum, effective rank, I(W) and uniformity on every k-th logged step (and the first and "
        "last); 0: never; 1: at every logged step, at a cost.",
        label="Spectrum every k logged steps (0 = never)",
        widget="number",
        named=False,
    )
    fixed_sample: bool = knob(
        False,
        help="With a geometry sample size: one sample (step 0's) for the whole run instead of a fresh one "
        "per logged step, so that the measures follow the same items.",
        label="Fixed sample",
        widget="checkbox",
    )

    lecture_pace: bool = knob(
        False,
        help="For a class: the page plays the logged steps over about 25 s of wall clock, with a step "
        "counter (the training runs at full speed; a slower run is shown as its rows come). Off: drawn as "
        "fast as it trains.",
        label="Lecture pace (about 25 s a run)",
        widget="toggle",
    )

    def __post_init__(self) -> None:
        validate(self)
        if self.fixed_sample and self.sample_size is None:
            raise ConfigError("fixed_sample keeps one sample for the whole run: it needs a sample_size")
