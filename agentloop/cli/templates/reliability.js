// Reliability across epochs and errors by cause (a run's summary), and the accuracy-cost
// plot of runs compared, the Pareto-optimal runs marked. SVG built node by node: no
// plotting library (triage.js's svg()), and data only ever reaches the page as text.

const CONVENTIONS = [["errors_counted_failed", "counted failed"], ["errors_left_out", "left out"]];

// Per reward with a pass verdict: each convention's figures (left out only when a trial has
// no verdict). Null without a repeated task (one epoch).
function reliabilityTable(summary) {
  const found = Object.entries(summary.reliability || {}).filter(([, r]) => r.errors_counted_failed.repeated_tasks);
  if (!found.length) return null;
  const head = ["reward", "errors", "tasks ≥2 trials", "flip rate", "always passed", "never passed", "consistency", "pass^k"];
  const table = el("table", { class: "stats reliability" }, el("tr", {}, head.map((h) => el("th", { text: h }))));
  for (const [key, r] of found) {
    for (const [field, label] of CONVENTIONS) {
      if (field === "errors_left_out" && !r.without_verdict) continue;
      const f = r[field];
      const ks = Object.keys(f.pass_hat_k || {}).map(Number);
      const most = ks.length ? Math.max(...ks) : null;
      const id = `reliability:${key}:${label.replace(" ", "_")}`;
      table.append(el("tr", {}, el("td", { class: "mono", text: key }), el("td", { text: label }),
        el("td", { text: `${f.repeated_tasks} of ${f.tasks}` }),
        el("td", {}, stat(`${id}:flip_rate`, f.flip_rate)),
        el("td", {}, stat(`${id}:always_passed`, f.always_passed_share)),
        el("td", {}, stat(`${id}:never_passed`, f.never_passed_share)),
        el("td", {}, stat(`${id}:consistency`, f.consistency)),
        el("td", { text: most && most > 1 ? `pass^${most} ${fmt(f.pass_hat_k[most])}` : "-" })));
    }
  }
  return el("div", {}, el("div", { class: "scroll-x" }, table), el("p", { class: "note", "data-field": "reliability-rule",
    text: "Over tasks with ≥2 trials: flip rate = tasks both passed and failed; always/never passed = the rest; " +
      "consistency = the chance two trials of a task agree. Errors counted failed: a trial without a verdict " +
      "(errored, missing) failed (agentloop's rule); left out: dropped (τ²-bench's)." }));
}

// Each reward's cost per pass; "-" when the run cost nothing known (unknown, or 0).
function costPerPassText(summary) {
  const found = Object.entries(summary.cost_per_pass_usd || {});
  if (!summary.cost_usd || !found.length) return "-";
  return found.map(([key, value]) => `${key}: ${value == null ? "-" : usd(value)}`).join(", ");
}

function causesText(summary) {
  const causes = summary.error_causes || {};
  const results = causes.results || {};
  const calls = causes.tool_calls || {};
  const names = Object.keys(results);
  if (!names.some((c) => results[c] || calls[c])) return "-";
  return names.map((c) => `${c}: ${results[c] || 0} result(s), ${calls[c] || 0} tool call(s)`).join("; ");
}

const PLOT = { width: 420, height: 240, left: 48, right: 16, top: 14, bottom: 36 };

// One reward's runs as (cost, score) points; the optimal ones filled and joined by the front.
function costPlot(entry) {
  const placed = entry.rows.filter((r) => r.pareto !== null && r.pareto !== undefined);
  const most = Math.max(0, ...placed.map((r) => r.cost_usd));
  const span = most > 0 ? most * 1.1 : 1;
  const w = PLOT.width - PLOT.left - PLOT.right;
  const h = PLOT.height - PLOT.top - PLOT.bottom;
  const x = (cost) => PLOT.left + (cost / span) * w;
  const y = (score) => PLOT.top + (1 - score) * h;
  const plot = svg("svg", { class: "cost-plot", "data-reward": entry.reward, width: PLOT.width, height: PLOT.height,
    viewBox: `0 0 ${PLOT.width} ${PLOT.height}`, role: "img",
    "aria-label": `${entry.reward}: score against cost, the Pareto-optimal runs filled` });
  plot.append(svg("line", { x1: PLOT.left, y1: y(0), x2: PLOT.left + w, y2: y(0), stroke: "#98a2b3" }),
    svg("line", { x1: PLOT.left, y1: y(0), x2: PLOT.left, y2: y(1), stroke: "#98a2b3" }));
  for (const tick of [0, 0.5, 1]) {
    plot.append(svg("text", { x: PLOT.left - 6, y: y(tick) + 4, "text-anchor": "end", "font-size": 11 }, tick));
  }
  plot.append(svg("text", { x: PLOT.left, y: PLOT.height - 18, "font-size": 11 }, "0"),
    svg("text", { x: PLOT.left + w, y: PLOT.height - 18, "text-anchor": "end", "font-size": 11 }, usd(span)),
    svg("text", { x: PLOT.left + w / 2, y: PLOT.height - 4, "text-anchor": "middle", "font-size": 11 }, "cost (USD)"),
    svg("text", { x: 12, y: PLOT.top + h / 2, "font-size": 11, "text-anchor": "middle",
      transform: `rotate(-90 12 ${PLOT.top + h / 2})` }, `score (${entry.better} is better)`));
  const front = placed.filter((r) => r.pareto).sort((a, b) => a.cost_usd - b.cost_usd);
  if (front.length > 1) {
    plot.append(svg("polyline", { class: "front", fill: "none", stroke: "#127a3f", "stroke-dasharray": "4 3",
      points: front.map((r) => `${x(r.cost_usd)},${y(r.score)}`).join(" ") }));
  }
  for (const r of placed) {
    plot.append(svg("g", { class: "point", "data-run": r.label, "data-pareto": r.pareto ? "1" : "0" },
      svg("circle", { cx: x(r.cost_usd), cy: y(r.score), r: 5, stroke: r.pareto ? "#127a3f" : "#667085",
        fill: r.pareto ? "#127a3f" : "#fff", "stroke-width": 2 },
        svg("title", {}, `${r.label}: score ${fmt(r.score)}, cost ${usd(r.cost_usd)} USD${r.pareto ? ", Pareto-optimal" : ""}`)),
      svg("text", { x: x(r.cost_usd) + 8, y: y(r.score) - 6, "font-size": 12 }, r.label)));
  }
  return plot;
}

// The compare page's accuracy-cost panel: per reward, a plot and its table.
function costPanel(comparison) {
  const entries = comparison.cost_accuracy || [];
  if (!entries.length) return null;
  const panel = el("div", { class: "panel", id: "cost-accuracy" }, el("h2", { text: "Accuracy and cost" }));
  for (const entry of entries) {
    const table = el("table", { class: "stats" },
      el("tr", {}, ["run", "score", "cost (USD)", "cost/pass (USD)", "Pareto-optimal"].map((h) => el("th", { text: h }))));
    for (const r of entry.rows) {
      const front = r.pareto === true ? "yes" : r.pareto === false ? "no" : "not placed";
      table.append(el("tr", { "data-run": r.label }, el("td", { text: r.label }), el("td", { text: fmt(r.score) }),
        el("td", { text: usd(r.cost_usd) }), el("td", { text: r.cost_per_pass_usd == null ? "-" : usd(r.cost_per_pass_usd) }),
        el("td", { "data-field": `pareto:${entry.reward}:${r.label}`, title: r.not_placed || "", text: front })));
    }
    panel.append(el("p", { class: "mono" }, el("strong", { text: entry.reward })),
      el("div", { class: "side-by-side" }, el("div", {}, costPlot(entry)), el("div", { class: "scroll-x" }, table)));
    for (const r of entry.rows.filter((row) => row.not_placed)) {
      panel.append(el("p", { class: "muted", "data-field": `not-placed:${entry.reward}:${r.label}`, text: `${r.label} not placed: ${r.not_placed}` }));
    }
  }
  panel.append(el("p", { class: "note", text: "Pareto-optimal (filled, joined): no other run costs no more with a score " +
    "no worse, and less or better on one. Cost: the agent's requests (judges apart)." }));
  return panel;
}
