"""The METRICS registry (engine/metrics/__init__.py) that the UI reads labels and explanations from."""

from __future__ import annotations

import engine.metrics as metrics


def test_registry_covers_the_logged_metrics() -> None:
    wanted = {"isoscore", "silhouette", "alignment", "uniformity", "sts_spearman", "loss", "accuracy"}
    assert wanted <= set(metrics.METRICS)
    for name, spec in metrics.METRICS.items():
        assert spec.name == name
        assert spec.label and spec.description and "\n" not in spec.label
        assert spec.better in {"higher", "lower"}
        low, high = spec.range
        assert low is None or high is None or low < high


def test_public_api() -> None:
    for name in (
        "isoscore",
        "isoscore_star",
        "silhouette",
        "alignment",
        "uniformity",
        "sts_spearman",
        "series_correlation",
        "knn",
    ):
        assert callable(getattr(metrics, name)), name
