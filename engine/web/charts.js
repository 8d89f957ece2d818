// The one chart renderer of embedlab: draws a chart description (engine/charts/description.py) with
// Plotly.js. The app's live component (ui/live_view.py) and the offline replay (engine/replay/page.py) both
// load this file. A description is {panels: [{key, wide, cursor, version, figure: {data, layout}}], step,
// progress: [{fraction, text}], message}; its numbers come as Plotly typed arrays ({dtype, bdata}), which
// Plotly.js reads itself.
//
// Redrawing a Plotly chart is the live view's main cost in the browser (on the shared 2 cores it is taken
// from the training), so a panel is redrawn only when its version changed (the live feed gives each panel
// the hash of its figure: engine/charts/description.py versioned; without one its figure's JSON is
// compared), and a panel scrolled out of view only when it comes back into view. Plotly.extendTraces was
// measured and is not used: it redraws the whole plot (Plotly.redraw), as react does when data change.
// Where the live view asks for it (draw's options.lazyInteraction), a panel is drawn as a static plot
// (Plotly's staticPlot: no hover, zoom or mode bar layers to rebuild at every redraw; about a tenth of the
// curves' drawing time on the page's main thread, benchmarks/bench_renderer.py's curves and interactive
// modes) until the pointer enters it; from then on it is drawn interactive, with its mode bar, until it is
// redrawn after the pointer left. The config goes to Plotly only when it changes (a new config makes
// Plotly.react draw the plot anew).
//
// What tests and benchmarks read is in the DOM, never in globals: every panel element carries data-key,
// data-title, data-points and data-last-x (its newest series) and data-interactive ("false": drawn as a
// static plot), the grid data-renders (descriptions drawn) and data-step (the cursor's step); every progress
// row is a role="progressbar" with its text; the message line is a role="status".
"use strict";

var EmbedlabCharts = (function () {
  // the mode bar: the PNG export, zoom, pan and reset, standing at the right edge (a row across the top of a
  // narrow panel covered its title)
  var CONFIG = {displaylogo: false, responsive: true,
                modeBarButtonsToRemove: ["select2d", "lasso2d", "zoomIn2d", "zoomOut2d", "autoScale2d",
                                         "toggleSpikelines", "hoverClosestCartesian", "hoverCompareCartesian"],
                toImageButtonOptions: {format: "png", scale: 2}};
  var STATIC = merged(CONFIG, {staticPlot: true});
  var CURSOR = {type: "line", xref: "x", yref: "paper", y0: 0, y1: 1,
                line: {color: "#d62728", width: 1.5, dash: "dot"}};

  function isObject(value) {
    return value !== null && typeof value === "object" && !Array.isArray(value) && !ArrayBuffer.isView(value);
  }

  // a copy of `base` with `over` laid on it (objects merged key by key, everything else replaced)
  function merged(base, over) {
    var out = {}, key;
    for (key in base) out[key] = base[key];
    for (key in over) out[key] = isObject(over[key]) && isObject(base[key]) ? merged(base[key], over[key]) : over[key];
    return out;
  }

  // the page's look: font, text colour, grid lines and titles (a theme from the host page, or Plotly's
  // defaults)
  function baseLayout(theme) {
    var text = theme.textColor || "#31333f", grid = theme.gridColor || "rgba(128, 128, 128, 0.2)";
    var axis = {gridcolor: grid, zerolinecolor: grid, linecolor: grid, automargin: false};
    return {font: {family: theme.font || "sans-serif", size: 12, color: text}, paper_bgcolor: "rgba(0,0,0,0)",
            plot_bgcolor: "rgba(0,0,0,0)", hovermode: "closest", xaxis: axis, yaxis: axis,
            modebar: {orientation: "v"}, title: {x: 0.02, xanchor: "left"},
            hoverlabel: {font: {family: theme.font || "sans-serif"}}};
  }

  function layoutOf(panel, step, theme) {
    var layout = merged(baseLayout(theme), panel.figure.layout || {});
    if (panel.cursor) {
      var cursor = merged(CURSOR, {x0: step, x1: step, visible: step !== null && step !== undefined});
      layout.shapes = [cursor].concat(layout.shapes || []);
    }
    return layout;
  }

  function count(values) {
    if (!values) return 0;
    if (values.bdata !== undefined) return Math.floor(atob(values.bdata).length / 8);
    return values.length;
  }

  // data-points and data-last-x of a drawn panel: its newest series, as Plotly holds it after drawing (its
  // full data: typed arrays decoded)
  function mark(box, panel) {
    var shown = box.plot ? box.plot._fullData || box.plot.data || [] : [];
    var last = shown.length ? shown[shown.length - 1] : null;
    var xs = last && last.x ? last.x : [];
    var title = panel.figure.layout && panel.figure.layout.title;
    box.dataset.key = panel.key;
    box.dataset.title = (title && title.text !== undefined ? title.text : title || "").toString();
    box.dataset.points = String(xs.length !== undefined ? xs.length : count(xs));
    box.dataset.lastX = xs.length ? String(xs[xs.length - 1]) : "";
  }

  // boxes scrolled out of view (with a margin) wait with their newest figure until they are seen again
  var watcher = typeof IntersectionObserver === "undefined" ? null : new IntersectionObserver(function (entries) {
    entries.forEach(function (entry) {
      var box = entry.target;
      box.hiddenFromView = !entry.isIntersecting;
      if (!box.hiddenFromView && box.waiting) {
        var waiting = box.waiting;
        box.waiting = null;
        plot(box, waiting.panel, waiting.layout, waiting.text);
      }
    });
  }, {rootMargin: "300px"});

  // a box whose width changed (projector mode's sidebar closed, a column resized) is drawn again at its new
  // width: a static plot does not follow it (Plotly's responsive mode follows the window's resize only)
  var resizer = typeof ResizeObserver === "undefined" ? null : new ResizeObserver(function (entries) {
    entries.forEach(function (entry) {
      var box = entry.target, width = box.clientWidth;
      if (box.shown && width > 0 && box.drawnWidth !== width) {
        box.drawnWidth = width;
        Plotly.relayout(box.plot, {autosize: true});  // sized to its box again
      }
    });
  });

  // the config a panel is drawn with: static while the live view asks for it and the pointer is not on it
  function configOf(box) {
    return box.lazyInteraction && !box.pointed ? STATIC : CONFIG;
  }

  function plot(box, panel, layout, text) {
    var config = configOf(box), changed = config !== box.config;
    box.drawnText = text;
    box.shown = {panel: panel, layout: layout};
    box.config = config;
    box.drawnWidth = box.clientWidth;  // the width it is drawn at (the resizer draws it again at another)
    box.dataset.interactive = config === CONFIG ? "true" : "false";
    var drawn = Plotly.react(box.plot, panel.figure.data || [], layout, changed ? config : undefined);
    return drawn.then(function () {
      if (panel.version !== null && panel.version !== undefined) box.dataset.version = String(panel.version);
      mark(box, panel);
    });
  }

  // the pointer on a static panel: draw it again, interactive (hover, zoom and mode bar under the pointer)
  function pointed(event) {
    var box = event.currentTarget;
    box.pointed = true;
    if (box.shown && box.config !== CONFIG) plot(box, box.shown.panel, box.shown.layout, box.drawnText);
  }

  function left(event) {
    event.currentTarget.pointed = false;  // drawn static again at its next redraw
  }

  function boxFor(grid, panel, index) {
    var box = grid.querySelector('[data-panel="' + CSS.escape(panel.key) + '"]');
    if (!box) {
      box = document.createElement("div");
      box.dataset.panel = panel.key;
      box.plot = document.createElement("div");
      box.appendChild(box.plot);
      box.addEventListener("pointerenter", pointed);
      box.addEventListener("pointerleave", left);
      if (watcher) watcher.observe(box);
      if (resizer) resizer.observe(box);
    }
    box.className = "embedlab-panel" + (panel.wide ? " wide" : "");
    if (grid.children[index] !== box) grid.insertBefore(box, grid.children[index] || null);
    return box;
  }

  // Draw `description` into `grid` (an element): one child per panel, in order; panels no longer described
  // are removed. Resolves when Plotly has drawn every panel. Panels with the version already drawn are left.
  // options.lazyInteraction: panels are static plots until the pointer enters them (the live view).
  function draw(grid, description, theme, options) {
    theme = theme || {};
    var lazy = !!(options && options.lazyInteraction);
    var panels = description.panels || [], keep = {}, jobs = [];
    panels.forEach(function (panel) { keep[panel.key] = true; });
    Array.prototype.slice.call(grid.children).forEach(function (child) {
      if (child.dataset.panel !== undefined && !keep[child.dataset.panel]) {
        if (child.plot && window.Plotly) Plotly.purge(child.plot);
        if (watcher) watcher.unobserve(child);
        if (resizer) resizer.unobserve(child);
        child.remove();
      }
    });
    panels.forEach(function (panel, index) {
      var box = boxFor(grid, panel, index);
      box.lazyInteraction = lazy;
      var version = panel.version === null || panel.version === undefined ? null : String(panel.version);
      var text = (version !== null ? "v" + version : JSON.stringify(panel.figure)) + "|" +
        (panel.cursor ? description.step : "");
      if (text === box.drawnText) return;  // the same figure: nothing to redraw
      var layout = layoutOf(panel, description.step, theme);
      if (box.drawnText !== undefined && box.hiddenFromView) {
        box.waiting = {panel: panel, layout: layout, text: text};  // drawn when scrolled into view
        return;
      }
      box.waiting = null;
      jobs.push(plot(box, panel, layout, text));
    });
    grid.dataset.renders = String((parseInt(grid.dataset.renders || "0", 10) || 0) + 1);
    grid.dataset.step = description.step === null || description.step === undefined ? "" : String(description.step);
    return Promise.all(jobs);
  }

  // One line of text over a plain bar per running run (no CSS transition: a new width is one repaint).
  function progress(box, bars, theme) {
    theme = theme || {};
    while (box.children.length > bars.length) box.lastChild.remove();
    bars.forEach(function (bar, index) {
      var row = box.children[index];
      if (!row) {
        row = document.createElement("div");
        row.className = "embedlab-progress";
        row.setAttribute("role", "progressbar");
        row.setAttribute("aria-valuemin", "0");
        row.setAttribute("aria-valuemax", "100");
        var text = document.createElement("div"), track = document.createElement("div");
        text.className = "embedlab-progress-text";
        track.className = "embedlab-progress-track";
        track.appendChild(document.createElement("div")).className = "embedlab-progress-fill";
        row.appendChild(text);
        row.appendChild(track);
        box.appendChild(row);
      }
      var percent = Math.round(Math.max(0, Math.min(1, bar.fraction)) * 1000) / 10;
      row.setAttribute("aria-valuenow", String(percent));
      row.firstChild.textContent = bar.text;
      row.lastChild.firstChild.style.width = percent + "%";
      if (theme.primaryColor) row.lastChild.firstChild.style.background = theme.primaryColor;
    });
  }

  // Why nothing is drawn, where nothing is (the description's message, e.g. "No metrics yet"): one line in
  // `box` (role="status"), empty and hidden when the description has none.
  function message(box, text) {
    box.className = "embedlab-message";
    box.setAttribute("role", "status");
    box.textContent = text || "";
    box.hidden = !text;
  }

  return {CONFIG: CONFIG, STATIC: STATIC, CURSOR: CURSOR, draw: draw, progress: progress, message: message,
          merged: merged};
})();
