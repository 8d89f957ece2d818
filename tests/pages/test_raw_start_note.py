"""The SimCSE page says which start its Figure 2 presets use and why, one line under each button (issue 58):
offline with no raw BERT cached, minilm-cls and the reason."""

from __future__ import annotations

from pathlib import Path

import pytest

from engine.encoders.starts import MINILM_CLS, RAW_FULL, RAW_LECTURE
from ui.text import plain


def test_offline_the_page_names_the_stand_in_start_and_why(
    app, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.setenv("HF_HUB_CACHE", str(tmp_path / "empty-hub"))
    app.switch_page("views/simcse.py").run()
    notes = [c.value for c in app.sidebar.caption if c.value.startswith("Start: ")]
    reason = "is not in the local Hugging Face cache and the hub is off (HF_HUB_OFFLINE)."
    assert notes == [
        plain(f"Start: {MINILM_CLS.name}, the lab's stand-in for a raw BERT: {raw} {reason}")  # as Markdown
        for raw in (RAW_FULL, RAW_LECTURE)
    ], notes
