"""SimCSE (Gao, Yao & Chen 2021, arXiv 2104.08821) with the paper's ablations as switches.

Modules, one concept each (the data, the encoder, the towers, the trainer's parts, torchrun, the evaluation,
the
loop and the summary are the training core's, :mod:`engine.training`, shared with JEPA):
- ``views``        the view switches (dropout p, same mask, delete one word, crop, word deletion), presets
- ``losses``       unsupervised InfoNCE and supervised loss with hard negatives
- ``config``       ``SimCSEConfig``: the settings of a run, their checks, the logged columns
- ``step``         one training step: forward of all views, all-gather, loss, AdamW (``Trainer``)
- ``baseline``     the untouched encoder's STS at its native pooling (the reference of the STS charts)
- ``train``        the ``train_simcse`` step generator, ``summarize``, the saved encoder; re-exports the names
- ``cli``          ``python -m engine simcse`` flags and the (distributed) run
- ``figure2_runs`` the four runs of the paper's Figure 2 in one command (``scripts/plot_figure2.py`` draws
  the figure from their run folders)
- ``entry``, ``lesson``, ``presets``, ``facts``  its registry entry, lesson, presets and replay words
"""
