"""Replay (engine.replay): a run as one offline HTML lesson and a GIF; the ``replay`` subcommand.

The lesson is parsed back here: its embedded JSON decodes to the metrics of ``metrics.csv`` and to the frames
on disk, its text holds the settings and the lesson's words, it references no network, and user text cannot
break out of its script element. The run folders are synthetic, written through
:class:`engine.runlog.RunWriter`.
"""

from __future__ import annotations

import base64
import html
import io
import json
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from engine import runlog
from engine.cli import main
from engine.lessons import on_screen
from engine.replay import lesson, run_gif
from engine.replay.frames import evenly_spaced
from engine.replay.payload import script_json
from tests.headers import TRAINING_FIRST

EVIL = "</script><script>alert(1)</script>"
REPO = Path(__file__).resolve().parents[2]


# ------------------------------------------------------------------------------------------- run folders


def make_probe_run(
    run_dir: Path,
    *,
    steps: int = 30,
    n: int = 60,
    snapshot_every: int = 10,
    frames: bool = True,
    labels: tuple[str, ...] = ("sport", "food", EVIL),
    seed: int = 0,
    geometry: bool = False,
) -> Path:
    """A finished probe run: metrics every step, points, snapshots every ``snapshot_every`` steps, and (when
    ``frames``) the app's UMAP frames of those snapshots. ``geometry``: also its class alignment
    (``alignment``) and uniformity every step, and every 5th step its RankMe and covariance spectrum
    (8 values)."""
    rng = np.random.default_rng(seed)
    columns = ("step", "loss", "accuracy", "isoscore", "silhouette", "seconds")
    if geometry:
        columns += ("rankme", "uniformity", "alignment")
    config = {
        "kind": "probe",
        "name": run_dir.name,
        "data": "demo",
        "steps": steps,
        "lr": 0.001,
        "seed": seed,
        "snapshot_every": snapshot_every,
        "encoder": None,
        "label_col": EVIL,
    }
    writer = runlog.RunWriter(run_dir, columns, config)
    texts = [f"sentence {i} about {labels[i % len(labels)]} & <b>bold</b>" for i in range(n)]
    writer.save_points(texts, [labels[i % len(labels)] for i in range(n)])
    centres = rng.normal(size=(len(labels), 8)).astype(np.float32)
    noise = rng.normal(size=(n, 8)).astype(np.float32)
    codes = np.arange(n) % len(labels)
    for step in range(1, steps + 1):
        t = step / steps
        row = {
            "step": step,
            "loss": 1.0 / step,
            "accuracy": min(1.0, 0.3 + t),
            "isoscore": 0.3 * (1 - t) ** 2 + 1e-3,
            "silhouette": 0.7 * t + 0.01 * np.sin(step),
            "seconds": 0.05 * step,
        }
        if geometry:
            row.update(alignment=1.2 - t, uniformity=-3.0 + 2 * t)
            if step % 5 == 0:
                row["rankme"] = 8 - 5 * t
                writer.append_spectrum(step, np.geomspace(1.0, 10.0 ** (-1 - 4 * t), 8))
        writer.append(row)
        if snapshot_every and step % snapshot_every == 0:
            writer.save_snapshot(step, noise + 3 * t * centres[codes])
            if frames:
                runlog.save_frame(run_dir, step, rng.normal(size=(n, 2)) + 4 * t * centres[codes, :2])
    writer.finish("finished", summary={"state": "finished"})
    return run_dir


def make_simcse_run(run_dir: Path, *, steps: int = 40) -> Path:
    """A finished SimCSE-like run without snapshots: STS every 10 steps, alignment and uniformity every
    step."""
    columns = (
        *TRAINING_FIRST,
        "seconds",
        "eval_seconds",
    )
    config = {
        "kind": "simcse",
        "name": run_dir.name,
        "mode": "unsup",
        "train": "demo",
        "eval": "demo-pairs",
        "dropout": 0.1,
        "encoder": None,
        "pooler": "cls",
        "steps": steps,
        "snapshot_every": 0,
    }
    writer = runlog.RunWriter(run_dir, columns, config)
    for step in range(1, steps + 1):
        writer.append(
            {
                "step": step,
                "loss": 2.0 / step,
                "alignment": 0.1 + 0.001 * step,
                "uniformity": -1.7 - 0.02 * step,
                "sts_spearman": 0.77 + 0.001 * step if step % 10 == 0 else None,
                "isoscore": 0.2 - 0.001 * step,
                "seconds": 0.1 * step,
                "eval_seconds": 0.01 * step,
            }
        )
    writer.finish(
        "finished",
        summary={
            "state": "finished",
            "views": "dropout 0.1",
            "train_and_eval": ["demo", "demo-pairs"],
            "sts_baseline": STS_BASELINE,
        },
    )
    return run_dir


STS_BASELINE = 0.8125  # the untouched encoder's STS in the SimCSE run's summary


def embedded(page: str) -> dict:
    """The lesson's JSON payload, parsed as the browser parses it."""
    found = re.search(r'<script type="application/json" id="lesson-data">(.*?)</script>', page, re.S)
    assert found is not None
    return json.loads(found.group(1))


def decode(text: str, dtype: str) -> np.ndarray:
    return np.frombuffer(base64.b64decode(text), dtype=np.dtype(dtype))


def without_plotly(page: str) -> str:
    """The page with the inlined plotly.js left out (its licence comments name web sites)."""
    start = page.index("/**\n* plotly.js v")
    end = page.index("</script>", start)
    return page[:start] + page[end:]


# ------------------------------------------------------------------------------------------------ tests


@pytest.fixture
def probe_run(tmp_path: Path) -> Path:
    return make_probe_run(tmp_path / "probe-run")


@pytest.fixture
def simcse_run(tmp_path: Path) -> Path:
    return make_simcse_run(tmp_path / "simcse-run")


def test_the_probe_lesson_holds_curves_settings_texts_and_decodes_to_the_run(probe_run: Path) -> None:
    data, runs, films = lesson([probe_run], compute=False)
    page = data.decode("utf-8")
    payload = embedded(page)
    metrics = pd.read_csv(probe_run / "metrics.csv")
    run = payload["runs"][0]
    assert set(run["curves"]) == {"loss", "accuracy", "isoscore", "silhouette"}  # seconds is bookkeeping
    assert [m["key"] for m in payload["metrics"]] == ["loss", "accuracy", "isoscore", "silhouette"]
    for column, curve in run["curves"].items():
        assert f'"key":"{column}"' in page
        np.testing.assert_allclose(decode(curve["x"], "<f8"), metrics["step"], rtol=0, atol=1e-6)
        np.testing.assert_allclose(decode(curve["y"], "<f8"), metrics[column], rtol=1e-6, atol=1e-6)
    film = run["film"]
    assert film["steps"] == [10, 20, 30] and film["n"] == 60
    coords = decode(film["coords"], "<f4").reshape(3, 2, 60)
    for i, (step, path) in enumerate(runlog.list_frames(probe_run)):
        assert step == film["steps"][i]
        np.testing.assert_allclose(coords[i].T, runlog.load_frame(path), rtol=1e-6, atol=1e-6)
    relation = run["relations"]["iso_sil"]
    assert (
        list(run["relations"]) == ["iso_sil"] and payload["spectrum"] is None
    )  # no alignment, no spectrum logged
    assert relation["kind"] == "iso_sil" and -1 <= relation["r"] < -0.5 and relation["rho"] < -0.5
    np.testing.assert_allclose(decode(relation["x"], "<f8"), metrics["isoscore"], rtol=1e-6)
    # the lesson's words, the settings, the data and encoder, in the page's text
    text = html.unescape(page)
    intro = on_screen.beside("probe", on_screen.group_by_seed([probe_run]))  # the run's own figures
    assert intro.intro in text and all(item in text for item in intro.watch)
    for key in ("data", "lr", "snapshot_every", "label_col"):
        assert f"<code>{key}</code>" in page
    assert "all-MiniLM-L6-v2 (bundled)" in text and "Pearson r = " in text
    assert "Play" in page and 'id="slider"' in page and 'id="step-label"' in page


def test_the_lesson_references_no_network(probe_run: Path, simcse_run: Path) -> None:
    page = lesson([probe_run, simcse_run], compute=False)[0].decode("utf-8")
    own = without_plotly(page)
    assert not re.search(r"https?://", own), re.findall(r".{40}https?://.{40}", own)
    assert not re.search(r"<script[^>]*\bsrc=", page, re.I)
    assert not re.search(r"<link[^>]*\bhref=", page, re.I)
    assert not re.search(r"@import|url\(", own)
    assert "default-src 'none'" in page  # the page's policy forbids any request
    assert page.count("plotly.js v") >= 1 and "cdn.plot.ly/plotly" not in page


def test_user_text_is_escaped_in_html_and_in_the_script(probe_run: Path) -> None:
    page = lesson([probe_run], compute=False)[0].decode("utf-8")
    assert EVIL not in page and "<script>alert(1)" not in page
    # the data, the charts' descriptions, plotly.js and the lesson's script: nothing else ends one
    assert page.count("</script>") == 4
    payload = embedded(page)
    film = payload["runs"][0]["film"]
    assert (
        html.escape(EVIL, quote=False) in film["labels"]
    )  # escaped for Plotly's HTML subset, then JSON-escaped
    assert "&lt;b&gt;bold&lt;/b&gt;" in film["hover"][0]
    assert "&lt;/script&gt;&lt;script&gt;alert(1)" in page  # the label_col setting, as HTML text
    assert json.loads(script_json({"a": EVIL + "\u2028<!--"})) == {"a": EVIL + "\u2028<!--"}
    assert "<" not in script_json({"a": EVIL}) and "\u2028" not in script_json({"a": "\u2028"})


def test_a_simcse_run_without_snapshots_gets_curves_and_says_the_film_needs_snapshots(
    simcse_run: Path,
) -> None:
    page = lesson([simcse_run], compute=False)[0].decode("utf-8")
    payload = embedded(page)
    run = payload["runs"][0]
    assert run["film"] is None and "film needs snapshots" in run["film_note"]
    assert "film needs snapshots" in page
    assert set(run["curves"]) == {"loss", "alignment", "uniformity", "sts_spearman", "isoscore"}
    sts = pd.read_csv(simcse_run / "metrics.csv")[["step", "sts_spearman"]].dropna()
    np.testing.assert_allclose(decode(run["curves"]["sts_spearman"]["x"], "<f8"), sts["step"])
    np.testing.assert_allclose(
        decode(run["curves"]["sts_spearman"]["y"], "<f8"), sts["sts_spearman"], rtol=1e-6
    )
    assert list(run["relations"]) == ["align_uniform"] and payload["relations"][0]["kind"] == "align_uniform"
    text = html.unescape(page)
    beside = on_screen.beside("simcse", [on_screen.Shown((simcse_run,))]).intro
    assert beside in text and "demo-pairs" in text and "dropout 0.1" in text


def test_several_runs_overlay_their_curves(probe_run: Path, simcse_run: Path) -> None:
    payload = embedded(lesson([probe_run, simcse_run], compute=False)[0].decode("utf-8"))
    assert [run["name"] for run in payload["runs"]] == ["probe-run", "simcse-run"]
    assert {r["kind"] for r in payload["relations"]} == {"iso_sil", "align_uniform"}
    keys = [m["key"] for m in payload["metrics"]]
    assert keys.count("isoscore") == 1 and {"alignment", "silhouette"} <= set(keys)


def test_the_sts_curve_has_the_untouched_encoders_line_and_runs_differ_by_dash(
    probe_run: Path, simcse_run: Path
) -> None:
    from engine.replay import panels

    payload = embedded(lesson([probe_run, simcse_run], compute=False)[0].decode("utf-8"))
    assert payload["runs"][1]["baselines"] == {"sts_spearman": [STS_BASELINE]}
    assert payload["runs"][0]["baselines"] == {}  # a probe run has no STS reference
    drawn = {panel["key"]: panel["figure"] for panel in panels.curves(payload)["panels"]}
    sts = drawn["sts_spearman"]["layout"]
    assert [shape["y0"] for shape in sts["shapes"]] == [STS_BASELINE]
    assert sts["annotations"][0]["text"] == f"untouched encoder: {STS_BASELINE:.3f}"
    assert not drawn["loss"]["layout"]["shapes"]
    assert drawn["isoscore"]["layout"]["yaxis"]["range"] == pytest.approx([-0.04, 1.04])  # natural range
    assert [trace["line"]["dash"] for trace in drawn["isoscore"]["data"]] == ["solid", "dash"]


def test_the_cli_writes_the_lesson_and_the_gif(probe_run: Path, tmp_path: Path) -> None:
    out, gif = tmp_path / "lesson.html", tmp_path / "film.gif"
    done = subprocess.run(
        [sys.executable, "-m", "engine", "replay", str(probe_run), "--out", str(out), "--gif", str(gif)],
        capture_output=True,
        text=True,
        cwd=REPO,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    assert report["bytes"] == out.stat().st_size and report["frames"] == {"probe-run": 3}
    assert embedded(out.read_text(encoding="utf-8"))["runs"][0]["film"]["steps"] == [10, 20, 30]
    from PIL import Image

    with Image.open(gif) as image:
        assert image.format == "GIF" and image.n_frames == 3 and image.info.get("loop") == 0


def test_a_run_is_found_by_name_under_cache_runs(own_cache: Path, capsys: pytest.CaptureFixture[str]) -> None:
    make_simcse_run(own_cache / "runs" / "my-run")
    out = own_cache / "lesson.html"
    assert main(["replay", "my-run", "--out", str(out)]) == 0
    assert "film needs snapshots" in capsys.readouterr().err
    assert embedded(out.read_text(encoding="utf-8"))["runs"][0]["name"] == "my-run"


def test_the_film_is_made_from_snapshots_with_the_apps_umap_and_saved_for_the_app(tmp_path: Path) -> None:
    run_dir = make_probe_run(tmp_path / "cli-run", steps=40, n=40, snapshot_every=5, frames=False)
    out, gif = tmp_path / "lesson.html", tmp_path / "film.gif"
    assert main(["replay", str(run_dir), "--out", str(out), "--gif", str(gif), "--frames", "4"]) == 0
    steps = [step for step, _ in runlog.list_snapshots(run_dir)]
    chosen = evenly_spaced(steps, 4)
    assert chosen == [5, 15, 30, 40]
    assert [step for step, _ in runlog.list_frames(run_dir)] == chosen  # written for the app to reuse
    film = embedded(out.read_text(encoding="utf-8"))["runs"][0]["film"]
    assert film["steps"] == chosen
    coords = decode(film["coords"], "<f4").reshape(4, 2, 40)
    for i, step in enumerate(chosen):
        np.testing.assert_allclose(
            coords[i].T, runlog.load_frame(runlog.frame_path(run_dir, step)), rtol=1e-4, atol=1e-4
        )
    from PIL import Image

    with Image.open(gif) as image:
        assert image.n_frames == 4
    # a second replay reuses the frames (nothing left to make): the same film
    again = lesson([run_dir], max_frames=4)[2][0]
    assert again is not None and again.made == 0 and again.steps == chosen


def test_the_gif_of_a_run_has_one_frame_per_film_frame(probe_run: Path) -> None:
    from PIL import Image

    with Image.open(io.BytesIO(run_gif(probe_run, compute=False))) as image:
        assert image.n_frames == 3 and image.size == (640, 700)


@pytest.mark.parametrize(
    ("damage", "message"),
    [
        ("no-config", "not a run folder (no config.json)"),
        ("config", "config.json is damaged"),
        ("metrics", "metrics.csv is damaged"),
        ("snapshot", "step_000010.npy is damaged"),
        ("missing", "no such run folder"),
    ],
)
def test_user_errors_are_one_line_and_exit_2(
    tmp_path: Path, damage: str, message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    run_dir = make_probe_run(tmp_path / "run", frames=False)
    if damage == "no-config":
        (run_dir / "config.json").unlink()
    elif damage == "config":
        (run_dir / "config.json").write_text("{not json")
    elif damage == "metrics":
        (run_dir / "metrics.csv").write_text("loss,accuracy\n0.5,0.1\n")
    elif damage == "snapshot":
        runlog.snapshot_path(run_dir, 10).write_bytes(b"\x93NUMPY garbage")
    target = str(tmp_path / "nowhere") if damage == "missing" else str(run_dir)
    assert main(["replay", target, "--out", str(tmp_path / "x.html"), "--frames", "3"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert err[-1].startswith("error: ") and message in err[-1] and "Traceback" not in "\n".join(err)
    assert not (tmp_path / "x.html").exists()


def test_a_damaged_optional_file_is_a_warning_and_a_file_is_not_a_run(
    probe_run: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (probe_run / "points.csv").write_bytes(b'text,label\n"unclosed\n')
    (probe_run / "status.json").write_text("[1, 2]")
    out = tmp_path / "x.html"
    assert main(["replay", str(probe_run), "--out", str(out)]) == 0
    err = capsys.readouterr().err
    assert "warning: probe-run/points.csv is damaged" in err and "status.json is damaged" in err
    assert embedded(out.read_text(encoding="utf-8"))["runs"][0]["film"]["labels"] == ["points"]
    assert main(["replay", str(probe_run / "metrics.csv"), "--out", str(out)]) == 2
    assert main(["replay", str(probe_run)]) == 2  # nothing to write
    assert "at least one" in capsys.readouterr().err


def test_a_film_of_many_points_shows_a_seeded_sample_and_says_so(tmp_path: Path) -> None:
    from engine.replay.frames import FilmFrames
    from engine.replay.payload import MAX_FILM_POINTS, film_note, film_payload
    from engine.replay.source import load_run

    total = MAX_FILM_POINTS + 500
    coords = np.random.default_rng(0).normal(size=(2, total, 2)).astype(np.float32)
    points = pd.DataFrame(
        {"text": [f"sentence {i}" for i in range(total)], "label": [str(i % 4) for i in range(total)]}
    )
    film = FilmFrames([5, 10], coords)
    shown = film_payload(film, points)
    assert shown["n"] == MAX_FILM_POINTS and shown["of"] == total and len(shown["hover"]) == MAX_FILM_POINTS
    kept = [int(text.split()[1]) for text in shown["hover"]]
    assert kept == sorted(kept)  # the same points in every frame, in their order
    np.testing.assert_array_equal(decode(shown["coords"], "<f4").reshape(2, 2, -1)[1].T, coords[1, kept])
    run = load_run(make_simcse_run(tmp_path / "run"))
    assert f"a seeded sample of {MAX_FILM_POINTS:,} of its {total:,}" in film_note(run, film)


def test_no_save_frames_leaves_the_run_folder_as_it_was(tmp_path: Path) -> None:
    run_dir = make_probe_run(tmp_path / "run", steps=10, n=20, snapshot_every=5, frames=False)
    before = sorted(p.relative_to(run_dir) for p in run_dir.rglob("*"))
    assert main(["replay", str(run_dir), "--gif", str(tmp_path / "film"), "--no-save-frames"]) == 0
    assert sorted(p.relative_to(run_dir) for p in run_dir.rglob("*")) == before
    assert (tmp_path / "film.gif").is_file()  # the suffix is added


def test_make_films_counts_the_frames_of_all_runs_in_one_progress(tmp_path: Path) -> None:
    from engine import replay

    folders = [tmp_path / "a", tmp_path / "b"]
    for folder in folders:
        make_probe_run(folder, steps=20, n=30, snapshot_every=5, frames=False)
    assert replay.frames_to_make(folders) == 8  # 4 snapshots each, no frame yet
    seen: list[tuple[int, int]] = []
    replay.make_films(folders, lambda made, total: seen.append((made, total)))
    assert seen == [(made, 8) for made in range(1, 9)]
    assert replay.frames_to_make(folders) == 0
    assert all(len(list((folder / "frames").glob("step_*"))) == 4 for folder in folders)


def test_a_film_note_speaks_the_words_of_the_app_and_of_a_stopped_run() -> None:
    """No film: a run stopped before its first snapshot says so; one that kept none names the app's field
    beside the CLI flag (an app user never typed --snapshot-every)."""
    from types import SimpleNamespace

    from engine.replay.payload import film_note

    stopped = SimpleNamespace(name="demo · 60 steps", config={"snapshot_every": 10}, state="stopped")
    note = film_note(stopped, None)
    assert "stopped before its first embedding snapshot (one every 10 steps)" in note
    assert "--snapshot-every" not in note
    none_kept = SimpleNamespace(name="jepa · 60 steps", config={"snapshot_every": 0}, state="finished")
    assert "“UMAP frame every k steps”" in film_note(none_kept, None)
