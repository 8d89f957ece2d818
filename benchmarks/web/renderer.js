// The browser's side of benchmarks/bench_renderer.py: redraws a captured live description (window.PAYLOAD, the
// live feed's JSON: engine/charts/description.py) once a second, as the live view does while a run trains,
// so that the benchmark can read the browser's CPU time per mode (the page's ?mode=):
//   blank   the same timer and JSON parse, nothing drawn (the reference);
//   plotly  the lab's renderer (engine/web/charts.js, Plotly.js) as the live view draws (static plots until
//           the pointer enters one): every panel has a new version each second;
//   curves  the same, only the half-width panels (the live curves), not the wide figures under them;
//   interactive  the curves drawn interactive (hover, zoom, mode bar), as the live view drew them before;
//   uplot   the same series drawn with uPlot (a canvas chart library), when the benchmark found it: lines and
//           points, titles, axis titles, log axes and uPlot's own legend, not Plotly's colour bar, hover
//           templates or reference lines. A lower bound of what a uPlot renderer would cost, not a renderer.
// window.benchDraws counts the redraws, window.benchLastMs is the last one's time in JavaScript.
"use strict";

(function () {
  var mode = new URLSearchParams(location.search).get("mode") || "plotly";
  var text = JSON.stringify(window.PAYLOAD.description);
  var grid = document.getElementById("grid");
  var plots = {};
  window.benchDraws = 0;

  function values(v) {  // a Plotly typed array ({dtype: "f8", bdata}) or a list, as numbers (NaN as null)
    if (!v) return [];
    if (v.bdata === undefined) return v.map(function (x) { return typeof x === "number" ? x : null; });
    var raw = atob(v.bdata), bytes = new Uint8Array(raw.length);
    for (var i = 0; i < raw.length; i++) bytes[i] = raw.charCodeAt(i);
    var kinds = {f8: Float64Array, f4: Float32Array, i4: Int32Array, i2: Int16Array, i1: Int8Array,
                 u4: Uint32Array, u2: Uint16Array, u1: Uint8Array};
    return Array.from(new (kinds[v.dtype] || Float64Array)(bytes.buffer), function (x) {
      return isFinite(x) ? x : null;
    });
  }

  function plain(title) {
    var t = title && title.text !== undefined ? title.text : title || "";
    return String(t).replace(/<br>/g, " · ").replace(/<[^>]*>/g, "");
  }

  function uplotPanel(panel) {
    var traces = (panel.figure.data || []).filter(function (t) {
      return !(t.marker && t.marker.size !== undefined && t.marker.size < 1);  // a colour bar's carrier
    });
    var tables = traces.map(function (t) {
      var xs = values(t.x), ys = values(t.y), order = xs.map(function (_, i) { return i; });
      order.sort(function (a, b) { return xs[a] - xs[b]; });
      return [order.map(function (i) { return xs[i]; }), order.map(function (i) { return ys[i]; })];
    });
    var data = uPlot.join(tables);
    var layout = panel.figure.layout || {};
    var logY = layout.yaxis && layout.yaxis.type === "log";
    if (!plots[panel.key]) {
      var box = document.createElement("div");
      box.className = "embedlab-panel" + (panel.wide ? " wide" : "");
      grid.appendChild(box);
      var palette = ["#636efa", "#ef553b", "#00cc96", "#ab63fa", "#ffa15a", "#19d3f3"];
      plots[panel.key] = new uPlot({
        title: plain(layout.title), width: panel.wide ? 1080 : 530, height: layout.height || 300,
        scales: {x: {time: false}, y: logY ? {distr: 3} : {}},
        axes: [{label: plain(layout.xaxis && layout.xaxis.title)}, {label: plain(layout.yaxis && layout.yaxis.title)}],
        series: [{}].concat(traces.map(function (t, i) {
          var color = (t.line && t.line.color) || (t.marker && typeof t.marker.color === "string" && t.marker.color) ||
            palette[i % palette.length];
          var lines = !t.mode || t.mode.indexOf("lines") >= 0;
          return {label: t.name || "", stroke: color, width: lines ? (t.line && t.line.width) || 2 : 0,
                  spanGaps: true, points: {show: !!t.mode && t.mode.indexOf("markers") >= 0, fill: color}};
        }))
      }, data, box);
    } else {
      plots[panel.key].setData(data);
    }
  }

  function tick() {
    var started = performance.now();
    var description = JSON.parse(text);  // what the live view parses from the feed each second
    window.benchDraws += 1;
    description.panels.forEach(function (panel) { panel.version = "v" + window.benchDraws; });
    if (mode === "curves" || mode === "interactive") {
      description.panels = description.panels.filter(function (p) { return !p.wide; });
    }
    if (mode === "plotly" || mode === "curves" || mode === "interactive") {
      var options = {lazyInteraction: mode !== "interactive"};  // as the live view draws, or all interactive
      EmbedlabCharts.draw(grid, description, {}, options).then(function () {
        window.benchLastMs = performance.now() - started;
      });
    } else if (mode === "uplot") {
      description.panels.forEach(uplotPanel);
      window.benchLastMs = performance.now() - started;
    }
  }

  tick();
  setInterval(tick, 1000);
})();
