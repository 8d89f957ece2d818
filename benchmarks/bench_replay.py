"""Size and speed of a replay lesson (python -m engine replay): the file, its opening, a slider move; the GIF.

    python benchmarks/bench_replay.py [--points 2000] [--frames 100] [--steps 1000] [--loads 5] [--moves 40]

A synthetic probe run folder of that size is written to a temporary folder (every measure the probe logs, a
384-value spectrum every 10 steps, the points' sentences and labels, and ``frames`` UMAP frames already made,
so no UMAP runs here). Then:

- the lesson's build time and file size (goal: <= 8 MB for 100 frames x 2,000 points and 1,000-step curves);
- time to interactive in headless Chromium (Playwright, /usr/bin/chromium), the file opened from ``file://``
  with every other request aborted: from the navigation's start to the moment every chart is drawn and the
  film's first frame is shown (``window.lesson.readyAt``, the page's own clock); goal <= 3 s;
- a slider move: the slider set and its ``input`` event sent, until the browser has painted the next frame
  (two animation frames), over ``--moves`` random frames; the median (goal <= 100 ms) and the redraw alone
  (``window.lesson.lastRenderMs``: the film's restyle, the cursors' relayout);
- the film as a GIF (Pillow): its build time and size.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests" / "e2e"))  # the browser tests' chromium
from app_server import CHROMIUM, CHROMIUM_ARGS  # noqa: E402

SENTENCE = "the model reads a sentence and its embedding moves closer to its class while training goes on"


GEOMETRY_EVERY = 10  # the probe's default: the spectrum and the sparse measures every 10 logged steps
DIMENSIONS = 384  # the bundled encoder's width: one spectrum row holds 384 eigenvalues


def make_run(run_dir: Path, points: int, frames: int, steps: int) -> Path:
    """A finished probe run as the probe writes it: ``steps`` rows of every measure it logs (the sparse
    ones, and a 384-value spectrum, every :data:`GEOMETRY_EVERY` steps), and ``frames`` UMAP frames of
    ``points``."""
    from engine import runlog
    from engine.experiments import EXPERIMENTS

    rng = np.random.default_rng(0)
    labels = ("sport", "food", "music", "travel", "science", "politics")
    # a probe run's columns but its micro-F1
    columns = tuple(c for c in EXPERIMENTS["probe"].columns if c != "micro_f1")
    writer = runlog.RunWriter(
        run_dir,
        columns,
        {
            "kind": "probe",
            "data": "demo",
            "steps": steps,
            "lr": 1e-3,
            "seed": 0,
            "snapshot_every": max(1, steps // frames),
            "geometry_every": GEOMETRY_EVERY,
        },
    )
    codes = np.arange(points) % len(labels)
    texts = [
        f"{labels[codes[i]]} #{i}: " + SENTENCE[i % 17 :] + " " + SENTENCE[: i % 17] for i in range(points)
    ]  # about 100 characters, as the demo's sentences
    writer.save_points(texts, [labels[c] for c in codes])
    for step in range(1, steps + 1):
        t = step / steps
        sparse = step % GEOMETRY_EVERY == 0
        writer.append(
            {
                "step": step,
                "loss": 1 / step,
                "accuracy": min(1.0, 0.2 + t),
                "isoscore": 0.3 * (1 - t) ** 2,
                "silhouette": 0.7 * t + 0.01 * rng.normal(),
                "average_cosine": 0.1 + 0.5 * t,
                "alignment": 1.2 - t,
                "rankme": 300 - 290 * t if sparse else None,
                "partition_isotropy": 0.5 - 0.4 * t if sparse else None,
                "uniformity": -3 + 2 * t if sparse else None,
                "seconds": 0.01 * step,
            }
        )
        if sparse:
            writer.append_spectrum(step, np.sort(rng.random(DIMENSIONS) ** (2 + 10 * t))[::-1])
    writer.finish("finished", summary={"state": "finished"})
    centres = rng.normal(size=(len(labels), 2)) * 6
    noise = rng.normal(size=(points, 2))
    for i, step in enumerate(np.linspace(steps / frames, steps, frames).round().astype(int)):
        runlog.save_frame(
            run_dir, int(step), noise + (i / frames) * centres[codes] + 0.05 * rng.normal(size=(points, 2))
        )
    return run_dir


def measure_browser(path: Path, loads: int, moves: int) -> dict:
    from playwright.sync_api import sync_playwright

    blocked: list[str] = []
    errors: list[str] = []
    ready, wall, move, render, restyle = [], [], [], [], []
    with sync_playwright() as pw:
        browser = pw.chromium.launch(
            executable_path=str(CHROMIUM),
            headless=True,
            args=CHROMIUM_ARGS,
        )
        try:
            for load in range(loads):
                page = browser.new_page(viewport={"width": 1300, "height": 900})
                page.on("console", lambda msg: errors.append(msg.text) if msg.type == "error" else None)
                page.route(
                    "**/*",
                    lambda route: (
                        route.continue_()
                        if route.request.url.startswith("file://")
                        else (blocked.append(route.request.url), route.abort())
                    ),
                )
                started = time.perf_counter()
                page.goto(path.as_uri(), wait_until="commit")
                # a locator waits without eval (the page's policy forbids eval, which wait_for_function uses)
                page.locator("body[data-ready='1']").wait_for(state="attached", timeout=60_000)
                wall.append(time.perf_counter() - started)
                ready.append(page.evaluate("window.lesson.readyAt") / 1000)
                if load == loads - 1:
                    frames = page.evaluate("Number(document.getElementById('slider').max) + 1")
                    order = np.random.default_rng(1).integers(0, frames, size=moves).tolist()
                    page.evaluate("window.lesson.fast = false")  # Plotly.restyle of the film, for comparison
                    restyle += [slide(page, index) for index in order]
                    page.evaluate("window.lesson.fast = true")
                    for index in order:
                        move.append(slide(page, index))
                        render.append(page.evaluate("window.lesson.lastRenderMs"))
                page.close()
        finally:
            browser.close()
    return {
        "ready_s": ready,
        "wall_s": wall,
        "move_ms": move,
        "render_ms": render,
        "restyle_ms": restyle,
        "blocked": blocked,
        "console_errors": errors,
    }


def slide(page, index: int) -> float:
    """Milliseconds from a slider move (its value set, its input event sent) to the next painted frame."""
    return page.evaluate(
        """async (i) => {
            const slider = document.getElementById('slider');
            const t0 = performance.now();
            slider.value = String(i);
            slider.dispatchEvent(new Event('input', {bubbles: true}));
            await new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)));
            return performance.now() - t0;
        }""",
        index,
    )


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--points", type=int, default=2000)
    parser.add_argument("--frames", type=int, default=100)
    parser.add_argument("--steps", type=int, default=1000)
    parser.add_argument("--loads", type=int, default=5)
    parser.add_argument("--moves", type=int, default=40)
    args = parser.parse_args()

    from engine.replay import film_gif, lesson

    with tempfile.TemporaryDirectory(prefix="bench-replay-") as tmp:
        run_dir = make_run(Path(tmp) / "bench-run", args.points, args.frames, args.steps)
        started = time.perf_counter()
        data, runs, films = lesson([run_dir], max_frames=args.frames, compute=False, save=False)
        built = time.perf_counter() - started
        out = Path(tmp) / "lesson.html"
        out.write_bytes(data)
        print(
            f"lesson: {args.frames} frames x {args.points} points, {args.steps}-step curves of 10 measures, "
            f"{len(runs[0].spectra)} spectra x {DIMENSIONS}: "
            f"{len(data) / 1e6:.2f} MB ({len(data) / 2**20:.2f} MiB), built in {built:.2f} s"
        )
        started = time.perf_counter()
        gif = film_gif(films[0], runs[0].points, runs[0].name)
        print(
            f"GIF: {len(films[0].steps)} frames, {len(gif) / 1e6:.2f} MB, "
            f"built in {time.perf_counter() - started:.2f} s"
        )
        if not CHROMIUM.exists() or args.loads < 1:
            print("browser figures skipped" + ("" if CHROMIUM.exists() else ": no /usr/bin/chromium"))
            return
        result = measure_browser(out, args.loads, args.moves)
    ready, move, render = result["ready_s"], result["move_ms"], result["render_ms"]
    print(
        f"time to interactive (navigation start -> all charts and the first film frame drawn), "
        f"{args.loads} loads: "
        f"median {statistics.median(ready):.2f} s, range {min(ready):.2f}-{max(ready):.2f} s "
        f"(wall from goto: median {statistics.median(result['wall_s']):.2f} s)"
    )
    print(
        f"slider move -> next paint, {len(move)} moves: median {statistics.median(move):.1f} ms, "
        f"p90 {np.percentile(move, 90):.1f} ms, max {max(move):.1f} ms; redraw alone: median "
        f"{statistics.median(render):.1f} ms"
    )
    print(
        f"the same moves with Plotly.restyle of the film (lesson.fast = false): median "
        f"{statistics.median(result['restyle_ms']):.1f} ms, "
        f"p90 {np.percentile(result['restyle_ms'], 90):.1f} ms"
    )
    print(
        f"network requests aborted: {len(result['blocked'])}; console errors: {len(result['console_errors'])}"
    )
    print(
        json.dumps(
            {
                "bytes": len(data),
                "ready_s": ready,
                "move_ms_median": statistics.median(move),
                "render_ms_median": statistics.median(render),
                "restyle_ms_median": statistics.median(result["restyle_ms"]),
                "blocked": result["blocked"],
                "console_errors": result["console_errors"],
            }
        )
    )


if __name__ == "__main__":
    main()
