"""The lab's shared vocabulary, imported by every other part of the engine and importing none of them.

What a user can set (:mod:`~engine.core.settings` for the environment, :mod:`~engine.core.knobs` and
:mod:`~engine.core.shared_knobs` for an experiment's settings, :mod:`~engine.core.flags` for their
command-line flags, :mod:`~engine.core.validate` for their checks), what the lab measures
(:mod:`~engine.core.measures`), what an experiment declares (:mod:`~engine.core.declaration`, with its
lessons' claims in :mod:`~engine.core.lesson_claims`; the registry that lists them, :mod:`engine.experiments`,
sits above the experiments: importing this package loads none), where files live (:mod:`~engine.core.paths`,
:mod:`~engine.core.safe_open`), the hub's reachability (:mod:`~engine.core.hub`), a config as a dict
(:mod:`~engine.core.config_dict`), one-line errors (:mod:`~engine.core.errors`), a run's stop inside long
set-ups (:mod:`~engine.core.stopping`) and a lecture's pace (:mod:`~engine.core.pace`).
"""
