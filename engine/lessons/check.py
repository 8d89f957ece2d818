"""``python -m engine lessons check [--short]``: run every lesson's presets and judge its claims.

Each lesson (:class:`engine.core.declaration.Lesson`) states its claims as data
(:class:`engine.core.lesson_claims.Claim`). The check runs every preset a claim names, through the ordinary
run machinery (:func:`engine.runlog.runner.run_experiment`, one run folder per run, under ``--out``), in its
full version or, with ``--short``, the short CPU version the preset declares
(:attr:`engine.core.declaration.Preset.short`), with ``--seeds k`` once per seed (0 … k−1), then prints each
claim with what was measured and PASS, FAIL or "paper's claim, not checked here". Every lab claim is judged
again on its runs' first logged rows (no training): one that holds then fails the check. Exit 0 only when
every claim the lab states as its own holds, and none without training; else 1, with one line per failing
claim. ``--record`` writes the measured figures of every claim checked to
:data:`engine.lessons.numbers.RESULTS`, which the lessons' texts print (:mod:`engine.lessons.numbers`).

Two runs of the check with the same config (the plain JEPA run of two presets) share one run folder; with
``--reuse`` a finished run folder of an earlier check with the same config is judged again, not rerun. The
runs train one after another in this process, or ``--workers N`` at a time, each in its own process with
its share of the CPUs (:mod:`engine.runlog.side_by_side`; 0: one per CPU).
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import Any

from engine import experiments
from engine.command.signals import reports_stop
from engine.core import paths
from engine.core.config_dict import config_dict
from engine.core.lesson_claims import Claim
from engine.lessons.judging import WITHOUT_TRAINING, Points, Trace, Verdict, finite, judge
from engine.lessons.presets import default_data_dir, presets, queue
from engine.runlog.reading import read_metrics, read_summary
from engine.runlog.side_by_side import PlannedRun, run_side_by_side
from engine.runlog.states import RunState

Say = Callable[[str], None]


def read_trace(run_dir: Path, measures: Sequence[str] | None = None) -> Trace:
    """The :class:`Trace` of a run folder (``metrics.csv`` columns, all or ``measures``; ``summary.json``),
    read as every reader reads them (:mod:`engine.runlog.reading`: an older measure name under its name)."""
    frame = read_metrics(Path(run_dir))
    columns: dict[str, Points] = {}
    if "step" in frame.columns:
        steps = frame["step"].tolist()
        for name in measures or [c for c in frame.columns if c != "step"]:
            if name in frame.columns:
                pairs = zip(steps, frame[name].tolist(), strict=True)
                columns[name] = tuple((float(s), float(v)) for s, v in pairs if finite(v) and finite(s))
    summary = read_summary(Path(run_dir))
    return Trace(columns, summary if isinstance(summary, dict) else {})


def all_claims() -> list[Claim]:
    """Every lesson's claims, in the registry's order."""
    return [claim for lesson in experiments.lessons().values() for claim in lesson.claims]


def claimed_presets(claims: Iterable[Claim]) -> list[str]:
    """The presets the claims name, each once, in their order."""
    return list(dict.fromkeys(claim.preset for claim in claims))


def default_out(short: bool) -> Path:
    """Where the check's run folders go by default: ``cache/lessons-check/{short,full}``."""
    return paths.cache_dir() / "lessons-check" / ("short" if short else "full")


def run_presets(
    names: Iterable[str],
    out_dir: Path,
    *,
    short: bool,
    settings: dict[str, Any] | None = None,
    reuse: bool = False,
    seeds: int = 1,
    workers: int = 1,
    say: Say = print,
) -> dict[tuple[str, str], list[Path]]:
    """Run every run of the presets ``names`` into ``out_dir/<preset>/<run>`` (seed 0; seed s > 0 into
    ``<run>-seed-<s>``), once per seed 0 … ``seeds`` − 1, ``workers`` side by side
    (:func:`engine.runlog.side_by_side.run_side_by_side`; 0: one per CPU, at most one per run; 1: one after
    another in this process); return (preset, run) -> its folders, one per seed. A run whose config equals
    one already planned in this check reuses that folder; with ``reuse``, so does a finished run already in
    its folder with the same config."""
    known = presets(settings)
    missing = [name for name in names if name not in known]
    if missing:
        raise KeyError(f"no preset named {missing[0]!r} (a lesson's claim names it)")
    done: dict[str, Path] = {}
    folders: dict[tuple[str, str], list[Path]] = {}
    planned: list[PlannedRun] = []
    for seed in range(seeds):
        seeded = {**(settings or {}), "seed": seed} if seeds > 1 else settings
        for name in names:
            for run in queue(known[name], seeded, short=short):
                experiment = experiments.EXPERIMENTS[run.kind]
                config = experiment.make_config(**run.fields)
                settled = {"kind": run.kind, **config_dict(config)}
                key = json.dumps(settled, sort_keys=True, default=str)
                if key not in done:
                    label = run.name if seed == 0 else f"{run.name}-seed-{seed}"
                    folder = done[key] = out_dir / paths.safe_name(name) / paths.safe_name(label)
                    if reuse and _finished_with(folder, settled):
                        say(f"  kept {run.kind} / {label} (finished, same config) in {folder}")
                    else:
                        line = f"  running {run.kind} / {label} → {folder}"
                        planned.append(PlannedRun(experiment, config, folder, line))
                folders.setdefault((name, run.name), []).append(done[key])
    _run_all(planned, workers, say)
    return folders


def _run_all(planned: list[PlannedRun], requested: int, say: Say) -> None:
    """Train the planned runs (``requested`` workers, :func:`engine.compute.lanes.plan_workers`); each must
    end finished."""
    from engine.compute.lanes import plan_workers, usable_cpus
    from engine.runlog.out_dir import prepare_out_dir

    if not planned:
        return
    cpus = usable_cpus()
    workers, threads = plan_workers(len(planned), requested, cpus)
    if workers > 1:
        say(f"  {len(planned)} runs, {workers} at a time, {threads} thread(s) each")
    for run in planned:
        prepare_out_dir(str(run.out), force=True)
    for run, summary in zip(planned, run_side_by_side(planned, workers, cpus), strict=True):
        if summary.get("state") != RunState.FINISHED:
            raise RuntimeError(f"{run.out.name}: the run ended {summary.get('state')}")


def _finished_with(folder: Path, settled: dict[str, Any]) -> bool:
    """Whether ``folder`` holds a finished run whose ``config.json`` is ``settled``."""
    from engine.runlog import CONFIG, read_json, run_state

    try:
        if not (folder / CONFIG).is_file() or run_state(folder) != RunState.FINISHED:
            return False
        wanted, found = json.loads(json.dumps(settled, default=str)), read_json(folder / CONFIG)
        if wanted.get("name") is None:  # a run names itself (its label) when its config names it not
            found.pop("name", None)
            wanted.pop("name", None)
        return wanted == found
    except (OSError, ValueError):  # a damaged folder is run again
        return False


def judge_all(claims: Iterable[Claim], folders: dict[tuple[str, str], list[Path]]) -> list[Verdict]:
    """Each claim judged on the run folders of its preset (one per seed)."""
    verdicts = []
    for claim in claims:
        measured: dict[str, list[Trace]] = {}
        for run in claim.runs:
            measured[run] = [
                read_trace(folder, claim.measures) for folder in folders.get((claim.preset, run), [])
            ]
        verdicts.append(judge(claim, measured))
    return verdicts


def report(verdicts: list[Verdict]) -> list[str]:
    """The check's lines: each claim under its preset with what was measured and its outcome, then the
    reasons of the failing ones."""
    lines: list[str] = []
    preset = None
    for verdict in verdicts:
        claim = verdict.claim
        if claim.preset != preset:
            preset = claim.preset
            lines.append(f"\n{preset}")
        lines.append(f"  [{verdict.outcome}] ({claim.source}) {claim.text}")
        lines.append(f"      {claim.measure} {_expected(claim, verdict.seeds)}: {verdict.measured}")
    failing = [v for v in verdicts if v.fails]
    lab = [v for v in verdicts if v.claim.source == "lab"]
    held = sum(1 for v in lab if v.holds)
    vacuous = sum(1 for v in lab if v.vacuous)
    single = " on one seed" if lab and max(v.seeds for v in lab) == 1 else ""
    lines.append(
        f"\n{held} of {len(lab)} lab claims hold{single}; {vacuous} hold without training; "
        f"{len(verdicts) - len(lab)} paper claims shown (compared on this start, not checked)"
    )
    lines.append(f"({WITHOUT_TRAINING})")
    lines += [f"FAIL: {verdict.reason()}" for verdict in failing]
    return lines


def _margin(seeds: int) -> str:
    """What a comparison must also exceed: 2 pooled sd of the seeds; nothing with one seed (no spread)."""
    return " (and by more than 2 pooled sd of the seeds)" if seeds > 1 else ""


def _expected(claim: Claim, seeds: int = 2) -> str:
    """What ``claim`` expects of its measure, in words (the margin only where ``seeds`` give a spread)."""
    margin = f" by more than {claim.by:g}" if claim.by else ""
    if claim.expect in ("rises", "falls"):
        return claim.expect + margin + _margin(seeds)
    if claim.expect == "monotone":
        if claim.share:
            return f"{claim.way} in at least {claim.share:.0%} of the logged intervals"
        sign = "≥ " if claim.way == "rises" else "≤ −"
        return f"{claim.way} step after step (Spearman ρ with the step {sign}{claim.by or 0.9:g})"
    if claim.expect == "correlates":
        sign = "≥ " if claim.way == "same" else "≤ −"
        return f"r and ρ against the silhouette {sign}{claim.by:g}"
    if claim.expect == "co-moves":
        sign = "≥ " if claim.way == "same" else "≤ −"
        return f"moves the {claim.way} way as {claim.other} (Spearman ρ {sign}{claim.by or 0.9:g})"
    if claim.expect == "coincides":
        return (
            f"draws the same curve as {claim.than} (within {claim.within:g} of its values), and moved{margin}"
        )
    if claim.expect == "warns":
        return f"sets off the collapse warning in every seed, and {claim.than} in none"
    scale = f"{claim.factor:g} × " if claim.factor != 1 else ""
    return f"ends {claim.expect} {scale}{claim.than}'s{margin}{_margin(seeds)}"


def checked(
    out_dir: Path | None = None,
    *,
    short: bool = False,
    settings: dict[str, Any] | None = None,
    only: Iterable[str] | None = None,
    reuse: bool = False,
    seeds: int = 1,
    workers: int = 1,
    say: Say = print,
) -> tuple[list[Verdict], dict[tuple[str, str], list[Path]]]:
    """Run the presets of every claim (of the presets ``only``, when given; ``workers`` side by side, as
    :func:`run_presets`) and judge the claims: the verdicts, and the run folders judged ((preset, run) ->
    one per seed)."""
    claims = [c for c in all_claims() if only is None or c.preset in set(only)]
    folders = run_presets(
        claimed_presets(claims),
        out_dir or default_out(short),
        short=short,
        settings=settings,
        reuse=reuse,
        seeds=seeds,
        workers=workers,
        say=say,
    )
    return judge_all(claims, folders), folders


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """``lessons check`` and its flags."""
    actions = parser.add_subparsers(dest="action", required=True, metavar="ACTION")
    sub = actions.add_parser(
        "check",
        help="run every lesson's presets and check its claims",
        description="Run every preset a lesson's claims name and print each claim with what was measured; "
        "exit 0 only when every claim the lab states as its own holds.",
    )
    sub.add_argument("--short", action="store_true", help="the presets' short CPU versions (few steps)")
    sub.add_argument("--out", help="folder for the run folders (default: cache/lessons-check/{short,full})")
    sub.add_argument("--preset", action="append", metavar="NAME", help="only this preset's claims (repeat)")
    sub.add_argument(
        "--data-dir",
        help="folder of real data sets (default: $EMBEDLAB_DATA_DIR, else ../shared/data beside the lab)",
    )
    sub.add_argument("--device", help="cpu, cuda or auto (default: each config's)")
    sub.add_argument(
        "--seeds",
        type=int,
        default=1,
        metavar="K",
        help="run each preset with seeds 0 … K−1; a comparison holds only beyond 2 pooled sd (default 1: no "
        "spread, so every verdict says it is of one seed)",
    )
    sub.add_argument(
        "--workers",
        type=int,
        metavar="N",
        default=1,
        help="runs trained at once, each in its own process with its share of the CPUs (0: one per CPU; "
        "default 1: one after another in this process; the short check gains little, 0.90-0.95x its time "
        "on 2 cores)",
    )
    sub.add_argument(
        "--record",
        action="store_true",
        help="write the claims' measured figures (the lessons' numbers) to engine/lessons/results.json",
    )
    sub.add_argument(
        "--reuse",
        action="store_true",
        help="judge a finished run of an earlier check again when its config is the same (no rerun)",
    )


@reports_stop("lessons check", "the runs that finished are kept; --reuse judges them again without rerunning")
def run_cli(args: argparse.Namespace) -> int:
    """``python -m engine lessons check``: exit 0 when every lab claim holds, else 1. The runs get the
    settings the app's sidebar would give them: the data folder (``--data-dir`` made absolute, so that
    ``--reuse`` from another folder finds the same config; else the app's)."""
    data_dir = str(Path(args.data_dir).resolve()) if args.data_dir else default_data_dir()
    settings: dict[str, Any] = {"data_dir": data_dir}
    if args.device:
        settings["device"] = args.device
    if args.seeds < 1:
        print("lessons check: --seeds must be at least 1", file=sys.stderr)
        return 2
    if args.workers < 0:
        print(
            f"lessons check: --workers must be 0 (one per CPU) or more, got {args.workers}", file=sys.stderr
        )
        return 2
    if args.record:  # before any run: --record over a damaged file failed only after the whole check
        from engine.lessons.numbers import RESULTS
        from engine.lessons.results_file import read

        damaged = read(RESULTS)[1]
        if damaged:
            print(
                f"lessons check: --record: {RESULTS} is damaged ({damaged[0]}); restore it (git checkout) "
                "before recording",
                file=sys.stderr,
            )
            return 2
    if args.preset:
        known = presets(settings)
        unknown = [name for name in args.preset if name not in known]
        if unknown:
            print(f"lessons check: no preset named {unknown[0]!r}", file=sys.stderr)
            return 2
    length = "short" if args.short else "full"
    print(f"lessons check ({length} presets, {args.seeds} seed{'s' if args.seeds > 1 else ''})", flush=True)
    verdicts, folders = checked(
        Path(args.out) if args.out else None,
        short=args.short,
        settings=settings,
        only=args.preset,
        reuse=args.reuse,
        seeds=args.seeds,
        workers=args.workers,
        say=lambda line: print(line, file=sys.stderr, flush=True),
    )
    if not verdicts:
        print(f"lessons check: no claim names {', '.join(args.preset or [])}: nothing was checked")
        return 1
    print("\n".join(report(verdicts)))
    if args.record:
        from engine.lessons import numbers as lesson_figures

        queued = {
            (name, run.name): list(run.fields)
            for name, preset in presets().items()
            for run in queue(preset, short=args.short)
        }
        written = lesson_figures.record(verdicts, folders, length=length, seeds=args.seeds, queued=queued)
        print(f"figures of {len(verdicts)} claims written to {written}")
    return 1 if any(verdict.fails for verdict in verdicts) else 0
