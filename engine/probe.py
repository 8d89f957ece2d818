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
"""

from __future__ import annotations

import argparse
import contextlib
import threading
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any

import numpy as np
import torch
from torch import nn

from engine.device import resolve_device, seed_everything
from engine.errors import ConfigError, DataError
from engine.events import Event, Points, Progress, Row
from engine.validate import require_int, require_number

MAX_STEPS = 1_000_000


@dataclass
class ProbeConfig:
    """Settings of one probe run (CLI: ``python -m engine probe``)."""

    data: str = "demo"
    data_dir: str | None = None
    text_col: str | None = None
    label_col: str | None = None
    split: str | None = None
    encoder: str | None = None
    pooling: str | None = None
    steps: int = 1000
    lr: float = 1e-3
    metric_every: int = 1
    sample_size: int | None = None
    limit: int | None = None
    seed: int = 0
    device: str = "auto"
    snapshot_every: int = 0
    snapshot_limit: int = 2000

    def __post_init__(self) -> None:
        require_int("steps", self.steps, 1, MAX_STEPS)
        require_int("metric_every", self.metric_every, 1, MAX_STEPS)
        require_int("snapshot_every", self.snapshot_every, 0, MAX_STEPS)
        require_int("snapshot_limit", self.snapshot_limit, 2, 1_000_000)
        if self.sample_size is not None:
            require_int("sample_size", self.sample_size, 2, 10_000_000)
        if self.limit is not None:
            require_int("limit", self.limit, 2, 10_000_000)
        require_int("seed", self.seed, 0, 2**63 - 1)
        self.lr = require_number("learning rate", self.lr, 0.0, 10.0, open_low=True)


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


# ---------------------------------------------------------------------------------------------- data


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


# ------------------------------------------------------------------------------------------ model


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


# ------------------------------------------------------------------------------------------- loop


def run_probe(config: ProbeConfig, stop: threading.Event | None = None) -> Iterator[Event]:
    """Full-batch Adam on embeddings + linear classifier; yields one metrics row per logged step."""
    from engine.encoders import encode_cached, load_encoder
    from engine.metrics._parallel import side_executor, tasks_not_ops  # lazy: engine.metrics loads scipy

    stop = stop or threading.Event()
    generator = seed_everything(config.seed)
    device = resolve_device(config.device)
    yield Progress("loading data", 0.0)
    encoder_box: dict[str, Any] = {}

    def encode(texts: list[str]) -> np.ndarray:
        encoder_box["encoder"] = load_encoder(config.encoder, pooling=config.pooling, device=device)
        return encode_cached(encoder_box["encoder"], texts)

    problem = build_problem(config, encode)
    encoder_box.clear()  # free the transformer: only the embeddings are trained
    if config.sample_size is not None and config.sample_size > problem.n_items:
        raise ConfigError(f"sample_size {config.sample_size} is larger than the data ({problem.n_items} items)")
    yield Progress("optimising", 1.0)

    model = EmbeddingClassifier(
        torch.from_numpy(problem.embeddings),
        len(problem.class_names),
        torch.from_numpy(problem.pairs) if problem.pairs is not None else None,
    ).to(device)
    targets = torch.from_numpy(problem.targets).to(device)
    clusters = torch.from_numpy(problem.cluster_ids).to(device)
    optimizer = torch.optim.Adam(model.parameters(), lr=config.lr)
    snapshot_rows = _snapshot_rows(problem, config, generator)
    if snapshot_rows is not None:
        texts = [_describe(problem, i) for i in snapshot_rows.tolist()]
        labels = [_label_name(problem, i) for i in snapshot_rows.tolist()]
        yield Points(texts, labels)

    with tasks_not_ops(device) as workers, (side_executor() if workers > 1 else contextlib.nullcontext()) as side:
        started = time.perf_counter()
        for step in range(config.steps + 1):
            if step > 0:
                optimizer.zero_grad(set_to_none=True)
                loss, _ = loss_and_accuracy(model(), targets, problem.multi_label)
                loss.backward()
                optimizer.step()
            if step % config.metric_every and step != config.steps:
                if stop.is_set():
                    return
                continue
            with torch.no_grad():  # every logged value describes the parameters after ``step`` updates
                loss, accuracy = loss_and_accuracy(model(), targets, problem.multi_label)
                points = model.representations().detach()
                iso, sil = measure(points, clusters, config, side)
                values: dict[str, Any] = {"loss": float(loss.detach()), "accuracy": accuracy, "isoscore": iso,
                                          "silhouette": sil}
                snapshot = None
                if snapshot_rows is not None and (step % config.snapshot_every == 0 or step == config.steps):
                    snapshot = points[snapshot_rows.to(points.device)].float().cpu().numpy()
            values["seconds"] = time.perf_counter() - started
            yield Row(step, values, snapshot)
            if stop.is_set():
                return


def measure(
    points: torch.Tensor, clusters: torch.Tensor, config: ProbeConfig, side: ThreadPoolExecutor | None = None
) -> tuple[float, float]:
    """IsoScore and silhouette of ``points``. With a ``side`` thread (CPU, several cores) the IsoScore runs
    there, single-threaded, while the silhouette's worker pool runs here: the pool alone leaves cores idle
    at its end, and IsoScore's small d x d work gains nothing from more threads (measured: the probe on
    rt-polarity, 3,000 sentences, went from 18.8 to 23.0 steps/s on two cores)."""
    from engine.metrics import isoscore, silhouette

    pending = side.submit(isoscore, points) if side is not None else None
    sil = silhouette(points, clusters, sample_size=config.sample_size, seed=config.seed)
    return (pending.result() if pending is not None else isoscore(points)), sil


def _snapshot_rows(problem: ProbeProblem, config: ProbeConfig, generator: torch.Generator) -> torch.Tensor | None:
    """A fixed, seeded subset of at most ``snapshot_limit`` items projected every ``snapshot_every`` steps."""
    if not config.snapshot_every:
        return None
    n = problem.n_items
    if n <= config.snapshot_limit:
        return torch.arange(n)
    return torch.randperm(n, generator=generator)[: config.snapshot_limit].sort().values


def _describe(problem: ProbeProblem, item: int) -> str:
    if problem.pairs is None:
        return problem.texts[item]
    premise, hypothesis = problem.pairs[item]
    return f"{problem.texts[premise]} ⟶ {problem.texts[hypothesis]}"


def _label_name(problem: ProbeProblem, item: int) -> str:
    if problem.multi_label:
        return "|".join(n for n, on in zip(problem.class_names, problem.targets[item]) if on > 0.5)
    return problem.class_names[int(problem.targets[item])]


def summarize(rows: list[dict[str, Any]], config: ProbeConfig) -> dict[str, Any]:
    """Start/end values and the correlation of the IsoScore and silhouette series (the paper's Fig. 3)."""
    from engine.metrics import series_correlation

    iso = np.array([r["isoscore"] for r in rows if r.get("isoscore") is not None], dtype=float)
    sil = np.array([r["silhouette"] for r in rows if r.get("silhouette") is not None], dtype=float)
    out: dict[str, Any] = {"pearson_r": None, "spearman_rho": None}
    if len(iso) >= 3 and len(iso) == len(sil):
        out["pearson_r"], out["spearman_rho"] = series_correlation(iso, sil)
    if len(iso):
        out.update(isoscore_start=iso[0], isoscore_end=iso[-1], silhouette_start=sil[0], silhouette_end=sil[-1])
    return out


# -------------------------------------------------------------------------------------------- CLI


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Flags of ``python -m engine probe`` (``--out``/``--force`` are added by engine.cli)."""
    parser.add_argument("--data", default="demo", help="built-in name (demo, rt-polarity, snli, ...) or a file")
    parser.add_argument("--data-dir", help="folder of real data sets (default: $EMBEDLAB_DATA_DIR)")
    parser.add_argument("--split", help="split of the data set where it has several (e.g. snli: validation)")
    parser.add_argument("--text-col", help="text column of a user file")
    parser.add_argument("--label-col", help="label column (demo: 'sentiment' for polarity labels)")
    parser.add_argument("--encoder", help="encoder: bundled (default), a cached name, a folder or a hub id")
    parser.add_argument("--pooling", help="override the encoder's pooling (cls, cls_before_pooler, avg, ...)")
    parser.add_argument("--steps", type=int, default=1000, help="Adam updates (default 1000)")
    parser.add_argument("--lr", type=float, default=1e-3, help="Adam learning rate (default 1e-3)")
    parser.add_argument("--metric-every", type=int, default=1, help="measure every k steps (default 1)")
    parser.add_argument("--sample-size", type=int, help="silhouette on a seeded sample of this size")
    parser.add_argument("--limit", type=int, help="stratified, seeded subset of this many items")
    parser.add_argument("--snapshot-every", type=int, default=0, help="save embeddings every k steps (0: never)")
    parser.add_argument("--snapshot-limit", type=int, default=2000, help="points kept in snapshots")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--device", default="auto", help="auto, cpu or cuda[:N]")


def config_from_args(args: argparse.Namespace) -> ProbeConfig:
    return ProbeConfig(
        data=args.data, data_dir=args.data_dir, text_col=args.text_col, label_col=args.label_col,
        split=args.split, encoder=args.encoder, pooling=args.pooling, steps=args.steps, lr=args.lr,
        metric_every=args.metric_every, sample_size=args.sample_size, limit=args.limit,
        snapshot_every=args.snapshot_every, snapshot_limit=args.snapshot_limit, seed=args.seed,
        device=args.device,
    )
