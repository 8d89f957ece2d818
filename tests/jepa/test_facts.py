"""The replay's words about a JEPA run (engine.jepa.facts): a switch its config lacks reads as its declared
default, not as 0 or None."""

from __future__ import annotations

from engine.core.knobs import knob_of
from engine.jepa.config import JEPAConfig
from engine.jepa.facts import describe, measured_on


def test_a_missing_switch_reads_as_its_declared_default() -> None:
    rows = dict(describe({"train": "demo"}))
    ema = knob_of(JEPAConfig, "ema").default
    # the target's dropout is the exception: a config without the switch is from before it, dropout on
    assert ema > 0 and rows["Target"] == f"EMA copy, m from {ema:g} to 1 (cosine), with dropout"
    assert rows["Predictor"] == f"MLP, hidden {knob_of(JEPAConfig, 'predictor_hidden').default}"
    assert rows["Regulariser"] == "none"


def test_the_switches_of_a_run_are_said_as_set() -> None:
    rows = dict(describe({"ema": 0.0, "stop_grad": False, "predictor": False, "regulariser": "sigreg"}))
    assert rows["Target"] == "the online encoder, gradient NOT stopped"
    assert rows["Predictor"] == "none" and rows["Regulariser"] == "sigreg"
    assert "Mode" not in rows  # SimCSE's row: JEPA trains on sentences
    for dropout, said in ((False, "without"), (True, "with")):
        rows = dict(describe({"ema": 0.99, "target_dropout": dropout}))
        assert rows["Target"] == f"EMA copy, m from 0.99 to 1 (cosine), {said} dropout"


def test_the_collapse_lens_is_measured_on_the_evaluation_sentences() -> None:
    config = {"eval": "demo-pairs", "probe": "demo"}
    assert measured_on(config, None, "alpha_req") == measured_on(config, None, None)
    assert measured_on(config, None, "loss") is None
    assert measured_on(config, None, "probe_isoscore") != measured_on(config, None, None)
