// The live view's Streamlit component (custom components v2, ui/live_view.py): draws the chart description
// it is given with the one renderer (engine/web/charts.js, concatenated before this file as one module).
// Plotly.js is loaded once per page from the app's static folder (data.plotly: the installed plotly
// package's own file, which ui/live_view.py serves). While a run trains, data.feed says where the live feed
// (ui/feed.py) writes the next descriptions: this fetches its pointer every feed.seconds (a share of it while
// nothing is drawn yet) and redraws, with no page rerun. When the feed's signature differs from the one the
// page was drawn with, it sets the "stale" trigger: the page reruns and draws what changed around the charts.
// Once it has drawn the first rows of the runs a description names `unseen` (paced runs whose playhead holds
// their first row until a screen shows it, engine/core/pace.py), it sets the "drawn" trigger with their ids:
// the server starts those playheads (ui/player.py cue). Nothing else hears of it.
// Its panels are static plots until the pointer enters one (draw's lazyInteraction, engine/web/charts.js).

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

var views = new WeakMap();  // the component's root -> {progress, note, grid, latest, ...}

function viewOf(root) {
  var view = views.get(root);
  if (!view) {
    var box = document.createElement("div");
    box.className = "embedlab-live";
    view = {progress: document.createElement("div"), note: document.createElement("div"),
            grid: document.createElement("div"), latest: null,
            feed: null, timer: null, text: null, version: null, asked: null, given: null, taken: null,
            trigger: null, told: {}};
    view.grid.className = "embedlab-grid";
    box.appendChild(view.progress);
    box.appendChild(view.note);
    box.appendChild(view.grid);
    root.appendChild(box);
    views.set(root, view);
  }
  return view;
}

// Tell the server once which of the `unseen` runs this view has now drawn (their ids, each once per view);
// only a description with panels shows their rows.
function tellDrawn(view, description, unseen) {
  if (!view.trigger || !(description.panels && description.panels.length)) return;
  var news = (unseen || []).filter(function (id) { return typeof id === "string" && !view.told[id]; });
  if (!news.length) return;
  news.forEach(function (id) { view.told[id] = true; });
  view.trigger("drawn", news);
}

function drawInto(view, description, theme, unseen) {
  view.latest = description;
  EmbedlabCharts.progress(view.progress, description.progress || [], theme);
  EmbedlabCharts.message(view.note, description.message);
  return plotlyLoaded(view.plotly).then(function () {
    if (view.latest !== description) return undefined;
    return Promise.resolve(EmbedlabCharts.draw(view.grid, description, theme, {lazyInteraction: true}))
      .then(function (drawn) {
        if (view.latest === description) tellDrawn(view, description, unseen);  // on screen, not replaced
        return drawn;
      });
  }).catch(function (error) {
    view.grid.textContent = "The live charts could not be drawn: " + error.message;
  });
}

// Whether a description whose look was taken at `taken` ([server, view, number], ui/live_state.py taken) may
// be drawn: not when the drawn one is of the same server and view and was taken later (a page run's look, taken
// before the feed's newer one was drawn and given after it, made the curves jump back). Marks it drawn.
function fresh(view, taken) {
  var drawn = view.taken;
  if (taken && drawn && taken[0] === drawn[0] && taken[1] !== null && taken[1] === drawn[1]
      && taken[2] < drawn[2]) {
    return false;
  }
  view.taken = taken || null;
  return true;
}

function pause(view) {  // ms to the next fetch: a share of the period while nothing is drawn (set-up)
  var drawn = view.latest && view.latest.panels && view.latest.panels.length;
  return view.feed.seconds * 1000 * (drawn ? 1 : view.feed.setupShare || 1);
}

function versionUrl(url, version) {  // the payload file a pointer names (ui/feed.py: <token>-<N>.json)
  return url.replace(/\.json$/, "-" + version + ".json");
}

function fetched(url) {  // a file's text, or null (not written yet, removed, the server busy)
  return fetch(new URL(url, document.baseURI), {cache: "no-store"}).then(function (response) {
    return response.ok ? response.text() : null;
  });
}

function poll(view, current, theme, setTriggerValue) {
  if (document.hidden) {  // a tab in the background fetches and draws nothing; it catches up when shown
    view.timer = setTimeout(function () { poll(view, current, theme, setTriggerValue); }, pause(view));
    return;
  }
  // the feed's pointer names its newest payload: fetched only when it is new (a payload file never changes)
  fetched(current.url).then(function (text) {
    var version = text === null ? null : JSON.parse(text).version;
    if (view.feed !== current || version === null || version === view.version) return null;
    return fetched(versionUrl(current.url, version)).then(function (payloadText) {
      if (view.feed !== current || payloadText === null) return null;
      view.version = version;
      if (payloadText === view.text) return null;
      view.text = payloadText;
      var payload = JSON.parse(payloadText);
      if (!fresh(view, payload.taken)) return null;  // older than what is drawn
      if (payload.signature !== current.signature && payload.signature !== view.asked) {
        view.asked = payload.signature;  // what the page draws around the charts changed: rerun it
        setTriggerValue("stale", payload.signature);
      }
      return drawInto(view, payload.description, theme, payload.unseen);
    });
  }).catch(function () {
    // not written yet, or the server is busy: the next fetch tries again
  }).then(function () {
    if (view.feed === current) view.timer = setTimeout(function () { poll(view, current, theme, setTriggerValue); }, pause(view));
  });
}

export default function (component) {
  var root = component.parentElement, data = component.data || {};
  var view = viewOf(root);
  var theme = themeOf(root.host || root);
  view.plotly = data.plotly;
  view.trigger = component.setTriggerValue;
  view.grid.className = "embedlab-grid" + (data.single ? " single" : "");
  // Streamlit calls this again with the data of the last script run whenever the component renders again
  // (its trigger set, the page rerunning around it): that description is older than what the feed has drawn
  // since, and drawing it again made the charts jump back for a moment when a run ended. Only a new
  // description from the server is drawn.
  var given = JSON.stringify(data.description || null);
  if (given !== view.given) {
    view.given = given;
    if (fresh(view, data.taken)) drawInto(view, data.description || {panels: [], progress: []}, theme, data.unseen);
  }
  clearTimeout(view.timer);
  view.feed = data.feed && data.feed.url ? data.feed : null;
  view.text = null;
  view.version = null;
  if (view.feed) {
    var current = view.feed;
    view.timer = setTimeout(function () { poll(view, current, theme, component.setTriggerValue); }, pause(view));
  }
  return function () { view.feed = null; clearTimeout(view.timer); };
}
