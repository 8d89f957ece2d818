"""The probe's update on a paper setup, as ``python -m engine probe`` builds it, against a plain PyTorch loop
(full-batch Adam on a linear classifier over embedding parameters, no measures) in the same process and on
the same device; and where a lab update goes: the update, the measures (one pass on the device, one host
transfer per row), the write (the runner's thread: metrics.csv, spectrum, snapshot, the CLI's events).

    python benchmarks/bench_probe_split.py --device cpu --updates 20
    python benchmarks/bench_probe_split.py --device cuda --updates 300
    python benchmarks/bench_probe_split.py --device cpu --updates 20 --embeddings rt.npy   # skip encoding
    python benchmarks/bench_probe_split.py --device cpu --updates 10 --limit 2000           # a subset

Setup (i) (``--setup i``, Mickus et al. 2024): rt-polarity, 10,662 sentences x 384 (the bundled encoder),
2 classes, with the settings of the lab's preset "Isotropy paper, setup (i)" (lr 1e-3, every measure at every
update, the spectrum, effective rank, I(W) and uniformity every 10th, a 2,000-item snapshot every 10 updates;
``--snapshot-every 0`` leaves the snapshots out, as the CLI's default does).

Reported: ``lab``: ms per update of the whole run (``engine.runlog.runner.run_experiment`` with the CLI's
config, its progress bar and ``--events`` stream into a null sink), from the row of the first timed update to
the row of the last, after ``--warmup`` updates; ``split``: a second run whose phases are timed (``--device
cuda``: with a device synchronisation at the end of each, which the real run does not have): ``update`` (Adam
step), ``measures`` (evaluation, every measure, the row's host transfer), ``write`` (the runner's writer and
the CLI's callbacks; on the runner's thread, beside the updates); ``plain``: the loop written here;
``lab/plain``. ``--embeddings PATH.npy``: the embeddings of the set's sentences in the order of
``engine.data`` (float32, n x d); encoding is then skipped (no encoder needed), e.g. ``/tmp/rt.npy`` written
by an earlier ``--save-embeddings``.
"""

from __future__ import annotations

import argparse
import contextlib
import datetime
import functools
import io
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import torch

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))  # this checkout's engine

SETUPS = {"i": "Isotropy paper, setup (i)"}


def setup_config(args: argparse.Namespace, steps: int) -> Any:
    """The config of ``python -m engine probe`` with the preset's settings, as the CLI parses it."""
    from engine import cli
    from engine.probe.presets import presets

    preset = next(p for p in presets() if p.name == SETUPS[args.setup])
    base = dict(preset.base)
    base.update(steps=steps, device=args.device, data_dir=str(args.data_dir))
    if args.snapshot_every is not None:
        base["snapshot_every"] = args.snapshot_every
    if args.limit:
        base["limit"] = args.limit
    argv = ["probe", "--out", "unused"]
    for name, value in base.items():
        if value is None:
            continue
        flag = "--" + name.replace("_", "-")
        if isinstance(value, bool):
            argv += [flag] if value else []
        else:
            argv += [flag, str(value)]
    parsed = cli.build_parser().parse_args(argv)
    from engine.experiments import EXPERIMENTS

    return EXPERIMENTS["probe"].command_line.config_from_args(parsed)


def use_embeddings(path: Path, config: Any) -> None:
    """Serve the sentences' embeddings from ``path`` instead of the encoder (this process only)."""
    import engine.encoders as encoders
    from engine.data import load_dataset

    table = np.load(path, allow_pickle=False).astype(np.float32, copy=False)
    texts = list(load_dataset(config.data, data_dir=config.data_dir).texts)
    if table.shape[0] != len(texts):
        raise SystemExit(f"--embeddings {path}: {table.shape[0]} rows for {len(texts)} sentences")
    row = {text: i for i, text in enumerate(texts)}

    def encode_cached(encoder: Any, wanted: list[str], **_: Any) -> np.ndarray:
        return table[[row[text] for text in wanted]]

    encoders.load_encoder = lambda *a, **k: None
    encoders.encode_cached = encode_cached


def problem_of(config: Any) -> Any:
    """The probe's problem (embeddings, targets) as its set-up builds it (the encoder via the cache)."""
    from engine.encoders import encode_cached, load_encoder
    from engine.probe.compute import pick_device
    from engine.probe.problem import build_problem

    def encode(texts: list[str]) -> np.ndarray:
        encoder = load_encoder(config.encoder, pooling=config.pooling, device=pick_device(config.device))
        return encode_cached(encoder, texts)

    return build_problem(config, encode)


def sync(device: torch.device) -> None:
    if device.type == "cuda":
        torch.cuda.synchronize(device)


def plain_loop(
    embeddings: np.ndarray, targets: np.ndarray, lr: float, device: torch.device, warmup: int, updates: int
) -> float:
    """Full-batch Adam on E (n x d) and a linear classifier, cross-entropy; ms per update (no measures)."""
    torch.manual_seed(0)
    e = torch.nn.Parameter(torch.from_numpy(embeddings).to(device).clone())
    y = torch.from_numpy(targets).to(device)
    classifier = torch.nn.Linear(e.shape[1], int(targets.max()) + 1).to(device)
    optimizer = torch.optim.Adam([e, *classifier.parameters()], lr=lr)
    for i in range(warmup + updates):
        if i == warmup:
            sync(device)
            started = time.perf_counter()
        optimizer.zero_grad(set_to_none=True)
        torch.nn.functional.cross_entropy(classifier(e), y).backward()
        optimizer.step()
    sync(device)
    return (time.perf_counter() - started) / updates * 1e3


class Split:
    """Wall time of the lab's phases, wrapped where they are defined (``engine.probe.loop._update``,
    ``_measure_row`` and ``RowTransfer.result``, the runner's ``RunWriter`` and event callback)."""

    def __init__(self, device: torch.device) -> None:
        self.device = device
        self.totals: dict[str, float] = {}
        self.counts: dict[str, int] = {}
        self.lock = threading.Lock()
        self.timing = False

    def wrap(self, name: str, fn: Callable, primary: bool = True) -> Callable:
        @functools.wraps(fn)
        def timed(*args: Any, **kwargs: Any) -> Any:
            start = time.perf_counter()
            try:
                return fn(*args, **kwargs)
            finally:
                if name != "write":
                    sync(self.device)
                if self.timing:
                    with self.lock:
                        self.totals[name] = self.totals.get(name, 0.0) + time.perf_counter() - start
                        self.counts[name] = self.counts.get(name, 0) + primary

        return timed

    def patch(self) -> bool:
        """Wrap the phases; False when this checkout's loop has none to wrap (an older engine)."""
        import engine.probe.loop as loop
        from engine.runlog import RunWriter

        if not hasattr(loop, "_measure_row"):
            return False
        loop._update = self.wrap("update", loop._update)
        loop._measure_row = self.wrap("measures", loop._measure_row)
        loop.RowTransfer.result = self.wrap("measures", loop.RowTransfer.result, primary=False)
        for method in ("append", "append_spectrum", "save_snapshot"):
            setattr(RunWriter, method, self.wrap("write", getattr(RunWriter, method), method == "append"))
        return True

    def per_call(self, name: str) -> float:
        """ms per update (``update``) or per row (``measures``, ``write``: one row per update here)."""
        return self.totals.get(name, 0.0) / max(1, self.counts.get(name, 0)) * 1e3
        return True


def lab_run(config: Any, warmup: int, on_event: Callable | None = None) -> tuple[float, int]:
    """ms per update of the lab's run (rows after ``warmup`` updates), and the updates timed."""
    from engine.command.progress import ProgressBar
    from engine.runlog.events import Row, tick_of, to_line
    from engine.runlog.runner import run_experiment

    stamps: dict[int, float] = {}
    progress = ProgressBar(config.steps, enabled=False)
    sink = io.StringIO()

    def events(event: Any) -> None:
        progress(event)  # the CLI's callbacks: its progress bar and its --events line per row
        if isinstance(event, Row):
            sink.write(to_line(tick_of(event)) + "\n")
            stamps[event.step] = time.perf_counter()
        if on_event is not None:
            on_event(event)

    with tempfile.TemporaryDirectory(prefix="bench-probe-split-") as out:
        run_experiment("probe", config, Path(out) / "run", stop=threading.Event(), on_event=events)
    last = max(stamps)
    return (stamps[last] - stamps[warmup]) / (last - warmup) * 1e3, last - warmup


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--device", default="cpu", help="cpu, cuda or cuda:N")
    parser.add_argument("--data-dir", type=Path, default=REPO.parent / "shared" / "data")
    parser.add_argument("--setup", choices=sorted(SETUPS), default="i")
    parser.add_argument("--updates", type=int, default=20, help="timed updates (after the warm-up)")
    parser.add_argument("--warmup", type=int, default=None, help="updates before timing (cpu 2, cuda 20)")
    parser.add_argument("--embeddings", type=Path, help=".npy of the sentences' embeddings: no encoding")
    parser.add_argument("--save-embeddings", type=Path, help="write the embeddings used to this .npy")
    parser.add_argument("--limit", type=int, help="a stratified subset of this many sentences (trials)")
    parser.add_argument("--snapshot-every", type=int, help="override the preset's snapshot_every")
    parser.add_argument("--no-split", action="store_true", help="only the lab's total and the plain loop")
    args = parser.parse_args()
    device = torch.device(args.device)
    warmup = args.warmup if args.warmup is not None else (20 if device.type == "cuda" else 2)
    config = setup_config(args, warmup + args.updates)
    if args.embeddings:
        use_embeddings(args.embeddings, config)
    problem = problem_of(config)  # encodes once (then the embedding cache serves the lab's run)
    if args.save_embeddings:
        np.save(args.save_embeddings, problem.embeddings)
    n, d = problem.embeddings.shape
    name = (
        torch.cuda.get_device_name(device)
        if device.type == "cuda"
        else f"CPU, {torch.get_num_threads()} threads"
    )
    print(
        f"bench_probe_split {datetime.date.today()} · setup ({args.setup}) {config.data}: {n:,} x {d}, "
        f"{len(problem.class_names)} classes · {name} · torch {torch.__version__}"
    )
    print(
        f"config: steps={config.steps} lr={config.lr} metric_every={config.metric_every} "
        f"geometry_every={config.geometry_every} snapshot_every={config.snapshot_every} "
        f"snapshot_limit={config.snapshot_limit} sample_size={config.sample_size}"
    )
    lab_ms, timed = lab_run(config, warmup)
    print(
        f"lab   (python -m engine probe as the CLI builds it): {lab_ms:8.2f} ms/update "
        f"({timed} updates after {warmup} of warm-up)"
    )
    split = Split(device)
    if not args.no_split and split.patch():
        rows = [0]

        def count(event: Any) -> None:
            from engine.runlog.events import Row

            if isinstance(event, Row) and event.step == warmup:
                split.timing = True
            rows[0] += split.timing and isinstance(event, Row)

        lab_run(config, warmup, count)
        print(
            "split (per update, "
            + ("synchronised; " if device.type == "cuda" else "")
            + "write on the runner's thread, beside the updates): "
            + " · ".join(f"{k} {split.per_call(k):.2f} ms" for k in ("update", "measures", "write"))
        )
    plain_ms = plain_loop(
        problem.embeddings, np.asarray(problem.targets), config.lr, device, warmup, args.updates
    )
    print(f"plain (full-batch Adam, linear classifier, no measures): {plain_ms:8.3f} ms/update")
    print(f"lab/plain {lab_ms / plain_ms:.1f} (lab {lab_ms:.2f} ms, plain {plain_ms:.3f} ms)")
    return 0


if __name__ == "__main__":
    with contextlib.suppress(BrokenPipeError):
        sys.exit(main())
