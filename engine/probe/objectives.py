"""What the probe minimises: the paper's classification losses, or (Appendix B) a triplet loss.

- ``classifier`` (the paper, section 3): a linear classifier on the embeddings; cross-entropy for single
  labels, mean per-label binary cross-entropy for multi-label sets
  (:func:`engine.probe.model.loss_and_accuracy`).
  Logged: ``loss``, ``accuracy`` (exact match; multi-label: the whole label set) and ``micro_f1``.
- ``triplet`` (Appendix B, an open question): no classifier; the embeddings alone minimise
      L = mean over anchors a of max(0, ||x_a - x_p|| - ||x_a - x_n|| + margin)
  with Euclidean distances (the silhouette's) and PyTorch's ``TripletMarginLoss`` default margin 1.0. Every
  item whose cluster (class, or multi-label label set) has another member is an anchor at every update;
  its positive p is drawn uniformly among the other members of its cluster and its negative n uniformly among
  the items of the other clusters, **afresh at every update** (:class:`TripletSampler`).
  Why sampled triples and not batch-hard: Appendix B relates the silhouette to the triplet loss averaged
  over (x, y same class, z another class) triples; a uniform draw per anchor is an unbiased estimate of that
  average (its gradient an unbiased stochastic gradient), in O(N d) per update. Batch-hard (the hardest
  positive and negative of every anchor over the full set) optimises another objective (the worst triples
  only) and needs all N^2 distances at every update, forward and backward: the O(N^2 d) work of an exact
  silhouette (the probe's metric work is ~0.75 s at 10,662 x 384 on this machine, engine.probe.measure) at
  every update, twice, where the sampled triples cost O(N d). Logged: ``loss`` and ``accuracy`` (the fraction
  of triples with d(a, p) < d(a, n)) over one fixed set of triples drawn once (seeded), so that the logged
  curve compares the same triples at every step; ``micro_f1`` is empty.
"""

from __future__ import annotations

from typing import Any

import torch

from engine.core.errors import ConfigError, DataError
from engine.probe.model import EmbeddingClassifier, loss_and_accuracy_tensors, micro_f1_tensor

OBJECTIVES = ("classifier", "triplet")


class ClassifierObjective:
    """The paper's objective: cross-entropy or per-label BCE of the linear classifier."""

    def __init__(self, targets: torch.Tensor, multi_label: bool):
        self.targets, self.multi_label = targets, multi_label

    def loss(self, model: EmbeddingClassifier) -> torch.Tensor:
        loss, _ = loss_and_accuracy_tensors(model(), self.targets, self.multi_label)
        return loss

    def evaluate(self, model: EmbeddingClassifier) -> dict[str, Any]:
        return _numbers(self.evaluate_tensors(model))

    def evaluate_tensors(self, model: EmbeddingClassifier) -> dict[str, torch.Tensor | None]:
        """The logged values as 0-dim tensors on the model's device (no host sync)."""
        logits = model()
        loss, accuracy = loss_and_accuracy_tensors(logits, self.targets, self.multi_label)
        return {
            "loss": loss.detach(),
            "accuracy": accuracy,
            "micro_f1": micro_f1_tensor(logits, self.targets, self.multi_label),
        }


class TripletSampler:
    """Draws one (anchor, positive, negative) triple per anchor; indices are items (rows of the points).

    Items are sorted by cluster once; an item of cluster c sits at sorted position start_c + rank. A positive
    is start_c + (rank + u) mod n_c with u uniform in 1..n_c - 1 (any other member), a negative is sorted
    position v (v < start_c) or v + n_c (v >= start_c) with v uniform in 0..N - n_c - 1 (any non-member).
    Items of single-member clusters are no anchors (they have no positive) but can be negatives."""

    def __init__(self, clusters: torch.Tensor, generator: torch.Generator):
        clusters = clusters.reshape(-1).long()
        n = clusters.numel()
        order = torch.argsort(clusters, stable=True)
        _, inverse, counts = torch.unique(clusters[order], return_inverse=True, return_counts=True)
        if counts.numel() < 2:
            raise DataError("the triplet objective needs at least 2 classes")
        starts = torch.cumsum(counts, 0) - counts
        size, start = counts[inverse], starts[inverse]  # per sorted position
        rank = torch.arange(n, device=clusters.device) - start
        keep = size >= 2
        if not bool(keep.any()):
            raise DataError(
                "the triplet objective needs a class with at least 2 items (every class is a singleton)"
            )
        self.order, self.n = order, n
        self.anchor_pos, self.size, self.start, self.rank = (
            torch.nonzero(keep).reshape(-1),
            size[keep],
            start[keep],
            rank[keep],
        )
        self.generator = generator

    @property
    def n_anchors(self) -> int:
        return self.anchor_pos.numel()

    def _uniform(self, high: torch.Tensor) -> torch.Tensor:
        """Integers uniform in 0..high - 1 (per entry), from float64 draws (exact for high < 2**50). The draws
        come from a CPU generator whatever the device, so a seed gives the same triples on CPU and GPU."""
        draw = torch.rand(high.shape, generator=self.generator, dtype=torch.float64).to(high.device)
        return torch.minimum((draw * high).long(), high - 1)

    def sample(self) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        u = self._uniform(self.size - 1) + 1
        positive = self.start + (self.rank + u) % self.size
        v = self._uniform(self.n - self.size)
        negative = torch.where(v < self.start, v, v + self.size)
        return self.order[self.anchor_pos], self.order[positive], self.order[negative]


def triplet_loss(
    points: torch.Tensor,
    anchors: torch.Tensor,
    positives: torch.Tensor,
    negatives: torch.Tensor,
    margin: float,
) -> tuple[torch.Tensor, float]:
    """Mean of max(0, ||x_a - x_p|| - ||x_a - x_n|| + margin), and the fraction with ||x_a - x_p|| <
    ||x_a - x_n||. The norm's gradient at a zero distance is 0 (PyTorch's subgradient)."""
    loss, accuracy = triplet_loss_tensors(points, anchors, positives, negatives, margin)
    return loss, accuracy.item()


def triplet_loss_tensors(
    points: torch.Tensor,
    anchors: torch.Tensor,
    positives: torch.Tensor,
    negatives: torch.Tensor,
    margin: float,
) -> tuple[torch.Tensor, torch.Tensor]:
    """``triplet_loss`` with the fraction as a 0-dim float32 tensor (no host sync)."""
    anchor = points[anchors]
    d_pos = torch.linalg.vector_norm(anchor - points[positives], dim=1)
    d_neg = torch.linalg.vector_norm(anchor - points[negatives], dim=1)
    loss = torch.clamp_min(d_pos - d_neg + margin, 0.0).mean()
    return loss, (d_pos < d_neg).float().mean()


class TripletObjective:
    """Appendix B's triplet loss on the embeddings themselves, triples drawn afresh at every update."""

    def __init__(self, clusters: torch.Tensor, margin: float, seed: int):
        generator = torch.Generator().manual_seed(seed)  # on the CPU: the same triples on every device
        self.sampler = TripletSampler(clusters, generator)
        self.margin = margin
        self.fixed = self.sampler.sample()  # the logged triples, the same at every step

    def loss(self, model: EmbeddingClassifier) -> torch.Tensor:
        loss, _ = triplet_loss_tensors(model.representations(), *self.sampler.sample(), self.margin)
        return loss

    def evaluate(self, model: EmbeddingClassifier) -> dict[str, Any]:
        return _numbers(self.evaluate_tensors(model))

    def evaluate_tensors(self, model: EmbeddingClassifier) -> dict[str, torch.Tensor | None]:
        """The logged values as 0-dim tensors on the model's device (no host sync)."""
        loss, accuracy = triplet_loss_tensors(model.representations(), *self.fixed, self.margin)
        return {"loss": loss.detach(), "accuracy": accuracy, "micro_f1": None}


def _numbers(values: dict[str, torch.Tensor | None]) -> dict[str, Any]:
    """Tensors as Python floats (None stays None)."""
    return {name: None if value is None else float(value.item()) for name, value in values.items()}


def make_objective(
    name: str, *, targets: torch.Tensor, clusters: torch.Tensor, multi_label: bool, margin: float, seed: int
) -> ClassifierObjective | TripletObjective:
    if name == "classifier":
        return ClassifierObjective(targets, multi_label)
    if name == "triplet":
        return TripletObjective(clusters, margin, seed)
    raise ConfigError(f"unknown objective {name!r}: use one of {', '.join(OBJECTIVES)}")
