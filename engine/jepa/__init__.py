"""JEPA-style non-contrastive training of sentence embeddings (BYOL / SimSiam / I-JEPA), with the switches
that decide collapse: EMA target, predictor, stop-gradient, and a regulariser (VICReg, SIGReg).

Modules, one concept each (the data, evaluation, encoder, loop and distributed modules are the training
core's, :mod:`engine.training`, shared with SimCSE):
- ``config``      ``JEPAConfig``: the settings of a run (knob declarations), the logged columns
- ``views``       the context view: span masking, or the word augmentations; the target is the sentence
- ``losses``      2 − 2 cos, VICReg's terms, the Epps–Pulley statistic and SIGReg
- ``networks``    the predictor, the EMA momentum schedule and update
- ``step``        one training step (``Trainer``): online and target forwards, loss, AdamW, EMA
- ``evaluation``  the training core's evaluation plus the collapse lens (α-ReQ, per-dimension std; RankMe)
- ``train``       the ``train_jepa`` step generator, ``summarize``
- ``cli``         ``python -m engine jepa`` flags and the (distributed) run
- ``entry``, ``lesson``, ``presets``, ``facts``  its registry entry, lesson, presets and replay words
"""
