"""The claims table (issues 27, 36): where the isotropy paper's finding (Mickus, Grönroos & Attieh 2024:
IsoScore falls, the silhouette rises, the two strongly anti-correlated) holds in the lab, over seeds, at the
paper's length, with the lab's verdict and the paper's.

Modules: :mod:`~engine.claims.setups` (the setups and the paper's figures), :mod:`~engine.claims.run` (the
seeds' run folders, run or read), :mod:`~engine.claims.table` (mean ± std, the two verdicts, the updates,
Markdown), :mod:`~engine.claims.latest` (the saved table the app shows), :mod:`~engine.claims.cli`
(``python -m engine claims``).

``python -m engine results`` (:mod:`~engine.claims.results`) writes the claims table, and the tables of
runs, into README.md and docs/results.md.
"""
