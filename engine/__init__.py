"""embedlab's engine: a plain Python library (no Streamlit) for the lab's science.

Modules, one concept each:
- ``errors``      user-facing one-line errors
- ``device``      device choice, autocast, synchronisation, seeding
- ``paths``       cache folders and name sanitising
- ``metrics``     IsoScore, silhouette, alignment, uniformity, STS Spearman (registry)
- ``data``        data set registry: demo corpus, real sets from a folder, user files
- ``encoders``    Hugging Face encoders, poolers, the on-disk embedding cache
- ``probe``       the linear-classifier embedding optimisation (Mickus et al. 2024)
- ``simcse``      SimCSE training with the paper's ablations as switches (Gao et al. 2021)
- ``runlog``      a run folder on disk: config.json, metrics.csv (append-only), summary.json, status
- ``runner``      executes an experiment generator into a run folder (used by CLI and jobs)
- ``jobs``        worker-thread job registry for the UI
- ``projection``  UMAP / PCA frames of embedding snapshots
"""

__version__ = "0.1.0"
