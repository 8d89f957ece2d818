"""The probe's model: trainable embeddings and a linear classifier, and its loss (the paper's objectives)."""

from __future__ import annotations

import torch
from torch import nn


class EmbeddingClassifier(nn.Module):
    """Trainable embeddings ``E`` and a linear classifier; paired mode concatenates ``[E_p ; E_h]``.

    ``n_classes=None``: no classifier (the triplet objective trains the embeddings alone). ``copy=False``
    makes ``E`` share the memory of ``embeddings`` (the loop's large runs: no second N x d copy; the
    caller's array is then trained in place)."""

    def __init__(
        self, embeddings: torch.Tensor, n_classes: int | None, pairs: torch.Tensor | None, copy: bool = True
    ):
        super().__init__()
        self.embeddings = nn.Parameter(embeddings.clone() if copy else embeddings.detach())
        self.register_buffer("pairs", pairs if pairs is not None else torch.empty(0, 2, dtype=torch.long))
        width = embeddings.shape[1] * (2 if pairs is not None else 1)
        self.classifier = nn.Linear(width, n_classes) if n_classes is not None else None

    @property
    def paired(self) -> bool:
        return self.pairs.numel() > 0

    def representations(self) -> torch.Tensor:
        """The vectors the classifier reads: ``E`` or ``[E_p ; E_h]`` per pair."""
        if not self.paired:
            return self.embeddings
        return torch.cat([self.embeddings[self.pairs[:, 0]], self.embeddings[self.pairs[:, 1]]], dim=1)

    def forward(self) -> torch.Tensor:
        if self.classifier is None:
            raise RuntimeError("this model has no classifier (triplet objective): use representations()")
        return self.classifier(self.representations())


def loss_and_accuracy(
    logits: torch.Tensor, targets: torch.Tensor, multi_label: bool
) -> tuple[torch.Tensor, float]:
    """Cross-entropy (single label) or mean per-label BCE (multi-label); accuracy = exact match."""
    loss, accuracy = loss_and_accuracy_tensors(logits, targets, multi_label)
    return loss, accuracy.item()


def loss_and_accuracy_tensors(
    logits: torch.Tensor, targets: torch.Tensor, multi_label: bool
) -> tuple[torch.Tensor, torch.Tensor]:
    """``loss_and_accuracy`` with the accuracy as a 0-dim float32 tensor on the logits' device (no host
    sync: the loop reads every logged value in one transfer)."""
    if multi_label:
        loss = nn.functional.binary_cross_entropy_with_logits(logits, targets)
        correct = ((logits > 0) == (targets > 0.5)).all(dim=1)
    else:
        loss = nn.functional.cross_entropy(logits, targets)
        correct = logits.argmax(dim=1) == targets
    return loss, correct.float().mean()


def micro_f1(logits: torch.Tensor, targets: torch.Tensor, multi_label: bool) -> float:
    """Micro-averaged F1 of the predictions (scikit-learn ``f1_score(average="micro")``).

    Multi-label: a label is predicted where its logit is > 0; F1 = 2 TP / (2 TP + FP + FN) over every
    (item, label) cell, 0.0 when there is no true and no predicted label (scikit-learn's zero_division).
    Single label: every item has one true and one predicted class, so micro-F1 equals the accuracy."""
    return micro_f1_tensor(logits, targets, multi_label).item()


def micro_f1_tensor(logits: torch.Tensor, targets: torch.Tensor, multi_label: bool) -> torch.Tensor:
    """``micro_f1`` as a 0-dim tensor (float32 single label, float64 multi-label), no host sync; the
    multi-label counts are exact integers, so 2 TP / (2 TP + wrong) in float64 is Python's value."""
    if not multi_label:
        return (logits.argmax(dim=1) == targets).float().mean()
    predicted, true = logits > 0, targets > 0.5
    tp = (predicted & true).sum().to(torch.float64)
    wrong = (predicted ^ true).sum().to(torch.float64)  # FP + FN
    denominator = 2.0 * tp + wrong
    return torch.where(denominator > 0, 2.0 * tp / denominator.clamp_min(1.0), 0.0)
