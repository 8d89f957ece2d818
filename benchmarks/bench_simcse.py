"""SimCSE speed, as ratios measured in one run (medians over interleaved repeats).

    python benchmarks/bench_simcse.py --data-dir ../shared/data   # paper setting: batch 64, len 32
    python benchmarks/bench_simcse.py --data-dir ../shared/data --batch-size 16 --repeats 3   # quick

Prints these ratios against their goals:
1. our SimCSE training step in float32 / a bare PyTorch loop doing the same forward/backward/AdamW step
   (same model, MLP, batch, length, dropout; the two views stacked into one forward, as SimCSE does;
   ours runs it as length buckets, engine.training.towers.Towers)                                   (≤ 1.10×)
2. the same step / sentence-transformers' MultipleNegativesRankingLoss step, scale 20 = 1/τ     (≤ 1.00×)
   (same model and batch; MNRL encodes anchors and positives in two forwards, mean pooling);
3. where the default precision is not float32 (bf16 autocast on CPUs with native bf16, on CUDA): our
   default step / our float32 step, and / the bare loop;
4. evaluation: one evaluation (``eval_limit`` STS-B dev pairs, sentences tokenised once as in a run), and its
   overhead at default settings: one evaluation / the training time of ``eval_every`` default steps (≤ 25 %);
   and what the isotropy family and the spectrum add to one evaluation (with / without them, interleaved).
Each repeat runs ``--steps`` steps of every contender back to back (order rotated), so machine-load drift
hits all of them alike; the medians of the per-step times are compared, both in wall time and in this
process's CPU time (the steadier measure on a shared machine; use ``--threads 1`` so CPU time is not inflated
by idle OpenMP threads spinning).
"""

from __future__ import annotations

import argparse
import dataclasses
import statistics
import threading
import time
from collections.abc import Callable

import torch
import torch.nn.functional as F

from engine.compute.device import precision_name
from engine.simcse.config import SimCSEConfig
from engine.simcse.step import make_trainer
from engine.training.data import load_eval, load_training
from engine.training.evaluation import Evaluator


def bare_loop(config: SimCSEConfig, texts: list[str]) -> Callable[[list[str]], float]:
    """The same SimCSE step written directly against transformers + torch (no engine code)."""
    from transformers import AutoModel, AutoTokenizer

    from engine.encoders import bundled_path

    folder = config.encoder or bundled_path()
    tokenizer = AutoTokenizer.from_pretrained(folder, trust_remote_code=False)
    model = AutoModel.from_pretrained(folder, trust_remote_code=False).train()
    hidden = model.config.hidden_size
    mlp = torch.nn.Sequential(torch.nn.Linear(hidden, hidden), torch.nn.Tanh())
    params = list(model.parameters()) + list(mlp.parameters())
    optimizer = torch.optim.AdamW(params, lr=config.lr, weight_decay=0.0)
    schedule = torch.optim.lr_scheduler.LambdaLR(optimizer, lambda s: max(0.0, 1 - s / 10_000))

    def step(batch: list[str]) -> float:
        inputs = tokenizer(
            batch + batch, padding=True, truncation=True, max_length=config.max_len, return_tensors="pt"
        )
        z = mlp(model(**inputs).last_hidden_state[:, 0])
        z1, z2 = F.normalize(z[: len(batch)], dim=-1), F.normalize(z[len(batch) :], dim=-1)
        loss = F.cross_entropy(z1 @ z2.T / config.temp, torch.arange(len(batch)))
        loss.backward()
        optimizer.step()
        optimizer.zero_grad(set_to_none=True)
        schedule.step()
        return float(loss.detach())

    return step


def st_mnrl(config: SimCSEConfig) -> Callable[[list[str]], float]:
    """sentence-transformers: the bundled model with MultipleNegativesRankingLoss(scale = 1/τ)."""
    from sentence_transformers import SentenceTransformer

    try:
        from sentence_transformers.sentence_transformer.losses import MultipleNegativesRankingLoss
    except ImportError:  # sentence-transformers < 6
        from sentence_transformers.losses import MultipleNegativesRankingLoss

    from engine.encoders import bundled_path

    model = SentenceTransformer(str(config.encoder or bundled_path()), device="cpu")
    model.max_seq_length = config.max_len
    model.train()
    loss_fn = MultipleNegativesRankingLoss(model, scale=1.0 / config.temp)
    optimizer = torch.optim.AdamW(model.parameters(), lr=config.lr, weight_decay=0.0)

    prepare = getattr(model, "preprocess", None) or model.tokenize  # tokenize: sentence-transformers < 6

    def step(batch: list[str]) -> float:
        features = [prepare(batch), prepare(batch)]
        loss = loss_fn(features, torch.empty(0))
        loss.backward()
        optimizer.step()
        optimizer.zero_grad(set_to_none=True)
        return float(loss.detach())

    return step


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data-dir", default="../shared/data")
    parser.add_argument("--encoder", default=None, help="default: the bundled all-MiniLM-L6-v2")
    parser.add_argument("--batch-size", type=int, default=64)
    parser.add_argument("--max-len", type=int, default=32)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--steps", type=int, default=3, help="steps per contender per repeat")
    parser.add_argument("--eval-limit", type=int, default=SimCSEConfig.eval_limit)
    parser.add_argument("--eval-every", type=int, default=SimCSEConfig.eval_every)
    parser.add_argument("--threads", type=int, default=0, help="torch threads (0: torch's default)")
    return parser.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    if args.threads:
        torch.set_num_threads(args.threads)

    config = SimCSEConfig(
        train="wiki1m",
        eval="stsb",
        data_dir=args.data_dir,
        encoder=args.encoder,
        batch_size=args.batch_size,
        max_len=args.max_len,
        device="cpu",
        steps=10_000,
        eval_limit=args.eval_limit,
        eval_every=args.eval_every,
    )
    torch.manual_seed(0)
    data = load_training(config)
    evalset = load_eval(config)
    default_precision = precision_name(torch.device("cpu"), config.precision)
    fp32 = make_trainer(dataclasses.replace(config, precision="fp32"), data)
    default = make_trainer(config, data) if default_precision != "float32" else fp32
    bare = bare_loop(config, data)
    mnrl = st_mnrl(config)
    batch_of = lambda s: [data[i] for i in fp32.sampler(s)]  # noqa: E731 - the same sentences for all

    contenders: dict[str, Callable[[int], float]] = {
        "ours": fp32.step,
        "bare": lambda s: bare(batch_of(s)),
        "mnrl": lambda s: mnrl(batch_of(s)),
    }
    if default is not fp32:
        contenders["default"] = default.step
    wall, cpu = time_steps(contenders, args.repeats, args.steps)
    evaluators = {
        "with": Evaluator(default.encoder, evalset),  # tokenised once, as in a run
        "without": Evaluator(default.encoder, evalset, geometry=False),
    }
    eval_wall, eval_cpu = time_evaluations(evaluators, max(3, args.repeats))
    print(
        f"batch {args.batch_size}, max_len {args.max_len}, threads {torch.get_num_threads()}, "
        f"{args.repeats} repeats x {args.steps} steps, eval {len(evalset.left)} pairs / "
        f"{len(evalset.sentences)} sentences every {args.eval_every} steps; "
        f"default precision: {default_precision}"
    )
    for clock, times, evals in (("wall", wall, eval_wall), ("cpu", cpu, eval_cpu)):
        eval_s = {name: statistics.median(values) for name, values in evals.items()}
        report(clock, times, eval_s["with"], args.eval_every)
        extra = eval_s["with"] - eval_s["without"]
        print(
            f"[{clock}] isotropy family + spectrum (eval sentences): {extra:+.3f} s per evaluation = "
            f"{extra / eval_s['without']:+.1%} of an evaluation without them"
        )
    return 0


def time_steps(
    contenders: dict[str, Callable[[int], float]], repeats: int, steps: int
) -> tuple[dict[str, list[float]], dict[str, list[float]]]:
    """Wall and CPU seconds of each contender's steps: one warm-up step each, then ``repeats`` rounds of
    ``steps`` steps each, the contenders' order rotated every round; the step numbers run on throughout."""
    wall: dict[str, list[float]] = {name: [] for name in contenders}
    cpu: dict[str, list[float]] = {name: [] for name in contenders}
    step = 0
    for run in contenders.values():  # warm-up: one step each
        step += 1
        run(step)
    names = list(contenders)
    for repeat in range(repeats):
        order = names[repeat % len(names) :] + names[: repeat % len(names)]
        for name in order:
            for _ in range(steps):
                step += 1
                start, start_cpu = time.perf_counter(), time.process_time()
                contenders[name](step)
                wall[name].append(time.perf_counter() - start)
                cpu[name].append(time.process_time() - start_cpu)
    return wall, cpu


def time_evaluations(
    evaluators: dict[str, Callable], repeats: int
) -> tuple[dict[str, list[float]], dict[str, list[float]]]:
    """Wall and CPU seconds of each evaluator's call: a warm-up each, then ``repeats`` interleaved rounds,
    the order alternating."""
    stop = threading.Event()
    eval_wall: dict[str, list[float]] = {name: [] for name in evaluators}
    eval_cpu: dict[str, list[float]] = {name: [] for name in evaluators}
    for evaluator in evaluators.values():
        evaluator(stop)  # warm-up
    for repeat in range(repeats):
        for name in list(evaluators) if repeat % 2 == 0 else list(evaluators)[::-1]:
            start, start_cpu = time.perf_counter(), time.process_time()
            evaluators[name](stop)
            eval_wall[name].append(time.perf_counter() - start)
            eval_cpu[name].append(time.process_time() - start_cpu)
    return eval_wall, eval_cpu


def report(clock: str, times: dict[str, list[float]], eval_s: float, eval_every: int) -> None:
    """Medians and the ratios for one clock (wall time, or this process's CPU time); ``eval_s`` is one
    evaluation as a run does it (with the isotropy family and the spectrum)."""
    med = {name: statistics.median(values) for name, values in times.items()}
    steps = ", ".join(f"{name} {value:.3f}" for name, value in med.items())
    print(f"[{clock}] median s/step: {steps}; eval {eval_s:.3f} s")
    print(
        f"[{clock}] ours (float32) / bare PyTorch loop           = {med['ours'] / med['bare']:.3f}x  "
        "(goal <= 1.10)"
    )
    print(
        f"[{clock}] ours (float32) / sentence-transformers MNRL  = {med['ours'] / med['mnrl']:.3f}x  "
        "(goal <= 1.00)"
    )
    step_s = med["ours"]
    if "default" in med:
        step_s = med["default"]
        print(f"[{clock}] ours (default precision) / ours (float32)  = {med['default'] / med['ours']:.3f}x")
        print(f"[{clock}] ours (default precision) / bare loop       = {med['default'] / med['bare']:.3f}x")
    overhead = eval_s / (eval_every * step_s)
    print(
        f"[{clock}] evaluation {eval_s:.3f} s, overhead (every {eval_every} steps) = {overhead:.1%}  "
        "(goal <= 25%)"
    )


if __name__ == "__main__":
    raise SystemExit(main())
