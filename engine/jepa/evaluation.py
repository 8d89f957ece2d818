"""The evaluation of a JEPA run: the training core's (:mod:`engine.training.evaluation`: alignment,
uniformity, STS Spearman, the isotropy family and its spectrum, the probe lens) plus the collapse lens on the
evaluation sentences (:mod:`engine.metrics.collapse`): ``alpha_req`` from the same covariance spectrum, and
the per-dimension std of the unit embeddings (``dim_std_mean``, ``dim_std_min``). RankMe comes with the
isotropy family."""

from __future__ import annotations

from typing import Any

import numpy as np

from engine.training.evaluation import Evaluator


class CollapseEvaluator(Evaluator):
    """The training core's evaluator with the collapse lens added to the evaluation sentences' family."""

    def _family(self, points: np.ndarray, prefix: str = "") -> tuple[dict[str, Any], np.ndarray | None]:
        from engine.metrics import collapse_profile

        values, spectrum = super()._family(points, prefix)
        if not prefix:
            values.update(collapse_profile(points, spectrum))
        return values, spectrum
