"""The pages' shared helpers (kept out of ``pages/``, where Streamlit would list every module as a page).

- :mod:`ui.navigation` — the app's page list; :func:`ui.navigation.ensure_app` starts every page;
- :mod:`ui.runs` — the server's job registry, the error guard, run labels, the run picker, submitting runs;
- :mod:`ui.controls` — sidebar inputs shared by the experiment pages, presets, Stop and the progress footer;
- :mod:`ui.experiment` — the run panel of an experiment page (Start, presets, live panel, downloads, footer);
- :mod:`ui.live` — curves and projection of the shown runs, live while a run goes;
- :mod:`ui.lens` — the geometry lens: measures drawn, the any-pair relation, the runs' spectra followed live;
- :mod:`ui.painter` — the live canvas component (``ui/live_canvas/``) and the painter's schema of a figure;
- :mod:`ui.downloads` — CSV, zip and HTML downloads of the shown runs;
- :mod:`ui.projector` — projector mode: the switch on every page, its CSS, the large chart style;
- :mod:`ui.text` — user text shown as text (:func:`ui.text.plain`), engine messages in the pages' words.

Only composes engine calls and draws; no maths, no torch/sklearn/umap here.
"""
