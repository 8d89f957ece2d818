"""A spare's warm-up (engine.jobs.spare_entry.warm_up) goes stage by stage in the order a first click needs
it, and a job that arrived early waits for the stage under way only, never for the whole warm-up."""

from __future__ import annotations

import pytest

from engine.jobs import spare_entry


@pytest.fixture
def stages(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    ran: list[str] = []

    def stage(name: str):
        def run() -> None:
            ran.append(name)

        run.__name__ = name
        return run

    monkeypatch.setattr(spare_entry, "WARM_UP_STAGES", tuple(map(stage, ("code", "encoder", "rest"))))
    return ran


def test_without_a_job_every_stage_runs_in_order(stages: list[str]) -> None:
    assert spare_entry.warm_up(lambda: False) == ["code", "encoder", "rest"]
    assert stages == ["code", "encoder", "rest"]


def test_a_job_that_arrives_stops_the_warm_up_after_the_stage_under_way(stages: list[str]) -> None:
    asked = iter([False, True])  # the job arrives during the encoder's stage
    assert spare_entry.warm_up(lambda: next(asked)) == ["code", "encoder"]
    assert stages == ["code", "encoder"]


def test_the_first_stage_always_runs(stages: list[str]) -> None:
    assert spare_entry.warm_up(lambda: True) == ["code"]


def test_the_demo_cache_is_warmed_before_the_modules_a_demo_does_not_need() -> None:
    names = [stage.__name__ for stage in spare_entry.WARM_UP_STAGES]
    assert names.index("warm_encoder_if_on") < names.index("preload_modules")
