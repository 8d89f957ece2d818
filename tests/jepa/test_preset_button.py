"""The JEPA page's preset button queues the collapse question's four runs, each under its own experiment."""

from __future__ import annotations

from types import SimpleNamespace

from streamlit.testing.v1 import AppTest

from engine.core.declaration import Experiment


def _page() -> None:
    from engine.jepa.entry import EXPERIMENT
    from ui import controls

    controls.preset_buttons(EXPERIMENT, {"seed": 2, "device": "cpu", "ema": 0.5, "view": "crop"})


def test_does_jepa_collapse_queues_three_jepa_runs_and_the_simcse_reference(monkeypatch) -> None:
    from ui import controls

    queued: list[tuple[str, list[str], dict]] = []

    def submit(experiment: Experiment, runs: list, preset: str | None = None) -> list:
        queued.append((experiment.kind, [name for name, _ in runs], runs[-1][1]))
        return [SimpleNamespace(id=name, kind=experiment.kind) for name, _ in runs]

    monkeypatch.setattr(controls, "submit_runs", submit)
    monkeypatch.setattr(controls, "show_settings", lambda experiment, values: None)
    at = AppTest.from_function(_page, default_timeout=60).run()
    at.button(key="jepa.preset.Does JEPA collapse?").click().run()
    assert not at.exception
    assert [(kind, names) for kind, names, _ in queued] == [
        ("jepa", ["jepa (ema + predictor + stop-grad)", "stop-grad only", "none of the three"]),
        ("simcse", ["unsup simcse (reference)"]),
    ]
    # the JEPA page shows the four side by side: its section draws SimCSE runs beside its own
    assert at.session_state["jepa.shown"] == [name for _, names, _ in queued for name in names]
    reference = queued[1][2]
    assert reference["mode"] == "unsup" and reference["seed"] == 2 and not {"ema", "view"} & set(reference)
