"""SimCSE (Gao, Yao & Chen 2021, arXiv 2104.08821) with the paper's ablations as switches.

Modules, one concept each:
- ``views``        the view switches (dropout p, same mask, delete one word, crop, word deletion), presets
- ``losses``       unsupervised InfoNCE and supervised loss with hard negatives
- ``distributed``  torchrun / DDP helpers: all-gathered negatives, sharding, rank-0-only writing
- ``config``       ``SimCSEConfig``: the settings of a run, their checks, the logged columns
- ``datasets``     training sentences / NLI triples, the evaluation pairs, the probe set, the batch order
- ``step``         one training step: length-bucketed forward of all views, loss, AdamW (``Trainer``)
- ``evaluation``   the Figure-2 metrics and the isotropy family (and spectrum) at each evaluation
- ``train``        the ``train_simcse`` step generator, ``summarize``; re-exports the names above
- ``cli``          ``python -m engine simcse`` flags and the (distributed) run
- ``figure2_runs`` the four runs of the paper's Figure 2 in one command (``scripts/plot_figure2.py`` draws
  the figure from their run folders)
"""
