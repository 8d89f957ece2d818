"""JEPA's loss pieces against their formulas written plainly with NumPy (tolerances stated per test)."""

from __future__ import annotations

import math

import numpy as np
import pytest
import torch

from engine.jepa.config import JEPAConfig
from engine.jepa.losses import epps_pulley, prediction_loss, regulariser_loss, sigreg, vicreg_terms
from engine.jepa.networks import momentum


def reference_epps_pulley(x: np.ndarray) -> float:
    """N ∫ |φ_N(t) − e^{−t²/2}|² e^{−t²/2} dt over the whole line, in closed form (Gaussian integrals):
    N [√(2π)/N² Σ_jk e^{−(x_j − x_k)²/2} − 2√π/N Σ_j e^{−x_j²/4} + √(2π/3)]."""
    n = len(x)
    diff = x[:, None] - x[None, :]
    pairs = math.sqrt(2 * math.pi) / n**2 * np.exp(-(diff**2) / 2).sum()
    cross = 2 * math.sqrt(math.pi) / n * np.exp(-(x**2) / 4).sum()
    return n * (pairs - cross + math.sqrt(2 * math.pi / 3))


@pytest.mark.parametrize(
    "sample",
    [
        np.random.default_rng(0).normal(size=64),
        np.random.default_rng(1).normal(size=200) * 3 + 1,
        np.random.default_rng(2).uniform(-2, 2, size=17),
        np.full(32, 0.3),
        np.r_[np.zeros(10), np.full(10, 4.0)],
    ],
)
def test_epps_pulley_equals_its_closed_form(sample: np.ndarray) -> None:
    """The quadrature (t ∈ [−5, 5], 129 knots) against the closed form: 1e-4 relative (float32 sums)."""
    got = float(epps_pulley(torch.tensor(sample[:, None], dtype=torch.float32))[0])
    assert got == pytest.approx(reference_epps_pulley(sample), rel=1e-4, abs=1e-4)


def test_epps_pulley_is_small_for_gaussian_samples_and_large_for_a_collapsed_batch() -> None:
    """Gaussian columns average √(2π) − √(2π/3) ≈ 1.06 (its expectation, whatever N); a collapsed batch
    (every row alike) scores about N times more; SIGReg of an isotropic Gaussian batch stays near 1.06."""
    rng = np.random.default_rng(3)
    gaussian = torch.tensor(rng.normal(size=(128, 400)), dtype=torch.float32)
    expected = math.sqrt(2 * math.pi) - math.sqrt(2 * math.pi / 3)
    assert float(epps_pulley(gaussian).mean()) == pytest.approx(expected, rel=0.1)
    collapsed = torch.full((128, 1), 0.5)
    assert float(epps_pulley(collapsed)[0]) > 50 * expected
    batch = torch.tensor(rng.normal(size=(256, 32)), dtype=torch.float32)
    assert float(sigreg(batch, 64, seed=0)) == pytest.approx(expected, rel=0.25)
    assert float(sigreg(batch[:1].repeat(256, 1), 64, seed=0)) > 50 * expected
    assert float(sigreg(batch, 64, seed=5)) == float(sigreg(batch, 64, seed=5))  # seeded directions


def test_prediction_loss_and_vicreg_terms_equal_their_formulas() -> None:
    """2 − 2 cos, and VICReg's three terms (Bardes et al. 2022, eq. 1–4) written with NumPy: 1e-5 relative."""
    rng = np.random.default_rng(4)
    a, b = rng.normal(size=(20, 6)), rng.normal(size=(20, 6)) * 0.5
    cos = (a * b).sum(1) / np.linalg.norm(a, axis=1) / np.linalg.norm(b, axis=1)
    ta, tb = torch.tensor(a, dtype=torch.float32), torch.tensor(b, dtype=torch.float32)
    assert float(prediction_loss(ta, tb)) == pytest.approx(np.mean(2 - 2 * cos), rel=1e-5)

    def variance(z: np.ndarray) -> float:
        return float(np.mean(np.maximum(0, 1 - np.sqrt(z.var(axis=0, ddof=1) + 1e-4))))

    def covariance(z: np.ndarray) -> float:
        c = np.cov(z.T)
        return float(((c - np.diag(np.diag(c))) ** 2).sum() / z.shape[1])

    inv, var, cov = (float(t) for t in vicreg_terms(ta, tb))
    assert inv == pytest.approx(np.mean((a - b) ** 2), rel=1e-5)
    assert var == pytest.approx((variance(a) + variance(b)) / 2, rel=1e-5)
    assert cov == pytest.approx((covariance(a) + covariance(b)) / 2, rel=1e-5)
    config = JEPAConfig(
        regulariser="vicreg", vicreg_invariance=2.0, vicreg_variance=3.0, vicreg_covariance=0.5
    )
    assert float(regulariser_loss(config, ta, tb, 0)) == pytest.approx(
        2 * inv + 3 * var + 0.5 * cov, rel=1e-5
    )
    assert float(regulariser_loss(JEPAConfig(), ta, tb, 0)) == 0.0


def test_momentum_schedule() -> None:
    """BYOL: m_k = 1 − (1 − m₀)(cos(πk/K) + 1)/2: m₀ at 0, halfway between at K/2, 1 at K."""
    assert momentum(0.996, 0, 100) == pytest.approx(0.996)
    assert momentum(0.996, 50, 100) == pytest.approx(0.998)
    assert momentum(0.996, 100, 100) == pytest.approx(1.0)
