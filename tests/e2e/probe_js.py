"""The chart probes run in the page by the browser test and by benchmarks/app_driving.py (which loads this
file by its path, for the app benchmarks): plain strings, no imports, so that both can use the one copy. Every
chart, live or finished, is a Plotly.js chart: the probes read what Plotly drew (``_fullData``, ``layout``)
and the DOM attributes of the live view (engine/web/charts.js), never globals of the app's code."""

# [points, last x] of the newest curve in the first chart, or of the curve named by the argument (other runs
# may be drawn beside it); [0, -1] before it exists. The first chart is the live view's first panel while a
# run trains, else the first Plotly chart.
CHART_CURVE = (
    "(name) => { const g = document.querySelector('.js-plotly-plot');"
    " const all = g ? (g._fullData || g.data || []) : [];"
    " const d = name ? all.filter(t => t.name === name) : all; if (!d.length) return [0, -1];"
    " const x = d[d.length - 1].x; return x && x.length ? [x.length, x[x.length - 1]] : [0, -1]; }"
)

# Whether a Plotly chart titled "UMAP · N frames" is drawn: a finished run's film (slider + play), shown once
# its UMAP frames are all made. (Streamlit's theme wraps titles in <b> tags.)
FILM_SHOWN = (
    "() => [...document.querySelectorAll('.js-plotly-plot')].some(g => {"
    " const t = g.layout && g.layout.title; const text = t && (t.text !== undefined ? t.text : t);"
    " return typeof text === 'string' && /^UMAP · \\d+ frames$/.test(text.replace(/<[^>]*>/g, '')); })"
)

# The number of lines of the covariance spectrum chart (a Plotly chart whose title starts "Covariance
# spectrum", live or finished); 0 while there is none.
SPECTRUM_LINES = (
    "() => { const plain = (t) => (t && t.text !== undefined ? t.text : t || '').toString()"
    ".replace(/<[^>]*>/g, '');"
    " const g = [...document.querySelectorAll('.js-plotly-plot')]"
    ".find(g => g.layout && plain(g.layout.title).startsWith('Covariance spectr'));"
    " return g ? (g._fullData || g.data).filter(t => t.mode === 'lines').length : 0; }"
)

# The progress texts of the running runs ("demo · 60 steps — step 12/60 · ..."): the live view's progress rows
# while the curves are live, else Streamlit's progress bars.
PROGRESS_TEXTS = (
    "() => [...document.querySelectorAll('.embedlab-progress-text')].map(e => e.textContent)"
    ".concat([...document.querySelectorAll(\"[data-testid='stProgress']\")].map(e => e.innerText))"
)

# Descriptions drawn by the live view's curves (data-renders of its first grid with panels); 0 without one.
LIVE_RENDERS = (
    "() => { const g = [...document.querySelectorAll('.embedlab-grid')].find(g => g.children.length);"
    " return g ? parseInt(g.dataset.renders || '0', 10) : 0; }"
)
