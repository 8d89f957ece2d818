"""The pages' shared helpers (the page scripts are in ``views/``).

- :mod:`ui.navigation` — the app's page list and start (``app.py`` calls :func:`ui.navigation.main`);
- :mod:`ui.runs` — the server's job registry, the error guard, run labels, the run picker, submitting runs;
- :mod:`ui.controls` — sidebar inputs shared by the experiment pages, presets, Stop and the progress footer;
- :mod:`ui.experiment` — the run panel of an experiment page (Start, presets, live panel, downloads, footer);
- :mod:`ui.live` — curves and projection of the shown runs, live while a run goes;
- :mod:`ui.lens` — the geometry lens's pickers: measures drawn, the any-pair relation;
- :mod:`ui.lens_figures` — its figures without Streamlit: the runs' spectra followed live, the relation;
- :mod:`ui.live_state` — the chart panel at one moment, as a chart description (no Streamlit);
- :mod:`ui.live_view` — the live component (``ui/web/live.js`` + the renderer ``engine/web/charts.js``);
- :mod:`ui.feed` — the live feed: the next descriptions written to the static folder (no Streamlit);
- :mod:`ui.run_facts` — a run's label, progress line and whether it still changes (no Streamlit);
- :mod:`ui.downloads` — CSV, zip and HTML downloads of the shown runs;
- :mod:`ui.projector` — projector mode: the switch on every page, its CSS, the large chart style;
- :mod:`ui.text` — user text shown as text (:func:`ui.text.plain`), engine messages in the pages' words.

Only composes engine calls and draws; no maths, no torch/sklearn/umap here.
"""
