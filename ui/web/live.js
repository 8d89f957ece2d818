// The live view's Streamlit component (custom components v2, ui/live_view.py): draws the chart description
// it is given with the one renderer (engine/web/charts.js, concatenated before this file as one module).
// Plotly.js is loaded once per page from the app's static folder (data.plotly: the installed plotly
// package's own file, which ui/live_view.py serves). Streamlit calls this function again whenever the data
// changes (the live fragment reruns every live_seconds while a run trains): no page rerun, one Plotly.react
// per panel.

function plotlyLoaded(url) {
  if (window.Plotly) return Promise.resolve(window.Plotly);
  var pending = document.querySelector('script[data-embedlab-plotly]');
  if (!pending) {
    pending = document.createElement("script");
    pending.src = url;
    pending.async = true;
    pending.dataset.embedlabPlotly = "1";
    document.head.appendChild(pending);
  }
  return new Promise(function (resolve, reject) {
    if (window.Plotly) { resolve(window.Plotly); return; }
    pending.addEventListener("load", function () { resolve(window.Plotly); });
    pending.addEventListener("error", function () { reject(new Error("could not load " + url)); });
  });
}

function themeOf(element) {
  var style = getComputedStyle(element);
  var read = function (name) { return style.getPropertyValue(name).trim() || undefined; };
  return {textColor: read("--st-text-color"), font: read("--st-font"), primaryColor: read("--st-primary-color")};
}

var views = new WeakMap();  // the component's root -> {progress, grid, latest}

function viewOf(root) {
  var view = views.get(root);
  if (!view) {
    var box = document.createElement("div");
    box.className = "embedlab-live";
    view = {progress: document.createElement("div"), grid: document.createElement("div"), latest: null};
    view.grid.className = "embedlab-grid";
    box.appendChild(view.progress);
    box.appendChild(view.grid);
    root.appendChild(box);
    views.set(root, view);
  }
  return view;
}

export default function (component) {
  var root = component.parentElement, data = component.data || {};
  var view = viewOf(root);
  var description = data.description || {panels: [], progress: []};
  view.latest = description;
  view.grid.className = "embedlab-grid" + (data.single ? " single" : "");
  var theme = themeOf(root.host || root);
  EmbedlabCharts.progress(view.progress, description.progress || [], theme);
  plotlyLoaded(data.plotly).then(function () {
    if (view.latest === description) return EmbedlabCharts.draw(view.grid, description, theme);
  }).catch(function (error) {
    view.grid.textContent = "The live charts could not be drawn: " + error.message;
  });
}
