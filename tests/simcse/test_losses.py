"""SimCSE losses against the formulas (Gao et al. 2021, eq. 1 and 5, Table 7's α)."""

from __future__ import annotations

import math

import pytest
import torch

from engine.simcse.losses import cosine_matrix, sup_logits, sup_loss, unsup_logits, unsup_loss


@pytest.fixture
def views() -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    g = torch.Generator().manual_seed(0)
    return tuple(torch.randn(6, 5, generator=g, dtype=torch.float64) for _ in range(3))


def _cos(a: torch.Tensor, b: torch.Tensor) -> float:
    return float(a @ b / (a.norm() * b.norm()))


def test_unsup_loss_is_infonce(views) -> None:
    z1, z2, _ = views
    tau = 0.05
    expected = 0.0
    for i in range(6):
        scores = [math.exp(_cos(z1[i], z2[j]) / tau) for j in range(6)]
        expected += -math.log(scores[i] / sum(scores))
    assert unsup_loss(z1, z2, tau).item() == pytest.approx(expected / 6, rel=1e-5)
    assert unsup_logits(z1, z2, tau)[2, 3].item() == pytest.approx(_cos(z1[2], z2[3]) / tau, rel=1e-5)


def test_cosine_matrix_ignores_scale(views) -> None:
    z1, z2, _ = views
    assert torch.allclose(cosine_matrix(3 * z1, z2), cosine_matrix(z1, z2), atol=1e-6)


def test_identical_views_give_the_lowest_loss(views) -> None:
    z1, z2, _ = views
    assert unsup_loss(z1, z1).item() < unsup_loss(z1, z2).item()


def test_sup_logits_hold_hard_negatives_with_log_alpha_on_the_diagonal_only(views) -> None:
    z1, z2, z3 = views
    tau, n = 0.05, 6
    plain = sup_logits(z1, z2, z3, tau, 1.0)
    assert plain.shape == (n, 2 * n)
    assert torch.allclose(plain[:, :n], cosine_matrix(z1, z2) / tau)
    assert torch.allclose(plain[:, n:], cosine_matrix(z1, z3) / tau)
    weighted = sup_logits(z1, z2, z3, tau, 2.0)
    diff = weighted - plain
    expected = torch.zeros(n, 2 * n)
    expected[torch.arange(n), n + torch.arange(n)] = math.log(2.0)
    assert torch.allclose(diff.float(), expected, atol=1e-6)


@pytest.mark.parametrize("alpha", [0.5, 1.0, 2.0])
def test_sup_loss_matches_the_alpha_weighted_formula(views, alpha: float) -> None:
    z1, z2, z3 = views
    tau = 0.05
    expected = 0.0
    for i in range(6):
        pos = [math.exp(_cos(z1[i], z2[j]) / tau) for j in range(6)]
        neg = [(alpha if i == j else 1.0) * math.exp(_cos(z1[i], z3[j]) / tau) for j in range(6)]
        expected += -math.log(pos[i] / (sum(pos) + sum(neg)))
    assert sup_loss(z1, z2, z3, tau, alpha).item() == pytest.approx(expected / 6, rel=1e-5)


def test_gradients_flow_to_all_views(views) -> None:
    z1, z2, z3 = (z.clone().requires_grad_(True) for z in views)
    sup_loss(z1, z2, z3).backward()
    assert all(z.grad is not None and z.grad.abs().sum() > 0 for z in (z1, z2, z3))
