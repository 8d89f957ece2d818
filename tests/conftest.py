"""Suite-wide settings: offline hub, a private cache folder, the shared data sets."""

from __future__ import annotations

import os
import sys
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


@pytest.fixture(autouse=True)
def main_module_kept():
    """``sys.modules["__main__"]`` as it was before each test. Streamlit's script runner (AppTest) installs
    the script it runs as ``__main__`` and never puts the old one back, and a process started with
    multiprocessing's "spawn" runs the parent's ``__main__`` again: after an AppTest of a function (a script
    in a temporary file) the side-by-side workers of a later test died at start (2026-11-29)."""
    main = sys.modules.get("__main__")
    yield
    if main is not None and sys.modules.get("__main__") is not main:
        sys.modules["__main__"] = main


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


@pytest.fixture(scope="session")
def tiny_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A tiny random BERT (hidden 32, 2 layers, dropout 0.1) with the bundled tokenizer, in HF format."""
    from tiny_bert import save_tiny_bert
    from transformers import AutoTokenizer

    from engine.encoders import bundled_path

    tokenizer = AutoTokenizer.from_pretrained(bundled_path(), trust_remote_code=False)
    folder = tmp_path_factory.mktemp("tiny-bert")
    return save_tiny_bert(folder, tokenizer, hidden=32, heads=2, intermediate=37, positions=64)


def pytest_configure(config: pytest.Config) -> None:
    """Under pytest-xdist (two worker processes on two cores) each worker's own torch work runs on one thread:
    two processes of two OpenMP threads each on two cores spend their time waiting for one another."""
    if hasattr(config, "workerinput"):
        import torch

        torch.set_num_threads(1)


#: the suite's longest module, started first: under ``-n 2 --dist loadfile`` a worker takes a module at a
#: time in collection order, and this one (the short lessons check, 295 s of the 20-min suite on 2026-12-08,
#: ``--durations=60``), started late, can leave one worker on it alone at the end
LONGEST_FIRST = ("tests/lessons/test_lessons_check.py",)


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """The modules of :data:`LONGEST_FIRST` first, the rest in their order."""
    first = [item for item in items if item.nodeid.split("::")[0] in LONGEST_FIRST]
    if first:
        items[:] = first + [item for item in items if item not in first]
