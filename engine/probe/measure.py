"""The measures of one logged step of the probe, on the vectors the classifier reads (``E``, or
``[E_p ; E_h]`` per pair in paired mode), with the item labels (multi-label: label sets) as clusters.

Columns (:data:`COLUMNS`), all from :mod:`engine.metrics`:

- every logged step: ``isoscore``, ``silhouette``, ``average_cosine`` and ``alignment``: the class alignment
  (Wang & Isola's alignment with every same-label pair as a positive pair, ``class_alignment``; the column is
  named like SimCSE's so that both experiments share the alignment-uniformity plane). The last two come from
  one O(N d) pass over the unit vectors (``class_unit_sums``);
- every ``geometry_every``-th logged step, the first and the last (*geometry steps*,
  :func:`is_geometry_step`), also ``uniformity`` (of the normalised vectors, summed in the silhouette's own
  distance blocks: ``silhouette_and_uniformity``), RankMe and the partition isotropy I(W), and the
  covariance spectrum (:attr:`Measures.spectrum`, written to ``spectrum.csv``), all from
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

import numpy as np
import torch

from engine.core import measures
from engine.probe.config import ProbeConfig

#: Measured at every logged step.
EVERY_STEP = (measures.ISOSCORE, measures.SILHOUETTE, measures.AVERAGE_COSINE, measures.ALIGNMENT)
#: Measured at geometry steps only (empty cells between): the isotropy family but the average cosine (an
#: O(N d) pass), and the uniformity; the spectrum comes with them.
GEOMETRY = (
    *(name for name in measures.GEOMETRY if name not in EVERY_STEP),
    measures.UNIFORMITY,
)
#: The probe's measure columns of ``metrics.csv``, in their order there.
COLUMNS = (
    measures.ISOSCORE,
    measures.SILHOUETTE,
    *measures.GEOMETRY,
    measures.UNIFORMITY,
    measures.ALIGNMENT,
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


@dataclass(frozen=True)
class Clusters:
    """The silhouette's clusters of the measured items, encoded once (the probe's clusters never change):
    ``codes`` 0..k-1 (int64, on the points' device), ``k`` and ``counts`` (float64 class sizes)."""

    codes: torch.Tensor
    k: int
    counts: torch.Tensor


def encode_clusters(clusters: torch.Tensor) -> Clusters:
    """``clusters`` (n ids, or n label-indicator rows) as :class:`Clusters`, with the silhouette's check
    (2 <= k <= n - 1). ``torch.unique`` and ``bincount`` wait for the device: done once per run (per logged
    step with a sample), not inside the measures."""
    from engine.core.errors import ConfigError
    from engine.metrics._inputs import encode_labels

    n = clusters.shape[0]
    codes, k = encode_labels(clusters, n, clusters.device)
    if not 1 < k < n:
        raise ConfigError(
            f"silhouette needs 2 to n_samples - 1 distinct labels; got {k} label(s) for {n} samples"
        )
    return Clusters(codes, k, torch.bincount(codes, minlength=k).to(torch.float64))


@dataclass(frozen=True)
class DeviceMeasures:
    """One logged step's measures still on the device: ``values`` by column (0-dim float64 tensors; None:
    not measured at this step), the ``spectrum`` (1-D, geometry steps), the sampled ``rows`` (host, sorted;
    None: all items) and the deferred finiteness ``checks`` (``engine.metrics._inputs``)."""

    values: dict[str, torch.Tensor | None]
    spectrum: torch.Tensor | None
    rows: np.ndarray | None
    checks: list


def measure(
    points: torch.Tensor,
    clusters: torch.Tensor,
    config: ProbeConfig,
    side: ThreadPoolExecutor | None = None,
    step: int = 0,
) -> Measures:
    """The measures of ``points`` (items x d) with cluster ids ``clusters`` at the logged ``step``."""
    found = measure_tensors(points, clusters, config, side, step, defer=False)
    values = {name: None if value is None else float(value.item()) for name, value in found.values.items()}
    spectrum = None if found.spectrum is None else found.spectrum.cpu().numpy()
    return Measures(values, spectrum, found.rows)


def measure_tensors(
    points: torch.Tensor,
    clusters: torch.Tensor | Clusters,
    config: ProbeConfig,
    side: ThreadPoolExecutor | None = None,
    step: int = 0,
    defer: bool = True,
) -> DeviceMeasures:
    """The measures of ``points`` at the logged ``step`` as tensors on their device, in one pass over the
    functions of :mod:`engine.metrics` (the same computations as the public functions, which the tests
    compare with their references). ``clusters``: raw ids (encoded here) or :class:`Clusters` of all items
    (encoded once by the caller; re-encoded for a sample). ``defer``: the finiteness checks go into
    ``checks`` instead of being read now; on the every-step path nothing is then read from the device
    (geometry steps: the eigensolvers and the covariance check still read, once per geometry step)."""
    from engine.metrics._inputs import as_matrix
    from engine.metrics.isoscore import warn_if_few_samples
    from engine.metrics.silhouette import silhouette_values

    points = as_matrix(points, check_finite=False)  # float32/float64 as they are (no copy)
    rows = sample_rows(points.shape[0], config, step)
    raw = clusters.codes if isinstance(clusters, Clusters) else clusters
    if rows is not None:
        index = torch.from_numpy(rows).to(points.device)
        points, raw = points[index], raw[index]
    encoded = clusters if isinstance(clusters, Clusters) and rows is None else encode_clusters(raw)
    warn_if_few_samples(*points.shape)
    geometry = is_geometry_step(step, config)
    checks: list | None = [] if defer else None
    side_checks: list | None = [] if defer else None
    pending = side.submit(_beside, points, encoded, geometry, side_checks) if side is not None else None
    per_point, uniform = silhouette_values(
        points, encoded.codes, encoded.k, encoded.counts, 2.0 if geometry else None, checks
    )
    sil = per_point.mean()
    found = pending.result() if pending is not None else _beside(points, encoded, geometry, side_checks)
    spectrum = found.pop(measures.SPECTRUM, None)
    values: dict[str, torch.Tensor | None] = dict.fromkeys(COLUMNS)
    values.update(found, silhouette=sil, uniformity=uniform)
    return DeviceMeasures(values, spectrum, rows, [*(checks or ()), *(side_checks or ())])


def _beside(
    points: torch.Tensor, clusters: Clusters, geometry: bool, checks: list | None
) -> dict[str, torch.Tensor]:
    """IsoScore, with the rest of the isotropy profile on geometry steps (one float64 covariance pass gives
    both: ``isotropy_profile``) or the unit-vector sums on the other steps (average cosine and class
    alignment from one O(N d) pass)."""
    from engine.metrics.align_uniform import class_alignment_tensor, class_unit_sums
    from engine.metrics.isoscore import isoscore_of_covariance, mean_and_covariance
    from engine.metrics.isotropy import average_cosine_tensor, profile_tensors

    if geometry:  # the eigensolvers read from the device anyway: the covariance check is not deferred
        profile = profile_tensors(points, clusters.codes, clusters.k, clusters.counts)
        profile[measures.ALIGNMENT] = profile.pop(measures.CLASS_ALIGNMENT)
        return profile
    # isoscore(points): the participation ratio of the covariance (float32 products, float64 sums)
    cov = mean_and_covariance(points, checks=checks)[1]
    sums, nonzero, counts = class_unit_sums(points, clusters.codes, clusters.k, clusters.counts, checks)
    return {
        measures.ISOSCORE: isoscore_of_covariance(cov),
        measures.AVERAGE_COSINE: average_cosine_tensor(sums.sum(dim=0), nonzero.sum(), points.shape[0]),
        measures.ALIGNMENT: class_alignment_tensor(sums, nonzero, counts),
    }
