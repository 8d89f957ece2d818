"""The evaluation of an encoder in training (SimCSE, JEPA): the Figure-2 metrics of the current encoder (Gao,
Yao & Chen 2021, Figure 2, after Wang & Isola 2020) and the isotropy family of its embedding space.

On the evaluation pairs (STS-B dev, or the demo pairs without a data folder):
- ``alignment`` on the pairs with gold > 4, ``uniformity`` over all evaluation sentences, ``sts_spearman``
  of the pairs' cosines against gold;
- the isotropy family over all evaluation sentences, from one float64 covariance pass
  (:func:`engine.metrics.isotropy_profile`): IsoScore (Rudman et al. 2022) and
  :data:`engine.core.measures.GEOMETRY` (RankMe, Garrido et al. 2023; the average cosine, Ethayarajh 2019; the
  partition isotropy, Mu & Viswanath 2018), and the covariance spectrum (eigenvalues, descending, length
  d; written to ``spectrum.csv``): SimCSE reads the flattening of this spectrum as what the contrastive
  objective does (Gao et al. 2021, Sec. 5);
- with a labelled set: ``probe_silhouette`` and the same family as ``probe_<name>``.

The evaluation sentences (and the probe's) are tokenised once, length-sorted into batches padded to their
own longest sentence; each evaluation only runs the forward passes, in inference mode and in the run's
precision (``precision``: bf16 autocast where the run trains in it, :mod:`engine.compute.device`; the metrics
themselves are float32/float64). On the Figure-2 preset bf16 forwards are 1.9x faster than float32 here,
and the STS of the same encoders differs by at most 0.2 points (docs/results.md).
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

import numpy as np

from engine.core import measures
from engine.training.config import GEOMETRY_COLUMNS
from engine.training.data import EvalSet

EVAL_BATCH = 128  # evaluation sentences per forward (fewer, larger ops beat 32/64 on the loaded 2 cores);
# the stop flag is looked at between two batches


def geometry(points: np.ndarray) -> tuple[dict[str, float], np.ndarray]:
    """IsoScore and :data:`~engine.training.config.GEOMETRY_COLUMNS` of ``points`` (N, d), and their
    covariance spectrum, from one :func:`engine.metrics.isotropy_profile` pass (keyed by the measures'
    names; values equal the single functions')."""
    from engine.metrics import isotropy_profile

    profile = isotropy_profile(points)
    values = {name: float(profile[name]) for name in (measures.ISOSCORE, *GEOMETRY_COLUMNS)}
    return values, np.asarray(profile[measures.SPECTRUM], dtype=np.float64)


class Evaluator:
    """The metrics of the module docstring for the current encoder; built once per run, called at every
    evaluation. ``geometry=False`` leaves the isotropy family but IsoScore out (to measure its cost)."""

    def __init__(
        self,
        encoder: Any,
        evalset: EvalSet,
        probe: Any = None,
        geometry: bool = True,
        precision: str = "fp32",
    ):
        self.encoder, self.evalset, self.probe, self.geometry = encoder, evalset, probe, geometry
        self.precision = precision
        self.device = next(encoder.model.parameters()).device
        self.tokens = encoder.pretokenize(evalset.sentences, batch_size=EVAL_BATCH)
        self.labelled_tokens = (
            None if probe is None else encoder.pretokenize(list(probe.texts), batch_size=EVAL_BATCH)
        )
        self.labelled_classes = None if probe is None else [str(label) for label in probe.labels]

    def _family(self, points: np.ndarray, prefix: str = "") -> tuple[dict[str, Any], np.ndarray | None]:
        from engine.metrics import isoscore

        if not self.geometry:
            return {f"{prefix}isoscore": isoscore(points)}, None
        values, spectrum = geometry(points)
        return {f"{prefix}{name}": value for name, value in values.items()}, spectrum

    def _encode(
        self, tokens: Any, stop: threading.Event, progress: Callable[[int, int], None] | None = None
    ) -> np.ndarray | None:
        """Float32 vectors of pretokenised sentences, the forwards in the run's precision."""
        from engine.compute.device import autocast

        with autocast(self.device, precision=self.precision):
            return self.encoder.encode_tokenized(tokens, stop.is_set, progress)

    @property
    def sentences(self) -> int:
        """The sentences one evaluation encodes: the evaluation pairs' and the probe's."""
        return self.tokens.count + (self.labelled_tokens.count if self.labelled_tokens is not None else 0)

    def __call__(
        self, stop: threading.Event, progress: Callable[[int, int], None] | None = None
    ) -> dict[str, Any] | None:
        """The metrics, with the embeddings under ``_points`` (the probe's when there is one: what snapshots
        show) and the evaluation sentences' spectrum under ``_spectrum``; None when ``stop`` is set during
        the encoding of the evaluation sentences. ``progress(done, total)``: the sentences encoded so far of
        :attr:`sentences`, after each batch."""
        from engine.metrics import alignment, silhouette, sts_spearman, uniformity

        total, first = self.sentences, self.tokens.count
        counted = None if progress is None else (lambda done, _: progress(done, total))
        then = None if progress is None else (lambda done, _: progress(first + done, total))
        evalset = self.evalset
        emb = self._encode(self.tokens, stop, counted)
        if emb is None:
            return None
        a, b = emb[evalset.left], emb[evalset.right]
        positive = evalset.gold > 4.0
        family, spectrum = self._family(emb)
        out: dict[str, Any] = {
            "alignment": alignment(a[positive], b[positive]) if positive.any() else None,
            "uniformity": uniformity(emb),
            "sts_spearman": sts_spearman(a, b, evalset.gold),
            **family,
            "_points": emb,
            "_spectrum": spectrum,
        }
        if self.labelled_tokens is not None:
            labelled_emb = self._encode(self.labelled_tokens, stop, then)
            if labelled_emb is None:
                return out
            labelled_family, _ = self._family(labelled_emb, "probe_")
            out.update(
                probe_silhouette=silhouette(labelled_emb, self.labelled_classes),
                **labelled_family,
                _points=labelled_emb,
            )
        return out


def evaluate(encoder: Any, evalset: EvalSet, probe: Any, stop: threading.Event) -> dict[str, Any] | None:
    """One evaluation with a fresh :class:`Evaluator` (a run builds one and calls it at every evaluation)."""
    return Evaluator(encoder, evalset, probe)(stop)
