"""Replacing a saved encoder can be cut short by a kill and never loses it; names are checked before work."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from engine.core.errors import ConfigError
from engine.encoders import list_encoders, load_encoder, save_encoder
from engine.encoders.store import check_save_name, recover

# Saves encoder "keep" with card {"steps": <argv 2>}; with argv 3 == "kill" the process kills itself with
# SIGKILL right after the first rename of the replacement (old copy moved aside, new one not yet in place).
SAVER = """
import os, signal, sys
from pathlib import Path
from engine.encoders import load_encoder, save_encoder
real_replace = os.replace
def replace(src, dst):
    real_replace(src, dst)
    if sys.argv[3] == "kill" and Path(dst).name.startswith(".old-"):
        os.kill(os.getpid(), signal.SIGKILL)
os.replace = replace
save_encoder(load_encoder(sys.argv[1], device="cpu"), "keep", {"steps": int(sys.argv[2])})
"""


def _save_in_child(tiny_dir: Path, cache: Path, steps: int, mode: str) -> int:
    env = {**os.environ, "EMBEDLAB_CACHE_DIR": str(cache)}
    return subprocess.run(
        [sys.executable, "-c", SAVER, str(tiny_dir), str(steps), mode],
        env=env,
        capture_output=True,
        timeout=300,
    ).returncode


@pytest.fixture(scope="module")
def killed_mid_replace(tiny_dir: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A cache whose encoder "keep" (saved with steps 1) was being replaced (steps 2) when a SIGKILL came
    between the two renames; made once (two child processes), copied into each test's own cache."""
    cache = tmp_path_factory.mktemp("killed-mid-replace")
    assert _save_in_child(tiny_dir, cache, 1, "normal") == 0
    assert _save_in_child(tiny_dir, cache, 2, "kill") == -9
    return cache


@pytest.fixture
def after_the_kill(killed_mid_replace: Path, own_cache: Path) -> Path:
    """This test's own cache as the kill left it."""
    shutil.copytree(killed_mid_replace, own_cache, symlinks=True)
    return own_cache


def _steps_of(name: str) -> int:
    return next(info.card.get("steps") for info in list_encoders() if info.name == name)


def test_a_kill_between_the_two_renames_keeps_the_encoder(after_the_kill: Path) -> None:
    root = after_the_kill / "encoders"
    assert not (root / "keep").exists()  # the window is real: the old copy is aside, the new one not in place
    assert [p.name for p in root.glob(".old-keep-*")]
    assert _steps_of("keep") == 2  # listing finishes the replacement with the complete new copy
    assert load_encoder("keep", device="cpu").encode(["x"]).shape == (1, 16)
    assert not list(root.glob(".old-*")) and not list(root.glob(".tmp-*"))


def test_without_a_complete_new_copy_the_old_one_comes_back(after_the_kill: Path) -> None:
    root = after_the_kill / "encoders"
    for tmp in root.glob(".tmp-keep-*"):
        (tmp / "embedlab.json").unlink()  # as if the new copy had not been written whole
    assert load_encoder("keep", device="cpu").encode(["x"]).shape == (1, 16)  # loading by name recovers too
    assert _steps_of("keep") == 1


def test_the_next_save_does_not_delete_the_set_aside_copy(tiny_dir: Path, after_the_kill: Path) -> None:
    old = next((after_the_kill / "encoders").glob(".old-keep-*"))
    os.utime(old, (0, 0))  # older than the stale-folder age: a clean-up must still not remove it blindly
    for tmp in (after_the_kill / "encoders").glob(".tmp-keep-*"):
        os.utime(tmp, (0, 0))
    save_encoder(load_encoder(str(tiny_dir), device="cpu"), "other", {})
    assert {info.name for info in list_encoders()} >= {"keep", "other"}
    assert recover() == []


def test_a_cleaned_name_that_exists_is_refused_and_named(tiny_dir: Path, own_cache: Path) -> None:
    save_encoder(load_encoder(str(tiny_dir), device="cpu"), "my-enc", {})
    with pytest.raises(ConfigError, match=r"an encoder named 'my-enc' \(from 'my enc!'\) already exists"):
        check_save_name("my enc!")
    assert check_save_name("my enc!", overwrite=True) == "my-enc"
    assert check_save_name("fresh name") == "fresh-name"


def test_a_reserved_name_is_refused_before_any_work(own_cache: Path) -> None:
    with pytest.raises(ConfigError, match="reserved for the bundled encoder"):
        check_save_name("all-MiniLM-L6-v2")
