"""Settings of one probe run (``python -m engine probe``), checked when made."""

from __future__ import annotations

from dataclasses import dataclass

from engine.validate import require_int, require_number

MAX_STEPS = 1_000_000


@dataclass
class ProbeConfig:
    """Settings of one probe run (CLI: ``python -m engine probe``)."""

    data: str = "demo"
    data_dir: str | None = None
    text_col: str | None = None
    label_col: str | None = None
    split: str | None = None
    encoder: str | None = None
    pooling: str | None = None
    steps: int = 1000
    lr: float = 1e-3
    metric_every: int = 1
    sample_size: int | None = None
    limit: int | None = None
    seed: int = 0
    device: str = "auto"
    snapshot_every: int = 0
    snapshot_limit: int = 2000
    #: word2vec/GloVe text file of static word vectors for word-level data (default: the encoder's input table)
    vectors: str | None = None
    #: "classifier" (the paper: linear classifier, CE / per-label BCE) or "triplet" (Appendix B, no classifier)
    objective: str = "classifier"
    #: the triplet objective's margin (Euclidean distances; PyTorch's TripletMarginLoss default)
    margin: float = 1.0
    #: uniformity, effective rank, partition isotropy and the spectrum every k-th logged step (and at the first
    #: and last); 0: never. 10 keeps them under 10 % of the probe's metric work (engine.probe.measure)
    geometry_every: int = 10
    #: with sample_size: one sample (step 0's) for the whole run instead of a fresh one per logged step
    fixed_sample: bool = False

    def __post_init__(self) -> None:
        require_int("steps", self.steps, 1, MAX_STEPS)
        require_int("metric_every", self.metric_every, 1, MAX_STEPS)
        require_int("snapshot_every", self.snapshot_every, 0, MAX_STEPS)
        require_int("snapshot_limit", self.snapshot_limit, 2, 1_000_000)
        if self.sample_size is not None:
            require_int("sample_size", self.sample_size, 2, 10_000_000)
        if self.limit is not None:
            require_int("limit", self.limit, 2, 10_000_000)
        require_int("seed", self.seed, 0, 2**63 - 1)
        self.lr = require_number("learning rate", self.lr, 0.0, 10.0, open_low=True)
        self.margin = require_number("margin", self.margin, 0.0, 1e6)
        if self.objective not in ("classifier", "triplet"):
            from engine.errors import ConfigError

            raise ConfigError(f"objective must be classifier or triplet, got {self.objective!r}")
        require_int("geometry_every", self.geometry_every, 0, MAX_STEPS)
        if not isinstance(self.fixed_sample, bool):
            from engine.errors import ConfigError

            raise ConfigError(f"fixed_sample must be true or false, got {self.fixed_sample!r}")
        if self.fixed_sample and self.sample_size is None:
            from engine.errors import ConfigError

            raise ConfigError("fixed_sample keeps one sample for the whole run: it needs a sample_size")
