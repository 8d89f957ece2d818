"""The METRICS registry (engine/metrics/__init__.py) that the UI reads labels and explanations from."""

from __future__ import annotations

import engine.metrics as metrics


def test_registry_covers_the_logged_metrics() -> None:
    wanted = {"isoscore", "silhouette", "alignment", "uniformity", "sts_spearman", "loss", "accuracy"}
    wanted |= {"class_alignment", "spectrum", "effective_rank", "average_cosine", "partition_isotropy"}
    assert wanted <= set(metrics.METRICS)
    for name, spec in metrics.METRICS.items():
        assert spec.name == name
        assert spec.label and spec.description and "\n" not in spec.label
        assert spec.kind in {"scalar", "vector"}
        assert spec.better in {"higher", "lower"} or (spec.better == "neither" and spec.kind == "vector")
        low, high = spec.range
        assert low is None or high is None or low < high


def test_isotropy_family_entries() -> None:
    """Direction and range of the added measures (the UI's arrows and axes)."""
    specs = metrics.METRICS
    assert (specs["spectrum"].kind, specs["spectrum"].better, specs["spectrum"].range) == (
        "vector",
        "neither",
        (0.0, None),
    )
    assert (specs["effective_rank"].better, specs["effective_rank"].range) == ("higher", (1.0, None))
    assert (specs["average_cosine"].better, specs["average_cosine"].range) == ("lower", (-1.0, 1.0))
    assert (specs["partition_isotropy"].better, specs["partition_isotropy"].range) == ("higher", (0.0, 1.0))
    assert (specs["class_alignment"].better, specs["class_alignment"].range) == ("lower", (0.0, 4.0))
    assert all(specs[name].kind == "scalar" for name in specs if name != "spectrum")


def test_public_api() -> None:
    for name in (
        "isoscore",
        "isoscore_star",
        "silhouette",
        "silhouette_and_uniformity",
        "alignment",
        "class_alignment",
        "uniformity",
        "sts_spearman",
        "series_correlation",
        "knn",
        "spectrum",
        "effective_rank",
        "average_cosine",
        "partition_isotropy",
        "isotropy_profile",
    ):
        assert callable(getattr(metrics, name)), name
