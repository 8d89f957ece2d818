"""The probe's model: trainable embeddings and a linear classifier, and its loss (the paper's objectives)."""

from __future__ import annotations

import torch
from torch import nn


class EmbeddingClassifier(nn.Module):
    """Trainable embeddings ``E`` and a linear classifier; paired mode concatenates ``[E_p ; E_h]``."""

    def __init__(self, embeddings: torch.Tensor, n_classes: int, pairs: torch.Tensor | None):
        super().__init__()
        self.embeddings = nn.Parameter(embeddings.clone())
        self.register_buffer("pairs", pairs if pairs is not None else torch.empty(0, 2, dtype=torch.long))
        width = embeddings.shape[1] * (2 if pairs is not None else 1)
        self.classifier = nn.Linear(width, n_classes)

    @property
    def paired(self) -> bool:
        return self.pairs.numel() > 0

    def representations(self) -> torch.Tensor:
        """The vectors the classifier reads: ``E`` or ``[E_p ; E_h]`` per pair."""
        if not self.paired:
            return self.embeddings
        return torch.cat([self.embeddings[self.pairs[:, 0]], self.embeddings[self.pairs[:, 1]]], dim=1)

    def forward(self) -> torch.Tensor:
        return self.classifier(self.representations())


def loss_and_accuracy(logits: torch.Tensor, targets: torch.Tensor, multi_label: bool) -> tuple[torch.Tensor, float]:
    """Cross-entropy (single label) or mean per-label BCE (multi-label); accuracy = exact match."""
    if multi_label:
        loss = nn.functional.binary_cross_entropy_with_logits(logits, targets)
        correct = ((logits > 0) == (targets > 0.5)).all(dim=1)
    else:
        loss = nn.functional.cross_entropy(logits, targets)
        correct = logits.argmax(dim=1) == targets
    return loss, correct.float().mean().item()
