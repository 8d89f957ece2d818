"""The lesson as one HTML file: the texts written out (HTML-escaped), the data as JSON, plotly.js inlined.

The page's script and styles are files shipped with the package (``engine/web/``: the one chart renderer
``charts.js`` and ``charts.css``, shared with the app's live view, and the lesson's own ``replay.js`` and
``replay.css``), read and inlined here when the page is made.

Sections: the lesson of each experiment shown (:func:`engine.lessons.texts.lesson`: introduction and what to
watch), the UMAP film with Play/Pause, a step slider and the ``step N`` text, beside it the relation figure,
then every metric curve with the film's cursor, then each run's data, encoder, start and end values and
settings. The page loads nothing: plotly.js, the script and the data are inside it, and its
Content-Security-Policy forbids any request (``default-src 'none'``), so it works from a USB stick with no
network.
"""

from __future__ import annotations

import html
import json
import math
import time
from collections.abc import Sequence
from functools import cache
from pathlib import Path
from typing import Any

from engine import charts, experiments
from engine.lessons import on_screen
from engine.lessons import texts as lessons
from engine.replay.frames import FilmFrames
from engine.replay.panels import lesson_charts
from engine.replay.payload import payload, relations_of, script_json
from engine.replay.source import RunData

WEB = Path(__file__).resolve().parents[1] / "web"  # the page's script and styles (package data)

CSP = (
    "default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; img-src data: blob:; "
    "font-src data:; connect-src 'none'; base-uri 'none'; form-action 'none'"
)


def esc(value: object) -> str:
    """Text in HTML (element content or a quoted attribute)."""
    return html.escape(str(value), quote=True)


def plotly_js() -> tuple[str, str]:
    """plotly.js as shipped with the plotly package (no CDN) and its version."""
    import plotly
    from plotly.offline import get_plotlyjs

    source = get_plotlyjs()
    version = getattr(plotly.offline, "get_plotlyjs_version", lambda: plotly.__version__)()
    return source.replace("</script", "<\\/script"), str(version)


@cache
def web_file(name: str) -> str:
    """A file of ``engine/web/`` as text, safe inside a ``<script>`` or ``<style>`` element."""
    return (WEB / name).read_text(encoding="utf-8").replace("</", "<\\/")


def script() -> str:
    """The page's JavaScript: the chart renderer, then the lesson's own script."""
    return web_file("charts.js") + "\n" + web_file("replay.js")


def styles() -> str:
    return web_file("charts.css") + "\n" + web_file("replay.css")


def default_title(runs: Sequence[RunData]) -> str:
    kinds = list(dict.fromkeys(run.kind for run in runs))
    names = [experiments.title(kind) for kind in kinds if kind in lessons.LESSONS]
    subject = " and ".join(names) if names else "a training run"
    return f"{subject}: " + (runs[0].name if len(runs) == 1 else f"{len(runs)} runs")


def _number(value: Any) -> str:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return str(value)
    return f"{value:.4g}" if isinstance(value, float) and math.isfinite(value) else str(value)


def _setting(value: Any) -> str:
    if value is None:
        return '<span class="default">default</span>'
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (dict, list)):
        return esc(json.dumps(value, ensure_ascii=False, sort_keys=True))
    return esc(value)


def describe(run: RunData, film: FilmFrames | None) -> list[tuple[str, str]]:
    """The data and encoder a run used, and what its film shows, as (label, plain text) rows."""
    config, summary = run.config, run.summary or {}
    title = experiments.title(run.kind)
    rows: list[tuple[str, str]] = [("Experiment", f"{run.kind} ({title})" if title != run.kind else run.kind)]
    rows += experiments.describe(run.kind, config, summary)
    encoder = config.get("encoder") or "all-MiniLM-L6-v2 (bundled)"
    pooling = config.get("pooling") or config.get("pooler")
    rows.append(("Encoder", f"{encoder}" + (f", pooling {pooling}" if pooling else "")))
    if run.points is not None and len(run.points):
        rows.append(("Film points", f"{len(run.points)} sentences, {run.points['label'].nunique()} labels"))
    if film is not None and film.steps:
        made = f"; {film.made} made by this replay" if film.made else ""
        rows.append(("Film", f"{len(film.steps)} UMAP frames, steps {film.steps[0]}–{film.steps[-1]}{made}"))
    planned = f" of {config['steps']}" if config.get("steps") else ""
    rows.append(
        (
            "Steps logged",
            f"{len(run.metrics)} rows, last step {run.last_step}{planned}"
            if len(run.metrics)
            else f"none yet{planned.replace(' of', ': planned')}",
        )
    )
    rows.append(("State", run.state + (f": {run.error}" if run.error else "")))
    if "iso_sil" in relations_of(run):
        corr = charts.correlations(run.metrics)
        if corr is not None:
            rows.append(("IsoScore vs silhouette", f"Pearson r = {corr[0]:.4f}, Spearman ρ = {corr[1]:.4f}"))
    return rows


def _run_article(run: RunData, film: FilmFrames | None) -> str:
    facts = "".join(f"<dt>{esc(label)}</dt><dd>{esc(text)}</dd>" for label, text in describe(run, film))
    values = []
    for column in run.curves:
        series = run.series(column)
        values.append(
            f"<tr><td>{esc(charts.label(column))} <code>{esc(column)}</code></td>"
            f"<td class=num>{_number(series[column].iloc[0])} (step {int(series['step'].iloc[0])})</td>"
            f"<td class=num>{_number(series[column].iloc[-1])} (step {int(series['step'].iloc[-1])})</td>"
            f"<td class=num>{len(series)}</td></tr>"
        )
    table = (
        (
            "<table class=values><tr><th>metric</th><th>start</th><th>end</th><th>points</th></tr>"
            + "".join(values)
            + "</table>"
        )
        if values
        else "<p class=note>No metric logged yet.</p>"
    )
    config = "".join(
        f"<tr><td><code>{esc(key)}</code></td><td>{_setting(value)}</td></tr>"
        for key, value in run.config.items()
    )
    return (
        f'<article class="run"><h3>{esc(run.name)}</h3><dl>{facts}</dl><h4>Start and end</h4>{table}'
        f"<details open><summary>Settings (config.json)</summary><table class=settings>"
        f"<tr><th>setting</th><th>value</th></tr>{config}</table></details></article>"
    )


def _lessons(runs: Sequence[RunData]) -> str:
    parts = []
    for kind in dict.fromkeys(run.kind for run in runs):
        if kind not in lessons.LESSONS:
            continue
        lesson = on_screen.beside(
            kind, on_screen.group_by_seed([run.path for run in runs if run.kind == kind])
        )
        watch = "".join(f"<li>{esc(item)}</li>" for item in lesson.watch)
        parts.append(
            f'<div class="lesson" data-kind="{esc(kind)}"><h2>{esc(lesson.title)}</h2>'
            f"<p>{esc(lesson.intro)}</p><h3>What to watch</h3><ul>{watch}</ul></div>"
        )
    return f'<section id="lesson">{"".join(parts)}</section>' if parts else ""


def _film_section(notes: list[str], has_film: bool) -> str:
    items = "".join(f"<li>{esc(note)}</li>" for note in notes)
    if not has_film:
        return (
            '<section id="film-section"><h2>UMAP film</h2>'
            f'<ul id="film-notes" class="note">{items}</ul></section>'
        )
    return (
        '<section id="film-section"><h2>UMAP film</h2>'
        '<div class="controls" id="film-controls" hidden>'
        '<label id="film-run-box">Run <select id="film-run"></select></label>'
        '<button id="play" type="button" aria-pressed="false">▶ Play</button>'
        '<input id="slider" type="range" min="0" max="0" value="0" step="1" aria-label="film frame">'
        '<output id="step-label" aria-live="polite">step –</output>'
        '<label>Speed <select id="speed"><option value="0.5">0.5×</option>'
        '<option value="1" selected>1×</option>'
        '<option value="2">2×</option><option value="4">4×</option></select></label></div>'
        '<div id="film" class="plot film"></div>'
        f'<ul id="film-notes" class="note">{items}</ul>'
        '<p class="note">Each point is a sentence, coloured by its label; hover for the text. Play runs '
        "through "
        "training; the dotted line on every curve and the ring on the relation figure mark the frame's step. "
        "Click a curve to jump there.</p></section>"
    )


def lesson_html(runs: Sequence[RunData], films: Sequence[FilmFrames | None], title: str | None = None) -> str:
    """The whole page, as text (UTF-8 when written)."""
    data = payload(runs, films)
    plotly_source, plotly_version = plotly_js()
    title = title or default_title(runs)
    notes = [note for note in (item["film_note"] for item in data["runs"]) if note]
    relation = (
        '<section id="relation-section"><h2>How the measures relate</h2><div id="relations"></div></section>'
        if data["relations"]
        else ""
    )
    spectrum = (
        '<section id="spectrum-section"><h2>Covariance spectrum</h2><div id="spectrum" class="plot"></div>'
        '<p class="note">The eigenvalues of the embeddings\' covariance, largest first, on a log axis: '
        "a flat "
        "line uses many directions alike (isotropic), a steep one puts the variance into a few. One run: one "
        "line per logged step, from light (early) to dark (late). Several runs: each run's first (faint) and "
        "last (thick) step.</p></section>"
        if data["spectrum"]
        else ""
    )
    made = time.strftime("%Y-%m-%d %H:%M")
    has_film = any(item["film"] for item in data["runs"])
    names = ", ".join(run.name for run in runs)
    return "".join(
        [
            '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">',
            f'<meta http-equiv="Content-Security-Policy" content="{CSP}">',
            '<meta name="viewport" content="width=device-width, initial-scale=1">',
            '<meta name="generator" content="embedlab replay">',
            f"<title>{esc(title)}</title><style>{styles()}</style></head><body><main>",
            f"<header><h1>{esc(title)}</h1><p class=meta>An embedlab lesson made on {made} from "
            f"{len(runs)} run(s): "
            f"{esc(names)}. Everything is inside this file: it works offline, with no server.</p></header>",
            '<noscript><p class="error">The charts need JavaScript; the texts and settings below read '
            "without it.</p></noscript>",
            '<div id="lesson-error" class="error" hidden></div>',
            _lessons(runs),
            f'<div class="row">{_film_section(notes, has_film)}{relation}</div>',
            spectrum,
            '<section id="curves-section"><h2>Curves</h2><div id="curves"></div>'
            + ("" if data["metrics"] else '<p class="note">No metric logged yet.</p>')
            + "</section>",
            '<section id="runs"><h2>The runs</h2>',
            "".join(_run_article(run, film) for run, film in zip(runs, films)),
            "</section>",
            f"<footer>Made with embedlab (python -m engine replay). Charts: plotly.js {esc(plotly_version)} "
            "(MIT licence), inlined below.</footer></main>",
            f'<script type="application/json" id="lesson-data">{script_json(data)}</script>',
            f'<script type="application/json" id="lesson-charts">{script_json(lesson_charts(data))}</script>',
            f"<script>{plotly_source}</script>",
            f"<script>{script()}</script>",
            "</body></html>\n",
        ]
    )
