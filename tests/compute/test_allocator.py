"""The allocator policy of training processes (engine/compute/allocator.py): set through glibc's mallopt where
the C library is glibc, never elsewhere, and not at all when the setting turns it off."""

from __future__ import annotations

import ctypes

import pytest

from engine.compute import allocator


class FakeLibc:
    def __init__(self) -> None:
        self.calls: list[tuple[int, int]] = []

    def mallopt(self, parameter: int, value: int) -> int:
        self.calls.append((parameter, value))
        return 1


def test_both_thresholds_are_set_on_glibc(monkeypatch: pytest.MonkeyPatch) -> None:
    fake = FakeLibc()
    monkeypatch.setattr(allocator, "glibc", lambda: fake)
    assert allocator.keep_freed_memory() is True
    assert fake.calls == [(-3, 256 * 2**20), (-1, 512 * 2**20)]  # M_MMAP_THRESHOLD, M_TRIM_THRESHOLD


def test_the_setting_turns_it_off(monkeypatch: pytest.MonkeyPatch) -> None:
    fake = FakeLibc()
    monkeypatch.setattr(allocator, "glibc", lambda: fake)
    monkeypatch.setenv("EMBEDLAB_MALLOC_TUNING", "0")
    assert allocator.keep_freed_memory() is False and fake.calls == []


def test_nothing_is_changed_where_the_c_library_is_not_glibc(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(allocator.platform, "libc_ver", lambda: ("", ""))
    assert allocator.glibc() is None and allocator.keep_freed_memory() is False


def test_on_this_machine_glibc_takes_the_policy() -> None:
    if allocator.glibc() is None:
        pytest.skip("not glibc")
    assert isinstance(allocator.glibc(), ctypes.CDLL) and allocator.keep_freed_memory() is True


def test_the_apps_children_start_with_glibcs_variables_unless_turned_off_or_set(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from engine.core import settings

    env = settings.child_environment()
    assert env["MALLOC_MMAP_THRESHOLD_"] == str(allocator.MMAP_THRESHOLD) == str(256 * 2**20)
    assert env["MALLOC_TRIM_THRESHOLD_"] == str(allocator.TRIM_THRESHOLD)
    monkeypatch.setenv("MALLOC_MMAP_THRESHOLD_", "1048576")  # the user's own choice wins
    assert settings.child_environment()["MALLOC_MMAP_THRESHOLD_"] == "1048576"
    monkeypatch.delenv("MALLOC_MMAP_THRESHOLD_")
    monkeypatch.setenv("EMBEDLAB_MALLOC_TUNING", "0")
    assert "MALLOC_MMAP_THRESHOLD_" not in settings.child_environment()
