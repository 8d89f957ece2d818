"""Conversions between data set kinds, and seeded subsets.

- :func:`stratified_subset`: ``limit`` examples keeping class proportions (largest-remainder quotas, at
  least one per class when ``limit`` >= number of classes); other kinds get a seeded uniform subset.
  Deterministic for a seed; original order kept.
- :func:`to_triples`: NLI pairs -> (premise, entailment, contradiction) triples, the way SimCSE built
  ``nli_for_simcse.csv`` (Gao et al. 2021, sec. 4): each entailment hypothesis of a premise is paired with a
  contradiction hypothesis of the same premise (cycling when there are fewer contradictions).
- :func:`to_pairs`: NLI triples -> NLI pairs (anchor/positive = entailment, anchor/negative = contradiction),
  for the paired-mode probe.
- :func:`to_sentences`: any kind -> its distinct sentences in order of first appearance.
"""

from __future__ import annotations

import dataclasses
from collections import defaultdict

import numpy as np

from engine.core.errors import ConfigError, DataError
from engine.data.types import (
    Dataset,
    LabelledTexts,
    LabelledVectors,
    NliPairs,
    NliTriples,
    ScoredPairs,
    Sentences,
)


def _check_limit(limit: int) -> int:
    if isinstance(limit, bool) or int(limit) != limit or limit < 1:
        raise ConfigError(f"limit must be a positive whole number, got {limit!r}")
    return int(limit)


def take(ds: Dataset, indices: np.ndarray | list[int]) -> Dataset:
    """A copy of ``ds`` holding only the rows ``indices`` (in that order)."""
    if isinstance(ds, LabelledVectors):
        return ds.take(np.asarray(indices, dtype=np.int64))
    idx = [int(i) for i in indices]
    changes = {}
    for f in dataclasses.fields(ds):
        value = getattr(ds, f.name)
        if f.name in ("name", "warnings", "source"):
            continue
        changes[f.name] = (
            value[np.asarray(idx, dtype=np.int64)]
            if isinstance(value, np.ndarray)
            else [value[i] for i in idx]
        )
    return dataclasses.replace(ds, warnings=list(ds.warnings), **changes)


def class_quotas(counts: list[int], limit: int) -> list[int]:
    """Per-class sample sizes summing to ``min(limit, sum(counts))``, proportional to ``counts``.

    Largest-remainder rounding; every class gets at least one when ``limit >= len(counts)``.
    """
    total = sum(counts)
    limit = min(limit, total)
    exact = [limit * c / total for c in counts]
    floor_one = limit >= len(counts)
    quota = [min(c, max(int(q), 1 if floor_one else 0)) for c, q in zip(counts, exact, strict=True)]
    order = sorted(range(len(counts)), key=lambda k: (-(exact[k] - int(exact[k])), k))
    while sum(quota) < limit:  # hand out the rest by largest remainder, then by size
        grew = False
        for k in order:
            if sum(quota) < limit and quota[k] < counts[k]:
                quota[k] += 1
                grew = True
        if not grew:
            break
    while sum(quota) > limit:  # the at-least-one floor overshot: take from the most over-served
        k = max((k for k in range(len(counts)) if quota[k] > 1), key=lambda k: (quota[k] - exact[k], -k))
        quota[k] -= 1
    return quota


def stratified_subset(ds: Dataset, limit: int, seed: int = 0) -> Dataset:
    """``limit`` rows of ``ds``: stratified by label for LabelledTexts and LabelledVectors (multi-label: by
    label set), uniform otherwise (seeded)."""
    limit = _check_limit(limit)
    if limit >= len(ds):
        return ds
    rng = np.random.default_rng(seed)
    if isinstance(ds, LabelledVectors):  # by class, or (multi-label) by label set
        clusters = ds.cluster_ids()
        keys, counts = np.unique(clusters, return_counts=True)
        quota = class_quotas(counts.tolist(), limit)
        picks = [
            rng.choice(np.flatnonzero(clusters == k), size=q, replace=False)
            for k, q in zip(keys.tolist(), quota, strict=True)
            if q
        ]
        return ds.take(np.sort(np.concatenate(picks)))
    if not isinstance(ds, LabelledTexts):
        chosen = np.sort(rng.choice(len(ds), size=limit, replace=False))
    else:
        groups: dict = defaultdict(list)
        for i, label in enumerate(ds.labels):
            groups[label].append(i)
        keys = sorted(groups, key=lambda lab: (isinstance(lab, tuple), lab))
        quota = class_quotas([len(groups[k]) for k in keys], limit)
        picks = [rng.choice(groups[k], size=q, replace=False) for k, q in zip(keys, quota, strict=True) if q]
        chosen = np.sort(np.concatenate(picks))
    return take(ds, chosen)


def to_triples(ds: Dataset) -> NliTriples:
    """NLI pairs -> (premise, entailment, contradiction) triples grouped by premise."""
    if isinstance(ds, NliTriples):
        return ds
    if not isinstance(ds, NliPairs):
        raise DataError(f"{ds.name}: cannot make NLI triples from a {ds.kind} data set (need NLI pairs)")
    by_premise: dict[str, dict[str, list[str]]] = {}
    for prem, hyp, label in zip(ds.premises, ds.hypotheses, ds.labels, strict=True):
        by_premise.setdefault(prem, {"entailment": [], "contradiction": [], "neutral": []})[label].append(hyp)
    anchors, positives, negatives = [], [], []
    for prem, hyps in by_premise.items():
        cons = hyps["contradiction"]
        for i, pos in enumerate(hyps["entailment"]):
            if cons:
                anchors.append(prem)
                positives.append(pos)
                negatives.append(cons[i % len(cons)])
    if not anchors:
        raise DataError(
            f"{ds.name}: no premise has both an entailment and a contradiction hypothesis, "
            "so no (anchor, positive, negative) triples can be made"
        )
    return NliTriples(ds.name, anchors, positives, negatives, warnings=list(ds.warnings), source=ds.source)


def to_pairs(ds: Dataset) -> NliPairs:
    """NLI triples -> NLI pairs: (anchor, positive, entailment) and (anchor, negative, contradiction)."""
    if isinstance(ds, NliPairs):
        return ds
    if not isinstance(ds, NliTriples):
        raise DataError(f"{ds.name}: cannot make NLI pairs from a {ds.kind} data set (need NLI triples)")
    premises, hypotheses, labels = [], [], []
    for anchor, pos, neg in zip(ds.anchors, ds.positives, ds.negatives, strict=True):
        premises += [anchor, anchor]
        hypotheses += [pos, neg]
        labels += ["entailment", "contradiction"]
    return NliPairs(ds.name, premises, hypotheses, labels, warnings=list(ds.warnings), source=ds.source)


def to_sentences(ds: Dataset) -> Sentences:
    """Any data set -> its distinct sentences in order of first appearance."""
    if isinstance(ds, (LabelledTexts, Sentences)):
        columns = [ds.texts]
    elif isinstance(ds, ScoredPairs):
        columns = [ds.left, ds.right]
    elif isinstance(ds, NliPairs):
        columns = [ds.premises, ds.hypotheses]
    elif isinstance(ds, NliTriples):
        columns = [ds.anchors, ds.positives, ds.negatives]
    else:
        raise DataError(f"cannot take sentences from {type(ds).__name__}")
    row_major = (text for row in zip(*columns, strict=True) for text in row)
    texts = list(dict.fromkeys(row_major))
    return Sentences(ds.name, texts, warnings=list(ds.warnings), source=ds.source)


def convert(ds: Dataset, kind: str) -> Dataset:
    """``ds`` as ``kind`` (sentences, triples, nli-pairs), or a DataError when that makes no sense."""
    if ds.kind == kind:
        return ds
    if kind == "sentences":
        return to_sentences(ds)
    if kind == "triples":
        return to_triples(ds)
    if kind == "nli-pairs":
        return to_pairs(ds)
    raise DataError(f"{ds.name}: a {ds.kind} data set cannot be used as {kind}")
