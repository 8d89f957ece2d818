"""Markdown tables of finished run folders, of the shapes ``results:runs`` does not draw (docs/results.md's
``results:script`` blocks; ``python -m engine results`` runs this script and writes what it prints).

    python scripts/run_tables.py measures RUN... --names isoscore,rankme [--corr] [--labels A,B]
    python scripts/run_tables.py spectrum RUN... [--labels A,B]
    python scripts/run_tables.py sampled EXACT SAMPLED... --names silhouette,isoscore

- ``measures``: one row per measure, for each run its first → last logged value; with ``--corr`` also its
  Pearson r and Spearman ρ against the silhouette over the logged steps (the run's ``summary.json``).
- ``spectrum``: one row per run at the first and the last step of its ``spectrum.csv`` (the covariance
  eigenvalues, largest first): λ₁…λ₃, the share of the variance in the top 1, 2, 3 and 10, the number of
  directions that hold 90 % of it, the participation ratio PR = (Σλ)² / Σλ² (IsoScore = (PR − 1)/(d − 1),
  Rudman et al. 2022) and λ₁/λ₂₀₀ (where d ≥ 200).
- ``sampled``: how far runs with ``--sample-size N`` are from the exact run of the same seed (the same
  trajectory: the optimisation never sees the sample): per measure the exact first → last value, then
  max |sampled − exact| over the steps both logged, with the mean in brackets; and each run's r and ρ of
  IsoScore against the silhouette.

Each table ends with the runs it read, named as given, and the day each finished. A relative RUN that only a
shipped copy holds (``docs/run-folders/RUN``: ``python -m engine results --ship``) is read there, so a fresh
clone writes the same table. A run folder that is missing or unfinished is named on stderr (exit 1), so
``python -m engine results`` keeps the table it had.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from engine.claims.results import Missing, day, ended_at, fmt  # noqa: E402
from engine.claims.shipped import run_folder  # noqa: E402
from engine.core import measures  # noqa: E402
from engine.core.errors import EmbedlabError  # noqa: E402
from engine.runlog.files import CONFIG, read_json  # noqa: E402
from engine.runlog.reading import read_metrics, read_summary  # noqa: E402
from engine.runlog.spectrum import read_spectrum  # noqa: E402


def finished(folder: Path) -> str:
    """The day the run in ``folder`` finished; :class:`~engine.claims.results.Missing` when it did not."""
    return day(ended_at(folder))


def series(frame: pd.DataFrame, name: str) -> pd.Series:
    """The logged values of measure ``name`` indexed by step (rows where it is empty dropped)."""
    if name not in frame.columns:
        return pd.Series(dtype=float)
    values = pd.to_numeric(frame[name], errors="coerce")
    steps = pd.to_numeric(frame["step"], errors="coerce")
    kept = values.notna() & steps.notna()
    return pd.Series(values[kept].to_numpy(float), index=steps[kept].astype(int).to_numpy())


def start_end(values: pd.Series) -> str:
    return "—" if values.empty else f"{fmt(values.iloc[0])} → {fmt(values.iloc[-1])}"


def label(name: str) -> str:
    """A measure's label from the registry (the column name itself for one it does not hold)."""
    try:
        return measures.get(name).label
    except KeyError:
        return name


def correlation(summary: dict, name: str, kind: str) -> float | None:
    """``name``'s r (``kind`` "pearson_r") or ρ against the silhouette from a probe run's summary: IsoScore's
    are the summary's own ``pearson_r``/``spearman_rho``, another measure's ``<name>_<kind>``."""
    key = kind if name == measures.ISOSCORE else f"{name}_{kind}"
    value = summary.get(key)
    return float(value) if isinstance(value, (int, float)) else None


def runs_line(given: Sequence[Path], folders: Sequence[Path], names: Sequence[str]) -> str:
    """Each run's label, its folder as the command named it, and the day the folder read finished."""
    read = ", ".join(
        f"{name} `{shown}` ({finished(folder)})"
        for name, shown, folder in zip(names, given, folders, strict=True)
    )
    return f"Runs (finished): {read}."


def measures_table(folders: Sequence[Path], names: Sequence[str], labels: Sequence[str], corr: bool) -> str:
    frames = [read_metrics(folder) for folder in folders]
    summaries = [read_summary(folder) or {} for folder in folders]
    header = ["measure"]
    for run in labels:
        header += [f"{run} start → end"] + ([f"{run} r", f"{run} ρ"] if corr else [])
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    for name in names:
        cells = [label(name)]
        for frame, summary in zip(frames, summaries, strict=True):
            cells.append(start_end(series(frame, name)))
            if corr:
                cells += [
                    fmt(correlation(summary, name, "pearson_r"), 3),
                    fmt(correlation(summary, name, "spearman_rho"), 4),
                ]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def spectrum_row(eigenvalues: np.ndarray) -> list[str]:
    """λ₁…λ₃, top-1/2/3/10 shares, directions for 90 %, PR, λ₁/λ₂₀₀ of one spectrum (largest first)."""
    values = np.sort(eigenvalues[np.isfinite(eigenvalues)])[::-1]
    total = float(values.sum())
    shares = np.cumsum(values) / total
    directions = int(np.searchsorted(shares, 0.9) + 1)
    ratio = float(values[0] / values[199]) if len(values) >= 200 and values[199] > 0 else None
    cells = [fmt(float(v), 3) for v in values[:3]]
    cells += [f"{100 * shares[min(k, len(shares)) - 1]:.1f} %" for k in (1, 2, 3, 10)]
    cells += [str(directions), fmt(total**2 / float((values**2).sum()), 4), fmt(ratio, 3)]
    return cells


def spectrum_table(folders: Sequence[Path], labels: Sequence[str]) -> str:
    header = [
        "run",
        "step",
        "λ₁",
        "λ₂",
        "λ₃",
        "top 1",
        "top 2",
        "top 3",
        "top 10",
        "90 % in",
        "PR",
        "λ₁/λ₂₀₀",
    ]
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    for folder, run in zip(folders, labels, strict=True):
        spectra = read_spectrum(folder)
        if not len(spectra):
            raise Missing(f"run folder {folder} has no spectrum.csv")
        for index in sorted({0, len(spectra) - 1}):
            cells = [run, str(int(spectra.steps[index])), *spectrum_row(spectra.eigenvalues[index])]
            lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def sample_size(folder: Path) -> str:
    try:
        size = read_json(folder / CONFIG).get("sample_size")
    except (OSError, ValueError):
        return folder.name
    return f"{size:,} samples" if isinstance(size, int) else "exact"


def sampled_table(exact: Path, sampled: Sequence[Path], names: Sequence[str]) -> str:
    frames = [read_metrics(folder) for folder in (exact, *sampled)]
    header = ["measure", "exact start → end", *(f"{sample_size(f)}: max (mean) |Δ|" for f in sampled)]
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    for name in names:
        truth = series(frames[0], name)
        cells = [label(name), start_end(truth)]
        for frame in frames[1:]:
            gap = (series(frame, name) - truth).dropna().abs()
            cells.append("—" if gap.empty else f"{fmt(gap.max(), 2)} ({fmt(gap.mean(), 2)})")
        lines.append("| " + " | ".join(cells) + " |")
    summaries = [read_summary(folder) or {} for folder in (exact, *sampled)]
    pairs = [
        f"{fmt(correlation(s, measures.ISOSCORE, 'pearson_r'), 3)} / "
        f"{fmt(correlation(s, measures.ISOSCORE, 'spearman_rho'), 4)}"
        for s in summaries
    ]
    lines.append("| IsoScore r / ρ against the silhouette | " + " | ".join(pairs) + " |")
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("table", choices=("measures", "spectrum", "sampled"))
    parser.add_argument("runs", nargs="+", type=Path, help="run folders (sampled: the exact run first)")
    parser.add_argument("--names", default="", help="measures, comma-separated (measures, sampled)")
    parser.add_argument("--labels", default="", help="the runs' names in the table, comma-separated")
    parser.add_argument("--corr", action="store_true", help="each measure's r and ρ against the silhouette")
    args = parser.parse_args(argv)
    names = [n for n in args.names.split(",") if n]
    labels = [n for n in args.labels.split(",") if n] or [f.name for f in args.runs]
    if len(labels) != len(args.runs):
        parser.error(f"--labels names {len(labels)} runs, {len(args.runs)} given")
    if args.table != "spectrum" and not names:
        parser.error(f"{args.table} needs --names")
    folders = [run_folder(str(folder), Path.cwd()) for folder in args.runs]  # a shipped copy, else as given
    try:
        for folder in folders:
            finished(folder)
        if args.table == "measures":
            table = measures_table(folders, names, labels, args.corr)
        elif args.table == "spectrum":
            table = spectrum_table(folders, labels)
        else:
            table = sampled_table(folders[0], folders[1:], names)
        print(f"{table}\n\n{runs_line(args.runs, folders, labels)}")
    except (EmbedlabError, OSError) as err:
        print(f"error: {err}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
