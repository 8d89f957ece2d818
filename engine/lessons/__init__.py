"""The lessons the lab teaches with, and the check that keeps them true.

:mod:`~engine.lessons.texts` holds each experiment's lesson and the Overview's definitions;
:mod:`~engine.lessons.numbers` fills a lesson's numbers from the runs behind its claims (recorded in
``results.json``); :mod:`~engine.lessons.presets` holds the one-click presets (and their lecture versions,
timed in ``lecture_times.json``); :mod:`~engine.lessons.check` is ``python -m engine lessons check``, which
runs every lesson's presets and judges its claims (:mod:`~engine.lessons.judging`). A claim itself is declared
with its experiment (:mod:`engine.core.lesson_claims`). This ``__init__`` imports nothing: the declarations in
:mod:`engine.core` are read by the experiments, which this package reads in turn.
"""
