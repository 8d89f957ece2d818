"""Draw SimCSE's Figure 2 from run folders: alignment vs uniformity trajectories, and STS-B dev over steps.

    python scripts/plot_figure2.py RUN_DIR [RUN_DIR ...] --out figure2.png

Each run folder holds a ``metrics.csv`` written by ``python -m engine simcse`` (or
``python -m engine.simcse.figure2_runs``). Left: one trajectory per run in the (uniformity, alignment) plane,
lower-left is better (Wang & Isola 2020; Gao et al. 2021, Fig. 2), the first point circled, arrows show the
direction of training. Right: STS Spearman on the evaluation pairs against the step.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

from engine.runlog import read_metrics  # noqa: E402


def load_curves(run_dir: Path):
    return plane_rows(run_dir, "sts_spearman", "SimCSE ")


def plane_rows(run_dir: Path, other: str, what: str = ""):
    """The rows of ``metrics.csv`` where alignment and uniformity were measured; a run folder without them or
    without the column ``other`` ends the script with one line (``what``: the kind of run expected)."""
    frame = read_metrics(run_dir)
    needed = {"step", "alignment", "uniformity", other}
    if frame.empty or not needed <= set(frame.columns):
        raise SystemExit(f"error: {run_dir}: no {what}metrics.csv with {sorted(needed)}")
    return frame.dropna(subset=["alignment", "uniformity"])


def draw(run_dirs: list[Path], out: Path, title: str) -> None:
    fig, (left, right) = plt.subplots(1, 2, figsize=(12, 4.8))
    for run_dir in run_dirs:
        frame = load_curves(run_dir)
        x, y = frame["uniformity"].to_numpy(), frame["alignment"].to_numpy()
        (line,) = left.plot(x, y, marker="o", markersize=3, linewidth=1.2, label=run_dir.name)
        left.scatter(x[:1], y[:1], s=80, facecolors="none", edgecolors=line.get_color())
        arrows(left, x, y, line.get_color(), range(0, len(x) - 1, max(1, len(x) // 6)))
        right.plot(
            frame["step"],
            frame["sts_spearman"],
            marker="o",
            markersize=3,
            color=line.get_color(),
            label=run_dir.name,
        )
    labelled(
        left,
        "uniformity  (log E exp(-2||x - y||²), lower = more uniform)",
        "alignment  (E ||x - x⁺||², gold > 4, lower = better)",
        "alignment vs uniformity (circle: step 0)",
    )
    labelled(right, "training step", "STS Spearman (evaluation pairs)", "STS-B dev over steps")
    saved(fig, title, out, dpi=130)


def arrows(axes, x, y, colour: str, starts) -> None:
    """An arrow from each point of ``starts`` to the next one along the path (x, y)."""
    for i in starts:
        axes.annotate(
            "", xy=(x[i + 1], y[i + 1]), xytext=(x[i], y[i]), arrowprops={"arrowstyle": "->", "color": colour}
        )


def labelled(axes, xlabel: str, ylabel: str, title: str) -> None:
    """A panel's axis labels, title and legend."""
    axes.set_xlabel(xlabel)
    axes.set_ylabel(ylabel)
    axes.set_title(title)
    axes.legend(fontsize=8)


def saved(fig, title: str, out: Path, dpi: int) -> None:
    """The figure titled, laid out and written to ``out`` (its folder made)."""
    fig.suptitle(title)
    fig.tight_layout()
    out.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(out, dpi=dpi)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("runs", nargs="+", type=Path, help="run folders (each with metrics.csv)")
    parser.add_argument("--out", type=Path, default=Path("figure2.png"))
    parser.add_argument("--title", default="SimCSE Figure 2 (Gao et al. 2021), reproduced with embedlab")
    args = parser.parse_args(argv)
    runs = [run for run in args.runs if run.is_dir()]
    if not runs:
        print("error: no run folders given", file=sys.stderr)
        return 2
    draw(runs, args.out, args.title)
    print(args.out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
