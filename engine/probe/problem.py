"""What the probe optimises: a data set loaded, its labels encoded as targets and silhouette clusters, and
its starting embeddings, from one of three sources:

- sentences (labelled texts, NLI pairs): encoded once by the sentence encoder (``encode``);
- words (:class:`~engine.data.LabelledWords`, e.g. ``wordnet-pos``, or any labelled file with ``--vectors``):
  static word vectors (:mod:`engine.probe.vectors`), no sentence encoder; words without one are dropped;
- a ``.npz`` of embeddings and labels (:class:`~engine.data.LabelledVectors`): taken as they are, no encoder.

``limit`` takes a stratified, seeded subset: of the sentences before encoding, of the words that have a
vector, of the .npz rows."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, overload

import numpy as np

from engine.core import stopping
from engine.core.errors import ConfigError, DataError
from engine.probe.config import ProbeConfig

#: ``lookup(words) -> (FoundVectors, where)``: static vectors of words (default
#: :func:`engine.probe.vectors.word_vectors`)
WordLookup = Callable[[list[str]], Any]


class ItemNames(Sequence[str]):
    """``#0``, ``#1``, ...: the names of items that have no text (a .npz without ``texts``), made on
    demand."""

    def __init__(self, n: int):
        self.n = n

    def __len__(self) -> int:
        return self.n

    @overload
    def __getitem__(self, i: int) -> str: ...
    @overload
    def __getitem__(self, i: slice) -> list[str]: ...
    def __getitem__(self, i: int | slice) -> str | list[str]:
        if isinstance(i, slice):
            return [f"#{j}" for j in range(*i.indices(self.n))]
        if not -self.n <= i < self.n:
            raise IndexError(i)
        return f"#{i % self.n}"


@dataclass
class ProbeProblem:
    """What is optimised: initial embeddings, targets, and (paired mode) the pair index."""

    texts: Sequence[str]
    embeddings: np.ndarray  # (n_sentences, d) float32
    targets: np.ndarray  # class index (n,) or multi-hot (n, C)
    cluster_ids: np.ndarray  # (n,) ints: the silhouette's clusters
    class_names: list[str]
    multi_label: bool
    pairs: np.ndarray | None = None  # (n_pairs, 2) sentence indices in paired mode
    notes: list[str] = field(
        default_factory=list
    )  # what was dropped or ignored on the way (shown as warnings)
    #: the embeddings were made for this problem alone (nothing else holds them): the model may train them in
    #: place instead of copying them (a 400,000 x 384 set saves 614 MB)
    owned: bool = False

    @property
    def n_items(self) -> int:
        return len(self.cluster_ids)


def _load(config: ProbeConfig) -> Any:
    """The whole data set (``limit`` is applied by the caller, at the right moment for its source)."""
    from engine.data import load_dataset

    return load_dataset(
        config.data,
        data_dir=config.data_dir,
        text_col=config.text_col,
        label_col=config.label_col,
        split=config.split,
    )


def _subset(dataset: Any, config: ProbeConfig) -> Any:
    from engine.data import stratified_subset

    if config.limit is not None and config.limit < len(dataset):
        return stratified_subset(dataset, config.limit, config.seed)
    return dataset


def _encode_labels(
    labels: list[Any], always_multi: bool = False
) -> tuple[np.ndarray, np.ndarray, list[str], bool]:
    """Targets, silhouette clusters, class names and the multi-label flag from raw labels."""
    multi_label = always_multi or any(isinstance(label, (tuple, list, frozenset, set)) for label in labels)
    if multi_label:
        sets = [
            tuple(sorted(map(str, label)))
            if isinstance(label, (tuple, list, frozenset, set))
            else (str(label),)
            for label in labels
        ]
        names = sorted({name for labels_of in sets for name in labels_of})
        index = {name: i for i, name in enumerate(names)}
        targets = np.zeros((len(sets), len(names)), dtype=np.float32)
        for row, labels_of in enumerate(sets):
            targets[row, [index[name] for name in labels_of]] = 1.0
        _, clusters = np.unique(np.array(["\x1f".join(s) for s in sets]), return_inverse=True)
        return targets, clusters.astype(np.int64), names, True
    names, codes = np.unique(np.array([str(label) for label in labels]), return_inverse=True)
    return codes.astype(np.int64), codes.astype(np.int64), [str(n) for n in names], False


def build_problem(config: ProbeConfig, encode: Any, lookup: WordLookup | None = None) -> ProbeProblem:
    """Load the data set and make its starting embeddings: sentences with ``encode(texts) -> np.ndarray``,
    words with ``lookup`` (default: :func:`engine.probe.vectors.word_vectors` with ``config.vectors`` and
    ``config.encoder``), a .npz as it is."""
    from engine.data.types import LabelledTexts, LabelledVectors, LabelledWords, NliPairs

    stopping.check()  # the stop of a run (see engine.core.stopping) ends its set-up between two of its phases
    dataset = _load(config)
    stopping.check()
    vectors_file = getattr(config, "vectors", None)
    if isinstance(dataset, LabelledVectors):
        if vectors_file:
            raise ConfigError(
                f"{config.data}: an .npz holds its own embeddings; --vectors is for word-level data"
            )
        return _from_vectors(_subset(dataset, config), config)
    if isinstance(dataset, LabelledTexts) and (isinstance(dataset, LabelledWords) or vectors_file):
        return _from_words(dataset, config, lookup)
    if vectors_file:
        raise ConfigError(
            f"{config.data}: --vectors gives static vectors to words; this data set holds "
            f"{type(dataset).__name__}"
        )
    dataset = _subset(dataset, config)
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


def _from_words(dataset: Any, config: ProbeConfig, lookup: WordLookup | None) -> ProbeProblem:
    """Words -> their static vectors (those without one dropped), as a LabelledVectors, then subset."""
    from engine.data.convert import take
    from engine.data.types import LabelledVectors

    words = list(dataset.texts)
    if lookup is None:
        from engine.probe.vectors import word_vectors

        found, where = word_vectors(
            words, vectors_file=getattr(config, "vectors", None), encoder=config.encoder
        )
    else:
        found, where = lookup(words)
    stopping.check()
    notes = list(found.notes)
    kept = np.flatnonzero(found.found)
    if len(kept) == 0:
        raise DataError(f"{config.data}: none of its {len(words):,} words has a vector in {where}")
    if len(kept) < len(words):
        notes.append(
            f"{config.data}: {len(words) - len(kept):,} of {len(words):,} words have no vector in {where} "
            f"(dropped); {len(kept):,} kept"
        )
    if getattr(found, "lowercase_matches", 0):
        notes.append(
            f"{config.data}: {found.lowercase_matches:,} words matched a vector only when lower-cased"
        )
    words_kept = take(dataset, kept)
    targets, _, names, _ = _encode_labels(list(words_kept.labels), always_multi=dataset.is_multilabel)
    labelled = LabelledVectors(
        dataset.name,
        np.ascontiguousarray(found.vectors, dtype=np.float32),
        targets,
        names,
        list(words_kept.texts),
        source=dataset.source,
    )
    problem = _from_vectors(_subset(labelled, config), config)
    problem.notes[:0] = notes
    return problem


def _from_vectors(dataset: Any, config: ProbeConfig) -> ProbeProblem:
    """A LabelledVectors as it is: no encoder, no copy of its float32 embeddings."""
    clusters = dataset.cluster_ids()
    if len(np.unique(clusters)) < 2:
        raise DataError(f"{config.data}: the probe needs at least 2 classes, found 1")
    texts = dataset.texts if dataset.texts is not None else ItemNames(len(dataset))
    targets = dataset.labels if dataset.is_multilabel else dataset.labels.astype(np.int64, copy=False)
    return ProbeProblem(
        texts,
        dataset.vectors,
        targets,
        clusters,
        list(dataset.class_names),
        dataset.is_multilabel,
        None,
        list(dataset.warnings),
        owned=True,
    )
