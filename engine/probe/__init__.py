"""The linear-classifier embedding optimisation of "Isotropy, Clusters, and Classifiers".

Mickus, Grönroos & Attieh (ACL 2024, arXiv 2402.03191): take fixed sentence embeddings of a labelled
data set, make the **embeddings themselves** parameters ``E`` (n × d) together with a linear classifier
``W`` on top, and minimise the classification loss with full-batch Adam (PyTorch defaults: lr 1e-3,
betas 0.9/0.999). After every update, measure IsoScore(E) and the Euclidean silhouette of E with respect
to the target labels: isotropy falls while clusters form.

Objectives
- single label: ``CE(W E_i, y_i)`` averaged over all n points;
- multi-label (a label is a tuple): per-label binary cross-entropy on a multi-hot target; distinct label
  vectors count as distinct clusters for the silhouette;
- paired (NLI): the unique sentences are the parameters; the classifier reads ``[E_p ; E_h]`` of each
  (premise, hypothesis) pair. IsoScore and silhouette are measured on these pair representations (the
  vectors the classifier separates), with the pair labels.

Step 0 is the state before any update; the row of step s (loss, accuracy and metrics alike) describes the
parameters after s Adam updates.

The package: :mod:`~engine.probe.config` (settings), :mod:`~engine.probe.problem` (data → what is optimised),
:mod:`~engine.probe.model` (embeddings + classifier, losses), :mod:`~engine.probe.loop` (the optimisation),
:mod:`~engine.probe.measure` (a step's measures), :mod:`~engine.probe.summary`;
its registry entry :mod:`~engine.probe.entry` (with :mod:`~engine.probe.presets` and
:mod:`~engine.probe.facts`).

The names below are imported on first use (PEP 562), so that reading the experiment registry (the entry)
does not import torch.
"""

from __future__ import annotations

import importlib
from typing import Any

#: public name -> the module that defines it
_LAZY = {
    "MAX_STEPS": "engine.probe.config",
    "ProbeConfig": "engine.probe.config",
    "run_probe": "engine.probe.loop",
    "EmbeddingClassifier": "engine.probe.model",
    "loss_and_accuracy": "engine.probe.model",
    "ProbeProblem": "engine.probe.problem",
    "build_problem": "engine.probe.problem",
    "summarize": "engine.probe.summary",
}

__all__ = sorted(_LAZY)


def __getattr__(name: str) -> Any:
    if name not in _LAZY:
        raise AttributeError(f"module 'engine.probe' has no attribute {name!r}")
    value = getattr(importlib.import_module(_LAZY[name]), name)
    globals()[name] = value
    return value
