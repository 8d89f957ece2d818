"""Points of a known covariance spectrum: the reference that α-ReQ is checked on, shared by its test
(tests/metrics/test_collapse.py) and scripts/alpha_req_check.py (a ``results`` block of docs/results.md),
so that a product script imports nothing of the tests (issue 56).

Z = G · diag(k^(−α/2)) · Qᵀ with G standard Gaussian (n × d) and Q a Haar-random rotation (the QR of a
Gaussian matrix with the signs of R's diagonal fixed: Mezzadri 2007, "How to generate random matrices from
the classical compact groups"): the covariance eigenvalues of Z fall as λ_k ∝ k^(−α).
"""

from __future__ import annotations

import numpy as np


def known_decay(alpha: float, n: int, d: int = 384, seed: int = 0) -> np.ndarray:
    """``n`` × ``d`` points whose covariance eigenvalues fall as k^(−alpha): Gaussian scores with variances
    k^(−alpha) along the columns of a random rotation (Haar: QR of a Gaussian matrix, signs fixed)."""
    rng = np.random.default_rng(seed)
    scores = rng.normal(size=(n, d)) * np.arange(1, d + 1) ** (-alpha / 2)
    q, r = np.linalg.qr(rng.normal(size=(d, d)))
    return scores @ (q * np.sign(np.diag(r))).T
