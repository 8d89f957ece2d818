"""One JEPA training step against one SimCSE step on the same batch (the bundled MiniLM, CPU or CUDA).

    python benchmarks/bench_jepa.py [--batch 32] [--rounds 7] [--device cpu] [--precision auto]
                                    [--view dropout] [--threads N]

Both trainers are built once (SimCSE: unsup, dropout views, the pooler ``avg``; JEPA: the default EMA target
+ predictor + stop-gradient, the same pooler and dropout, context view ``--view``); each round times one step
of each, in a random order per round (seeded), on the same sentences (the batch of step 1: the samplers
share the seed); the first round is a warm-up and not counted. A JEPA step does one more forward (the EMA
target, no grad), a small MLP and the EMA update; a SimCSE step one forward + backward of the two views.
Reported: the median of each, and the median of the per-round ratios JEPA / SimCSE (the machine is shared:
the ratio within a round sees the same load).
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from pathlib import Path

import torch

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # this checkout's engine


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--batch", type=int, default=32)
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--device", default="cpu")
    parser.add_argument("--precision", default="auto")
    parser.add_argument("--view", default="dropout")
    parser.add_argument("--threads", type=int, default=None)
    args = parser.parse_args()
    if args.threads:
        torch.set_num_threads(args.threads)

    from engine.compute.device import synchronize
    from engine.jepa.config import JEPAConfig
    from engine.jepa.step import make_trainer as make_jepa
    from engine.simcse.config import SimCSEConfig
    from engine.simcse.step import make_trainer as make_simcse
    from engine.training.data import load_training

    shared = dict(
        train="demo", data_dir=None, batch_size=args.batch, steps=1000, device=args.device, pooler="avg"
    )
    simcse_config = SimCSEConfig(mode="unsup", precision=args.precision, **shared)
    jepa_config = JEPAConfig(view=args.view, precision=args.precision, **shared)
    data = load_training(simcse_config)
    trainers = {"simcse": make_simcse(simcse_config, data), "jepa": make_jepa(jepa_config, data)}
    device = trainers["jepa"].device
    times: dict[str, list[float]] = {"simcse": [], "jepa": []}
    ratios = []
    order_rng = random.Random(0)
    for round_index in range(args.rounds + 1):
        names = list(trainers)
        order_rng.shuffle(names)
        took = {}
        for name in names:
            synchronize(device)
            start = time.perf_counter()
            trainers[name].step(1)  # the same sentences every round: the batch of step 1
            synchronize(device)
            took[name] = time.perf_counter() - start
        if round_index == 0:
            continue  # warm-up
        for name, seconds in took.items():
            times[name].append(seconds)
        ratios.append(took["jepa"] / took["simcse"])
        print(f"round {round_index}: simcse {took['simcse']:.3f} s, jepa {took['jepa']:.3f} s", flush=True)
    simcse, jepa = statistics.median(times["simcse"]), statistics.median(times["jepa"])
    print(
        f"batch {args.batch}, {device}, precision {args.precision}, view {args.view}: "
        f"SimCSE step {simcse:.3f} s, JEPA step {jepa:.3f} s (medians of {args.rounds} rounds); "
        f"JEPA / SimCSE = {statistics.median(ratios):.2f} (median of the per-round ratios; "
        f"min {min(ratios):.2f}, max {max(ratios):.2f})"
    )


if __name__ == "__main__":
    main()
