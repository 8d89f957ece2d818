"""Why "stop-grad only" and "none of the three" of "Does JEPA collapse?" draw the same curves.

With no EMA target and no predictor the target embeddings are the online ones (``t = z``). The symmetrised
loss ½[D(z′, sg(z″)) + D(z″, sg(z′))] with D(a, b) = 2 − 2 cos(a, b) symmetric in its arguments then has
exactly half the gradient of the same loss without the stop-gradient, ½[D(z′, z″) + D(z″, z′)] = D(z′, z″):
each half back-propagates into one of the two views, and the two halves together make one full gradient. AdamW
(weight decay 0 here) divides each step by the root of the squared gradients' average, so a gradient
halved everywhere moves the weights the same way up to its ε (10⁻⁸ against gradients of 10⁻³ and more): the
two runs train alike, and their logged loss is the same number.
"""

from __future__ import annotations

import pytest
import torch
from torch import nn

from engine.jepa.config import JEPAConfig
from engine.jepa.step import jepa_loss, make_trainer
from engine.training.data import load_training


class TinyOnline(nn.Module):
    """An online encoder of 5-number inputs, with no predictor: (z, g(z) = z), as :class:`Online` returns."""

    def __init__(self) -> None:
        super().__init__()
        torch.manual_seed(0)
        self.layer = nn.Linear(5, 4)

    def forward(self, batch: torch.Tensor, lengths: torch.Tensor | None = None):
        z = self.layer(batch)
        return z, z


def _gradient(stop_grad: bool, symmetric: bool = True) -> tuple[torch.Tensor, float]:
    config = JEPAConfig(
        ema=0.0, predictor=False, stop_grad=stop_grad, symmetric=symmetric, regulariser="none"
    )
    online = TinyOnline()
    batch = torch.randn(6, 5, generator=torch.Generator().manual_seed(1))  # 3 context rows, then 3 targets
    loss, logged = jepa_loss(config, online, None, batch, 3, torch.device("cpu"))
    loss.backward()
    return online.layer.weight.grad.clone(), float(logged)


def test_stop_gradient_alone_halves_the_gradient_of_the_symmetrised_loss() -> None:
    stopped, stopped_loss = _gradient(stop_grad=True)
    full, full_loss = _gradient(stop_grad=False)
    assert full.abs().max() > 1e-3  # a real gradient, not two zeros
    torch.testing.assert_close(stopped, full / 2, rtol=1e-6, atol=1e-8)
    assert stopped_loss == full_loss  # the logged loss is the same number


def test_without_the_symmetrised_loss_the_stop_gradient_changes_the_direction() -> None:
    stopped, _ = _gradient(stop_grad=True, symmetric=False)
    full, _ = _gradient(stop_grad=False, symmetric=False)
    cosine = torch.nn.functional.cosine_similarity(stopped.flatten(), full.flatten(), dim=0)
    assert cosine < 0.999  # one branch only: not a rescaled copy of the full gradient


def _two_steps(jepa_config, stop_grad: bool, eps: float | None) -> tuple[list[float], torch.Tensor]:
    """The logged losses of two steps of the real trainer (tiny BERT, float32, no dropout) and the update of
    the encoder's weights; ``eps``: AdamW's ε in place of its default 10⁻⁸."""
    config = jepa_config(dropout=0.0, steps=2, lr=1e-3, ema=0.0, predictor=False, stop_grad=stop_grad)
    trainer = make_trainer(config, load_training(config))
    if eps is not None:
        for group in trainer.optimizer.param_groups:
            group["eps"] = eps
    before = [p.detach().clone() for p in trainer.encoder.model.parameters()]
    losses = [trainer.step(step) for step in range(1, 3)]
    after = [p.detach() for p in trainer.encoder.model.parameters()]
    return losses, torch.cat([(b - a).flatten() for a, b in zip(before, after, strict=True)])


@pytest.mark.parametrize("eps", [None, 1e-30])
def test_the_two_runs_train_alike_but_for_adams_epsilon(jepa_config, eps: float | None) -> None:
    """The same logged losses (to float32 rounding) and the same weight updates, but for Adam's ε: with its
    default 10⁻⁸, a weight whose gradient is near 10⁻⁸ moves by up to a quarter of lr more in one run
    (measured: 2 % of the update's norm on the tiny random BERT, whose many near-zero gradients make it
    the worst case); with ε = 10⁻³⁰ the updates agree (measured: to the last bit)."""
    losses_a, update_a = _two_steps(jepa_config, True, eps)
    losses_b, update_b = _two_steps(jepa_config, False, eps)
    assert abs(losses_a[1] - losses_a[0]) > 1e-3  # the loss moved
    for a, b in zip(losses_a, losses_b, strict=True):
        assert abs(a - b) <= 1e-5 * abs(a)
    assert update_a.norm() > 1e-2
    gap = float((update_a - update_b).norm() / update_a.norm())
    assert gap < (5e-2 if eps is None else 1e-6), gap
