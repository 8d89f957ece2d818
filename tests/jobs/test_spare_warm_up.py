"""A warm spare's warm-up in stages (engine/jobs/spare_entry.py): a job that arrives early waits for the stage
under way only, and the first stage is all a fresh cache's one-click demo needs (no transformers)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from engine.jobs import spare_entry

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture
def stages(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The stages run, by name, with the real ones replaced by recorders."""
    ran: list[str] = []

    def stage(name: str):
        def run() -> None:
            ran.append(name)

        run.__name__ = name
        return run

    monkeypatch.setattr(spare_entry, "WARM_UP_STAGES", tuple(stage(n) for n in ("code", "bert", "encoder")))
    return ran


def test_with_no_job_every_stage_runs_in_order(stages: list[str]) -> None:
    assert spare_entry.warm_up(waiting=lambda: False) == ["code", "bert", "encoder"] == stages


def test_a_job_waiting_after_a_stage_skips_the_rest(stages: list[str]) -> None:
    answers = iter([False, True])  # asked after "code" (no job yet), then after "bert" (it has come)
    assert spare_entry.warm_up(waiting=lambda: next(answers)) == ["code", "bert"] == stages


def test_the_first_stage_always_runs(stages: list[str]) -> None:
    assert spare_entry.warm_up(waiting=lambda: True) == ["code"] == stages


def test_the_stages_are_the_run_code_the_optimiser_bert_then_the_encoder() -> None:
    names = [stage.__name__ for stage in spare_entry.WARM_UP_STAGES]
    assert names == ["preload_run_code", "warm_optimiser", "preload_encoder_code", "warm_encoder_if_on"]


def child_modules(program: str, cache: Path) -> dict:
    """Run ``program`` in a fresh interpreter (this checkout, a fresh cache); it prints a JSON line last."""
    env = {**os.environ, "EMBEDLAB_CACHE_DIR": str(cache), "HF_HUB_OFFLINE": "1", "PYTHONPATH": str(REPO)}
    done = subprocess.run(
        [sys.executable, "-c", program], cwd=REPO, env=env, capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 0, done.stderr[-2000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


SEEN = "import json, sys; print(json.dumps({'bert': any(m.startswith('transformers') for m in sys.modules)}))"


def test_the_first_two_stages_import_no_transformers_and_ready_adam(tmp_path: Path) -> None:
    program = (
        "import sys; from engine.jobs.spare_entry import preload_run_code, warm_optimiser; "
        f"preload_run_code(); warm_optimiser(); assert 'torch._dynamo' in sys.modules; {SEEN}"
    )
    assert child_modules(program, tmp_path) == {"bert": False}


def test_the_demo_on_a_fresh_cache_after_the_first_stage_needs_no_transformers(tmp_path: Path) -> None:
    """As in a spare whose job came during its first stage: the demo's run (its preset's settings, fewer
    steps) trains without importing transformers, its embeddings known by the bundled encoder's record."""
    from engine.lessons.presets import demo

    ((_, config),) = demo().configs()
    argv = ["probe", "--data", str(config["data"]), "--steps", "5", "--out", str(tmp_path / "run")]
    program = (
        "from engine.jobs.spare_entry import preload_run_code; preload_run_code()\n"
        f"from engine.cli import main; code = main({argv!r}); assert code in (0, None), code\n{SEEN}"
    )
    assert child_modules(program, tmp_path) == {"bert": False}
    assert (tmp_path / "run" / "metrics.csv").is_file()
