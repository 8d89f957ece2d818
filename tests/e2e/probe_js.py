"""The chart probe run in the page by the browser test and by benchmarks/bench_app_throughput.py (which loads
this file by its path): plain strings, no imports, so that both can use the one copy."""

# [points, last x] of the newest curve in the first chart, or of the curve named by the argument (other runs
# may be drawn beside it); [0, -1] before it exists. The first chart is the live canvas's first panel
# (ui/live_canvas/painter.js exposes its panels as window.embedlabPanels) while a run trains, else the first
# Plotly chart.
CHART_CURVE = (
    "(name) => { const live = [...document.querySelectorAll('iframe')].map(f => { try {"
    " return f.contentWindow.embedlabPanels; } catch (e) { return null; } }).find(p => p && p.length);"
    " const g = document.querySelector('.js-plotly-plot');"
    " const all = live ? live[0].series : g ? (g._fullData || g.data || []) : [];"
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

# The number of lines of the covariance spectrum chart (a panel or Plotly chart whose title starts "Covariance
# spectrum"), live on the canvas while a run trains, else in Plotly; 0 while there is none.
SPECTRUM_LINES = (
    "() => { const live = [...document.querySelectorAll('iframe')].map(f => { try {"
    " return f.contentWindow.embedlabPanels; } catch (e) { return null; } }).find(p => p && p.length) || [];"
    " const plain = (t) => (t && t.text !== undefined ? t.text : t || '').toString().replace(/<[^>]*>/g, '');"
    " const panel = live.find(p => plain(p.title).startsWith('Covariance spectr'));"
    " if (panel) return panel.series.filter(s => s.y && s.y.some(v => v !== null)).length;"
    " const g = [...document.querySelectorAll('.js-plotly-plot')]"
    ".find(g => g.layout && plain(g.layout.title).startsWith('Covariance spectr'));"
    " return g ? g.data.filter(t => t.mode === 'lines').length : 0; }"
)

# The progress texts of the running runs ("probe·ab12 — step 12/60 · ..."): on the live canvas (painter.js
# exposes them as window.embedlabProgress) while the curves are painted there, else Streamlit's progress bars.
PROGRESS_TEXTS = (
    "() => { const live = [...document.querySelectorAll('iframe')].map(f => { try {"
    " return f.contentWindow.embedlabProgress; } catch (e) { return null; } }).filter(p => p && p.length).flat();"
    " const bars = [...document.querySelectorAll(\"[data-testid='stProgress']\")].map(e => e.innerText);"
    " return [...live, ...bars]; }"
)

# [render messages, feed paints] of the live canvas whose curves are painted (ui/live_canvas/painter.js): while
# a run trains, the canvas fetches its panels from the live feed, and the page reruns only when what it draws
# around the canvas changes; [0, 0] without one.
LIVE_COUNTS = (
    "() => { const w = [...document.querySelectorAll('iframe')].map(f => { try { return f.contentWindow; }"
    " catch (e) { return null; } }).find(w => w && w.embedlabPanels && w.embedlabPanels.length && w.embedlabFeeds !== undefined);"
    " return w ? [w.embedlabRenders, w.embedlabFeeds] : [0, 0]; }"
)
