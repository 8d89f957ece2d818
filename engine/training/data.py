"""The data of a run that trains an encoder: the training sentences (unsup) or NLI triples (SimCSE's sup),
the STS-style evaluation pairs (:class:`EvalSet`), the optional labelled set, and the seeded batch order
(:class:`BatchSampler`).

Without a data folder a run trains on the demo corpus and evaluates on the demo pairs; every summary names
the evaluation set it used (:attr:`EvalSet.label`). A config without ``mode`` trains on sentences.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from engine.core import paths
from engine.core.errors import ConfigError, DataError
from engine.training.config import TrainingConfig


def mode_of(config: TrainingConfig) -> str:
    """``unsup`` (sentences) or ``sup`` (NLI triples); a config without ``mode`` trains on sentences."""
    return str(getattr(config, "mode", "unsup"))


def default_sets(config: TrainingConfig) -> tuple[str, str]:
    """(training set, evaluation set) names: the real sets when the data folder has them, else the demo."""
    folder = paths.data_dir(config.data_dir)
    has = lambda sub: folder is not None and (folder / sub).is_dir()  # noqa: E731
    train = config.train or (
        ("wiki1m" if has("wiki") else "demo")
        if mode_of(config) == "unsup"
        else ("snli" if has("snli") else "demo-nli")
    )
    evaluation = config.eval or ("stsb" if has("stsb") else "demo-pairs")
    return train, evaluation


def _load(name: str, config: TrainingConfig, kind: str | None = None, **kwargs: Any) -> Any:
    """A built-in set by name, or a user file read as ``kind`` (sentences, triples, pairs, labelled)."""
    from engine.data import DATASETS, load_dataset

    file_kind = None if name.strip().lower() in DATASETS else kind
    return load_dataset(name, data_dir=config.data_dir, seed=config.seed, kind=file_kind, **kwargs)


def load_training(config: TrainingConfig) -> list[str] | Any:
    """Unsup: a list of sentences; sup: ``NliTriples`` (premise groups of NLI pairs become triples)."""
    from engine.data import to_sentences, to_triples

    name, _ = default_sets(config)
    unsup = mode_of(config) == "unsup"
    dataset = _load(name, config, "sentences" if unsup else "triples", limit=config.train_limit)
    if unsup:
        data: Any = list(to_sentences(dataset).texts)
    else:
        data = to_triples(dataset)
    if len(data) < config.batch_size:
        raise ConfigError(
            f"batch_size {config.batch_size} is larger than the {len(data)} training examples of {name}"
        )
    return data


@dataclass
class EvalSet:
    """Evaluation pairs as indices into unique sentences; ``total`` pairs in the set before any subset."""

    name: str
    sentences: list[str]
    left: np.ndarray
    right: np.ndarray
    gold: np.ndarray
    total: int = 0

    @property
    def label(self) -> str:
        """What the STS curve was measured on, e.g. ``stsb-dev (250 of 1,500 pairs)``,
        ``demo-pairs (120 pairs)``."""
        pairs = len(self.gold)
        of = f" of {self.total:,}" if self.total > pairs else ""
        return f"{self.name} ({pairs:,}{of} pairs)"


#: the seed of the evaluation subset, whatever the run's seed (until 2026-12-02 it was the run's own seed;
#: seed 0's subset is the one it was)
EVAL_SUBSET_SEED = 0


def load_eval(config: TrainingConfig) -> EvalSet:
    """STS-style pairs (0–5 gold); ``eval_limit`` of them, the same subset for every seed
    (:data:`EVAL_SUBSET_SEED`): a seed changes the training, not the evaluation set, so that the spread of a
    group of seeds (and the lessons' 2-sd margins) is the training's alone."""
    _, name = default_sets(config)
    kwargs = {"split": "dev"} if name == "stsb" else {}
    pairs = _load(name, config, "pairs", **kwargs)
    if not hasattr(pairs, "scores"):
        raise DataError(f"{name}: evaluation needs scored sentence pairs (sentence1, sentence2, score)")
    keep = np.arange(len(pairs))
    if config.eval_limit is not None and config.eval_limit < len(pairs):
        keep = np.sort(np.random.default_rng(EVAL_SUBSET_SEED).permutation(len(pairs))[: config.eval_limit])
    left = [pairs.left[i] for i in keep]
    right = [pairs.right[i] for i in keep]
    sentences = list(dict.fromkeys(left + right))
    where = {text: i for i, text in enumerate(sentences)}
    if len(keep) < 2:
        raise DataError(f"{name}: needs at least 2 scored pairs, found {len(keep)}")
    return EvalSet(
        "stsb-dev" if name == "stsb" else name,
        sentences,
        np.array([where[t] for t in left]),
        np.array([where[t] for t in right]),
        np.asarray(pairs.scores, dtype=np.float64)[keep],
        total=len(pairs),
    )


def eval_set_label(config: TrainingConfig) -> str:
    """:attr:`EvalSet.label` of a run's settings (reads the pairs; for charts of runs without a summary)."""
    return load_eval(config).label


def load_labelled_set(config: TrainingConfig) -> Any:
    """The labelled set (``LabelledTexts``), stratified to ``probe_limit``; None without a probe."""
    if not config.probe:
        return None
    from engine.data import stratified_subset

    dataset = _load(config.probe, config, "labelled")
    if not hasattr(dataset, "labels") or not hasattr(dataset, "texts"):
        raise DataError(f"{config.probe}: the probe needs labelled sentences (text, label)")
    if config.probe_limit is not None and config.probe_limit < len(dataset):
        dataset = stratified_subset(dataset, config.probe_limit, config.seed)
    return dataset


class BatchSampler:
    """Seeded epochs: batch ``s`` (1-based) is slice ``j`` of epoch ``e``'s permutation (last partial
    dropped)."""

    def __init__(self, n: int, batch_size: int, seed: int):
        self.n, self.batch_size, self.seed = n, batch_size, seed
        self.per_epoch = n // batch_size
        self._epoch, self._perm = -1, np.arange(0)

    def __call__(self, step: int) -> np.ndarray:
        epoch, j = divmod(step - 1, self.per_epoch)
        if epoch != self._epoch:
            self._epoch, self._perm = (
                epoch,
                np.random.default_rng([self.seed, 7919, epoch]).permutation(self.n),
            )
        return self._perm[j * self.batch_size : (j + 1) * self.batch_size]
