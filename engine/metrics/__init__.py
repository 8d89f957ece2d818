"""Geometry and evaluation metrics of embeddings: exact, fast, on numpy arrays or torch tensors (CPU/GPU).

Modules, one concept each:
- ``isoscore``       IsoScore / IsoScore* (Rudman et al. 2022; PyPI IsoScore 2.0.1)
- ``silhouette``     Euclidean silhouette (Rousseeuw 1987; = scikit-learn ``silhouette_score``)
- ``align_uniform``  alignment, uniformity, class alignment (Wang & Isola 2020)
- ``isotropy``       covariance spectrum, effective rank (RankMe), average cosine, partition isotropy
                     (Mu & Viswanath 2018), and ``isotropy_profile`` (all of them in one pass)
- ``correlation``    STS Spearman of cosines vs gold; Pearson/Spearman of two metric series
- ``neighbours``     exact k nearest neighbours (umap-learn ``precomputed_knn`` format)

``silhouette_and_uniformity`` (module ``silhouette``) sums the uniformity in the silhouette's own distance
blocks (one pass for both).

``METRICS`` describes every metric the lab logs (label, explanation, which direction is better, range,
and whether it is one number or a vector), so the UI and the CLI can show them without hard-coding.
"""

from __future__ import annotations

from dataclasses import dataclass

from engine.metrics.align_uniform import alignment, class_alignment, uniformity
from engine.metrics.correlation import pearson, series_correlation, spearman, sts_spearman
from engine.metrics.isoscore import FewSamplesWarning, isoscore, isoscore_cap, isoscore_star
from engine.metrics.isotropy import (
    average_cosine,
    effective_rank,
    isotropy_profile,
    partition_isotropy,
    spectrum,
)
from engine.metrics.neighbours import knn
from engine.metrics.silhouette import silhouette, silhouette_and_uniformity, silhouette_samples

__all__ = [
    "METRICS",
    "FewSamplesWarning",
    "MetricSpec",
    "alignment",
    "average_cosine",
    "class_alignment",
    "effective_rank",
    "isoscore",
    "isoscore_cap",
    "isoscore_star",
    "isotropy_profile",
    "knn",
    "partition_isotropy",
    "pearson",
    "series_correlation",
    "silhouette",
    "silhouette_and_uniformity",
    "silhouette_samples",
    "spearman",
    "spectrum",
    "sts_spearman",
    "uniformity",
]


@dataclass(frozen=True)
class MetricSpec:
    """How to show one metric: ``better`` is "higher", "lower" or "neither" (a profile to read, such as the
    spectrum); ``range`` is (low, high), None = open; ``kind`` is "scalar" (one number per step) or
    "vector" (an array per step, e.g. the d eigenvalues of the spectrum)."""

    name: str
    label: str
    description: str
    better: str
    range: tuple[float | None, float | None]
    kind: str = "scalar"


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
        "class_alignment",
        "Class alignment",
        "Mean squared distance between normalised embeddings of the same class, over all same-class pairs "
        "(Wang & Isola 2020 alignment with same-label pairs as positives): lower = each class sits tighter on "
        "the sphere; 2 = same-class points no closer than random directions.",
        "lower",
        (0.0, 4.0),
    ),
    MetricSpec(
        "spectrum",
        "Covariance spectrum",
        "The eigenvalues of the embeddings' covariance, largest first: a flat spectrum means variance spread "
        "over many directions (isotropic), a steep one means a few directions dominate. SimCSE (Gao et al. "
        "2021) argues contrastive training flattens it; a classifier concentrates it on about as many "
        "directions as classes.",
        "neither",
        (0.0, None),
        "vector",
    ),
    MetricSpec(
        "effective_rank",
        "Effective rank",
        "RankMe (Garrido et al. 2023): exp of the entropy of the normalised singular values of the embedding "
        "matrix (not centred): about how many directions the embeddings really use, from 1 up to the "
        "dimension.",
        "higher",
        (1.0, None),
    ),
    MetricSpec(
        "average_cosine",
        "Average cosine",
        "Mean cosine similarity between two different embeddings: 0 for directions spread around the origin, "
        "near 1 when all point the same way (a common mean vector). Unlike IsoScore it sees the mean vector.",
        "lower",
        (-1.0, 1.0),
    ),
    MetricSpec(
        "partition_isotropy",
        "Partition isotropy",
        "Mu & Viswanath 2018: min over max of the partition function Z(c) = sum of exp(c . x) over the "
        "principal directions c (both signs): 1 = every direction looks the same, near 0 = one direction "
        "(often the mean) dominates.",
        "higher",
        (0.0, 1.0),
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
