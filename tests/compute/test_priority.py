"""engine.compute.priority: per-thread nice values, so the app's drawing threads yield to training (Linux
only).

Each test lowers threads it creates itself: a lowered thread cannot be raised back without privileges, and
pytest's own threads must keep their priority.
"""

from __future__ import annotations

import os
import sys
import threading

import pytest

from engine.compute import priority
from engine.core import settings
from engine.core.errors import ConfigError
from engine.jobs.children import popen_child

linux_only = pytest.mark.skipif(not priority.supported(), reason="per-thread nice values are Linux's")


def in_thread(work):
    """Run ``work()`` in a fresh thread (normal priority, like a new script thread) and return its result."""
    box: dict = {}

    def target() -> None:
        try:
            box["value"] = work()
        except BaseException as err:  # noqa: BLE001 - re-raised in the test's thread
            box["error"] = err

    thread = threading.Thread(target=target)
    thread.start()
    thread.join(60)
    if "error" in box:
        raise box["error"]
    return box["value"]


@linux_only
def test_a_thread_is_lowered_alone_and_never_raised_back() -> None:
    start = priority.thread_nice()

    def work():
        lowered = priority.lower_thread_priority(start + 7)
        after = priority.thread_nice()
        kept = priority.lower_thread_priority(start + 3)  # asks for less: nothing changes
        return lowered, after, kept, priority.thread_nice()

    assert in_thread(work) == (True, start + 7, True, start + 7)
    assert priority.thread_nice() == start  # the calling thread is untouched


@linux_only
def test_another_thread_is_lowered_by_its_native_id_and_its_new_threads_inherit() -> None:
    start = priority.thread_nice()
    ready, lowered, done = threading.Event(), threading.Event(), threading.Event()
    seen: dict = {}

    def target() -> None:
        ready.set()
        lowered.wait(30)
        seen["own"] = priority.thread_nice()
        seen["child"] = in_thread(priority.thread_nice)
        done.set()

    thread = threading.Thread(target=target)
    thread.start()
    ready.wait(30)
    assert priority.lower_thread_priority(start + 5, thread.native_id)
    assert priority.thread_nice(thread.native_id) == start + 5
    lowered.set()
    done.wait(30)
    thread.join(30)
    assert seen == {"own": start + 5, "child": start + 5}
    assert priority.thread_nice() == start


@linux_only
def test_yield_to_training_lowers_the_threads_and_children_of_a_normal_thread_keep_their_priority(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The registry's arrangement: the thread that starts children is made before the UI threads are
    lowered."""
    monkeypatch.delenv("EMBEDLAB_UI_NICE", raising=False)
    start = priority.thread_nice()
    command = [
        sys.executable,
        "-c",
        "import os; print(os.getpriority(os.PRIO_PROCESS, 0), os.getpgid(0), os.getsid(0))",
    ]
    child_nice = {}
    launcher_go = threading.Event()

    def launcher() -> None:  # like the registry's worker thread
        launcher_go.wait(30)
        proc = popen_child(command, dict(os.environ))
        child_nice["out"], _ = proc.communicate(timeout=60)
        child_nice["pid"] = proc.pid

    def ui_thread():
        worker = threading.Thread(target=launcher)
        worker.start()
        applied = priority.yield_to_training([None])
        launcher_go.set()
        worker.join(60)
        return applied, priority.thread_nice()

    assert in_thread(ui_thread) == (settings.default("ui_nice"), max(start, settings.default("ui_nice")))
    nice, group, session = (int(v) for v in child_nice["out"].split())
    assert nice == start  # the run keeps the normal priority
    assert (
        group == child_nice["pid"] != os.getpgid(0)
    )  # a process group of its own: out of the terminal's Ctrl-C
    assert session == os.getsid(0)  # the server's session group: nice weighs the UI threads against it


def test_ui_nice_comes_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("EMBEDLAB_UI_NICE", raising=False)
    assert priority.ui_nice() == settings.default("ui_nice")
    monkeypatch.setenv("EMBEDLAB_UI_NICE", "4")
    assert priority.ui_nice() == 4
    monkeypatch.setenv("EMBEDLAB_UI_NICE", "0")
    assert priority.ui_nice() == 0
    assert in_thread(lambda: (priority.yield_to_training([None]), priority.thread_nice())) == (
        0,
        priority.thread_nice(),
    )
    for bad, message in [("high", "whole number"), ("25", "between 0 and 19"), ("-3", "between 0 and 19")]:
        monkeypatch.setenv("EMBEDLAB_UI_NICE", bad)
        with pytest.raises(ConfigError, match=message) as caught:
            priority.ui_nice()
        assert "\n" not in str(caught.value)


def test_unsupported_platforms_change_nothing(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(priority.sys, "platform", "darwin")  # setpriority takes a process id there
    assert not priority.supported()
    assert priority.thread_nice() is None
    assert priority.lower_thread_priority(10) is False
    assert priority.yield_to_training([None]) == 0
