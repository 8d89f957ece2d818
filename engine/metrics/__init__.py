"""Geometry and evaluation metrics of embeddings: exact, fast, on numpy arrays or torch tensors (CPU/GPU).

Modules, one concept each:
- ``isoscore``       IsoScore / IsoScore* (Rudman et al. 2022; PyPI IsoScore 2.0.1)
- ``silhouette``     Euclidean silhouette (Rousseeuw 1987; = scikit-learn ``silhouette_score``)
- ``align_uniform``  alignment and uniformity (Wang & Isola 2020)
- ``correlation``    STS Spearman of cosines vs gold; Pearson/Spearman of two metric series
- ``neighbours``     exact k nearest neighbours (umap-learn ``precomputed_knn`` format)

``METRICS`` describes every metric the lab logs (label, explanation, which direction is better, range),
so the UI and the CLI can show them without hard-coding.
"""

from __future__ import annotations

from dataclasses import dataclass

from engine.metrics.align_uniform import alignment, uniformity
from engine.metrics.correlation import pearson, series_correlation, spearman, sts_spearman
from engine.metrics.isoscore import FewSamplesWarning, isoscore, isoscore_cap, isoscore_star
from engine.metrics.neighbours import knn
from engine.metrics.silhouette import silhouette, silhouette_samples

__all__ = [
    "METRICS",
    "FewSamplesWarning",
    "MetricSpec",
    "alignment",
    "isoscore",
    "isoscore_cap",
    "isoscore_star",
    "knn",
    "pearson",
    "series_correlation",
    "silhouette",
    "silhouette_samples",
    "spearman",
    "sts_spearman",
    "uniformity",
]


@dataclass(frozen=True)
class MetricSpec:
    """How to show one metric: ``better`` is "higher" or "lower"; ``range`` is (low, high), None = open."""

    name: str
    label: str
    description: str
    better: str
    range: tuple[float | None, float | None]


_SPECS = [
    MetricSpec(
        "isoscore",
        "IsoScore",
        "How evenly the embeddings use all dimensions: 1 = isotropic (equal variance in every direction), "
        "0 = all variance along one direction; k equally used dimensions score (k-1)/(d-1). "
        "Rudman et al. 2022 (IsoScore 2.0.1).",
        "higher",
        (0.0, 1.0),
    ),
    MetricSpec(
        "silhouette",
        "Silhouette",
        "How well the labelled classes form separate clusters: for each point, (b - a)/max(a, b) with a the "
        "mean distance to its own class and b to the nearest other class, averaged; 1 = tight, far-apart "
        "clusters, 0 = overlapping, < 0 = points closer to another class. Rousseeuw 1987 (scikit-learn).",
        "higher",
        (-1.0, 1.0),
    ),
    MetricSpec(
        "alignment",
        "Alignment",
        "Mean squared distance between normalised embeddings of positive pairs (e.g. STS-B pairs scored > 4): "
        "lower = paired sentences land closer together. Wang & Isola 2020.",
        "lower",
        (0.0, 4.0),
    ),
    MetricSpec(
        "uniformity",
        "Uniformity",
        "log of the mean exp(-2 squared distance) over all pairs of normalised embeddings: lower = the points "
        "spread more evenly over the sphere. Wang & Isola 2020.",
        "lower",
        (-4.0, 0.0),
    ),
    MetricSpec(
        "sts_spearman",
        "STS Spearman",
        "Spearman rank correlation between the cosine similarity of each sentence pair and its human "
        "similarity score (STS-B); SimCSE reports it x 100.",
        "higher",
        (-1.0, 1.0),
    ),
    MetricSpec(
        "loss",
        "Loss",
        "The training objective (cross-entropy for the classifier probe and for SimCSE's contrastive loss).",
        "lower",
        (0.0, None),
    ),
    MetricSpec(
        "accuracy",
        "Accuracy",
        "Share of training examples the linear classifier labels correctly.",
        "higher",
        (0.0, 1.0),
    ),
]

METRICS: dict[str, MetricSpec] = {spec.name: spec for spec in _SPECS}
