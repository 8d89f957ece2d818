"""The lab's SimCSE and JEPA training steps against a plain PyTorch SimCSE loop (same device, data, batch,
max length and seed), ms per step after a warm-up.

    python benchmarks/bench_step.py --device cpu --encoder tiny --steps 60
    python benchmarks/bench_step.py --device cpu --encoder bundled --steps 60
    python benchmarks/bench_step.py --device cuda --encoder bundled --steps 200 --eval-every 100
    python benchmarks/bench_step.py --encoder tiny --steps 60 --ab-buckets     # + the lab with one forward
    python benchmarks/bench_step.py --encoder tiny --steps 30 --split          # where a lab step goes

Contenders:
- ``simcse lab``: ``python -m engine simcse`` as the CLI builds it (its parser and config, the runner writing
  the run folder, the CLI's progress callback), driven one row at a time: ``run_experiment`` runs in a thread
  whose event callback waits for the next go, so a step's time is everything from one row to the next
  (views, tokenisation, forward, backward, AdamW, the row written, evaluation where due, the events);
- ``jepa lab``: ``python -m engine jepa`` the same way (defaults: EMA target, predictor, stop-gradient);
- ``jepa one-way``: the same with ``--no-symmetric`` (the context predicts the sentence only: one online
  forward of the context, one target forward of the sentence);
- ``jepa target-dropout``: the default JEPA with ``--target-dropout`` (the EMA target's forward with dropout,
  BYOL's way; the lab's default until 2026-11-29), to show what the target's dropout costs;
- ``plain``: the SimCSE step written here against transformers + torch (:func:`plain_loop`), in the lab's
  precision (``--plain-precision fp32``: float32; ``auto`` is bf16 autocast on CPUs with native bf16);
- with ``--ab-buckets``, ``simcse other``: the lab with the other bucket choice than its default for this
  device and encoder (one forward where it buckets, ``MAX_BUCKETS`` forced where it runs one forward).
``--encoder tiny``: a 2-layer BERT of width 64 (random weights, seeded) with the bundled tokenizer, written
to a temporary folder: it makes the lab's CPU-side overhead visible. The machine may be shared, so each round
runs ``--eval-every`` steps (1 without) of every contender back to back, in an order rotated each round;
reported: the median over rounds of each contender's ms per step, and the ratios as medians of the
per-round ratios (the same load on both sides of each). Each contender runs in a thread of its own (torch's
CPU thread pool is per calling thread), the main thread only times them.
"""

from __future__ import annotations

import argparse
import datetime
import statistics
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import torch
import torch.nn.functional as F

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # this checkout's engine
sys.path.append(str(Path(__file__).resolve().parent.parent / "tests"))  # the tests' tiny encoder

from bench_step_phases import PHASES, Phases, patch_phases, print_split, profile  # noqa: E402

from engine.compute.device import autocast_dtype, precision_name, synchronize  # noqa: E402


def tiny_encoder(folder: Path, seed: int = 0) -> str:
    """A 2-layer BERT of width 64 (4 heads, random weights), the bundled tokenizer, saved to ``folder``."""
    from tiny_bert import save_tiny_bert  # tests/: the tests' tiny encoders are made the same way
    from transformers import AutoTokenizer

    from engine.encoders import bundled_path

    tokenizer = AutoTokenizer.from_pretrained(bundled_path(), trust_remote_code=False)
    save_tiny_bert(folder, tokenizer, hidden=64, heads=4, intermediate=256, positions=512, seed=seed)
    return str(folder)


def plain_loop(
    folder: str, pooler: str, config: Any, data: list[str], device: torch.device, dtype: torch.dtype | None
) -> Callable:
    """The SimCSE step in plain PyTorch: tokenise, the two views in one forward, InfoNCE (τ), AdamW with the
    lab's linear decay; the lab run's pooler (``cls``: [CLS] + Linear/Tanh MLP, ``avg``: masked mean); the
    encoder's forward in ``dtype`` autocast (None: float32)."""
    from transformers import AutoModel, AutoTokenizer

    from engine.training.data import BatchSampler

    torch.manual_seed(config.seed)
    tokenizer = AutoTokenizer.from_pretrained(folder, trust_remote_code=False)
    model = AutoModel.from_pretrained(folder, trust_remote_code=False).to(device).train()
    hidden = model.config.hidden_size
    use_mlp = pooler in ("cls", "cls-mlp")
    mlp = torch.nn.Sequential(torch.nn.Linear(hidden, hidden), torch.nn.Tanh()).to(device)
    params = list(model.parameters()) + (list(mlp.parameters()) if use_mlp else [])
    optimizer = torch.optim.AdamW(params, lr=config.lr, weight_decay=0.0)
    schedule = torch.optim.lr_scheduler.LambdaLR(optimizer, lambda s: max(0.0, 1.0 - s / config.steps))
    sampler = BatchSampler(len(data), config.batch_size, config.seed)  # the lab's batches: same lengths
    count = [0]

    def step() -> float:
        count[0] += 1
        texts = [data[i] for i in sampler(count[0])]
        inputs = tokenizer(
            texts + texts, padding=True, truncation=True, max_length=config.max_len, return_tensors="pt"
        ).to(device)
        with torch.autocast(device.type, dtype=dtype, enabled=dtype is not None):
            out = model(**inputs).last_hidden_state
        if use_mlp:
            z = mlp(out[:, 0])
        else:
            mask = inputs["attention_mask"].unsqueeze(-1).to(out.dtype)
            z = (out * mask).sum(1) / mask.sum(1).clamp(min=1e-9)
        z1, z2 = F.normalize(z[: len(texts)], dim=-1), F.normalize(z[len(texts) :], dim=-1)
        labels = torch.arange(len(texts), device=device)
        loss = F.cross_entropy(z1 @ z2.T / config.temp, labels)
        loss.backward()
        optimizer.step()
        optimizer.zero_grad(set_to_none=True)
        schedule.step()
        return float(loss.detach())  # one host read per step, as the lab's logged loss

    return step


class InThread:
    """``run`` called in a thread of its own, once per :meth:`step` (the lab's runs have theirs)."""

    def __init__(self, run: Callable[[], Any]):
        self.go, self.done, self.error = threading.Semaphore(0), threading.Semaphore(0), None
        self.stop = False

        def loop() -> None:
            while True:
                self.go.acquire()
                if self.stop:
                    return
                try:
                    run()
                except BaseException as err:  # noqa: BLE001 - reported by step()
                    self.error = err
                self.done.release()

        self.thread = threading.Thread(target=loop, name="bench-plain", daemon=True)
        self.thread.start()

    def step(self) -> None:
        self.go.release()
        self.done.acquire()
        if self.error is not None:
            raise RuntimeError(f"the plain loop failed: {self.error}") from self.error

    def close(self) -> None:
        self.stop = True
        self.go.release()
        self.thread.join(timeout=60)


class Lockstep:
    """``run_experiment`` of one CLI config in a thread, advanced one row per :meth:`step`."""

    def __init__(self, kind: str, config: Any, out: Path, wrap: Callable = lambda name, fn: fn):
        from engine.command.progress import ProgressBar
        from engine.runlog.events import Row
        from engine.runlog.runner import run_experiment

        self.go, self.done = threading.Semaphore(0), threading.Semaphore(0)
        self.stop, self.error = threading.Event(), None
        self.rows = 0
        progress = wrap("events", ProgressBar(config.steps, enabled=False))  # the CLI's callback, silent

        def on_event(event: Any) -> None:
            progress(event)
            if isinstance(event, Row):
                self.rows += 1
                self.done.release()
                self.go.acquire()

        def run() -> None:
            try:
                run_experiment(kind, config, out, stop=self.stop, on_event=on_event)
            except BaseException as err:  # noqa: BLE001 - reported by step()
                self.error = err
            finally:
                self.done.release()

        self.thread = threading.Thread(target=run, name=f"bench-{kind}", daemon=True)
        self.thread.start()
        self.done.acquire()  # set-up and row 0 (the untouched encoder's evaluation)
        self._check()

    def _check(self) -> None:
        if self.error is not None:
            raise RuntimeError(f"the lab's run failed: {self.error}") from self.error

    def step(self) -> float:
        self.go.release()
        self.done.acquire()
        self._check()
        return 0.0

    def close(self) -> None:
        self.stop.set()
        self.go.release()
        self.thread.join(timeout=600)


def force_buckets(count: int) -> None:
    """The lab's towers built from now on run ``count`` length buckets on a CPU, whatever the encoder's width
    (1: one forward)."""
    import engine.training.towers as towers_module

    towers_module.MAX_BUCKETS = count
    if hasattr(towers_module, "BUCKET_MIN_WIDTH"):
        towers_module.BUCKET_MIN_WIDTH = 0


def lab_buckets(device: torch.device, folder: str) -> int:
    """How many length buckets the lab's towers run for this device and encoder."""
    from transformers import AutoConfig

    import engine.training.towers as towers_module

    limit = getattr(towers_module, "bucket_limit", None)
    if limit is None:  # the code before issue 38: buckets wherever
        return towers_module.MAX_BUCKETS
    return limit(device, AutoConfig.from_pretrained(folder, trust_remote_code=False).hidden_size)


def cli_config(
    kind: str, args: argparse.Namespace, encoder: str, total: int, extra: tuple[str, ...] = ()
) -> Any:
    """The config ``python -m engine KIND ...`` builds from these flags (the experiment's own flags and
    checks, :mod:`engine.core.flags`; not the whole parser, which imports every experiment)."""
    from engine.experiments import EXPERIMENTS

    cli = EXPERIMENTS[kind].command_line
    parser = argparse.ArgumentParser()
    cli.add_arguments(parser)
    argv = ["--encoder", encoder, "--device", args.device]
    argv += ["--batch-size", str(args.batch_size), "--max-len", str(args.max_len), "--seed", str(args.seed)]
    argv += ["--steps", str(total), "--eval-every", str(args.eval_every or total)]
    argv += ["--precision", args.precision]
    argv += ["--train", args.train] + (["--data-dir", args.data_dir] if args.data_dir else [])
    return cli.config_from_args(parser.parse_args([*argv, *extra]))


def timed_call(run: Callable[[], Any], device: torch.device) -> float:
    synchronize(device)
    start = time.perf_counter()
    run()
    synchronize(device)
    return time.perf_counter() - start


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--device", default="cpu", choices=("cpu", "cuda"))
    parser.add_argument("--encoder", default="bundled", help="bundled | tiny | a model folder")
    parser.add_argument("--steps", type=int, default=60, help="measured steps per contender")
    parser.add_argument("--eval-every", type=int, default=0, help="lab evaluation every k steps (0: none)")
    parser.add_argument("--warmup", type=int, default=3, help="steps per contender before timing")
    parser.add_argument("--batch-size", type=int, default=64)
    parser.add_argument("--max-len", type=int, default=32)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--precision", default="auto", help="the lab's: auto (the CLI's default) or fp32")
    parser.add_argument(
        "--plain-precision", default="same", choices=("same", "fp32"), help="the plain loop's"
    )
    parser.add_argument("--data-dir", default=None, help="default: ../shared/data when it has wiki")
    parser.add_argument("--train", default=None, help="default: wiki1m with a data folder, else demo")
    parser.add_argument("--threads", type=int, default=0, help="torch threads (0: torch's default)")
    parser.add_argument("--max-buckets", type=int, default=0, help="force N length buckets (1: one forward)")
    parser.add_argument("--ab-buckets", action="store_true", help="add the lab with one forward")
    parser.add_argument("--split", action="store_true", help="time each phase of a step (wall clock)")
    parser.add_argument("--profile", type=int, default=0, help="torch.profiler over N more steps")
    return parser.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    if args.threads:
        torch.set_num_threads(args.threads)
    shared = Path(__file__).resolve().parent.parent.parent / "shared" / "data"
    if args.data_dir is None and (shared / "wiki").is_dir():
        args.data_dir = str(shared)
    args.train = args.train or ("wiki1m" if args.data_dir else "demo")
    import engine.training.towers as towers_module
    from engine.training.data import load_training
    from engine.training.encoder import resolve_pooler

    if args.max_buckets:
        force_buckets(args.max_buckets)
    device = torch.device(args.device)
    work = Path(tempfile.mkdtemp(prefix="bench_step_"))
    encoder = tiny_encoder(work / "tiny") if args.encoder == "tiny" else args.encoder
    if encoder == "bundled":
        from engine.encoders import bundled_path

        folder = str(bundled_path())
    else:
        folder = encoder
    chunk = args.eval_every or 1
    rounds = max(1, args.steps // chunk)
    total = args.warmup + rounds * chunk + 2  # the run's last step (evaluated) is never reached
    simcse_config = cli_config("simcse", args, encoder, total)
    data = load_training(simcse_config)
    pooler = resolve_pooler(simcse_config.pooler, simcse_config.encoder)
    plain_precision = args.precision if args.plain_precision == "same" else "fp32"
    buckets = lab_buckets(device, folder) > 1
    print(
        f"{datetime.date.today()} · {device} · torch {torch.__version__}, {torch.get_num_threads()} threads "
        "· "
        f"encoder {args.encoder} · {args.train}, batch {args.batch_size}, max length {args.max_len}, "
        f"seed {args.seed} · lab precision {precision_name(device, args.precision)} (plain "
        f"{precision_name(device, plain_precision)}) · pooler "
        f"{pooler} · lab {'length buckets' if buckets else 'one forward'} · {rounds} rounds × {chunk} "
        "step(s), warm-up "
        f"{args.warmup} · evaluation {'every ' + str(args.eval_every) if args.eval_every else 'none'}",
        flush=True,
    )
    phases = Phases() if args.split else None
    wrap = phases.wrap if phases else (lambda name, fn: fn)
    if phases:
        patch_phases(phases)
    plain = plain_loop(folder, pooler, simcse_config, data, device, autocast_dtype(device, plain_precision))
    plain_thread = InThread(wrap(PHASES[4], plain))  # in a thread of its own, as each lab run
    contenders: dict[str, Callable[[], Any]] = {"plain": plain_thread.step}
    labs = {"simcse lab": Lockstep("simcse", simcse_config, work / "simcse", wrap)}
    if args.ab_buckets:  # the other choice; read when the towers are built
        kept = towers_module.MAX_BUCKETS, getattr(towers_module, "BUCKET_MIN_WIDTH", 0)
        force_buckets(1 if buckets else kept[0])
        labs["simcse other"] = Lockstep("simcse", simcse_config, work / "simcse-other", wrap)
        towers_module.MAX_BUCKETS, towers_module.BUCKET_MIN_WIDTH = kept
    labs["jepa lab"] = Lockstep("jepa", cli_config("jepa", args, encoder, total), work / "jepa", wrap)
    one_way = cli_config("jepa", args, encoder, total, ("--no-symmetric",))
    labs["jepa one-way"] = Lockstep("jepa", one_way, work / "jepa-one-way", wrap)
    noisy_target = cli_config("jepa", args, encoder, total, ("--target-dropout",))
    labs["jepa target-dropout"] = Lockstep("jepa", noisy_target, work / "jepa-target-dropout", wrap)
    contenders.update({name: lab.step for name, lab in labs.items()})
    try:
        per_round, split = time_rounds(contenders, args.warmup, rounds, chunk, device, phases)
        if args.profile:
            print(f"\ntorch.profiler, {args.profile} steps of the plain loop:")
            profile(plain, args.profile)
            from engine.simcse.step import make_trainer

            trainer, count = make_trainer(simcse_config, data), iter(range(1, total + 1))
            print(f"\ntorch.profiler, {args.profile} steps of the simcse lab's Trainer.step (no runner):")
            profile(lambda: trainer.step(next(count)), args.profile)
    finally:
        plain_thread.close()
        for lab in labs.values():
            lab.close()
    if phases:
        print_split(split, {name: [v / 1000 for v in values] for name, values in per_round.items()})
    report(per_round, args.ab_buckets, buckets)
    return 0


def time_rounds(
    contenders: dict[str, Callable[[], Any]], warmup: int, rounds: int, chunk: int, device, phases
) -> tuple[dict[str, list[float]], dict[str, list[dict[str, float]]]]:
    """Milliseconds per step of each contender in each round (``chunk`` steps a round, the contenders' order
    rotated every round) after ``warmup`` steps each; with ``phases``, each round's time split by phase."""
    per_round: dict[str, list[float]] = {name: [] for name in contenders}
    split: dict[str, list[dict[str, float]]] = {name: [] for name in contenders}
    for run in contenders.values():
        for _ in range(warmup):
            run()
    names = list(contenders)
    for index in range(rounds):
        for name in names[index % len(names) :] + names[: index % len(names)]:
            run = contenders[name]
            if phases:
                phases.take()
            seconds = timed_call(lambda run=run: [run() for _ in range(chunk)], device)
            per_round[name].append(seconds / chunk * 1000)
            if phases:
                split[name].append({k: v / chunk for k, v in phases.take().items()})
    return per_round, split


def report(per_round: dict[str, list[float]], ab_buckets: bool, buckets: bool) -> None:
    """Each contender's median milliseconds per step, and the ratios (medians of per-round ratios)."""
    for name, values in per_round.items():
        print(
            f"{name:>19}: {statistics.median(values):8.1f} ms/step (median of {len(values)} rounds; "
            f"min {min(values):.1f}, max {max(values):.1f})"
        )

    def ratio(top: str, bottom: str) -> float:
        return statistics.median(a / b for a, b in zip(per_round[top], per_round[bottom], strict=True))

    if ab_buckets:
        pair = ("simcse lab", "simcse other") if buckets else ("simcse other", "simcse lab")
        print(f"simcse buckets/one-forward {ratio(*pair):.3f}")
    lab, plain_ms = (statistics.median(per_round[name]) for name in ("simcse lab", "plain"))
    print(f"simcse lab/plain {ratio('simcse lab', 'plain'):.3f} (lab {lab:.1f} ms, plain {plain_ms:.1f} ms)")
    print(f"jepa/simcse {ratio('jepa lab', 'simcse lab'):.3f}")
    print(f"jepa one-way/simcse {ratio('jepa one-way', 'simcse lab'):.3f} (--no-symmetric)")
    print(f"jepa target-dropout/simcse {ratio('jepa target-dropout', 'simcse lab'):.3f} (--target-dropout)")


if __name__ == "__main__":
    raise SystemExit(main())
