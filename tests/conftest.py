"""Suite-wide settings: offline hub, a private cache folder, the shared data sets."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

os.environ["HF_HUB_OFFLINE"] = "1"
os.environ["TRANSFORMERS_OFFLINE"] = "1"
os.environ.setdefault("EMBEDLAB_NO_PROGRESS", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")

REPO_ROOT = Path(__file__).resolve().parent.parent
SHARED_DATA = (REPO_ROOT.parent / "shared" / "data").resolve()


@pytest.fixture(scope="session", autouse=True)
def private_cache(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Every test writes under a session temp folder, never into the repo's cache/."""
    root = tmp_path_factory.mktemp("embedlab-cache")
    os.environ["EMBEDLAB_CACHE_DIR"] = str(root)
    return root


@pytest.fixture
def own_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """An empty cache/ (encoders, embeddings, runs) for one test."""
    root = tmp_path / "cache"
    monkeypatch.setenv("EMBEDLAB_CACHE_DIR", str(root))
    return root


@pytest.fixture(scope="session")
def shared_data() -> Path:
    """``../shared/data`` beside the repo; tests that need it skip on a fresh clone without it."""
    if not SHARED_DATA.is_dir():
        pytest.skip(f"{SHARED_DATA} absent (fresh clone without ../shared): real data sets not available")
    return SHARED_DATA
