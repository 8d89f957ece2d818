"""The lesson page's own JavaScript and CSS (plotly.js is inlined beside them by :mod:`engine.replay.page`).

The script reads the JSON payload (:mod:`engine.replay.payload`), draws every curve, the relation figures and
the film, and keeps them in step: a film frame moves a cursor line on every curve (``layout.shapes[0]``), a
ring on the relation figures (also ``layout.shapes[0]``; a run has points on one figure or both: IsoScore vs
silhouette, and the alignment–uniformity plane where a probe run's class alignment sits beside a SimCSE run's
alignment), the slider and the ``step N`` text. The covariance spectrum is drawn once and does not follow. A slider move
touches only the film's points and the cursors, with no restyle or relayout of any figure (``movePoints``,
``moveShape``): ``Plotly.restyle`` of the film took 70-200 ms for 2,000 SVG points on the shared 2-core CPU,
and stays the fallback (``lesson.fast = false`` forces it). Moves that come faster than the screen are folded
into one redraw per animation frame. The film is SVG, not WebGL: headless and older browsers often lack WebGL
(Plotly then shows only a notice). ``window.lesson`` exposes the state (``ready``, ``readyAt``, ``step``,
``index``, ``renders``, ``lastRenderMs``) and ``seek(i)``, ``play()``, ``pause()`` for tests and benchmarks.
"""

SCRIPT = r"""
(function () {
  "use strict";
  var api = window.lesson = {ready: false, step: null, index: 0, run: -1, renders: 0, lastRenderMs: null,
                             startedAt: performance.now(), fast: true};
  var CONFIG = {displaylogo: false, responsive: true, modeBarButtonsToRemove: ["select2d", "lasso2d"]};
  var FONT = {family: "system-ui, -apple-system, 'Segoe UI', Roboto, Helvetica, Arial, sans-serif", size: 12};
  var CURSOR = "#d62728";
  function el(id) { return document.getElementById(id); }
  function fail(err) {
    var box = el("lesson-error");
    box.hidden = false;
    box.textContent = "This lesson could not draw its charts: " + ((err && err.message) || err);
    if (window.console) console.error(err);
  }
  function bytes(text) {
    var raw = atob(text), n = raw.length, out = new Uint8Array(n);
    for (var i = 0; i < n; i++) out[i] = raw.charCodeAt(i);
    return out.buffer;
  }
  function f64(text) { return new Float64Array(bytes(text)); }
  function f32(text) { return new Float32Array(bytes(text)); }
  function nearest(steps, s) {
    var best = 0;
    for (var i = 1; i < steps.length; i++) if (Math.abs(steps[i] - s) < Math.abs(steps[best] - s)) best = i;
    return best;
  }
  function atOrBefore(sorted, s) {  // last index with sorted[i] <= s, else 0
    var lo = 0, hi = sorted.length - 1, found = 0;
    while (lo <= hi) { var mid = (lo + hi) >> 1; if (sorted[mid] <= s) { found = mid; lo = mid + 1; } else hi = mid - 1; }
    return found;
  }

  // A cursor is a layout shape. It moves without a relayout (which redraws the whole figure): the layout's
  // shape takes the new position, so any later redraw (zoom, resize) draws it there, and the shape already
  // drawn is shifted by the pixels between its drawn and its new position. Plotly.relayout is the fallback.
  function moveShape(gd, index, update) {
    var shape = gd.layout.shapes[index], full = gd._fullLayout && gd._fullLayout.shapes[index];
    var path = gd.querySelector('.shapelayer path[data-index="' + index + '"]');
    Object.keys(update).forEach(function (key) { shape[key] = update[key]; });
    var xa = full && gd._fullLayout["xaxis" + full.xref.slice(1)];
    var ya = full && full.yref !== "paper" ? gd._fullLayout["yaxis" + full.yref.slice(1)] : null;
    if (!path || !xa || !full.visible || shape.visible === false) {
      var all = {};
      Object.keys(update).forEach(function (key) { all["shapes[" + index + "]." + key] = update[key]; });
      return Plotly.relayout(gd, all);
    }
    var key = "xanchor" in update ? ["xanchor", "yanchor"] : ["x0", "y0"];
    var dx = xa.l2p(update[key[0]]) - xa.l2p(full[key[0]]);
    var dy = ya ? ya.l2p(update[key[1]]) - ya.l2p(full[key[1]]) : 0;
    path.setAttribute("transform", "translate(" + dx + "," + dy + ")");
  }

  // A film frame moves the points without a restyle (which recomputes and redraws the whole figure: ~80 ms
  // for 2,000 SVG points on a slow CPU): each drawn point is translated to its new pixel position, and the
  // figure's data and calcdata take the new coordinates, so hover and any later redraw (zoom, resize) agree.
  // Where the figure is not as expected (a trace hidden from the legend, another Plotly), Plotly.restyle.
  function movePoints(gd, xy) {
    var full = gd._fullLayout, calc = gd.calcdata, xs = xy[0], ys = xy[1];
    var groups = gd.querySelectorAll(".scatterlayer .trace");
    if (!full || !full.xaxis || !calc || calc.length !== xs.length || groups.length !== xs.length) return false;
    var points = [];
    for (var g = 0; g < xs.length; g++) {
      var nodes = groups[g].querySelectorAll("path.point");
      if (gd._fullData[g].visible !== true || nodes.length !== xs[g].length || calc[g].length !== xs[g].length) return false;
      points.push(nodes);
    }
    var xa = full.xaxis, ya = full.yaxis;
    for (g = 0; g < xs.length; g++) {
      var X = xs[g], Y = ys[g], cd = calc[g], nodes2 = points[g];
      for (var k = 0; k < X.length; k++) {
        cd[k].x = X[k]; cd[k].y = Y[k];
        nodes2[k].setAttribute("transform", "translate(" + xa.c2p(X[k]).toFixed(2) + "," + ya.c2p(Y[k]).toFixed(2) + ")");
      }
      gd.data[g].x = X; gd.data[g].y = Y;
    }
    return true;
  }

  var data = JSON.parse(el("lesson-data").textContent);
  var filmRuns = [];
  data.runs.forEach(function (run, i) { if (run.film) filmRuns.push(i); });
  var firstStep = filmRuns.length ? data.runs[filmRuns[0]].film.steps[0] : null;
  var curveDivs = [], relationDivs = [], cur = null, timer = null;

  function stepSpan(xs) {
    var lo = Infinity, hi = -Infinity;
    xs.forEach(function (x) { for (var i = 0; i < x.length; i++) { if (x[i] < lo) lo = x[i]; if (x[i] > hi) hi = x[i]; } });
    if (!isFinite(lo)) return null;
    var pad = Math.max((hi - lo) * 0.02, 0.5);
    return [lo - pad, hi + pad];
  }
  function cursorShape() {
    return {type: "line", xref: "x", yref: "paper", x0: firstStep, x1: firstStep, y0: 0, y1: 1,
            visible: firstStep !== null, line: {color: CURSOR, width: 1.5, dash: "dot"}};
  }

  function drawCurves() {
    var grid = el("curves"), jobs = [];
    data.metrics.forEach(function (metric) {
      var traces = [], xs = [];
      data.runs.forEach(function (run) {
        var c = run.curves[metric.key];
        if (!c) return;
        var x = f64(c.x), y = f64(c.y);
        xs.push(x);
        traces.push({type: "scatter", mode: x.length > 60 ? "lines" : "lines+markers", x: x, y: y, name: run.legend,
                     line: {color: run.color, width: 2}, marker: {size: 4, color: run.color},
                     hovertemplate: "step %{x}<br>%{y:.4g}"});
      });
      filmRuns.forEach(function (i) { xs.push(data.runs[i].film.steps); });
      var div = document.createElement("div");
      div.className = "plot curve";
      div.id = "curve-" + metric.key;
      div.setAttribute("data-metric", metric.key);
      grid.appendChild(div);
      var span = stepSpan(xs);
      var layout = {title: {text: metric.label, font: {size: 14}}, height: 260, font: FONT,
                    margin: {l: 58, r: 16, t: 36, b: 40}, showlegend: traces.length > 1,
                    legend: {orientation: "h", y: -0.32}, shapes: [cursorShape()],
                    xaxis: {title: {text: "step"}, zeroline: false, range: span, autorange: span === null},
                    yaxis: {zeroline: false}};
      curveDivs.push(div);
      jobs.push(Plotly.newPlot(div, traces, layout, CONFIG));
      div.on("plotly_click", function (ev) { if (ev.points.length) seekStep(ev.points[0].x); });
    });
    return jobs;
  }

  function drawRelations() {
    var box = el("relations"), jobs = [];
    data.relations.forEach(function (relation) {
      var traces = [];
      data.runs.forEach(function (run) {
        var p = run.relations && run.relations[relation.kind];
        if (!p) return;
        run._relations = run._relations || {};
        var r = run._relations[relation.kind] = {x: f64(p.x), y: f64(p.y), step: f64(p.step), kind: p.kind};
        var name = p.legend || run.legend;
        if (p.r !== null) name += ": r = " + p.r.toFixed(3) + ", ρ = " + (p.rho === null ? "n/a" : p.rho.toFixed(3));
        var path = relation.kind === "align_uniform";
        traces.push({type: "scatter", mode: path ? "lines+markers" : "markers", x: r.x, y: r.y, customdata: r.step,
                     name: name, line: {color: run.color}, marker: {color: run.color, size: path ? 5 : 6},
                     hovertemplate: "step %{customdata}<br>" + relation.x + " %{x:.4f}<br>" + relation.y + " %{y:.4f}"});
        if (path && r.x.length) {
          traces.push({type: "scatter", mode: "markers", x: [r.x[r.x.length - 1]], y: [r.y[r.y.length - 1]],
                       showlegend: false, hoverinfo: "skip", marker: {color: run.color, size: 13, symbol: "star"}});
        }
      });
      var div = document.createElement("div");
      div.className = "plot relation";
      div.id = "relation-" + relation.kind;
      box.appendChild(div);
      div._kind = relation.kind;
      relationDivs.push(div);
      var ring = {type: "circle", xref: "x", yref: "y", xsizemode: "pixel", ysizemode: "pixel", xanchor: 0, yanchor: 0,
                  x0: -9, x1: 9, y0: -9, y1: 9, visible: false, line: {color: CURSOR, width: 3}};
      var layout = {title: {text: relation.title, font: {size: 14}}, height: 420, font: FONT, showlegend: true,
                    margin: {l: 64, r: 16, t: 40, b: 50}, legend: {orientation: "h", y: -0.2}, shapes: [ring],
                    xaxis: {title: {text: relation.x}}, yaxis: {title: {text: relation.y}}};
      jobs.push(Plotly.newPlot(div, traces, layout, CONFIG));
      div.on("plotly_click", function (ev) {
        var point = ev.points[0];
        if (point && point.customdata !== undefined) seekStep(point.customdata);
      });
    });
    return jobs;
  }

  // The covariance spectrum: the figure engine.charts.spectrum_figure made (its arrays as typed base64, which
  // plotly.js reads), drawn with the page's fonts. It does not follow the film's step.
  function drawSpectrum() {
    if (!data.spectrum) return [];
    var fig = data.spectrum, layout = Object.assign({}, fig.layout, {font: FONT, height: 440,
      title: Object.assign({}, fig.layout.title, {font: {size: 14}})});
    return [Plotly.newPlot(el("spectrum"), fig.data, layout, CONFIG)];
  }

  function prepare(runIndex) {
    var run = data.runs[runIndex], f = run.film;
    if (!f._coords) {
      f._coords = f32(f.coords);
      var groups = f.labels.map(function () { return []; });
      f.codes.forEach(function (code, i) { groups[code].push(i); });
      f._groups = groups.map(function (g) { return Int32Array.from(g); });
      f._hover = groups.map(function (g) { return g.map(function (i) { return f.hover[i]; }); });
    }
    return {run: runIndex, name: run.legend, film: f, traces: f.labels.map(function (_, g) { return g; })};
  }
  function frameXY(f, i) {
    var n = f.n, base = i * 2 * n, c = f._coords, xs = [], ys = [];
    f._groups.forEach(function (g) {
      var X = new Float32Array(g.length), Y = new Float32Array(g.length);
      for (var k = 0; k < g.length; k++) { X[k] = c[base + g[k]]; Y[k] = c[base + n + g[k]]; }
      xs.push(X); ys.push(Y);
    });
    return [xs, ys];
  }
  function drawFilm(runIndex, step) {
    cur = prepare(runIndex);
    var f = cur.film, i = step === null ? 0 : nearest(f.steps, step), xy = frameXY(f, i);
    var size = f.n <= 500 ? 7 : f.n <= 2500 ? 5 : 4;
    var traces = f.labels.map(function (name, g) {
      return {type: "scatter", mode: "markers", x: xy[0][g], y: xy[1][g], name: name, hovertext: f._hover[g],
              hoverinfo: "text", marker: {size: size, opacity: 0.85, color: data.palette[g % data.palette.length]}};
    });
    var axis = {showticklabels: false, zeroline: false, showgrid: false, title: {text: ""}};
    var layout = {title: {text: cur.name + " · UMAP of the embeddings", font: {size: 14}}, height: 540, font: FONT,
                  margin: {l: 10, r: 10, t: 40, b: 10}, hovermode: "closest",
                  legend: {itemsizing: "constant", orientation: "h", x: 0, y: -0.02, yanchor: "top"},
                  xaxis: Object.assign({range: f.range[0], autorange: false}, axis),
                  yaxis: Object.assign({range: f.range[1], autorange: false, scaleanchor: "x", scaleratio: 1}, axis)};
    var slider = el("slider");
    slider.max = String(f.steps.length - 1);
    slider.disabled = f.steps.length < 2;
    return Plotly.react(el("film"), traces, layout, CONFIG).then(function () { render(i); });
  }

  function render(i) {
    if (!cur) return;
    var t0 = performance.now(), f = cur.film;
    i = Math.max(0, Math.min(f.steps.length - 1, i | 0));
    var xy = frameXY(f, i), s = f.steps[i];
    if (!(api.fast && movePoints(el("film"), xy))) Plotly.restyle(el("film"), {x: xy[0], y: xy[1]}, cur.traces);
    api.index = i; api.step = s; api.run = cur.run;
    el("slider").value = String(i);
    el("step-label").textContent = "step " + s;
    curveDivs.forEach(function (div) { moveShape(div, 0, {x0: s, x1: s}); });
    var found = data.runs[cur.run]._relations || {};
    relationDivs.forEach(function (div) {
      var r = found[div._kind], on = !!(r && r.step.length), j = on ? atOrBefore(r.step, s) : 0;
      if (on !== div.layout.shapes[0].visible) {
        Plotly.relayout(div, on ? {"shapes[0].visible": true, "shapes[0].xanchor": r.x[j], "shapes[0].yanchor": r.y[j]}
                                : {"shapes[0].visible": false});
      } else if (on) {
        moveShape(div, 0, {xanchor: r.x[j], yanchor: r.y[j]});
      }
    });
    api.renders += 1;
    api.lastRenderMs = performance.now() - t0;
  }
  var wanted = null, scheduled = false;
  function request(i) {
    wanted = i;
    if (scheduled) return;
    scheduled = true;
    requestAnimationFrame(function () { scheduled = false; var j = wanted; wanted = null; if (j !== null) render(j); });
  }
  function seekStep(s) { if (cur) { pause(); request(nearest(cur.film.steps, s)); } }

  function last() { return cur ? cur.film.steps.length - 1 : 0; }
  function speed() { return parseFloat(el("speed").value) || 1; }
  function tick() {
    var next = (wanted !== null ? wanted : api.index) + 1;
    if (next > last()) { pause(); return; }
    request(next);
    timer = setTimeout(tick, data.frame_ms / speed());
  }
  function play() {
    if (!cur || timer !== null) return;
    if (api.index >= last()) request(0);
    el("play").textContent = "❚❚ Pause";
    el("play").setAttribute("aria-pressed", "true");
    timer = setTimeout(tick, data.frame_ms / speed());
  }
  function pause() {
    if (timer !== null) clearTimeout(timer);
    timer = null;
    el("play").textContent = "▶ Play";
    el("play").setAttribute("aria-pressed", "false");
  }
  api.seek = function (i) { pause(); render(i); };
  api.play = play;
  api.pause = pause;

  function controls() {
    var picker = el("film-run");
    if (filmRuns.length < 2) el("film-run-box").hidden = true;
    filmRuns.forEach(function (i) {
      var option = document.createElement("option");
      option.value = String(i);
      option.textContent = data.runs[i].name;
      picker.appendChild(option);
    });
    picker.addEventListener("change", function () { pause(); drawFilm(parseInt(picker.value, 10), api.step).catch(fail); });
    el("slider").addEventListener("input", function () { pause(); request(parseInt(el("slider").value, 10)); });
    el("play").addEventListener("click", function () { if (timer === null) play(); else pause(); });
    document.addEventListener("keydown", function (ev) {
      if (ev.key === " " && ev.target === document.body && cur) { ev.preventDefault(); if (timer === null) play(); else pause(); }
    });
  }

  function start() {
    var jobs = drawCurves().concat(drawRelations(), drawSpectrum());
    if (filmRuns.length) {
      el("film-controls").hidden = false;
      controls();
      jobs.push(drawFilm(filmRuns[0], null));
    }
    return Promise.all(jobs).then(function () {
      api.ready = true;
      api.readyAt = performance.now();
      document.body.setAttribute("data-ready", "1");
    });
  }
  try { start().catch(fail); } catch (err) { fail(err); }
})();
"""

CSS = """
[hidden] { display: none !important; }
:root { color-scheme: light; --ink: #1f2328; --muted: #59636e; --line: #d1d9e0; --card: #ffffff; --back: #f6f8fa; }
* { box-sizing: border-box; }
body { margin: 0; font: 15px/1.5 system-ui, -apple-system, "Segoe UI", Roboto, Helvetica, Arial, sans-serif;
       color: var(--ink); background: var(--back); }
main { max-width: 1280px; margin: 0 auto; padding: 16px 20px 40px; }
header h1 { margin: 8px 0 2px; font-size: 1.6rem; }
.meta, .note, footer { color: var(--muted); font-size: 0.9rem; }
section { background: var(--card); border: 1px solid var(--line); border-radius: 8px; padding: 12px 16px; margin: 14px 0; }
section h2 { margin: 4px 0 8px; font-size: 1.2rem; }
.lesson h3 { margin: 10px 0 4px; font-size: 1rem; }
.lesson ul { margin: 4px 0 8px 1.2em; padding: 0; }
.row { display: grid; grid-template-columns: minmax(0, 3fr) minmax(0, 2fr); gap: 14px; }
@media (max-width: 980px) { .row { grid-template-columns: minmax(0, 1fr); } }
.row > section { margin: 0; }
.controls { display: flex; flex-wrap: wrap; align-items: center; gap: 10px; margin-bottom: 6px; }
.controls input[type=range] { flex: 1 1 260px; min-width: 160px; }
#step-label { font-variant-numeric: tabular-nums; font-weight: 600; min-width: 7em; }
button { font: inherit; padding: 4px 14px; border-radius: 6px; border: 1px solid var(--line); background: #fff;
         cursor: pointer; min-width: 7.5em; }
button:hover { background: var(--back); }
.grid { display: grid; grid-template-columns: repeat(auto-fill, minmax(420px, 1fr)); gap: 8px; }
.plot { min-height: 200px; }
.error { background: #fff1f0; border: 1px solid #ffa39e; padding: 8px 12px; border-radius: 6px; }
table { border-collapse: collapse; font-size: 0.9rem; margin: 4px 0 10px; }
th, td { text-align: left; padding: 3px 10px 3px 0; border-bottom: 1px solid var(--line); vertical-align: top; }
td.num { font-variant-numeric: tabular-nums; }
.default { color: var(--muted); font-style: italic; }
article { border-top: 1px solid var(--line); padding-top: 6px; margin-top: 6px; }
article:first-of-type { border-top: none; }
dl { display: grid; grid-template-columns: max-content 1fr; gap: 2px 14px; margin: 4px 0 10px; }
dt { color: var(--muted); }
dd { margin: 0; word-break: break-word; }
@media print { .controls, .modebar-container { display: none !important; } section { break-inside: avoid; } }
"""
