"""The measures of one logged step of the probe, on the vectors the classifier reads (``E``, or
``[E_p ; E_h]`` per pair in paired mode), with the item labels (multi-label: label sets) as clusters.

Columns (:data:`COLUMNS`), all from :mod:`engine.metrics`:

- every logged step: ``isoscore``, ``silhouette``, ``average_cosine`` and ``alignment``: the class alignment
  (Wang & Isola's alignment with every same-label pair as a positive pair, ``class_alignment``; the column is
  named like SimCSE's so that both experiments share the alignment-uniformity plane). The last two come from
  one O(N d) pass over the unit vectors (``class_unit_sums``);
- every ``geometry_every``-th logged step, the first and the last (*geometry steps*,
  :func:`is_geometry_step`), also ``uniformity`` (of the normalised vectors, summed in the silhouette's own
  distance blocks: ``silhouette_and_uniformity``), ``effective_rank`` (RankMe) and ``partition_isotropy``
  (I(W)), and the covariance spectrum (:attr:`Measures.spectrum`, written to ``spectrum.csv``), all from
  one float64 covariance pass (``isotropy_profile``). On the other logged steps their cells stay empty.

Why geometry steps: at rt-polarity size (10,662 x 384, 2 cores) a probe step's metric work (IsoScore +
silhouette) takes ~0.75 s; measured with ``benchmarks/bench_metrics.py``, the uniformity adds ~10 % of it
and the isotropy profile ~27 % (the partition function alone needs an N x d x d float64 product), the
average cosine and class alignment together ~2 %. Everything every step would add ~40 %; with the default
``geometry_every`` = 10 the added work averages under 10 % (docs/results.md has the figures).

Sampling (``sample_size``, the paper's Appendix A): every measure of a step is taken on the same seeded
random sample of items (:func:`sample_rows`): a fresh sample per logged step, seeded by ``(seed, step)``, or
with ``fixed_sample`` the sample of step 0 for the whole run. The sample's rows are selected first and every
function then runs exactly on them.

Threads (CPU, several cores): the d x d and O(N d) work (IsoScore, the profile, the unit-vector sums) runs on
the ``side`` thread, single-threaded, while the silhouette's worker pool runs here: the pool alone leaves
cores idle at its end, and that small work gains nothing from more threads (measured: the probe on
rt-polarity, 3,000 sentences, went from 18.8 to 23.0 steps/s on two cores with IsoScore beside).
"""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any

import numpy as np
import torch

from engine.probe.config import ProbeConfig

#: Measured at every logged step.
EVERY_STEP = ("isoscore", "silhouette", "average_cosine", "alignment")
#: Measured at geometry steps only (empty cells between); the spectrum comes with them.
GEOMETRY = ("effective_rank", "partition_isotropy", "uniformity")
#: The probe's measure columns of ``metrics.csv``, in their order there.
COLUMNS = (
    "isoscore",
    "silhouette",
    "effective_rank",
    "average_cosine",
    "partition_isotropy",
    "uniformity",
    "alignment",
)


@dataclass(frozen=True)
class Measures:
    """One logged step's measures: ``values`` by column (None: not measured at this step), the covariance
    ``spectrum`` (float64, descending, length d; geometry steps only) and the sampled item ``rows`` the
    measures were taken on (sorted; None: all items)."""

    values: dict[str, float | None]
    spectrum: np.ndarray | None = None
    rows: np.ndarray | None = None


def is_geometry_step(step: int, config: ProbeConfig) -> bool:
    """Whether the logged ``step`` also measures :data:`GEOMETRY` and the spectrum: every
    ``geometry_every``-th logged step (steps 0, k m, 2 k m, ... with m = ``metric_every``) and the last step;
    never when ``geometry_every`` is 0."""
    if not config.geometry_every:
        return False
    return step == config.steps or step % (config.metric_every * config.geometry_every) == 0


def sample_rows(n_items: int, config: ProbeConfig, step: int) -> np.ndarray | None:
    """The items measured at ``step``: None for all of them (no ``sample_size``, or one of at least
    ``n_items``), else ``sample_size`` distinct items, sorted, drawn without replacement by
    ``np.random.default_rng([seed, step])`` (``[seed, 0]`` for every step with ``fixed_sample``)."""
    size = config.sample_size
    if size is None or size >= n_items:
        return None
    generator = np.random.default_rng([config.seed, 0 if config.fixed_sample else int(step)])
    return np.sort(generator.choice(n_items, size=size, replace=False))


def measure(
    points: torch.Tensor,
    clusters: torch.Tensor,
    config: ProbeConfig,
    side: ThreadPoolExecutor | None = None,
    step: int = 0,
) -> Measures:
    """The measures of ``points`` (items x d) with cluster ids ``clusters`` at the logged ``step``."""
    from engine.metrics import silhouette, silhouette_and_uniformity

    rows = sample_rows(points.shape[0], config, step)
    if rows is not None:
        index = torch.from_numpy(rows).to(points.device)
        points, clusters = points[index], clusters[index]
    geometry = is_geometry_step(step, config)

    pending = side.submit(_beside, points, clusters, geometry) if side is not None else None
    if geometry:
        sil, uniform = silhouette_and_uniformity(points, clusters)
    else:
        sil, uniform = silhouette(points, clusters), None
    found = pending.result() if pending is not None else _beside(points, clusters, geometry)
    spectrum = found.pop("spectrum", None)
    values: dict[str, float | None] = dict.fromkeys(COLUMNS)
    values.update(found, silhouette=sil, uniformity=uniform)
    return Measures(values, spectrum, rows)


def _beside(points: torch.Tensor, clusters: torch.Tensor, geometry: bool) -> dict[str, Any]:
    """IsoScore, with the rest of the isotropy profile on geometry steps (one covariance pass gives both) or
    the unit-vector sums on the other steps."""
    from engine.metrics import isoscore, isotropy_profile

    if geometry:
        profile = isotropy_profile(points, clusters)
        return dict(
            isoscore=profile["isoscore"],
            effective_rank=profile["effective_rank"],
            average_cosine=profile["average_cosine"],
            partition_isotropy=profile["partition_isotropy"],
            alignment=profile["class_alignment"],
            spectrum=profile["spectrum"],
        )
    return {"isoscore": isoscore(points), **_cosines(points, clusters)}


def _cosines(points: torch.Tensor, clusters: torch.Tensor) -> dict[str, float]:
    """Average cosine and class alignment from one pass over the unit vectors: with S_c the sum of the unit
    vectors of class c and m_c its non-zero rows, the average cosine is (|sum_c S_c|^2 - sum_c m_c) /
    (N (N - 1)) (``engine.metrics.average_cosine``) and the class alignment ``class_alignment_from_sums``."""
    from engine.metrics._inputs import as_matrix, encode_labels
    from engine.metrics.align_uniform import class_alignment_from_sums, class_unit_sums

    x = as_matrix(points, check_finite=False)
    n = x.shape[0]
    codes, k = encode_labels(clusters, n, x.device)
    sums, nonzero, counts = class_unit_sums(x, codes, k)
    total = sums.sum(dim=0)
    average_cosine = float(((total @ total - nonzero.sum()) / (n * (n - 1))).item())
    return {"average_cosine": average_cosine, "alignment": class_alignment_from_sums(sums, nonzero, counts)}
