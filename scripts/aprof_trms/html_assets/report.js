// SPDX-License-Identifier: GPL-2.0-or-later
// Script of the aprof-trms HTML report (aprof_trms/html.py inlines it):
// reads the JSON data of the page and draws the header, the routine table
// (only the rows in view, so that 20,000 routines stay fast), the plots of
// the selected routine, the ranking and the regression comparison, as SVG.
// No library and no network access: the file works offline.
//
// Copyright (C) 2026, the aprof-trms authors.
"use strict";

const DATA = JSON.parse(document.getElementById("data").textContent);
const SVGNS = "http://www.w3.org/2000/svg";
const COLORS = ["#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2",
  "#7f7f7f", "#bcbd22", "#17becf"];
const ROW_HEIGHT = 21;     // px, as #routine-table td in report.css
const OVERSCAN = 10;       // rows drawn above and below the visible ones

// Row fields, in the order of html.py's _row_json.
const F = { name: 0, object: 1, calls: 2, self_cost: 3, self_share: 4, inclusive_cost: 5,
  inclusive_share: 6, distinct_trms: 7, distinct_rms: 8, richness: 9, thread_share: 10,
  external_share: 11, trms_growth: 12, rms_growth: 13, trms_label: 14, rms_label: 15,
  top_producer: 16, top_producer_share: 17, selected: 18 };

// Points and fits of routine idx: the #details script holds one JSON text per
// routine (after a leading newline), parsed when the routine is shown; null
// for a routine whose details a page of very many routines leaves out.
let detailLines = null;
function detail(idx) {
  if (!detailLines) detailLines = document.getElementById("details").textContent.split("\n");
  return JSON.parse(detailLines[idx + 1]);
}

function el(tag, attrs, text) {
  const e = document.createElement(tag);
  for (const k in attrs || {}) e.setAttribute(k, attrs[k]);
  if (text !== undefined) e.textContent = text;
  return e;
}

function svgEl(tag, attrs, text) {
  const e = document.createElementNS(SVGNS, tag);
  for (const k in attrs || {}) e.setAttribute(k, attrs[k]);
  if (text !== undefined) e.textContent = text;
  return e;
}

// 1234567 -> "1.23M": short tick labels that do not overlap.
function compact(v) {
  const a = Math.abs(v);
  const units = [[1e12, "T"], [1e9, "G"], [1e6, "M"], [1e3, "k"]];
  for (const [u, s] of units) if (a >= u) return +(v / u).toPrecision(3) + s;
  return String(+v.toPrecision(3));
}

function objectName(i) {
  const path = DATA.objects[i];
  return path.substring(path.lastIndexOf("/") + 1);
}

// ---------------------------------------------------------------------------
// Tooltip: values on hover.
// ---------------------------------------------------------------------------

const tooltip = document.getElementById("tooltip");
function showTip(ev, text) {
  tooltip.textContent = text;
  tooltip.style.display = "block";
  tooltip.style.left = (ev.clientX + 12) + "px";
  tooltip.style.top = (ev.clientY + 12) + "px";
}
function hideTip() { tooltip.style.display = "none"; }

// ---------------------------------------------------------------------------
// Charts: points, lines and min-max ranges on linear or log axes.
// ---------------------------------------------------------------------------

function niceTicks(lo, hi, count) {
  const span = hi - lo || 1;
  const raw = span / count;
  const mag = Math.pow(10, Math.floor(Math.log10(raw)));
  const step = [1, 2, 5, 10].map(m => m * mag).find(s => span / s <= count) || 10 * mag;
  const ticks = [];
  for (let v = Math.ceil(lo / step) * step; v <= hi + step * 1e-9; v += step) ticks.push(+v.toPrecision(12));
  return ticks;
}

function logTicks(lo, hi) {
  const a = Math.floor(Math.log10(lo)), b = Math.ceil(Math.log10(hi));
  const every = Math.max(1, Math.ceil((b - a) / 6));
  const ticks = [];
  for (let e = a; e <= b; e += every) ticks.push(Math.pow(10, e));
  return ticks;
}

function axisScale(values, log, fromZero) {
  let lo = Math.min(...values), hi = Math.max(...values);
  if (log) {
    lo = Math.pow(10, Math.floor(Math.log10(lo)));
    hi = Math.pow(10, Math.ceil(Math.log10(hi)));
    if (hi <= lo) hi = lo * 10;
    const l0 = Math.log10(lo), l1 = Math.log10(hi);
    return { ticks: logTicks(lo, hi), frac: v => (Math.log10(v) - l0) / (l1 - l0), lo, hi };
  }
  if (fromZero) lo = Math.min(0, lo);
  if (hi <= lo) hi = lo + 1;
  const ticks = niceTicks(lo, hi, 5);
  hi = Math.max(hi, ticks[ticks.length - 1]);
  return { ticks, frac: v => (v - lo) / (hi - lo), lo, hi };
}

// The text cut into lines of at most maxWidth pixels in the charts' legend
// font, between words (a word wider than a line is cut): a fit's notes are
// long, and an SVG text is not wrapped by the browser (it ran off the panel).
let legendCanvas = null;
function wrapText(text, maxWidth) {
  legendCanvas = legendCanvas || document.createElement("canvas").getContext("2d");
  legendCanvas.font = "11px sans-serif";
  const fits = t => legendCanvas.measureText(t).width <= maxWidth;
  const lines = [];
  let line = "";
  for (let word of String(text).split(" ")) {
    while (!fits(word)) {             // a word wider than a line: cut it
      let n = word.length - 1;
      while (n > 1 && !fits(word.slice(0, n))) n--;
      if (line) { lines.push(line); line = ""; }
      lines.push(word.slice(0, n));
      word = word.slice(n);
    }
    const longer = line ? line + " " + word : word;
    if (fits(longer)) line = longer;
    else { lines.push(line); line = word; }
  }
  if (line || !lines.length) lines.push(line);
  return lines;
}

// spec: {id, title, xlabel, ylabel, log, width, height, series: [{name, color,
// kind: "points" | "line" | "range", dash, points: [[x, y, tip] or [x, lo, hi, tip]]}],
// legend: [text lines]}. Returns the <svg>.
function chart(spec) {
  const W = spec.width || 440, H = spec.height || 280, LINE = 13;
  const ok = v => !spec.log || v > 0;
  let dropped = 0;
  const xs = [], ys = [];
  for (const s of spec.series) {
    for (const p of s.points) {
      const yv = s.kind === "range" ? [p[1], p[2]] : [p[1]];
      if (!ok(p[0]) || !yv.every(ok)) {
        if (s.kind !== "line") dropped++;
        continue;
      }
      xs.push(p[0]); ys.push(...yv);
    }
  }
  // Legend entries below the plot, coloured as the series of the same
  // position, wrapped to the panel's width.
  const entries = (spec.legend || []).map((text, i) => [text, spec.series[i] ? spec.series[i].color : "#333"]);
  if (dropped) entries.push([`${dropped} point(s) at 0 not shown on log axes`, "#333"]);
  const legend = entries.flatMap(([text, color]) => wrapText(text, W - 58 - 8).map(line => [line, color]));
  const height = H + LINE * legend.length + 4;
  const svg = svgEl("svg", { class: "chart", id: spec.id, width: W, height, viewBox: `0 0 ${W} ${height}` });
  svg.appendChild(svgEl("text", { x: W / 2, y: 14, "text-anchor": "middle", class: "title" }, spec.title));
  const x0 = 58, x1 = W - 12, y0 = H - 38, y1 = 22;
  if (xs.length === 0) {
    svg.appendChild(svgEl("text", { x: W / 2, y: H / 2, "text-anchor": "middle" }, "no point to draw"));
    return svg;
  }
  const sx = axisScale(xs, spec.log, true), sy = axisScale(ys, spec.log, true);
  const px = v => x0 + sx.frac(v) * (x1 - x0), py = v => y0 - sy.frac(v) * (y0 - y1);
  for (const t of sx.ticks) {
    if (t < sx.lo || t > sx.hi) continue;
    svg.appendChild(svgEl("line", { x1: px(t), x2: px(t), y1: y0, y2: y1, class: "grid" }));
    svg.appendChild(svgEl("text", { x: px(t), y: y0 + 13, "text-anchor": "middle" }, compact(t)));
  }
  for (const t of sy.ticks) {
    if (t < sy.lo || t > sy.hi) continue;
    svg.appendChild(svgEl("line", { x1: x0, x2: x1, y1: py(t), y2: py(t), class: "grid" }));
    svg.appendChild(svgEl("text", { x: x0 - 4, y: py(t) + 4, "text-anchor": "end" }, compact(t)));
  }
  svg.appendChild(svgEl("path", { d: `M${x0},${y1}V${y0}H${x1}`, class: "axis", fill: "none" }));
  svg.appendChild(svgEl("text", { x: (x0 + x1) / 2, y: y0 + 28, "text-anchor": "middle" }, spec.xlabel));
  svg.appendChild(svgEl("text", { x: 12, y: (y0 + y1) / 2, "text-anchor": "middle",
    transform: `rotate(-90 12 ${(y0 + y1) / 2})` }, spec.ylabel));
  // Lines first, so that the points are drawn above them.
  const order = spec.series.filter(s => s.kind === "line").concat(spec.series.filter(s => s.kind !== "line"));
  for (const s of order) {
    const g = svgEl("g", { class: "series", "data-name": s.name });
    if (s.kind === "line") {
      const d = s.points.filter(p => ok(p[0]) && ok(p[1]) && p[1] <= sy.hi * 1.05)
        .map((p, i) => `${i ? "L" : "M"}${px(p[0]).toFixed(1)},${py(p[1]).toFixed(1)}`).join("");
      g.appendChild(svgEl("path", { d, fill: "none", stroke: s.color, "stroke-width": 1.5,
        "stroke-dasharray": s.dash || "", class: "fit" }));
    } else {
      for (const p of s.points) {
        const yv = s.kind === "range" ? [p[1], p[2]] : [p[1]];
        if (!ok(p[0]) || !yv.every(ok)) continue;
        const tip = p[p.length - 1];
        if (s.kind === "range") {
          g.appendChild(svgEl("line", { x1: px(p[0]), x2: px(p[0]), y1: py(p[1]), y2: py(p[2]),
            stroke: s.color, "stroke-width": 2, opacity: 0.6 }));
        }
        // A range's point is its average (p[3]), between min and max.
        const y = s.kind === "range" ? p[3] : p[1];
        const c = svgEl("circle", { cx: px(p[0]).toFixed(1), cy: py(y).toFixed(1), r: 3.5, fill: s.color, class: "pt" });
        c.addEventListener("mousemove", ev => showTip(ev, tip));
        c.addEventListener("mouseleave", hideTip);
        c.appendChild(svgEl("title", {}, tip));
        g.appendChild(c);
      }
    }
    svg.appendChild(g);
  }
  legend.forEach(([text, color], i) => svg.appendChild(svgEl("text", { x: x0, y: H + 4 + LINE * i, fill: color }, text)));
  return svg;
}

// ---------------------------------------------------------------------------
// Header and program-level charts.
// ---------------------------------------------------------------------------

function renderHeader() {
  const h = document.getElementById("header");
  h.appendChild(el("h1", {}, "aprof-trms report: " + (DATA.commands.join(" ; ") || "?")));
  const dl = el("dl", { class: "meta" });
  const add = (k, v) => { dl.appendChild(el("dt", {}, k)); dl.appendChild(el("dd", {}, v)); };
  add("generated by", DATA.argv + "  (" + DATA.generator + ")");
  add("reports", DATA.paths.join(" "));
  add("cost metric", DATA.cost_metric === "bb" ? "basic blocks" : DATA.cost_metric);
  add("memory resolution", DATA.resolution + " byte" + (DATA.resolution === 1 ? "" : "s") + " per cell");
  add("input metrics", DATA.trms_tracking ? "TRMS and RMS" : "RMS only (--trms=no): TRMS equals RMS");
  if (DATA.kernel_writes_unseen) add("warning", DATA.kernel_writes_unseen);
  add("total cost", DATA.total_cost.toLocaleString("en") + " over " + DATA.threads.length + " thread(s)");
  add("threads", DATA.threads.map(t => `${t[0]}: ${t[1].toLocaleString("en")} (${(100 * t[1] / (DATA.total_cost || 1)).toFixed(1)}%)`).join("; "));
  h.appendChild(dl);
}

// "x% of the routines have a value >= y", as steps (charts.py's curve()).
function curvePoints(values) {
  const ys = values.slice().sort((a, b) => b - a);
  const n = ys.length, pts = [];
  if (!n) return pts;
  pts.push([0, ys[0]]);
  for (let i = 0; i < n; i++) {
    if (i + 1 < n && ys[i + 1] === ys[i]) continue;
    pts.push([100 * (i + 1) / n, ys[i]]);
    if (i + 1 < n) pts.push([100 * (i + 1) / n, ys[i + 1]]);
  }
  return pts;
}

// Figure 9 of the paper: per routine (largest induced share first), stacked
// bars of thread-induced and external reads in % of its sum of TRMS.
function inducedBars(rows, withInduced) {
  const W = 440, H = 280, x0 = 48, x1 = W - 10, y0 = H - 40, y1 = 22;
  const svg = svgEl("svg", { class: "chart", id: "chart-induced", width: W, height: H, viewBox: `0 0 ${W} ${H}` });
  svg.appendChild(svgEl("text", { x: W / 2, y: 14, "text-anchor": "middle", class: "title" },
    `Induced input per routine (${rows.length} of ${withInduced} with induced reads)`));
  for (const t of [0, 25, 50, 75, 100]) {
    const y = y0 - (y0 - y1) * t / 100;
    svg.appendChild(svgEl("line", { x1: x0, x2: x1, y1: y, y2: y, class: "grid" }));
    svg.appendChild(svgEl("text", { x: x0 - 4, y: y + 4, "text-anchor": "end" }, t + "%"));
  }
  const step = (x1 - x0) / Math.max(rows.length, 1), width = Math.max(2, step * 0.7);
  rows.forEach(([name, thread, external], i) => {
    const x = x0 + step * i + (step - width) / 2;
    let base = y0;
    [[thread, COLORS[0], "thread-induced"], [external, COLORS[1], "external"]].forEach(([v, color, what]) => {
      const h = (y0 - y1) * v / 100;
      const bar = svgEl("rect", { x, y: base - h, width, height: h, fill: color, class: "bar" });
      const tip = `${name}\n${what} ${v}% of its sum of TRMS`;
      bar.addEventListener("mousemove", ev => showTip(ev, tip));
      bar.addEventListener("mouseleave", hideTip);
      bar.appendChild(svgEl("title", {}, tip));
      svg.appendChild(bar);
      base -= h;
    });
  });
  svg.appendChild(svgEl("path", { d: `M${x0},${y1}V${y0}H${x1}`, class: "axis", fill: "none" }));
  svg.appendChild(svgEl("text", { x: (x0 + x1) / 2, y: y0 + 14, "text-anchor": "middle" }, "routines, largest induced share first (hover: names)"));
  svg.appendChild(svgEl("text", { x: x0, y: y0 + 30, fill: COLORS[0] }, "thread-induced"));
  svg.appendChild(svgEl("text", { x: x0 + 110, y: y0 + 30, fill: COLORS[1] }, "external (kernel)"));
  return svg;
}

function renderProgram() {
  const p = DATA.program, box = document.getElementById("program-charts");
  box.appendChild(inducedBars(p.induced, p.with_induced));
  box.appendChild(chart({ id: "chart-richness", title: "Profile richness", xlabel: "% of routines",
    ylabel: "richness >= y", log: false,
    series: [{ name: "richness", color: COLORS[0], kind: "line", points: curvePoints(p.richness) }] }));
  box.appendChild(chart({ id: "chart-volume", title: "Input volume 1 - ΣRMS/ΣTRMS", xlabel: "% of routines",
    ylabel: "volume >= y", log: false,
    series: [{ name: "volume", color: COLORS[0], kind: "line", points: curvePoints(p.volume) }] }));
  const total = p.thread_induced + p.external;
  const pct = v => total ? (100 * v / total).toFixed(1) : "0.0";
  const split = el("div", { id: "induced-split" });
  split.appendChild(el("b", {}, "Induced reads of the program: "));
  split.appendChild(document.createTextNode(total ? `${p.thread_induced.toLocaleString("en")} thread-induced (${pct(p.thread_induced)}%), ` +
    `${p.external.toLocaleString("en")} external (${pct(p.external)}%), each read counted once (charts.py's thread roots)` : "none"));
  document.getElementById("program").appendChild(split);
}

// ---------------------------------------------------------------------------
// Routine table.
// ---------------------------------------------------------------------------

const COLUMNS = [["name", "routine", "routine name (click: its plots)"],
  ["object", "object", "ELF object"]].concat(DATA.columns.filter(c => c[0] !== "name" && c[0] !== "object"));
// Left-aligned, and sorted A to Z on the first click.
const TEXT_COLUMNS = new Set(["name", "object", "top_producer"]);
const state = { order: [], sortKey: "inclusive_cost", ascending: false, selected: -1 };

function cellText(row, key) {
  switch (key) {
    case "name": return row[F.name];
    case "object": return objectName(row[F.object]);
    case "trms_growth": return row[F.trms_label];
    case "rms_growth": return row[F.rms_label];
    case "richness": return (row[F.richness] >= 0 ? "+" : "") + row[F.richness].toFixed(2);
    case "self_share": case "inclusive_share": case "thread_share": case "external_share":
      return row[F[key]].toFixed(2);
    // Present only for reports with input sources (html.py's columns).
    case "top_producer": return row[F.top_producer] || "-";
    case "top_producer_share": return row[F.top_producer] ? row[F.top_producer_share].toFixed(2) : "-";
    default: return String(row[F[key]]);
  }
}

function sortValue(row, key) {
  return key === "object" ? objectName(row[F.object]) : row[F[key]];
}

function filterRows() {
  const showAll = document.getElementById("show-all").checked;
  const text = document.getElementById("filter-name").value;
  const regex = document.getElementById("filter-regex").checked;
  const obj = document.getElementById("filter-object").value;
  const err = document.getElementById("filter-error");
  let match = name => true;
  err.textContent = "";
  if (text) {
    if (regex) {
      try { const re = new RegExp(text); match = name => re.test(name); }
      catch (e) { err.textContent = "invalid regular expression: " + e.message; match = name => false; }
    } else {
      const low = text.toLowerCase();
      match = name => name.toLowerCase().includes(low);
    }
  }
  const objIndex = obj === "" ? -1 : +obj;
  const order = [];
  DATA.rows.forEach((row, i) => {
    if ((showAll || row[F.selected]) && (objIndex < 0 || row[F.object] === objIndex) && match(row[F.name])) order.push(i);
  });
  state.order = order;
  sortRows();
}

// Code-point order, as Python's sort (and faster than localeCompare).
function compareText(a, b) { return a < b ? -1 : a > b ? 1 : 0; }

function sortRows() {
  const key = state.sortKey, sign = state.ascending ? 1 : -1;
  state.order.sort((a, b) => {
    const va = sortValue(DATA.rows[a], key), vb = sortValue(DATA.rows[b], key);
    const c = typeof va === "string" ? compareText(va, vb) : va - vb;
    return c ? sign * c : compareText(DATA.rows[a][F.name], DATA.rows[b][F.name]);
  });
  const showAll = document.getElementById("show-all").checked;
  const sel = DATA.rows.filter(r => r[F.selected]).length;
  document.getElementById("row-count").textContent = `${state.order.length} of ${DATA.rows.length} routines` +
    (showAll ? "" : ` (the selection of ${sel}: ${DATA.selection} Tick "show every routine" for the others.)`);
  for (const th of document.querySelectorAll("#routine-table th")) {
    th.classList.toggle("sorted-asc", th.dataset.key === key && state.ascending);
    th.classList.toggle("sorted-desc", th.dataset.key === key && !state.ascending);
  }
  document.getElementById("table-scroll").scrollTop = 0;
  renderRows();
}

function spacer(height) {
  const tr = el("tr", { class: "spacer" });
  const td = el("td", { colspan: COLUMNS.length });
  td.style.height = height + "px";
  td.style.padding = "0";
  tr.appendChild(td);
  return tr;
}

// Draws only the rows in view (plus OVERSCAN): the table of 20,000 routines
// stays as fast as one of 50.
function renderRows() {
  const scroll = document.getElementById("table-scroll");
  const tbody = document.querySelector("#routine-table tbody");
  const first = Math.max(0, Math.floor(scroll.scrollTop / ROW_HEIGHT) - OVERSCAN);
  const count = Math.ceil(scroll.clientHeight / ROW_HEIGHT) + 2 * OVERSCAN;
  const last = Math.min(state.order.length, first + count);
  const frag = document.createDocumentFragment();
  frag.appendChild(spacer(first * ROW_HEIGHT));
  for (let i = first; i < last; i++) {
    const idx = state.order[i], row = DATA.rows[idx];
    const tr = el("tr", { class: "row" + (idx === state.selected ? " selected" : ""), "data-index": idx });
    for (const [key] of COLUMNS) {
      const td = el("td", { class: TEXT_COLUMNS.has(key) ? "text" : "" }, cellText(row, key));
      if (key === "name" || key === "object") td.title = key === "name" ? row[F.name] : DATA.objects[row[F.object]];
      tr.appendChild(td);
    }
    frag.appendChild(tr);
  }
  frag.appendChild(spacer((state.order.length - last) * ROW_HEIGHT));
  tbody.replaceChildren(frag);
}

function renderTable() {
  const tr = el("tr");
  for (const [key, header, title] of COLUMNS) {
    const th = el("th", { "data-key": key, title, class: TEXT_COLUMNS.has(key) ? "text" : "" }, header);
    th.addEventListener("click", () => {
      if (state.sortKey === key) state.ascending = !state.ascending;
      else { state.sortKey = key; state.ascending = TEXT_COLUMNS.has(key); }
      sortRows();
    });
    tr.appendChild(th);
  }
  document.querySelector("#routine-table thead").appendChild(tr);
  const objSelect = document.getElementById("filter-object");
  DATA.objects.map((path, i) => [objectName(i), i]).sort((a, b) => compareText(a[0], b[0]))
    .forEach(([name, i]) => objSelect.appendChild(el("option", { value: i, title: DATA.objects[i] }, name)));
  for (const id of ["filter-name", "filter-regex", "filter-object", "show-all"]) {
    document.getElementById(id).addEventListener(id === "filter-name" ? "input" : "change", filterRows);
  }
  let pending = false;
  document.getElementById("table-scroll").addEventListener("scroll", () => {
    if (pending) return;
    pending = true;
    requestAnimationFrame(() => { pending = false; renderRows(); });
  });
  document.querySelector("#routine-table tbody").addEventListener("click", ev => {
    const tr = ev.target.closest("tr.row");
    if (tr) selectRoutine(+tr.dataset.index);
  });
  filterRows();
}

// ---------------------------------------------------------------------------
// Plots of the selected routine.
// ---------------------------------------------------------------------------

// f(n) of a fitted model, as aprof_trms/fit.py's model_term (log n = log2(n + 1)).
function modelTerm(model, n, k) {
  switch (model) {
    case "1": return 0;
    case "log n": return Math.log2(n + 1);
    case "sqrt n": return Math.sqrt(n);
    case "n": return n;
    case "n log n": return n * Math.log2(n + 1);
    case "n^2": return n * n;
    case "n^3": return n * n * n;
    case "n^k": return Math.pow(n, k);
  }
  throw new Error("unknown model " + model);
}

function fitLine(fit, sizes, log, color, dash, name) {
  const lo = Math.max(log ? 1 : 0, Math.min(...sizes)), hi = Math.max(...sizes);
  const pts = [];
  for (let i = 0; i <= 80; i++) {
    const n = log ? lo * Math.pow(hi / lo, i / 80) : lo + (hi - lo) * i / 80;
    pts.push([n, fit.a + fit.c * n + fit.b * modelTerm(fit.model, n, fit.k)]);
  }
  return { name, color, kind: "line", dash, points: pts };
}

const METRIC_NAME = { trms: "TRMS", rms: "RMS" };
const KINDS = {
  cost: { title: "worst-case cost", ylabel: "max cost", kind: "points",
    point: (p, m) => [p[0], p[3], `${METRIC_NAME[m]} ${p[0]}\nmax cost ${p[3]}\ncalls ${p[1]}`] },
  workload: { title: "workload", ylabel: "activations", kind: "points",
    point: (p, m) => [p[0], p[1], `${METRIC_NAME[m]} ${p[0]}\nactivations ${p[1]}`] },
  stats: { title: "min / avg / max cost", ylabel: "cost", kind: "range",
    point: (p, m) => [p[0], p[2], p[3], p[4] / p[1], `${METRIC_NAME[m]} ${p[0]}\nmin ${p[2]}\navg ${(p[4] / p[1]).toPrecision(6)}\nmax ${p[3]}`] },
  total: { title: "total cost", ylabel: "total cost", kind: "points",
    point: (p, m) => [p[0], p[4], `${METRIC_NAME[m]} ${p[0]}\ntotal cost ${p[4]}\ncalls ${p[1]}`] },
};

function plotSpec(idx, kind, metric, log, perThread) {
  const d = detail(idx), K = KINDS[kind];
  const unit = DATA.cost_metric === "bb" ? "basic blocks" : DATA.cost_metric;
  const series = [], legend = [];
  if (perThread) {
    d.threads.forEach((t, i) => {
      if (!t) return;
      const pts = metric === "trms" ? t[0] : t[1];
      series.push({ name: DATA.threads[i][0], color: COLORS[i % COLORS.length], kind: K.kind,
        points: pts.map(p => K.point(p, metric)) });
      legend.push(DATA.threads[i][0]);
    });
  } else {
    series.push({ name: "merged", color: COLORS[0], kind: K.kind, points: d[metric].map(p => K.point(p, metric)) });
    legend.push(`${d[metric].length} distinct ${METRIC_NAME[metric]} size(s)`);
    const fit = d.fits[metric];
    if (kind === "cost") {
      if (fit.best) {
        // Over the sizes fitted (a second population left out may reach further).
        const sizes = fit.span || d[metric].map(p => p[0]);
        series.push(fitLine(fit.best, sizes, log, COLORS[3], "", "fit"));
        legend.push(`fit: ${fit.best.label}: ${fit.best.formula} (R² ${fit.best.r2})`);
        if (fit.runner_up) {
          series.push(fitLine(fit.runner_up, sizes, log, COLORS[7], "5,4", "runner-up"));
          legend.push(`runner-up: ${fit.runner_up.label}: ${fit.runner_up.formula} (ΔAICc ${(fit.runner_up.aicc - fit.best.aicc).toFixed(1)})`);
        }
        for (const note of fit.notes) legend.push(note);
        if (fit.doubts.length) legend.push("inconclusive: " + fit.doubts.join("; "));
      } else {
        legend.push(fit.reason);   // "no fit: only K distinct sizes (need 5)"
      }
    }
  }
  // Legend lines take the colour of the series of the same position.
  return { id: `plot-${kind}-${metric}`, title: `${K.title} vs ${METRIC_NAME[metric]}`,
    xlabel: `${METRIC_NAME[metric]} (cells of ${DATA.resolution} bytes)`,
    ylabel: kind === "workload" ? K.ylabel : `${K.ylabel} (${unit})`, log, series, legend };
}

function renderPlots() {
  const idx = state.selected;
  if (idx < 0) return;
  const row = DATA.rows[idx];
  const log = document.getElementById("log-axes").checked;
  const perThread = document.getElementById("view").value === "threads";
  document.getElementById("detail-title").textContent = row[F.name];
  document.getElementById("detail-text").textContent =
    `${DATA.objects[row[F.object]]}: ${row[F.calls]} calls, inclusive ${row[F.inclusive_cost]} ` +
    `(${row[F.inclusive_share].toFixed(2)}%), self ${row[F.self_cost]} (${row[F.self_share].toFixed(2)}%), ` +
    `TRMS model ${row[F.trms_label]}, RMS model ${row[F.rms_label]}`;
  const box = document.getElementById("plots");
  if (!detail(idx)) {   // a routine whose points the page does not hold (html.py's details_note)
    box.replaceChildren(el("p", { class: "note", id: "not-detailed" }, DATA.details_note));
    document.getElementById("calls").replaceChildren();
    return;
  }
  const frag = document.createDocumentFragment();
  for (const kind of Object.keys(KINDS)) {
    for (const metric of ["trms", "rms"]) frag.appendChild(chart(plotSpec(idx, kind, metric, log, perThread)));
  }
  box.replaceChildren(frag);
  renderCalls(idx, log);   // calls.js
}

// Every routine has an anchor of its own, #routine-NAME (characters other
// than letters, digits and _.:~- as "_"; -2, -3... after a name shared by
// several routines, in the table's order), so that a routine can be linked
// to: the page opened with it selects that routine and shows it.
let anchors = null;
function anchorOf(idx) {
  if (!anchors) {
    anchors = [];
    const seen = new Map();
    for (const row of DATA.rows) {
      const slug = "routine-" + row[F.name].replace(/[^A-Za-z0-9_.:~-]+/g, "_");
      const n = (seen.get(slug) || 0) + 1;
      seen.set(slug, n);
      anchors.push(n === 1 ? slug : `${slug}-${n}`);
    }
  }
  return anchors[idx];
}

// The routine a location hash names: its anchor, or its name as written.
function routineOfHash(hash) {
  let wanted;
  try { wanted = decodeURIComponent(hash.replace(/^#/, "")); } catch (e) { return -1; }
  if (!wanted) return -1;
  for (let i = 0; i < DATA.rows.length; i++) if (anchorOf(i) === wanted) return i;
  return DATA.rows.findIndex(row => row[F.name] === wanted);
}

function selectRoutine(idx, block = "nearest") {
  state.selected = idx;
  renderRows();
  renderPlots();
  // The routine's section carries its anchor, and the address links to it.
  document.querySelector("#detail .anchor").id = anchorOf(idx);
  if (location.hash !== "#" + anchorOf(idx)) history.replaceState(null, "", "#" + anchorOf(idx));
  document.getElementById("detail").scrollIntoView({ block });
}

function selectHashRoutine() {
  const idx = routineOfHash(location.hash);
  if (idx >= 0 && idx !== state.selected) selectRoutine(idx, "start");
}

// ---------------------------------------------------------------------------
// Ranking and regressions.
// ---------------------------------------------------------------------------

function routineLink(idx) {
  const a = el("a", { class: "routine", "data-index": idx, href: "#" + anchorOf(idx) },
               DATA.rows[idx][F.name]);
  a.addEventListener("click", ev => {
    if (ev.button !== 0 || ev.ctrlKey || ev.metaKey || ev.shiftKey) return;   // a new tab
    ev.preventDefault();
    selectRoutine(idx);
  });
  return a;
}

function renderRanking() {
  const body = document.getElementById("ranking-body");
  if (!DATA.ranking.length) { body.textContent = "No routine with enough distinct input sizes to rank."; return; }
  const t = el("table", { class: "list", id: "ranking-table" });
  const head = el("tr");
  for (const h of ["#", "routine", "object", "why here"]) head.appendChild(el("th", {}, h));
  t.appendChild(head);
  DATA.ranking.forEach(([idx, reason], i) => {
    const tr = el("tr");
    tr.appendChild(el("td", { class: "num" }, String(i + 1)));
    const td = el("td");
    td.appendChild(routineLink(idx));
    tr.appendChild(td);
    tr.appendChild(el("td", {}, objectName(DATA.rows[idx][F.object])));
    tr.appendChild(el("td", {}, reason));
    t.appendChild(tr);
  });
  body.appendChild(t);
}

function renderRegression() {
  const section = document.getElementById("regression");
  if (!DATA.regression) { section.style.display = "none"; return; }
  const pre = el("pre", { class: "lines", id: "regression-lines" });
  for (const line of DATA.regression) {
    const cls = line.startsWith("REGRESSION") ? "regression" : line.startsWith("IMPROVED") ? "improved" : "";
    pre.appendChild(el("div", { class: cls }, line));
  }
  document.getElementById("regression-body").appendChild(pre);
}

renderHeader();
renderProgram();
renderTable();
renderRanking();
renderRegression();
document.getElementById("log-axes").addEventListener("change", renderPlots);
document.getElementById("view").addEventListener("change", renderPlots);
if (DATA.threads.length < 2) document.getElementById("view").disabled = true;
window.addEventListener("hashchange", selectHashRoutine);
selectHashRoutine();
// Last: the tests and the load-time benchmark wait for it.
document.body.dataset.ready = performance.now().toFixed(1);
