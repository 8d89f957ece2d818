"""What the live view says where it draws nothing (ui/live_state.message), and the signature that makes the
page rerun (ui/live_state.signature): a run's first row changes the description, not the signature, so the
first curves appear without a page rerun."""

from __future__ import annotations

import pandas as pd

from ui import live_state


def look(logged: list[str]) -> live_state.Look:
    frame = pd.DataFrame({"step": [0, 1], **{metric: [1.0, 0.5] for metric in logged}})
    return live_state.Look(
        jobs=[], runs={"run": frame}, logged=logged, on=lambda metric: None, bars=[], changing=True
    )


def choices(measures: tuple[str, ...] = ("loss", "isoscore"), projector: bool = False) -> live_state.Choices:
    return live_state.Choices(
        ids=(),
        metrics=("loss", "isoscore"),
        measures=measures,
        options={},
        pair=None,
        share=False,
        projector=projector,
    )


def figures(chosen: object = None) -> live_state.Figures:
    return live_state.Figures(spectrum=None, relations=[], errors=[], chosen=chosen)


def test_before_the_first_row_the_view_says_so_and_after_it_says_nothing() -> None:
    assert live_state.message(look([]), choices(), figures()) == live_state.NO_METRICS
    assert live_state.message(look(["loss", "isoscore"]), choices(), figures()) is None


def test_with_no_measure_picked_the_view_says_where_to_pick_one() -> None:
    assert live_state.message(look(["loss"]), choices(measures=()), figures()) == live_state.NO_MEASURE


def test_projector_mode_without_its_curve_says_no_metrics_yet() -> None:
    assert live_state.message(look(["loss"]), choices(projector=True), figures()) == live_state.NO_METRICS
    assert live_state.message(look(["loss"]), choices(projector=True), figures(chosen={})) is None


def test_a_runs_first_row_changes_the_description_but_not_the_signature() -> None:
    before, after = look([]), look(["loss", "isoscore"])
    assert live_state.signature(before, choices(), figures()) == live_state.signature(
        after, choices(), figures()
    )
    assert live_state.description_of(before, choices(), figures())["message"] == live_state.NO_METRICS
    assert live_state.description_of(after, choices(), figures())["message"] is None
