"""A stop during a run's set-up (reading data, loading the encoder, encoding the corpus) ends the run at the
next batch, recorded as stopped, with no step logged (issue 24, item 3). Counts, never durations: the
process timeouts below only turn a hang into a failure."""

from __future__ import annotations

import os
import signal
import subprocess
import threading
from pathlib import Path

import numpy as np
import pytest
from waiting import wait_for

from engine import runlog
from engine.command.exits import engine_command
from engine.encoders.encoder import Encoder
from engine.probe import ProbeConfig
from engine.runlog import runner

REPO = Path(__file__).resolve().parents[2]
WORDS = [
    "a",
    "calm",
    "film",
    "with",
    "a",
    "warm",
    "heart",
    "and",
    "a",
    "dull",
    "ending",
    "that",
    "drags",
    "for",
    "an",
    "hour",
]


def _corpus(path: Path, rows: int) -> Path:
    rng = np.random.default_rng(0)
    lines = ["text,label"]
    for i in range(rows):
        lines.append(" ".join(rng.choice(WORDS, size=12).tolist()) + f" {i},{'ab'[i % 2]}")
    path.write_text("\n".join(lines) + "\n")
    return path


def test_a_stop_while_encoding_ends_the_run_at_the_next_batch(tmp_path: Path, monkeypatch, own_cache) -> None:
    data = _corpus(tmp_path / "corpus.csv", 1_280)  # 20 batches of 64
    batches: list[int] = []
    stop = threading.Event()
    real_embed = Encoder._embed

    def embed(self, batch):
        batches.append(len(batch["input_ids"]))
        if len(batches) == 2:
            stop.set()  # ■ Stop pressed while the corpus is being encoded
        return real_embed(self, batch)

    monkeypatch.setattr(Encoder, "_embed", embed)
    config = ProbeConfig(data=str(data), steps=3)
    summary = runner.run_experiment("probe", config, tmp_path / "run", stop=stop)
    assert summary["state"] == "stopped"
    assert len(batches) == 2  # not the 20 of the whole corpus
    assert runlog.run_state(tmp_path / "run") == "stopped"
    assert len(runlog.read_metrics(tmp_path / "run")) == 0
    assert not list((own_cache / "embeddings").glob("*.npy"))  # nothing half-encoded was cached


def test_a_stop_before_set_up_ends_before_reading_the_data(tmp_path: Path, monkeypatch) -> None:
    from engine.probe import problem

    stop = threading.Event()
    stop.set()
    reads: list[str] = []
    monkeypatch.setattr(problem, "_load", lambda config: reads.append(config.data))
    summary = runner.run_experiment("probe", ProbeConfig(data="demo", steps=3), tmp_path / "run", stop=stop)
    assert summary["state"] == "stopped" and summary["steps_logged"] == 0
    assert reads == []
    assert runlog.run_state(tmp_path / "run") == "stopped"


def _encoder_loaded(pid: int) -> bool:
    """Whether the process has the encoder's weights mapped (it is encoding or about to)."""
    try:
        maps = Path(f"/proc/{pid}/maps").read_text()
    except OSError:
        return False
    return "model.safetensors" in maps or "pytorch_model.bin" in maps


@pytest.mark.slow
@pytest.mark.timeout(600)
@pytest.mark.skipif(not Path("/proc/self/maps").exists(), reason="needs /proc to see the encoder loaded")
@pytest.mark.parametrize("moment", ["set-up", "encoding"])
def test_sigterm_during_set_up_ends_the_cli_run_stopped(tmp_path: Path, moment: str) -> None:
    data = _corpus(tmp_path / "corpus.csv", 20_000)  # minutes of encoding on a small CPU
    out, cache = tmp_path / "run", tmp_path / "cache"
    env = {**os.environ, "EMBEDLAB_CACHE_DIR": str(cache), "EMBEDLAB_NO_PROGRESS": "1"}
    command = engine_command("probe", "--data", str(data), "--steps", "2", "--out", str(out))
    child = subprocess.Popen(command, env=env, cwd=REPO, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        wait_for(lambda: (out / runlog.STATUS).exists() or child.poll() is not None, 300, "the run's status")
        if moment == "encoding":
            wait_for(lambda: _encoder_loaded(child.pid) or child.poll() is not None, 300, "the encoder")
        assert child.poll() is None
        child.send_signal(signal.SIGTERM)
        _, stderr = child.communicate(timeout=240)  # a hang guard: without the fix it encodes all 20,000
    finally:
        if child.poll() is None:
            child.kill()
    assert child.returncode == 130, stderr.decode()[-2000:]
    assert runlog.run_state(out) == "stopped"
    assert len(runlog.read_metrics(out)) == 0  # no step was logged: set-up did not run to its end
    assert not list((cache / "embeddings").glob("*.npy"))
    assert b"Traceback" not in stderr
