"""Draw the JEPA collapse question on the alignment–uniformity plane, from run folders.

    python scripts/plot_jepa_plane.py RUN_DIR [RUN_DIR ...] --out docs/jepa-plane.png

Each run folder holds a ``metrics.csv`` written by ``python -m engine jepa`` or ``python -m engine simcse``
(the "Does JEPA collapse?" preset: JEPA, stop-gradient only, none of the three, and unsupervised SimCSE).
Left: each run as a path on the (uniformity, alignment) plane (Wang & Isola 2020), from its first evaluation
(open circle) to its last (filled), with arrows along the way; lower-left is better, and a collapsed encoder
ends at (0, 0), every sentence on one point. Right: RankMe (``rankme``; an old folder's ``effective_rank``
read as it) against the step, on a log scale. A run is named by ``--names``, else by its ``config.json``
``name`` when it has one, else by its folder.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
from plot_figure2 import arrows, labelled, plane_rows, saved  # noqa: E402 - the Figure-2 plot's helpers, beside this script

from engine.runlog.files import CONFIG, read_json  # noqa: E402

DASHES = ("-", "--", "-.", ":")


def run_name(run_dir: Path) -> str:
    """The run's name from its ``config.json`` (``name``), else the folder's."""
    try:
        name = read_json(run_dir / CONFIG).get("name")
    except (OSError, ValueError):
        return run_dir.name
    return str(name) if name else run_dir.name


def evaluations(run_dir: Path):
    """The rows of ``metrics.csv`` where alignment and uniformity were measured."""
    return plane_rows(run_dir, "rankme")


def draw(run_dirs: list[Path], out: Path, title: str, names: list[str] | None = None) -> None:
    fig, (plane, rank) = plt.subplots(1, 2, figsize=(12, 4.8))
    for index, run_dir in enumerate(run_dirs):
        frame = evaluations(run_dir)
        name = names[index] if names else run_name(run_dir)
        x, y = frame["uniformity"].to_numpy(), frame["alignment"].to_numpy()
        dash = DASHES[index % len(DASHES)]
        (line,) = plane.plot(x, y, linestyle=dash, marker="o", markersize=3, linewidth=1.4, label=name)
        colour = line.get_color()
        plane.scatter(x[:1], y[:1], s=90, facecolors="none", edgecolors=colour, zorder=3)
        plane.scatter(x[-1:], y[-1:], s=60, color=colour, zorder=3)
        arrows(plane, x, y, colour, range(len(x) - 1))
        ranks = frame.dropna(subset=["rankme"])
        rank.plot(ranks["step"], ranks["rankme"], linestyle=dash, marker="o", markersize=3, label=name)
    labelled(
        plane,
        "uniformity  (log E exp(−2‖x − y‖²); lower = more spread)",
        "alignment  (E ‖x − x⁺‖²; lower = positives closer)",
        "alignment vs uniformity (open: start, filled: end)",
    )
    rank.set_yscale("log")
    labelled(rank, "training step", "RankMe (effective rank)", "RankMe over the run (collapse: towards 1)")
    saved(fig, title, out, dpi=120)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("runs", nargs="+", type=Path, help="run folders (each with metrics.csv)")
    parser.add_argument("--out", type=Path, default=Path("jepa-plane.png"))
    parser.add_argument("--title", default="Does JEPA collapse? all-MiniLM-L6-v2, demo corpus (embedlab)")
    parser.add_argument("--names", nargs="+", help="the runs' names in the legend, in the order of the runs")
    args = parser.parse_args(argv)
    runs = [run for run in args.runs if run.is_dir()]
    if not runs:
        print("error: no run folders given", file=sys.stderr)
        return 2
    if args.names and len(args.names) != len(runs):
        print(f"error: {len(args.names)} names for {len(runs)} run folders", file=sys.stderr)
        return 2
    draw(runs, args.out, args.title, args.names)
    print(args.out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
