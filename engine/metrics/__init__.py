"""Geometry and evaluation metrics of embeddings: exact, fast, on numpy arrays or torch tensors (CPU/GPU).

Modules, one concept each:
- ``isoscore``       IsoScore / IsoScore* (Rudman et al. 2022; PyPI IsoScore 2.0.1)
- ``silhouette``     Euclidean silhouette (Rousseeuw 1987; = scikit-learn ``silhouette_score``)
- ``align_uniform``  alignment, uniformity, class alignment (Wang & Isola 2020)
- ``isotropy``       covariance spectrum, RankMe (the effective rank), average cosine, partition isotropy
                     (Mu & Viswanath 2018), and ``isotropy_profile`` (all of them in one pass)
- ``correlation``    STS Spearman of cosines vs gold; Pearson/Spearman of two metric series
- ``neighbours``     exact k nearest neighbours (umap-learn ``precomputed_knn`` format)
- ``collapse``       α-ReQ (its fit and R²: ``alpha_req_fit``), per-dimension std of the unit embeddings
                     (the collapse lens, with RankMe)

``silhouette_and_uniformity`` (module ``silhouette``) sums the uniformity in the silhouette's own distance
blocks (one pass for both).

How each measure is named, explained and charted is declared once in the measure registry,
:mod:`engine.core.measures` (which imports no torch).
"""

from __future__ import annotations

from engine.metrics.align_uniform import alignment, class_alignment, uniformity
from engine.metrics.collapse import (
    alpha_req,
    alpha_req_fit,
    collapse_profile,
    dim_std,
    dim_std_mean,
    dim_std_min,
)
from engine.metrics.correlation import pearson, series_correlation, spearman, sts_spearman
from engine.metrics.isoscore import FewSamplesWarning, isoscore, isoscore_cap, isoscore_star
from engine.metrics.isotropy import (
    average_cosine,
    isotropy_profile,
    partition_isotropy,
    rankme,
    spectrum,
)
from engine.metrics.neighbours import knn
from engine.metrics.silhouette import silhouette, silhouette_and_uniformity, silhouette_samples

__all__ = [
    "FewSamplesWarning",
    "alignment",
    "alpha_req",
    "alpha_req_fit",
    "average_cosine",
    "class_alignment",
    "collapse_profile",
    "dim_std",
    "dim_std_mean",
    "dim_std_min",
    "isoscore",
    "isoscore_cap",
    "isoscore_star",
    "isotropy_profile",
    "knn",
    "partition_isotropy",
    "rankme",
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
