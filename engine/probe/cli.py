"""The flags of ``python -m engine probe``."""

from __future__ import annotations

import argparse

from engine.probe.config import ProbeConfig


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Flags of ``python -m engine probe`` (``--out``/``--force`` are added by engine.cli)."""
    parser.add_argument(
        "--data",
        default="demo",
        help="built-in name (demo, rt-polarity, snli, wordnet-pos, "
        "wordnet-supersenses, ...), a file, or an .npz of embeddings and labels",
    )
    parser.add_argument("--data-dir", help="folder of real data sets (default: $EMBEDLAB_DATA_DIR)")
    parser.add_argument("--split", help="split of the data set where it has several (e.g. snli: validation)")
    parser.add_argument("--text-col", help="text column of a user file")
    parser.add_argument("--label-col", help="label column (demo: 'sentiment' for polarity labels)")
    parser.add_argument("--encoder", help="encoder: bundled (default), a cached name, a folder or a hub id")
    parser.add_argument("--pooling", help="override the encoder's pooling (cls, cls_before_pooler, avg, ...)")
    parser.add_argument(
        "--vectors",
        help="word2vec/GloVe text file of word vectors for word-level data "
        "(default: the encoder's input embedding table, one-piece words)",
    )
    parser.add_argument(
        "--objective",
        choices=("classifier", "triplet"),
        default="classifier",
        help="classifier: the paper's linear classifier (default); triplet: Appendix B's "
        "triplet loss on the embeddings alone, triples drawn afresh every update",
    )
    parser.add_argument("--margin", type=float, default=1.0, help="triplet margin (default 1.0)")
    parser.add_argument("--steps", type=int, default=1000, help="Adam updates (default 1000)")
    parser.add_argument("--lr", type=float, default=1e-3, help="Adam learning rate (default 1e-3)")
    parser.add_argument("--metric-every", type=int, default=1, help="measure every k steps (default 1)")
    parser.add_argument(
        "--sample-size",
        type=int,
        help="every geometry metric on a seeded sample of this many items, fresh each logged step",
    )
    parser.add_argument(
        "--fixed-sample", action="store_true", help="with --sample-size: one sample for the whole run"
    )
    parser.add_argument(
        "--geometry-every",
        type=int,
        default=10,
        help="uniformity, effective rank, partition isotropy and the spectrum every k-th "
        "logged step, and at the first and last (0: never; default 10)",
    )
    parser.add_argument("--limit", type=int, help="stratified, seeded subset of this many items")
    parser.add_argument(
        "--snapshot-every", type=int, default=0, help="save embeddings every k steps (0: never)"
    )
    parser.add_argument("--snapshot-limit", type=int, default=2000, help="points kept in snapshots")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument(
        "--device", default="auto", help="auto (CUDA, else Apple MPS, else CPU), cpu, mps or cuda[:N]"
    )


def config_from_args(args: argparse.Namespace) -> ProbeConfig:
    return ProbeConfig(
        data=args.data,
        data_dir=args.data_dir,
        text_col=args.text_col,
        label_col=args.label_col,
        split=args.split,
        encoder=args.encoder,
        pooling=args.pooling,
        steps=args.steps,
        lr=args.lr,
        metric_every=args.metric_every,
        sample_size=args.sample_size,
        limit=args.limit,
        geometry_every=args.geometry_every,
        fixed_sample=args.fixed_sample,
        snapshot_every=args.snapshot_every,
        snapshot_limit=args.snapshot_limit,
        seed=args.seed,
        device=args.device,
        vectors=args.vectors,
        objective=args.objective,
        margin=args.margin,
    )
