// SPDX-License-Identifier: GPL-2.0-or-later
// Callers, callees and calling contexts of the routine shown in the HTML
// report (aprof_trms/html_calls.py gives the data; html.py inlines this file
// after report.js, whose helpers it uses: el, chart, fitLine, routineLink,
// objectName, compact).
//
// Copyright (C) 2026, the aprof-trms authors.
"use strict";

function sharePct(cost) {
  return DATA.total_cost ? (100 * cost / DATA.total_cost).toFixed(2) : "0.00";
}

// A table of call edges: [routine index, calls, inclusive cost] each.
function edgeTable(id, title, edges) {
  const box = el("div", { class: "edges", id });
  box.appendChild(el("h3", {}, `${title} (${edges.length})`));
  if (!edges.length) {
    box.appendChild(el("p", { class: "note" }, title === "Callers" ? "none: a root of its threads"
      : "none: it called no profiled routine"));
    return box;
  }
  const t = el("table", { class: "list" });
  const head = el("tr");
  for (const h of ["routine", "object", "calls", "inclusive cost", "share %"]) head.appendChild(el("th", {}, h));
  t.appendChild(head);
  for (const [idx, calls, cost] of edges) {
    const tr = el("tr");
    const td = el("td");
    td.appendChild(routineLink(idx));
    tr.appendChild(td);
    tr.appendChild(el("td", {}, objectName(DATA.rows[idx][F.object])));
    tr.appendChild(el("td", { class: "num" }, String(calls)));
    tr.appendChild(el("td", { class: "num" }, String(cost)));
    tr.appendChild(el("td", { class: "num" }, sharePct(cost)));
    t.appendChild(tr);
  }
  box.appendChild(t);
  return box;
}

// How many routines every chain starts with (their own routine left out), as
// contexts.py's common_callers: shown once above the table, "…" in the rows.
function commonCallers(chains) {
  if (chains.length < 2) return 0;
  let n = 0;
  while (chains.every(c => c.length > n + 1 && c[n] === chains[0][n])) n++;
  return n;
}

// Appends routines to `parent` as links separated by " › ".
function appendChain(parent, idxs) {
  idxs.forEach((idx, i) => {
    if (i) parent.appendChild(document.createTextNode(" › "));
    parent.appendChild(routineLink(idx));
  });
}

// A context's chain after its first `from` routines ("…", named in its
// tooltip), the callers links, the routine itself in bold.
function chainCell(chain, from) {
  const td = el("td", { class: "chain" });
  if (from) {
    td.appendChild(el("span", { title: chain.slice(0, from).map(i => DATA.rows[i][F.name]).join(" › ") }, "…"));
    td.appendChild(document.createTextNode(" › "));
  }
  appendChain(td, chain.slice(from, -1));
  if (chain.length - 1 > from) td.appendChild(document.createTextNode(" › "));
  td.appendChild(el("b", {}, DATA.rows[chain[chain.length - 1]][F.name]));
  return td;
}

function contextSpec(c, i, log) {
  const unit = DATA.cost_metric === "bb" ? "basic blocks" : DATA.cost_metric;
  const series = [{ name: "context", color: COLORS[0], kind: "points",
    points: c.trms.map(p => [p[0], p[3], `TRMS ${p[0]}\nmax cost ${p[3]}\ncalls ${p[1]}`]) }];
  const legend = [`${c.trms.length} distinct TRMS size(s)`];
  if (c.fit.best) {
    series.push(fitLine(c.fit.best, c.trms.map(p => p[0]), log, COLORS[3], "", "fit"));
    legend.push(`fit: ${c.fit.best.label}: ${c.fit.best.formula} (R² ${c.fit.best.r2})`);
  } else {
    legend.push(c.fit.reason);
  }
  return { id: `context-plot-${i + 1}`, title: `context ${i + 1}: worst-case cost vs TRMS`,
    xlabel: `TRMS (cells of ${DATA.resolution} bytes)`, ylabel: `max cost (${unit})`, log, series, legend };
}

function contextsBox(d, log) {
  const box = el("div", { id: "contexts" });
  box.appendChild(el("h3", {}, `Calling contexts (${d.contexts.length}), where it grows worst first`));
  const common = commonCallers(d.contexts.map(c => c.chain));
  if (common) {
    const p = el("p", { class: "note", id: "common-callers" }, `Every context starts with these ${common} routines (… below): `);
    appendChain(p, d.contexts[0].chain.slice(0, common));
    box.appendChild(p);
  }
  const t = el("table", { class: "list", id: "contexts-table" });
  const head = el("tr");
  for (const h of ["#", "context", "calls", "share %", "at scale %", "trust", "fit", "why here"]) head.appendChild(el("th", {}, h));
  t.appendChild(head);
  d.contexts.forEach((c, i) => {
    const tr = el("tr");
    tr.appendChild(el("td", { class: "num" }, String(i + 1)));
    tr.appendChild(chainCell(c.chain, common));
    tr.appendChild(el("td", { class: "num" }, String(c.calls)));
    tr.appendChild(el("td", { class: "num" }, c.share.toFixed(2)));
    tr.appendChild(el("td", { class: "num" }, c.predicted === null ? "-" : c.predicted.toFixed(2)));
    tr.appendChild(el("td", {}, c.trust));
    tr.appendChild(el("td", { class: "fit" }, c.fit.best ? c.fit.best.label : "-"));
    tr.appendChild(el("td", {}, c.reason));
    t.appendChild(tr);
  });
  box.appendChild(t);
  const plots = el("div", { class: "charts", id: "context-plots" });
  d.contexts.forEach((c, i) => plots.appendChild(chart(contextSpec(c, i, log))));
  box.appendChild(plots);
  return box;
}

// Called by renderPlots (report.js) for the routine shown.
function renderCalls(idx, log) {
  const d = detail(idx), box = document.getElementById("calls");
  const frag = document.createDocumentFragment();
  if (DATA.calls.call_graph) {
    const edges = el("div", { class: "charts" });
    edges.appendChild(edgeTable("callers", "Callers", d.callers));
    edges.appendChild(edgeTable("callees", "Callees", d.callees));
    frag.appendChild(edges);
  } else {
    frag.appendChild(el("p", { class: "note" }, "No callers and callees: the reports have no call records (format version 3 and later have them)."));
  }
  if (d.contexts) frag.appendChild(contextsBox(d, log));
  else if (DATA.calls.context_depth === null) frag.appendChild(el("p", { class: "note", id: "no-contexts" },
    `No calling contexts: ${DATA.calls.contexts_missing}; rerun with --collect-context=yes to see them.`));
  box.replaceChildren(frag);
}
