// Triage: a histogram of each reward's scores, the rewards by metadata value, and the
// failures by type. A bar, a value or a failure type narrows the samples table to its
// rows (the "only" chip above the table says which, and clears it).

const SVG_NS = "http://www.w3.org/2000/svg";

function svg(tag, attrs, ...children) {
  const node = document.createElementNS(SVG_NS, tag);
  for (const [key, value] of Object.entries(attrs || {})) node.setAttribute(key, String(value));
  for (const child of children) {
    node.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return node;
}

// Set by buildRun: narrows the table to some rows (null: all of them).
let focusOn = () => {};

// A long name may break after _ . : - / (a <wbr>), so a header shows it whole.
function breakable(text) {
  const parts = String(text).split(/(?<=[_.:\-/])/);
  const fragment = document.createDocumentFragment();
  parts.forEach((part, n) => fragment.append(...(n ? [el("wbr"), part] : [part])));
  return fragment;
}

const BAR = 26;
const GAP = 4;
const CHART = 90;

function barText(bar) {
  if (bar.label === "errored") return "err";
  if (bar.label === "not scored") return "n/s";
  if (bar.low === bar.high) return bar.label;
  if (bar.label.startsWith("(")) return ">0";
  return String(Math.round(bar.low * 100) / 100).replace(/^(-?)0\./, "$1.");
}

function histogramChart(reward, bars) {
  const most = Math.max(1, ...bars.map((bar) => bar.rows.length));
  const width = bars.length * (BAR + GAP);
  const chart = svg("svg", { class: "histogram", width, height: CHART + 30,
    viewBox: `0 0 ${width} ${CHART + 30}`, role: "img", "aria-label": `${reward} scores` });
  bars.forEach((bar, n) => {
    const count = bar.rows.length;
    const height = Math.round((count / most) * (CHART - 14));
    const x = n * (BAR + GAP);
    const kind = bar.low === null ? "other" : bar.high === 0 ? "zero" : bar.low === 1 ? "one" : "part";
    const group = svg("g", { class: `bar ${kind}`, "data-label": bar.label, "data-count": count },
      svg("title", {}, `${bar.label}: ${count} result(s)${count ? " (click: show them)" : ""}`),
      svg("rect", { x, y: CHART - height, width: BAR, height: Math.max(height, count ? 1 : 0) }),
      svg("rect", { class: "hit", x, y: 0, width: BAR, height: CHART + 30 }),
      svg("text", { x: x + BAR / 2, y: CHART + 14, "text-anchor": "middle" }, barText(bar)));
    if (count) group.append(svg("text", { class: "count", x: x + BAR / 2, y: CHART - height - 3, "text-anchor": "middle" }, count));
    if (count) group.addEventListener("click", () => focusOn(`${reward}: ${bar.label}`, bar.rows));
    chart.append(group);
  });
  chart.append(svg("line", { x1: 0, x2: width, y1: CHART + 0.5, y2: CHART + 0.5, class: "axis" }));
  return el("figure", { class: "chart", "data-reward": reward },
    el("figcaption", { class: "mono" }, breakable(reward)), chart);
}

function histogramsPanel() {
  const entries = Object.entries(page.histograms || {});
  if (!entries.length) return null;
  return el("div", { class: "panel", id: "histograms" },
    el("h2", { text: "Score distribution" }),
    el("p", { class: "muted", text: "results per score; 0 and 1 have bars of their own; errored results score 0 in the headline. Click a bar to list its samples." }),
    el("div", { class: "charts" }, entries.map(([reward, bars]) => histogramChart(reward, bars))));
}

function breakdownPanel() {
  const keys = Object.entries(page.summary.by_metadata || {});
  if (!keys.length) return null;
  const panel = el("div", { class: "panel", id: "breakdown" }, el("h2", { text: "By metadata" }),
    el("p", { class: "muted", text: "each reward's score (errored results count 0) with its 95% interval per value of the metadata keys that group samples: 2 to 20 distinct values, fewer than the samples. Click a value to list its samples." }));
  const scored = Object.keys(page.summary.rewards || {});
  for (const [key, groups] of keys) {
    const table = el("table", { class: "stats breakdown", "data-key": key },
      el("tr", {}, el("th", { class: "mono" }, breakable(key)), el("th", { text: "results" }),
        el("th", { text: "errored" }), scored.map((r) => el("th", { class: "mono" }, breakable(r)))));
    for (const [value, group] of Object.entries(groups)) {
      const rowsOf = ((page.metadata_rows || {})[key] || {})[value] || [];
      const link = el("a", { href: "#", class: "mono", text: value });
      link.addEventListener("click", (event) => {
        event.preventDefault();
        focusOn(`${key} = ${value}`, rowsOf);
      });
      table.append(el("tr", { "data-value": value }, el("td", {}, link),
        el("td", {}, stat(`meta:${key}:${value}:results`, group.results)),
        el("td", {}, stat(`meta:${key}:${value}:errored`, group.errored)),
        scored.map((r) => el("td", { class: scoreClass(group.scores[r], lowerIsBetter(r)) }, stat(`meta:${key}:${value}:${r}`, group.scores[r]),
          group.intervals ? el("div", {}, intervalCell(`meta:${key}:${value}:${r}:interval`, group.intervals[r], group.scores[r])) : null))));
    }
    panel.append(el("h3", {}, "metadata.", key), el("div", { class: "scroll-x" }, table));
  }
  return panel;
}

const FAILURE_COLUMNS = [
  ["type", (g) => g.type],
  ["reward", (g) => g.reward || "(errored)"],
  ["results", (g) => g.rows.length],
  ["first samples", null],
  ["first reason", (g) => g.reason],
];

function failuresPanel() {
  const groups = page.failures || [];
  if (!groups.length) return null;
  const filter = el("input", { id: "failure-filter", type: "search", placeholder: "filter: type, reward, reason" });
  const count = el("span", { class: "muted", id: "failure-count" });
  const body = el("tbody");
  const state = { by: 2, desc: true };
  const heads = FAILURE_COLUMNS.map(([label, value], n) => {
    const th = el("th", { text: label, "data-col": label });
    if (value) {
      th.classList.add("sortable");
      th.addEventListener("click", () => {
        state.desc = state.by === n ? !state.desc : n === 2;
        state.by = n;
        paint();
      });
    }
    return th;
  });
  const table = el("table", { class: "stats failures" }, el("thead", {}, el("tr", {}, heads)), body);

  function cellsOf(group) {
    const open = el("a", { href: "#", class: "mono", text: group.type });
    open.addEventListener("click", (event) => {
      event.preventDefault();
      focusOn(`${group.reward ? `${group.reward}: ` : ""}${group.type}`, group.rows);
    });
    const ids = [...new Set(group.rows.map((i) => rows[i][0]))];
    return [el("td", {}, open), el("td", { class: "mono", text: group.reward || "(errored)" }),
      el("td", { class: "num", text: group.rows.length }),
      el("td", {}, ids.slice(0, 3).flatMap((id) => [el("a", { href: sampleHref(id), class: "mono", text: id }), " "]),
        ids.length > 3 ? `+${ids.length - 3}` : null),
      el("td", { class: "reason" }, group.reason)];
  }

  function paint() {
    const needle = filter.value.trim().toLowerCase();
    const shown = groups.filter((g) => !needle ||
      [g.type, g.reward || "(errored)", g.reason].some((text) => String(text).toLowerCase().includes(needle)));
    const value = FAILURE_COLUMNS[state.by][1];
    const sign = state.desc ? -1 : 1;
    shown.sort((a, b) => sign * compareValues(value(a), value(b)));
    heads.forEach((th, n) => (n === state.by ? th.setAttribute("aria-sort", state.desc ? "descending" : "ascending") : th.removeAttribute("aria-sort")));
    body.replaceChildren(...shown.map((g) => el("tr", { "data-type": g.type, "data-reward": g.reward || "" }, cellsOf(g))));
    count.textContent = `${shown.length} of ${groups.length} failure types`;
  }

  filter.addEventListener("input", paint);
  paint();
  return el("div", { class: "panel", id: "failures" }, el("h2", { text: "Failures by type" }),
    el("p", { class: "muted", text: "errored results by kind and exception; failed rewards by the reward's own error type (BFCL's where the reward gives it), else by what the first unpaired call went through, else by score. Click a type to list its samples." }),
    el("div", { class: "controls" }, filter, count), el("div", { class: "scroll-x" }, table));
}
