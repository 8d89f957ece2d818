"""Collapse, seen coming, on the JEPA page: a run whose RankMe fell below the declared share of its start gets
a warning naming the step (the step its charts mark); a run that keeps its rank gets none; a run name full
of Markdown is drawn as text."""

from __future__ import annotations

from apphelpers import APP, errors, run_on_disk
from streamlit.testing.v1 import AppTest

from engine.core.measures import COLLAPSE_ONSET, COLLAPSE_PROFILE, RANKME
from ui import live_state


def rows(ranks: list[float]) -> list[dict]:
    return [
        {"step": 5 * i, "loss": 1.0 - 0.1 * i, RANKME: rank, "seconds": float(i)}
        | {measure: 0.5 for measure in COLLAPSE_PROFILE}
        for i, rank in enumerate(ranks)
    ]


def page_with(*runs: str) -> AppTest:
    at = AppTest.from_file(str(APP), default_timeout=120)
    at.run()
    at.switch_page("views/jepa.py").run()
    at.multiselect(key="jepa.shown").set_value(list(runs)).run()
    assert not at.exception and not errors(at)
    return at


def test_a_collapsing_run_is_named_with_its_step_and_a_kept_rank_is_not(fresh_registry) -> None:
    name = {"name": "none of the three ![x](http://127.0.0.1:9/x.png)"}
    collapse = run_on_disk("none-of-three", "jepa", rows=rows([246, 200, 120, 81]), config=name)
    kept = run_on_disk("jepa-kept", "jepa", rows=rows([246, 240, 230, 222]))
    at = page_with(collapse, kept)
    lines = [w.value for w in at.warning if "collapse" in w.value]
    assert len(lines) == 1, lines
    assert f"below {COLLAPSE_ONSET:.0%} of its start at step 10" in lines[0] and "collapse began" in lines[0]
    assert "\\!\\[x\\]" in lines[0]  # the run's name escaped: no image fetched from it
    assert not [w for w in page_with(kept).warning if "collapse" in w.value]


def test_the_page_reruns_when_a_runs_collapse_begins() -> None:
    import pandas as pd

    def signature(ranks: list[float]) -> str:
        look = live_state.Look([], {"run": pd.DataFrame(rows(ranks))}, [RANKME], lambda m: None, [], True)
        return live_state.signature(look, None, live_state.Figures(None, [], []))  # type: ignore[arg-type]

    assert signature([246, 240]) != signature([246, 240, 120])
