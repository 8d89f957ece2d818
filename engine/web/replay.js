// The lesson page's script (python -m engine replay; engine/replay/page.py inlines it after Plotly.js and
// engine/web/charts.js). It reads the page's data (engine/replay/payload.py) and its three chart descriptions
// (engine/replay/panels.py: the curves with the film's cursor, the relation figures with the film's ring, the
// covariance spectrum), draws them with the one renderer (EmbedlabCharts) and the UMAP film with Plotly.js,
// and keeps them in step: a film frame moves the cursor on every curve (layout.shapes[0]), the ring on the
// relation figures (also shapes[0]; a run has points on one figure or both), the slider and the "step N"
// text. The spectrum does not follow. A slider move touches only the film's points and the cursors, with no
// restyle or relayout of any figure (movePoints, moveShape): Plotly.restyle of the film took 70-200 ms for
// 2,000 SVG points on the shared 2-core CPU, and stays the fallback. Moves that come faster than the screen
// are folded into one redraw per animation frame. The film is SVG, not WebGL: headless and older browsers
// often lack WebGL. The state is in the DOM: body[data-ready="1"] once everything is drawn, and on #film
// data-step, data-index and data-renders (frames shown).
(function () {
  "use strict";
  var state = {step: null, index: 0, run: -1, renders: 0};
  var CONFIG = EmbedlabCharts.CONFIG;
  var FONT = {family: "system-ui, -apple-system, 'Segoe UI', Roboto, Helvetica, Arial, sans-serif", size: 12};
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
  var charts = JSON.parse(el("lesson-charts").textContent);
  var filmRuns = [];
  data.runs.forEach(function (run, i) { if (run.film) filmRuns.push(i); });
  var cur = null, timer = null;

  function plots(id) {
    var box = el(id);
    return box ? Array.prototype.map.call(box.querySelectorAll(".embedlab-panel"), function (panel) {
      return panel.firstChild;
    }) : [];
  }

  // every curve, relation figure and the spectrum, with the one renderer; a click on a curve or a relation
  // point moves the film to its step
  function drawCharts() {
    var jobs = [];
    [["curves", charts.curves], ["relations", charts.relations], ["spectrum", charts.spectrum]].forEach(function (pair) {
      var box = el(pair[0]);
      if (!box || !pair[1].panels.length) return;
      var grid = document.createElement("div");
      grid.className = "embedlab-grid lesson-" + pair[0];
      box.appendChild(grid);
      jobs.push(EmbedlabCharts.draw(grid, pair[1], {font: FONT.family, textColor: "#1f2328"}));
    });
    return Promise.all(jobs).then(function () {
      plots("curves").forEach(function (gd) {
        gd.on("plotly_click", function (ev) { if (ev.points.length) seekStep(ev.points[0].x); });
      });
      plots("relations").forEach(function (gd) {
        gd._kind = gd.parentNode.dataset.panel;
        gd.on("plotly_click", function (ev) {
          var point = ev.points[0];
          if (point && point.customdata !== undefined) seekStep(point.customdata);
        });
      });
    });
  }

  // each run's relation points, decoded once (the ring's positions)
  data.runs.forEach(function (run) {
    run._relations = {};
    Object.keys(run.relations || {}).forEach(function (kind) {
      var p = run.relations[kind];
      run._relations[kind] = {x: f64(p.x), y: f64(p.y), step: f64(p.step)};
    });
  });

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
    var f = cur.film;
    i = Math.max(0, Math.min(f.steps.length - 1, i | 0));
    var xy = frameXY(f, i), s = f.steps[i];
    if (!movePoints(el("film"), xy)) Plotly.restyle(el("film"), {x: xy[0], y: xy[1]}, cur.traces);
    state.index = i; state.step = s; state.run = cur.run;
    el("slider").value = String(i);
    el("step-label").textContent = "step " + s;
    plots("curves").forEach(function (div) { moveShape(div, 0, {x0: s, x1: s}); });
    var found = data.runs[cur.run]._relations || {};
    plots("relations").forEach(function (div) {
      var r = found[div._kind], on = !!(r && r.step.length), j = on ? atOrBefore(r.step, s) : 0;
      if (on !== div.layout.shapes[0].visible) {
        Plotly.relayout(div, on ? {"shapes[0].visible": true, "shapes[0].xanchor": r.x[j], "shapes[0].yanchor": r.y[j]}
                                : {"shapes[0].visible": false});
      } else if (on) {
        moveShape(div, 0, {xanchor: r.x[j], yanchor: r.y[j]});
      }
    });
    state.renders += 1;
    var film = el("film");
    film.dataset.step = String(s);
    film.dataset.index = String(i);
    film.dataset.renders = String(state.renders);
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
    var next = (wanted !== null ? wanted : state.index) + 1;
    if (next > last()) { pause(); return; }
    request(next);
    timer = setTimeout(tick, data.frame_ms / speed());
  }
  function play() {
    if (!cur || timer !== null) return;
    if (state.index >= last()) request(0);
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

  function controls() {
    var picker = el("film-run");
    if (filmRuns.length < 2) el("film-run-box").hidden = true;
    filmRuns.forEach(function (i) {
      var option = document.createElement("option");
      option.value = String(i);
      option.textContent = data.runs[i].name;
      picker.appendChild(option);
    });
    picker.addEventListener("change", function () { pause(); drawFilm(parseInt(picker.value, 10), state.step).catch(fail); });
    el("slider").addEventListener("input", function () { pause(); request(parseInt(el("slider").value, 10)); });
    el("play").addEventListener("click", function () { if (timer === null) play(); else pause(); });
    document.addEventListener("keydown", function (ev) {
      if (ev.key === " " && ev.target === document.body && cur) { ev.preventDefault(); if (timer === null) play(); else pause(); }
    });
  }

  function start() {  // the charts first: the film's first frame then puts their cursors and rings
    return drawCharts().then(function () {
      if (!filmRuns.length) return null;
      el("film-controls").hidden = false;
      controls();
      return drawFilm(filmRuns[0], null);
    }).then(function () { document.body.setAttribute("data-ready", "1"); });
  }
  try { start().catch(fail); } catch (err) { fail(err); }
})();
