"""What every command line of the engine shares (:mod:`engine.cli`, the experiments' own ``run_cli``, the
groups, the sweep, the lessons check, the results): its exit codes (:mod:`~engine.command.exits`), the
stderr progress bar (:mod:`~engine.command.progress`), Ctrl-C and SIGTERM (:mod:`~engine.command.signals`)
and ``--threads`` (:mod:`~engine.command.threads`). It imports no experiment, so every command imports it
without a circle. The run folder a command writes into is :mod:`engine.runlog.out_dir`'s, the ``--events``
stream :mod:`engine.runlog.event_stream`'s.
"""

from __future__ import annotations
