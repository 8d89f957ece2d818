"""The claims table (issue 27): where the isotropy paper's finding (Mickus, Grönroos & Attieh 2024: IsoScore
falls, the silhouette rises, the two strongly anti-correlated) holds in the lab, over seeds.

Modules: :mod:`~engine.claims.setups` (the setups and the paper's figures), :mod:`~engine.claims.run` (the
seeds' run folders), :mod:`~engine.claims.table` (mean ± std, the verdict, Markdown),
:mod:`~engine.claims.cli` (``python -m engine claims``).
"""
