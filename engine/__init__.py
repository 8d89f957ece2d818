"""embedlab's engine: a plain Python library (no Streamlit) for the lab's science.

Its parts, bottom to top (a part imports only parts above it in this list; checked by
``tests/architecture/test_architecture.py``, imports inside functions included):

- ``core``      the shared vocabulary: settings, knobs and flags, measures, what an experiment declares
                (``declare()``), paths, errors; it loads no experiment
- ``compute``   device, mixed precision, seeding; the allocator; CPU lanes and thread priority
- ``runlog``    a run on disk: its events, the runner that writes them, reading, export, disk use
- ``metrics``   IsoScore, silhouette, alignment, uniformity, RankMe, α-ReQ, STS Spearman
- ``data``      data sets: the demo corpus, real sets from a folder, user uploads, their names in figures
- ``encoders``  Hugging Face encoders, poolers, the on-disk embedding cache
- ``groups``    runs over seeds or a grid, and the run plumbing every experiment's command line shares
- ``training``  the training core SimCSE and JEPA share (set-up, loop, command line, summary)
- ``probe``, ``simcse``, ``jepa``
                the three experiments, one package each
- ``experiments`` the experiment registry, the one place they are registered (entries as objects)
- ``lessons``   the lessons' texts and numbers, the presets, ``lessons check``
- ``sweep``     grids of runs, locally or on Ray
- ``claims``    the isotropy paper's claims table, and ``python -m engine results`` (the docs' tables)
- ``charts``    chart descriptions (JSON for the one chart component), UMAP/PCA frames
- ``replay``    a run as a self-contained HTML lesson
- ``jobs``      the app's job registry: queued runs, their child processes, the projection worker
- ``cli``       ``python -m engine``
"""

__version__ = "0.1.0"
