"""A run's state, as ``status.json`` records it and as the lab's server follows it.

The values are the strings written to run folders (``status.json``'s ``state``, ``summary.json``'s), so a
:class:`RunState` equals its string (``RunState.FAILED == "failed"``), is written as that string by
``json``, and reads back with ``RunState(text)``.

- ``queued``: in the server's queue, not started (never written to a folder);
- ``running``: its writer is at work (``status.json`` from the first step's set-up on);
- ``finished``, ``stopped``, ``failed``: the writer's last word (:data:`FINAL_STATES`);
- ``interrupted``: read, never written: the status says running but its writer is gone, or the status is
  not one the lab writes (:func:`engine.runlog.listing.run_state`).
"""

from __future__ import annotations

from enum import StrEnum


class RunState(StrEnum):
    """A run's state; each member is the string written to the run folder."""

    QUEUED = "queued"
    RUNNING = "running"
    FINISHED = "finished"
    STOPPED = "stopped"
    FAILED = "failed"
    INTERRUPTED = "interrupted"

    @property
    def active(self) -> bool:
        """Queued or running: the run may still change."""
        return self in ACTIVE_STATES


#: queued or running: the run may still change
ACTIVE_STATES = (RunState.QUEUED, RunState.RUNNING)
#: the states a run's writer records at its end
FINAL_STATES = (RunState.FINISHED, RunState.STOPPED, RunState.FAILED)
#: ended before the last step (a run says how it ended)
CUT_SHORT = (RunState.STOPPED, RunState.FAILED, RunState.INTERRUPTED)
