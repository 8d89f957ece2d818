"""Fixtures of the metric tests: ``blocks`` runs a silhouette case with a single block and with tiny ones."""

from __future__ import annotations

import pytest
from labelled import sil_mod


@pytest.fixture(params=["one_block", "small_blocks"])
def blocks(request, monkeypatch) -> None:
    """Run each case with a single block and with tiny blocks (seams, off-diagonal symmetric blocks)."""
    if request.param == "small_blocks":
        monkeypatch.setattr(sil_mod, "block_size", lambda x: 17)
