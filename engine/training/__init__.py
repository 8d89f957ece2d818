"""The training core that SimCSE and JEPA share: an encoder trained on views of sentences, one step at a time.

An experiment that trains an encoder this way brings its config (its knobs: :mod:`engine.core.shared_knobs`
declares the shared ones), its views and its loss (a ``Trainer`` whose ``step(step)`` returns the loss), and
gets the rest from here: the data (``data``: training sentences or NLI triples, evaluation pairs, labelled
set, seeded batches), the encoder and its pooling (``encoder``), the length-bucketed forward and its
tokenisation (``towers``), the optimiser and the trainer's parts (``trainer``), torchrun and DDP
(``distributed``), the word augmentations and a step's randomness (``augment``), the evaluation
(``evaluation``), the set-up and the loop of rows (``loop``), the columns it logs and when (``config``), the
run's summary (``summary``), the rank-aware CLI run (``cli``), the replay's words about its data (``facts``)
and the short lesson-check settings (``presets``). Nothing here imports an experiment's package.
"""
