"""The probe against an independent plain-PyTorch loop written from the paper's description.

Mickus, Grönroos & Attieh 2024 (see ../shared/docs/background.md, section 2): the sentence embeddings E are
parameters, a linear classifier (W, b) reads them, full-batch Adam at PyTorch defaults (betas 0.9/0.999,
eps 1e-8) with the configured learning rate; cross-entropy for single labels, per-label binary
cross-entropy on multi-hot targets for multi-label sets; in paired (NLI) mode the classifier reads
[E_p ; E_h] of each (premise, hypothesis) pair. After every update: IsoScore (PyPI ``IsoScore`` 2.0.1) and
the Euclidean silhouette (scikit-learn) of the vectors the classifier reads, with the item labels
(multi-label: distinct label sets are distinct clusters).

The reference below shares no code with :mod:`engine.probe`: only its inputs are taken from the lab, the
data subset (:mod:`engine.data`, demo corpus only), the encoder's embeddings (:mod:`engine.encoders`) and
the seed. The classifier starts from ``nn.Linear``'s documented default init drawn right after
``torch.manual_seed(seed)`` (weight then bias, uniform in +-1/sqrt(fan_in)); classes are indexed in sorted
order; the pair concatenation, the loop and the accuracy are written here, with PyTorch's own
``torch.optim.Adam``, ``cross_entropy`` and ``binary_cross_entropy_with_logits`` (the loss of every state
is also checked against the written-out float64 formula).

Precision: the optimisation runs in float32 on one CPU thread, like the probe's. A float64 reference
cannot match the parameters to 1e-6: Adam's first update is lr * g / (|g| + eps), so in the few gradient
components with |g| near eps = 1e-8 a rounding difference in g is magnified by lr / eps (1e6 at lr 1e-2);
measured: 3 of 23,040 entries of E off by up to 1.4e-5 after one update. The metrics are computed in
float64 (IsoScore 2.0.1 and scikit-learn get float64 copies).

What is compared, for every step 0..STEPS (step s = after s updates):
- in process: loss, accuracy, IsoScore, silhouette of each row; the snapshot (snapshot_every=1, every
  item kept) against the reference representations; and E, W, b themselves after every update, read by a
  recording subclass of ``torch.optim.Adam`` (it only copies the parameters after ``step()``);
- end to end (``engine.runlog.runner.run_experiment`` and ``python -m engine probe`` in a subprocess, paired
  and
  multi-label): metrics.csv, the saved snapshots and points.csv against the reference, and metrics.csv
  against IsoScore / scikit-learn applied to the saved snapshots with the pair / label-set clusters.

Tolerance: TOL = 1e-6 absolute everywhere (metrics.csv keeps 9 significant digits). Seen: parameters,
snapshots and losses identical; accuracy, IsoScore and silhouette within 3e-8.
"""

from __future__ import annotations

import contextlib
import json
import math
import os
import subprocess
import warnings
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import torch
from IsoScore import IsoScore as isoscore_2_0_1
from sklearn.metrics import silhouette_score
from torch import nn

from engine import probe, runlog
from engine.command.exits import engine_command
from engine.runlog import runner
from engine.runlog.events import Points, Row

TOL = 1e-6
STEPS = 5
LR = 1e-2  # large enough that the 5 updates move every parameter far beyond TOL
SEED = 0
#: the probe settings of a reference run (the runner's side): every update snapshotted, on the CPU
SETTINGS = dict(steps=STEPS, lr=LR, seed=SEED, snapshot_every=1, snapshot_limit=10_000, device="cpu")
REPO = Path(__file__).resolve().parents[2]
DEMO_DIR = REPO / "engine" / "data" / "demo"
ADAM = torch.optim.Adam  # the real class, before a test records the probe's optimiser

pytestmark = [
    pytest.mark.filterwarnings("ignore:__array_wrap__:DeprecationWarning"),  # inside IsoScore 2.0.1
    pytest.mark.filterwarnings("ignore::engine.metrics.FewSamplesWarning"),  # n < d here, on purpose: small
]


# ---------------------------------------------------------------------------------------------- inputs


@dataclass
class Inputs:
    """What the optimisation is given: sentences, items (a sentence or a pair) and their labels."""

    sentences: list[str]  # unique sentences: the rows of E
    labels: list[str | tuple[str, ...]]  # one per item
    pairs: np.ndarray | None = None  # (n_items, 2) indices into ``sentences``; None: item i is sentence i
    texts: list[str] = field(default_factory=list)  # the text of each item, as points.csv shows it

    @property
    def multi_label(self) -> bool:
        return isinstance(self.labels[0], tuple)

    def classes(self) -> list[str]:
        names = {name for label in self.labels for name in (label if self.multi_label else (label,))}
        return sorted(names)

    def clusters(self) -> np.ndarray:
        """Silhouette clusters: the label, or the label set (multi-label)."""
        keys = sorted(set(self.labels))
        return np.array([keys.index(label) for label in self.labels])

    def targets(self) -> torch.Tensor:
        classes = self.classes()
        if not self.multi_label:
            return torch.tensor([classes.index(label) for label in self.labels])
        hot = torch.zeros(len(self.labels), len(classes), dtype=torch.float64)
        for row, label in enumerate(self.labels):
            hot[row, [classes.index(name) for name in label]] = 1.0
        return hot


def demo_inputs(limit: int) -> Inputs:
    """The probe's subset of the demo corpus (topic labels), as the data layer draws it."""
    from engine.data import load_dataset

    data = load_dataset("demo", limit=limit, seed=SEED)
    return Inputs(list(data.texts), list(data.labels), texts=list(data.texts))


def _demo_topics() -> pd.DataFrame:
    return pd.read_json(DEMO_DIR / "topics.jsonl", lines=True)


def write_multi_label(folder: Path, fmt: str) -> tuple[Path, Inputs]:
    """Demo sentences of three topics, each labelled {topic, sentiment}: 5 labels, 6 label sets.
    ``fmt`` "jsonl": the label is a JSON list; "csv": the label cell is ``topic|sentiment``."""
    frame = _demo_topics()
    frame = pd.concat(
        [
            frame[(frame.topic == topic) & (frame.sentiment == sentiment)].head(8)
            for topic in ("food", "music", "sports")
            for sentiment in ("positive", "negative")
        ]
    )
    frame = frame.sample(frac=1.0, random_state=1)  # classes interleaved
    texts = frame.text.tolist()
    labels = [tuple(sorted((t, s))) for t, s in zip(frame.topic, frame.sentiment, strict=True)]
    if fmt == "jsonl":
        path = folder / "tagged.jsonl"
        path.write_text(
            "".join(
                json.dumps({"text": t, "tags": [topic, sentiment]}) + "\n"
                for t, topic, sentiment in zip(texts, frame.topic, frame.sentiment, strict=True)
            )
        )
    else:
        path = folder / "tagged.csv"
        pd.DataFrame(
            {"text": texts, "tags": [f"{t}|{s}" for t, s in zip(frame.topic, frame.sentiment, strict=True)]}
        ).to_csv(path, index=False)
    return path, Inputs(texts, labels, texts=texts)


def write_nli_pairs(folder: Path) -> tuple[Path, Inputs]:
    """Premise/hypothesis pairs from the demo triples: each premise with its entailed and its contradicted
    hypothesis (premises are shared by two pairs, so their parameters get both pairs' gradients)."""
    triples = pd.read_json(DEMO_DIR / "nli.jsonl", lines=True).head(24)
    rows = [
        (p, h, label)
        for p, e, c in zip(triples.premise, triples.entailment, triples.contradiction, strict=True)
        for h, label in ((e, "entailment"), (c, "contradiction"))
    ]
    rows = [rows[i] for i in np.random.default_rng(2).permutation(len(rows))]
    path = folder / "pairs.tsv"
    pd.DataFrame(rows, columns=["premise", "hypothesis", "label"]).to_csv(path, sep="\t", index=False)
    sentences = sorted({text for p, h, _ in rows for text in (p, h)})  # any order: Adam is per element
    pairs = np.array([[sentences.index(p), sentences.index(h)] for p, h, _ in rows])
    return path, Inputs(
        sentences, [label for *_, label in rows], pairs, texts=[f"{p} ⟶ {h}" for p, h, _ in rows]
    )


def snli_inputs(data_dir: Path, limit: int) -> Inputs:
    from engine.data import load_dataset

    data = load_dataset("snli", data_dir=data_dir, limit=limit, seed=SEED)
    sentences = sorted(set(data.premises) | set(data.hypotheses))
    pairs = np.array(
        [
            [sentences.index(p), sentences.index(h)]
            for p, h in zip(data.premises, data.hypotheses, strict=True)
        ]
    )
    return Inputs(
        sentences,
        list(data.labels),
        pairs,
        texts=[f"{p} ⟶ {h}" for p, h in zip(data.premises, data.hypotheses, strict=True)],
    )


def encode(sentences: list[str]) -> np.ndarray:
    """The bundled encoder's embeddings: the probe's starting point."""
    from engine.encoders import encode_cached, load_encoder

    return np.asarray(encode_cached(load_encoder(None, device="cpu"), sentences), dtype=np.float64)


# ------------------------------------------------------------------------------------------- reference


@dataclass
class State:
    """The reference after ``step`` updates."""

    step: int
    loss: float
    accuracy: float
    representations: np.ndarray
    params: dict[str, np.ndarray]


def reference_run(inputs: Inputs, start: np.ndarray, lr: float, steps: int, seed: int) -> list[State]:
    """Full-batch Adam on (E, W, b) in the probe's precision (float32), from the paper's description;
    states 0..steps. Each state's loss is also recomputed in float64 from the written-out formula."""
    classes = inputs.classes()
    width = start.shape[1] * (1 if inputs.pairs is None else 2)
    torch.manual_seed(seed)
    bound = 1.0 / math.sqrt(width)  # nn.Linear's default: kaiming_uniform(a=sqrt 5) = U(+-1/sqrt(fan_in))
    weight = torch.empty(len(classes), width).uniform_(-bound, bound)
    bias = torch.empty(len(classes)).uniform_(-bound, bound)
    params = {"E": torch.tensor(start, dtype=torch.float32), "W": weight, "b": bias}
    for tensor in params.values():
        tensor.requires_grad_(True)
    targets = inputs.targets()
    targets = targets.float() if inputs.multi_label else targets
    pairs = None if inputs.pairs is None else torch.from_numpy(inputs.pairs)
    optimizer = ADAM(list(params.values()), lr=lr)  # PyTorch defaults: betas (0.9, 0.999), eps 1e-8

    def representations() -> torch.Tensor:
        E = params["E"]
        return E if pairs is None else torch.cat([E[pairs[:, 0]], E[pairs[:, 1]]], dim=1)

    def logits() -> torch.Tensor:
        return nn.functional.linear(representations(), params["W"], params["b"])

    def loss_of(z: torch.Tensor) -> torch.Tensor:
        if inputs.multi_label:
            return nn.functional.binary_cross_entropy_with_logits(z, targets)  # mean over items and labels
        return nn.functional.cross_entropy(z, targets)  # mean over items

    states = []
    for step in range(steps + 1):
        if step > 0:
            with one_thread():  # as the probe's CPU loop: the same float32 sums, whatever the core count
                optimizer.zero_grad(set_to_none=True)
                loss_of(logits()).backward()
                optimizer.step()
        with torch.no_grad():
            z = logits()
            if inputs.multi_label:
                correct = ((z > 0) == (targets > 0.5)).all(dim=1)
            else:
                correct = z.argmax(dim=1) == targets
            state = State(
                step,
                float(loss_of(z)),
                correct.double().mean().item(),
                representations().numpy().copy(),
                {k: p.detach().numpy().copy() for k, p in params.items()},
            )
        assert state.loss == pytest.approx(written_out_loss(z.double(), inputs), rel=0, abs=TOL)
        states.append(state)
    return states


def written_out_loss(z: torch.Tensor, inputs: Inputs) -> float:
    """The objective as the paper states it, in float64: mean -log softmax(z)[y] (single label), or the
    mean over items and labels of -[y log sigmoid(z) + (1 - y) log(1 - sigmoid(z))] (multi-label)."""
    y = inputs.targets()
    if inputs.multi_label:
        return float((-(y * torch.log(torch.sigmoid(z)) + (1 - y) * torch.log(1 - torch.sigmoid(z)))).mean())
    log_p = z - torch.logsumexp(z, dim=1, keepdim=True)
    return float(-log_p[torch.arange(len(y)), y].mean())


@contextlib.contextmanager
def one_thread() -> Iterator[None]:
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        yield
    finally:
        torch.set_num_threads(threads)


def reference_metrics(points: np.ndarray, clusters: np.ndarray) -> tuple[float, float]:
    """IsoScore 2.0.1 and scikit-learn's silhouette of ``points`` (float64)."""
    points = np.asarray(points, dtype=np.float64)
    with one_thread(), warnings.catch_warnings():  # 2.0.1's threaded svdvals is slow on a busy 2-core machine
        warnings.simplefilter("ignore", UserWarning)  # torch.tensor(ndarray) copy advice inside 2.0.1
        iso = float(isoscore_2_0_1.IsoScore(points))
    return iso, float(silhouette_score(points, clusters, metric="euclidean"))


# ------------------------------------------------------------------------------------------- the probe


class _Recorder:
    """Installs a subclass of torch.optim.Adam that copies its parameters at creation and after every step."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch):
        self.history: list[list[np.ndarray]] = []  # [initial, after update 1, ...], params in model order
        self.created = 0
        self.defaults: dict = {}
        recorder = self

        class RecordingAdam(ADAM):
            def __init__(self, params, *args, **kwargs):
                params = list(params)
                super().__init__(params, *args, **kwargs)
                recorder.created += 1
                recorder.history = [[p.detach().cpu().double().numpy().copy() for p in params]]
                recorder.defaults = dict(self.defaults)

            @torch.no_grad()
            def step(self, closure=None):
                out = super().step(closure)
                recorder.history.append(
                    [
                        p.detach().cpu().double().numpy().copy()
                        for group in self.param_groups
                        for p in group["params"]
                    ]
                )
                return out

        monkeypatch.setattr(torch.optim, "Adam", RecordingAdam)


def _match_rows(probe_rows: np.ndarray, reference_rows: np.ndarray) -> np.ndarray:
    """``order`` with probe_rows[i] == reference_rows[order[i]]: the probe may keep sentences in any order;
    its initial rows are the encoder's embeddings, so they identify the sentences."""
    distance = ((probe_rows[:, None, :] - reference_rows[None, :, :]) ** 2).sum(axis=2)
    order = distance.argmin(axis=1)
    assert sorted(order.tolist()) == list(range(len(reference_rows))), "the probe's E is not the sentences' E"
    np.testing.assert_allclose(probe_rows, reference_rows[order], rtol=0, atol=TOL)
    return order


def check_rows(values: list[dict], states: list[State], clusters: np.ndarray) -> None:
    """Every logged value against the reference and against IsoScore / silhouette of its representations."""
    assert [int(v["step"]) for v in values] == [s.step for s in states]
    for logged, state in zip(values, states, strict=True):
        iso, sil = reference_metrics(state.representations, clusters)
        expected = {"loss": state.loss, "accuracy": state.accuracy, "isoscore": iso, "silhouette": sil}
        for column, value in expected.items():
            assert logged[column] == pytest.approx(value, rel=0, abs=TOL), (state.step, column)


def check_snapshots(
    snapshots: list[np.ndarray], states: list[State], clusters: np.ndarray, values: list[dict]
) -> None:
    """Snapshot s = the reference's representations after s updates, and the logged metrics are those of
    the snapshot (IsoScore 2.0.1 and scikit-learn on exactly what was saved)."""
    assert len(snapshots) == len(states)
    for snapshot, state, logged in zip(snapshots, states, values, strict=True):
        assert snapshot.shape == state.representations.shape, state.step
        np.testing.assert_allclose(
            snapshot, state.representations, rtol=0, atol=TOL, err_msg=f"step {state.step}"
        )
        iso, sil = reference_metrics(snapshot, clusters)
        assert logged["isoscore"] == pytest.approx(iso, rel=0, abs=TOL), state.step
        assert logged["silhouette"] == pytest.approx(sil, rel=0, abs=TOL), state.step


# ------------------------------------------------------------------------------------------------ tests


def _mode(name: str, tmp_path: Path) -> tuple[dict, Inputs]:
    if name == "single-label":
        return {"data": "demo", "limit": 60}, demo_inputs(60)
    if name == "multi-label":
        path, inputs = write_multi_label(tmp_path, "jsonl")
        return {"data": str(path)}, inputs
    path, inputs = write_nli_pairs(tmp_path)
    return {"data": str(path)}, inputs


@pytest.mark.parametrize("mode", ["single-label", "multi-label", "paired"])
def test_probe_matches_an_independent_adam_loop(
    mode: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Five updates: every row, snapshot and parameter equals the plain-PyTorch reference to 1e-6."""
    fields, inputs = _mode(mode, tmp_path)
    recorder = _Recorder(monkeypatch)
    config = probe.ProbeConfig(
        **fields, steps=STEPS, lr=LR, seed=SEED, snapshot_every=1, snapshot_limit=10_000, device="cpu"
    )
    events = list(probe.run_probe(config))
    rows = [e for e in events if isinstance(e, Row)]
    (points,) = [e for e in events if isinstance(e, Points)]

    start = encode(inputs.sentences)
    states = reference_run(inputs, start, LR, STEPS, SEED)
    clusters = inputs.clusters()
    n_items = len(inputs.labels)
    assert points.texts == inputs.texts
    expected_labels = ["|".join(label) if inputs.multi_label else label for label in inputs.labels]
    assert points.labels == expected_labels
    check_rows([{"step": r.step, **r.values} for r in rows], states, clusters)
    check_snapshots([r.snapshot for r in rows], states, clusters, [r.values for r in rows])
    assert rows[-1].snapshot.shape == (n_items, start.shape[1] * (1 if inputs.pairs is None else 2))

    # the parameters themselves: Adam with the config's lr and PyTorch's defaults, E, W, b after each update
    assert recorder.created == 1 and recorder.defaults["lr"] == LR
    assert recorder.defaults["betas"] == (0.9, 0.999) and recorder.defaults["eps"] == 1e-8
    assert recorder.defaults["weight_decay"] == 0 and not recorder.defaults["amsgrad"]
    assert len(recorder.history) == STEPS + 1
    shapes = sorted(p.ndim for p in recorder.history[0])
    assert shapes == [1, 2, 2], "expected E, W and b"
    by_shape = {p.shape: i for i, p in enumerate(recorder.history[0])}
    e_at = by_shape[start.shape]
    w_at = by_shape[states[0].params["W"].shape]
    b_at = by_shape[states[0].params["b"].shape]
    order = _match_rows(recorder.history[0][e_at], start)
    for params, state in zip(recorder.history, states, strict=True):
        np.testing.assert_allclose(
            params[e_at], state.params["E"][order], rtol=0, atol=TOL, err_msg=f"E after {state.step} updates"
        )
        np.testing.assert_allclose(
            params[w_at], state.params["W"], rtol=0, atol=TOL, err_msg=f"W after {state.step} updates"
        )
        np.testing.assert_allclose(
            params[b_at], state.params["b"], rtol=0, atol=TOL, err_msg=f"b after {state.step} updates"
        )
    moved = np.abs(recorder.history[-1][e_at] - recorder.history[0][e_at]).max()
    assert moved > 1000 * TOL  # the comparison above is not vacuous


def _run_cli(path: Path, out: Path) -> None:
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "EMBEDLAB_NO_PROGRESS": "1"}
    result = subprocess.run(
        engine_command(
            "probe",
            "--data",
            str(path),
            "--steps",
            str(STEPS),
            "--lr",
            str(LR),
            "--seed",
            str(SEED),
            "--snapshot-every",
            "1",
            "--snapshot-limit",
            "10000",
            "--device",
            "cpu",
            "--out",
            str(out),
        ),
        cwd=REPO,
        env=env,
        capture_output=True,
        text=True,
        timeout=570,
    )
    assert result.returncode == 0, result.stderr


def _check_run_folder(run_dir: Path, inputs: Inputs) -> None:
    start = encode(inputs.sentences)
    states = reference_run(inputs, start, LR, STEPS, SEED)
    clusters = inputs.clusters()
    frame = runlog.read_metrics(run_dir)
    values = frame.to_dict("records")
    check_rows(values, states, clusters)
    snapshots = [runlog.load_snapshot(path) for _, path in runlog.list_snapshots(run_dir)]
    check_snapshots(snapshots, states, clusters, values)
    points = runlog.read_points(run_dir)
    assert points["text"].tolist() == inputs.texts
    expected_labels = ["|".join(label) if inputs.multi_label else label for label in inputs.labels]
    assert points["label"].tolist() == expected_labels
    assert runlog.run_state(run_dir) == "finished"


@pytest.mark.parametrize("route", ["run_experiment", "cli"])
@pytest.mark.parametrize("mode", ["paired", "multi-label"])
def test_end_to_end_metrics_are_those_of_the_classifier_inputs(route: str, mode: str, tmp_path: Path) -> None:
    """Paired: IsoScore and silhouette of the (premise, hypothesis) pair vectors [E_p ; E_h] with the pair
    labels; multi-label: of E with the label sets as clusters; through the runner and the CLI alike."""
    if mode == "paired":
        path, inputs = write_nli_pairs(tmp_path)
    else:
        path, inputs = write_multi_label(tmp_path, "jsonl" if route == "run_experiment" else "csv")
    run_dir = tmp_path / "run"
    if route == "cli":
        _run_cli(path, run_dir)
    else:
        config = probe.ProbeConfig(data=str(path), **SETTINGS)
        runner.run_experiment("probe", config, run_dir)
    _check_run_folder(run_dir, inputs)


def test_snli_pairs_through_the_runner(tmp_path: Path, shared_data: Path) -> None:
    """The paper's setup (ii) in small: SNLI validation pairs (3 classes), metrics on [E_p ; E_h]."""
    inputs = snli_inputs(shared_data, 60)
    assert len(inputs.classes()) == 3
    config = probe.ProbeConfig(data="snli", data_dir=str(shared_data), limit=60, **SETTINGS)
    runner.run_experiment("probe", config, tmp_path / "run")
    _check_run_folder(tmp_path / "run", inputs)
