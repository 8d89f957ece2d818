"""What the probe optimises: a data set loaded, its labels encoded as targets and silhouette clusters,
its sentences encoded once."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from engine.errors import DataError
from engine.probe.config import ProbeConfig


@dataclass
class ProbeProblem:
    """What is optimised: initial embeddings, targets, and (paired mode) the pair index."""

    texts: list[str]
    embeddings: np.ndarray  # (n_sentences, d)
    targets: np.ndarray  # class index (n,) or multi-hot (n, C)
    cluster_ids: np.ndarray  # (n,) ints: the silhouette's clusters
    class_names: list[str]
    multi_label: bool
    pairs: np.ndarray | None = None  # (n_pairs, 2) sentence indices in paired mode

    @property
    def n_items(self) -> int:
        return len(self.cluster_ids)


def _load(config: ProbeConfig) -> Any:
    from engine.data import load_dataset, stratified_subset

    dataset = load_dataset(
        config.data,
        data_dir=config.data_dir,
        text_col=config.text_col,
        label_col=config.label_col,
        split=config.split,
    )
    if config.limit is not None and config.limit < len(dataset):
        dataset = stratified_subset(dataset, config.limit, config.seed)
    return dataset


def _encode_labels(labels: list[Any]) -> tuple[np.ndarray, np.ndarray, list[str], bool]:
    """Targets, silhouette clusters, class names and the multi-label flag from raw labels."""
    multi_label = any(isinstance(label, (tuple, list, frozenset, set)) for label in labels)
    if multi_label:
        sets = [tuple(sorted(map(str, label))) if isinstance(label, (tuple, list, frozenset, set))
                else (str(label),) for label in labels]
        names = sorted({name for labels_of in sets for name in labels_of})
        index = {name: i for i, name in enumerate(names)}
        targets = np.zeros((len(sets), len(names)), dtype=np.float32)
        for row, labels_of in enumerate(sets):
            targets[row, [index[name] for name in labels_of]] = 1.0
        _, clusters = np.unique(np.array(["\x1f".join(s) for s in sets]), return_inverse=True)
        return targets, clusters.astype(np.int64), names, True
    names, codes = np.unique(np.array([str(label) for label in labels]), return_inverse=True)
    return codes.astype(np.int64), codes.astype(np.int64), [str(n) for n in names], False


def build_problem(config: ProbeConfig, encode: Any) -> ProbeProblem:
    """Load the data set and encode its sentences with ``encode(texts) -> np.ndarray``."""
    from engine.data.types import LabelledTexts, NliPairs

    dataset = _load(config)
    if isinstance(dataset, NliPairs):
        texts = list(dict.fromkeys([*dataset.premises, *dataset.hypotheses]))
        position = {text: i for i, text in enumerate(texts)}
        pairs = np.array([[position[p], position[h]] for p, h in zip(dataset.premises, dataset.hypotheses)])
        targets, clusters, names, multi = _encode_labels(list(dataset.labels))
    elif isinstance(dataset, LabelledTexts):
        texts, pairs = list(dataset.texts), None
        targets, clusters, names, multi = _encode_labels(list(dataset.labels))
    else:
        raise DataError(
            f"{config.data}: the probe needs labelled sentences or NLI pairs, got {type(dataset).__name__}"
        )
    if len(names) < 2:
        raise DataError(f"{config.data}: the probe needs at least 2 classes, found {len(names)}")
    embeddings = np.asarray(encode(texts), dtype=np.float32)
    return ProbeProblem(texts, embeddings, targets, clusters, names, multi, pairs)
