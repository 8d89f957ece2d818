"""α-ReQ on spectra of known decay: this lab's estimator beside the one it replaced (issue 36).

    python scripts/alpha_req_check.py

Points whose covariance eigenvalues fall as k^-α by construction (``engine.metrics.known_spectra``'s
``known_decay``, which tests/metrics/test_collapse.py checks on too: Gaussian scores with variances k^-α
along a random rotation, d 384), at the JEPA evaluation size (473 sentences) and at 2,000.
``engine.metrics.collapse.alpha_req_fit`` fits ranks 11–100 with 1/k weights (α-ReQ's reference
implementation); the former estimator, written out here, fitted every rank unweighted. Prints a Markdown
table (docs/results.md, "How the metrics are checked").
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(REPO)]

from engine.metrics.collapse import alpha_req_fit  # noqa: E402
from engine.metrics.known_spectra import known_decay  # noqa: E402


def former_estimate(points: np.ndarray) -> float:
    """The former estimator: a least-squares line through (log k, log λ_k) over every rank, unweighted."""
    eigenvalues = np.sort(np.linalg.eigvalsh(np.cov(points.T)))[::-1]
    ranks = np.arange(1, min(points.shape[0] - 1, points.shape[1]) + 1)
    eigenvalues = eigenvalues[: len(ranks)]
    kept = eigenvalues > 1e-12 * eigenvalues[0]
    return float(-np.polyfit(np.log(ranks[kept]), np.log(eigenvalues[kept]), 1)[0])


def main() -> None:
    print("| true α | n | α-ReQ (seeds 0, 1) | R² (lowest) | the former estimator (seeds 0, 1) |")
    print("|---|---|---|---|---|")
    for alpha in (1.0, 1.5):
        for n in (473, 2000):
            points = [known_decay(alpha, n, seed=seed) for seed in (0, 1)]
            fits = [alpha_req_fit(p) for p in points]
            former = [former_estimate(p) for p in points]
            r2 = min(f.r2 for f in fits)
            print(
                f"| {alpha} | {n:,} | {fits[0].alpha:.3f}, {fits[1].alpha:.3f} | {r2:.4f} "
                f"| {former[0]:.3f}, {former[1]:.3f} |"
            )


if __name__ == "__main__":
    main()
