// Live chart painter: draws the panels that ui/painter.py's paint_spec derives from the app's Plotly figures
// on plain <canvas> elements. While a run trains, the charts are redrawn every second on the same cores as the
// training; a canvas redraw costs the browser far less than a Plotly redraw (or a Streamlit rerun of several
// Plotly elements).
// Streamlit custom-component protocol (v1): post "streamlit:componentReady", receive "streamlit:render" with
// args, post "streamlit:setFrameHeight" and "streamlit:setComponentValue". While a run trains, the page does
// not rerun every second: this script fetches the panels from the live feed (args.feed) itself.
"use strict";

const grid = document.getElementById("grid");
const progressBox = document.getElementById("progress");
const tip = document.getElementById("tip");
const panels = new Map(); // key -> {box, canvas, spec, hits}
let theme = {textColor: "#31333f", backgroundColor: "#ffffff", secondaryBackgroundColor: "#f0f2f6",
             font: "sans-serif"};
let lastHeight = -1;

function post(type, extra) {
  window.parent.postMessage(Object.assign({isStreamlitMessage: true, type: type}, extra || {}), "*");
}

// ---- scales and ticks -------------------------------------------------------------------------------------

function finite(values) {
  return values.filter((v) => v !== null && Number.isFinite(v));
}

function extent(spec, axis, log) {
  let lo = Infinity, hi = -Infinity;
  for (const s of spec.series) {
    for (const v of finite(s[axis])) {
      if (log && v <= 0) continue;
      const t = log ? Math.log10(v) : v;
      if (t < lo) lo = t;
      if (t > hi) hi = t;
    }
  }
  if (lo === Infinity) return [0, 1];
  if (lo === hi) return [lo - (Math.abs(lo) || 1) * 0.5, hi + (Math.abs(hi) || 1) * 0.5];
  return [lo, hi];
}

function padded([lo, hi], share) {
  const pad = (hi - lo) * share;
  return [lo - pad, hi + pad];
}

function niceStep(span, count) {
  const raw = span / Math.max(1, count);
  const power = Math.pow(10, Math.floor(Math.log10(raw)));
  const unit = raw / power;
  return (unit < 1.5 ? 1 : unit < 3.5 ? 2 : unit < 7.5 ? 5 : 10) * power;
}

function linearTicks([lo, hi], count) {
  const step = niceStep(hi - lo, count);
  const ticks = [];
  for (let v = Math.ceil(lo / step) * step; v <= hi + step * 1e-9; v += step) ticks.push(Math.abs(v) < step * 1e-9 ? 0 : v);
  const decimals = Math.max(0, -Math.floor(Math.log10(step) + 1e-9));
  return ticks.map((v) => ({at: v, text: formatNumber(v, decimals)}));
}

function logTicks([lo, hi]) {  // lo, hi in log10 units
  const ticks = [];
  const decades = hi - lo;
  const mantissas = decades < 1.2 ? [1, 2, 5] : decades < 4 ? [1, 3] : [1];
  for (let k = Math.floor(lo); k <= Math.ceil(hi); k++) {
    for (const m of mantissas) {
      const at = k + Math.log10(m);
      if (at >= lo - 1e-9 && at <= hi + 1e-9) ticks.push({at: at, text: formatNumber(m * Math.pow(10, k), Math.max(0, -k))});
    }
  }
  return ticks;
}

function formatNumber(v, decimals) {
  const a = Math.abs(v);
  if (a >= 1e6) return (v / 1e6).toPrecision(3).replace(/\.?0+$/, "") + "M";
  if (a >= 1e4) return (v / 1e3).toPrecision(3).replace(/\.?0+$/, "") + "k";
  if (a !== 0 && a < 1e-4) return v.toExponential(1);
  return v.toFixed(Math.min(decimals, 6));
}

function hoverNumber(v) {
  return Math.abs(v) >= 1e4 || (v !== 0 && Math.abs(v) < 1e-3) ? v.toExponential(3) : String(+v.toPrecision(5));
}

// ---- drawing ----------------------------------------------------------------------------------------------

function withAlpha(color, alpha) {
  const c = color.trim();
  if (c.startsWith("#") && (c.length === 7 || c.length === 4)) {
    const full = c.length === 4 ? "#" + [...c.slice(1)].map((h) => h + h).join("") : c;
    const n = parseInt(full.slice(1), 16);
    return `rgba(${(n >> 16) & 255}, ${(n >> 8) & 255}, ${n & 255}, ${alpha})`;
  }
  return c;
}

function legendEntries(spec) {
  const named = spec.series.filter((s) => s.legend && s.name);
  return spec.showLegend || named.length > 1 ? named : [];
}

function legendLayout(g, entries, left, width, fs) {  // [{entry, x, row}], rows: entries flow and wrap
  const placed = [];
  let x = left, row = 0;
  const swatch = 22 * fs / 12;
  for (const entry of entries) {
    const w = swatch + Math.min(g.measureText(entry.name).width, width - left - 30) + 14;
    if (x > left && x + w > width) { x = left; row += 1; }
    placed.push({entry: entry, x: x, row: row, w: w});
    x += w;
  }
  return {placed: placed, rows: entries.length ? row + 1 : 0};
}

function panelFor(spec) {
  let panel = panels.get(spec.key);
  if (!panel) {
    const box = document.createElement("div");
    const canvas = document.createElement("canvas");
    canvas.setAttribute("role", "img");
    box.appendChild(canvas);
    grid.appendChild(box);
    panel = {box: box, canvas: canvas, spec: null, hits: []};
    canvas.addEventListener("mousemove", (event) => hover(panel, event));
    canvas.addEventListener("mouseleave", () => { tip.style.display = "none"; });
    panels.set(spec.key, panel);
  }
  panel.box.className = spec.wide ? "panel wide" : "panel";
  return panel;
}

function draw(panel) {
  const spec = panel.spec;
  const font = theme.font || "sans-serif";
  const text = theme.textColor || "#31333f";
  const canvas = panel.canvas;
  const g = canvas.getContext("2d");
  const width = Math.max(120, panel.box.clientWidth);
  const fs = spec.fontSize || 12, ts = spec.titleSize || 15, k = fs / 12;  // projector mode: larger text
  const rowH = Math.round(fs * 4 / 3);
  const m = spec.hideTicks ? {l: 10, r: 10, t: Math.round(ts + 25), b: 10}
    : {l: Math.round((spec.yTitle ? 68 : 50) * k), r: 20, t: Math.round(ts + 25), b: Math.round((spec.xTitle ? 44 : 28) * k)};
  g.font = `${fs}px ${font}`;
  const legend = legendLayout(g, legendEntries(spec), m.l, width - m.r, fs);
  const height = spec.height + legend.rows * rowH;
  const ratio = window.devicePixelRatio || 1;
  if (canvas.width !== Math.round(width * ratio) || canvas.height !== Math.round(height * ratio)) {
    canvas.width = Math.round(width * ratio);
    canvas.height = Math.round(height * ratio);
    canvas.style.height = height + "px";
  }
  canvas.setAttribute("aria-label", spec.title + " (live chart)");
  canvas.dataset.key = spec.key;
  g.setTransform(ratio, 0, 0, ratio, 0, 0);
  g.clearRect(0, 0, width, height);

  const plotW = Math.max(10, width - m.l - m.r), plotH = Math.max(10, spec.height - m.t - m.b);
  const anyMarkers = spec.series.some((s) => s.mode.includes("markers"));
  let xr = spec.xRange || padded(extent(spec, "x", false), anyMarkers ? 0.04 : 0);
  let yr = spec.yRange || padded(extent(spec, "y", spec.logY), 0.06);
  if (spec.equalAxes) [xr, yr] = equalScale(xr, yr, plotW, plotH);
  const px = (v) => m.l + (v - xr[0]) / (xr[1] - xr[0]) * plotW;
  const py = (v) => m.t + plotH - ((spec.logY ? Math.log10(v) : v) - yr[0]) / (yr[1] - yr[0]) * plotH;

  // title, grid, tick labels, axis titles
  g.fillStyle = text;
  g.font = `600 ${ts}px ${font}`;
  g.textBaseline = "alphabetic";
  g.textAlign = "left";
  g.fillText(spec.title, 4, Math.round(ts + 7));
  g.font = `${fs}px ${font}`;
  g.strokeStyle = withAlpha(text, 0.12);
  g.lineWidth = 1;
  g.fillStyle = withAlpha(text, 0.7);
  const yTicks = spec.hideTicks ? [] : spec.logY ? logTicks(yr) : linearTicks(yr, Math.max(2, Math.round(plotH / (45 * k))));
  g.textAlign = "right";
  g.textBaseline = "middle";
  for (const t of yTicks) {
    const y = m.t + plotH - (t.at - yr[0]) / (yr[1] - yr[0]) * plotH;
    g.beginPath(); g.moveTo(m.l, Math.round(y) + 0.5); g.lineTo(m.l + plotW, Math.round(y) + 0.5); g.stroke();
    g.fillText(t.text, m.l - 6, y);
  }
  g.textAlign = "center";
  g.textBaseline = "top";
  for (const t of spec.hideTicks ? [] : linearTicks(xr, Math.max(2, Math.round(plotW / (60 * k))))) {
    const x = px(t.at);
    g.fillText(t.text, x, m.t + plotH + 6);
  }
  if (spec.xTitle) g.fillText(spec.xTitle, m.l + plotW / 2, m.t + plotH + 12 + fs);
  if (spec.yTitle) {
    g.save(); g.translate(14 * k, m.t + plotH / 2); g.rotate(-Math.PI / 2); g.fillText(spec.yTitle, 0, -6 * k); g.restore();
  }

  // series (clipped to the plot area)
  panel.hits = [];
  g.save();
  g.beginPath(); g.rect(m.l, m.t - 4, plotW, plotH + 8); g.clip();
  for (const s of spec.series) {
    g.globalAlpha = s.opacity;
    g.strokeStyle = s.color;
    g.fillStyle = s.color;
    g.lineWidth = s.width;
    g.lineJoin = "round";
    const pts = [];
    for (let i = 0; i < s.x.length; i++) {
      const x = s.x[i], y = s.y[i];
      if (x === null || y === null || !Number.isFinite(x) || !Number.isFinite(y) || (spec.logY && y <= 0)) {
        pts.push(null);
        continue;
      }
      pts.push([px(x), py(y)]);
      if (s.hover) panel.hits.push([px(x), py(y), s.name, x, y, s.color, s.text ? s.text[i] : null]);
    }
    if (s.mode.includes("lines")) {
      g.beginPath();
      let open = false;
      for (const p of pts) {
        if (!p) { open = false; continue; }
        if (open) g.lineTo(p[0], p[1]); else g.moveTo(p[0], p[1]);
        open = true;
      }
      g.stroke();
    }
    if (s.mode.includes("markers")) {
      const r = s.size / 2;
      for (const p of pts) {
        if (!p) continue;
        g.beginPath();
        if (s.symbol === "star") starPath(g, p[0], p[1], r * 1.3); else g.arc(p[0], p[1], r, 0, 2 * Math.PI);
        g.fill();
      }
    }
  }
  g.restore();
  g.globalAlpha = 1;

  // legend under the plot: entries flow left to right and wrap
  g.font = `${fs}px ${font}`;
  g.textAlign = "left";
  g.textBaseline = "middle";
  for (const {entry, x, row, w} of legend.placed) {
    const y = spec.height + row * rowH + rowH / 4;
    g.fillStyle = entry.color;
    if (entry.mode.includes("lines")) g.fillRect(x, y - 2 * k, 16 * k, 4 * k);
    else { g.beginPath(); g.arc(x + 8 * k, y, 4 * k, 0, 2 * Math.PI); g.fill(); }
    g.fillStyle = text;
    g.save(); g.beginPath(); g.rect(x + 22 * k, y - rowH / 2, w - 22 * k - 4, rowH); g.clip();
    g.fillText(entry.name, x + 22 * k, y);
    g.restore();
  }
  canvas.dataset.points = String(lastSeries(spec).x.length);
  const xs = finite(lastSeries(spec).x);
  canvas.dataset.lastX = xs.length ? String(xs[xs.length - 1]) : "";
}

function equalScale(xr, yr, plotW, plotH) {  // widen one range so a unit is as long on x as on y
  const perX = (xr[1] - xr[0]) / plotW, perY = (yr[1] - yr[0]) / plotH;
  if (perX > perY) {
    const half = perX * plotH / 2, mid = (yr[0] + yr[1]) / 2;
    return [xr, [mid - half, mid + half]];
  }
  const half = perY * plotW / 2, mid = (xr[0] + xr[1]) / 2;
  return [[mid - half, mid + half], yr];
}

function starPath(g, x, y, r) {
  for (let k = 0; k < 10; k++) {
    const angle = -Math.PI / 2 + k * Math.PI / 5, radius = k % 2 ? r * 0.45 : r;
    const method = k ? "lineTo" : "moveTo";
    g[method](x + radius * Math.cos(angle), y + radius * Math.sin(angle));
  }
  g.closePath();
}

function lastSeries(spec) {
  return spec.series.length ? spec.series[spec.series.length - 1] : {x: []};
}

function hover(panel, event) {
  const rect = panel.canvas.getBoundingClientRect();
  const mx = event.clientX - rect.left, my = event.clientY - rect.top;
  let best = null, bestD = 30 * 30;
  for (const h of panel.hits) {
    const d = (h[0] - mx) ** 2 + (h[1] - my) ** 2;
    if (d < bestD) { bestD = d; best = h; }
  }
  if (!best) { tip.style.display = "none"; return; }
  tip.textContent = best[6] !== null
    ? `${best[6]}\n(${best[2]})`
    : `${best[2]}\n${panel.spec.xTitle || "x"} ${hoverNumber(best[3])}\n${panel.spec.yTitle || panel.spec.title} ${hoverNumber(best[4])}`;
  tip.style.background = theme.secondaryBackgroundColor || "#f0f2f6";
  tip.style.color = theme.textColor || "#31333f";
  tip.style.borderLeft = `4px solid ${best[5]}`;
  tip.style.display = "block";
  const left = Math.min(event.clientX + 12, window.innerWidth - tip.offsetWidth - 4);
  tip.style.left = `${Math.max(0, left)}px`;
  tip.style.top = `${event.clientY + 12}px`;
}

function renderProgress(bars) {  // [{fraction, text}]: one line of text over a bar each
  while (progressBox.children.length > bars.length) progressBox.lastChild.remove();
  bars.forEach((bar, index) => {
    let row = progressBox.children[index];
    if (!row) {
      row = document.createElement("div");
      row.className = "progress";
      row.setAttribute("role", "progressbar");
      row.setAttribute("aria-valuemin", "0");
      row.setAttribute("aria-valuemax", "100");
      row.innerHTML = '<div class="progress-text"></div><div class="progress-track"><div class="progress-fill"></div></div>';
      progressBox.appendChild(row);
    }
    const percent = Math.round(Math.max(0, Math.min(1, bar.fraction)) * 1000) / 10;
    row.setAttribute("aria-valuenow", String(percent));
    row.firstChild.textContent = bar.text;
    row.firstChild.style.color = theme.textColor || "#31333f";
    row.firstChild.style.fontFamily = theme.font || "sans-serif";
    row.lastChild.style.background = theme.secondaryBackgroundColor || "#f0f2f6";
    row.lastChild.firstChild.style.background = theme.primaryColor || "#ff4b4b";
    row.lastChild.firstChild.style.width = `${percent}%`;
  });
  window.embedlabProgress = bars.map((bar) => bar.text); // read by the browser test
}

function render(specs) {
  const keep = new Set(specs.map((s) => s.key));
  for (const [key, panel] of panels) {
    if (!keep.has(key)) { panel.box.remove(); panels.delete(key); }
  }
  specs.forEach((spec, index) => {
    const panel = panelFor(spec);
    if (grid.children[index] !== panel.box) grid.insertBefore(panel.box, grid.children[index] || null);
    const same = spec.version !== undefined && panel.spec && panel.spec.version === spec.version;
    panel.spec = spec;
    if (!same) draw(panel);  // a versioned panel (a projection frame) is drawn once per version
  });
  window.embedlabPanels = specs; // read by the browser test and the throughput benchmark
  const height = Math.ceil(document.body.getBoundingClientRect().height);
  if (height !== lastHeight) {
    lastHeight = height;
    post("streamlit:setFrameHeight", {height: height});
  }
}

// ---- the live feed (ui/feed.py): the next panels and bars, fetched from a file the server rewrites --------

let feed = null;       // {component, token, seconds, setupShare, signature} of the last render, or null
let feedTimer = null;
let feedText = null;   // the last payload painted (unchanged files are not painted again)
let asked = null;      // the last signature sent back as the component value (a rerun asked for)
window.embedlabRenders = 0;  // render messages (page reruns) and feed paints: read by the browser test
window.embedlabFeeds = 0;

function pause(current) {  // ms to the next fetch: a share of the period while nothing is painted (set-up)
  return current.seconds * 1000 * (panels.size ? 1 : current.setupShare || 1);
}

function follow(next) {
  feed = next && next.token ? next : null;
  clearTimeout(feedTimer);
  if (feed) feedTimer = setTimeout(poll, pause(feed));
}

async function poll() {
  const current = feed;
  try {
    const url = new URL(`../${current.component}/${current.token}.json`, window.location.href);
    const response = await fetch(url, {cache: "no-store"});
    const text = response.ok ? await response.text() : null;
    if (feed === current && text !== null && text !== feedText) {
      feedText = text;
      const payload = JSON.parse(text);
      renderProgress(payload.progress || []);
      render(payload.panels || []);
      window.embedlabFeeds += 1;
      if (payload.signature !== current.signature && payload.signature !== asked) {
        asked = payload.signature;  // what the page draws around the canvas changed: rerun the chart fragment
        post("streamlit:setComponentValue", {value: payload.signature, dataType: "json"});
      }
    }
  } catch (error) {
    // not written yet, or the server is busy: the next poll tries again
  }
  if (feed === current) feedTimer = setTimeout(poll, pause(current));
}

window.addEventListener("message", (event) => {
  if (!event.data || event.data.type !== "streamlit:render") return;
  if (event.data.theme) theme = Object.assign({}, theme, event.data.theme);
  window.embedlabRenders += 1;
  renderProgress(event.data.args.progress || []);
  render(event.data.args.panels || []);
  follow(event.data.args.feed);
});
window.addEventListener("resize", () => { for (const panel of panels.values()) if (panel.spec) draw(panel); });
post("streamlit:componentReady", {apiVersion: 1});
