// The report: the run (or two runs compared), the table of samples, the sample view.
// The sample details are parsed on first use, so the table shows without waiting.

let detailCache = null;
function details() {
  if (!detailCache) detailCache = JSON.parse(document.getElementById("details").textContent);
  return detailCache;
}
const root = document.getElementById("app");
const listView = el("div", { id: "list-view" });
const sampleHolder = el("div", { id: "sample-view", hidden: true });
root.append(listView, sampleHolder);
const rows = page.rows;
const rewards = page.rewards;
let table = null;

function stat(key, value, digits) {
  return el("span", { "data-stat": key, "data-value": value === null || value === undefined ? "" : value,
    text: fmt(value, digits) });
}

function priceText(pricing) {
  const price = pricing.usd_per_million;
  if (!price) return pricing.source;
  const rates = Object.entries(price).map(([k, v]) => `${k.replaceAll("_", " ")} ${v}`).join(", ");
  return `USD per million tokens: ${rates} (${pricing.source})`;
}

function runHeader(header, label) {
  const dataset = header.dataset || {};
  const versions = header.versions || {};
  return el("div", { class: "panel run-header" },
    el("h1", {}, label ? `${label}: ` : "", header.name || header.dir),
    header.description ? el("p", { class: "muted", text: header.description }) : null,
    kv([
      ["model", el("span", { class: "mono", "data-field": "model", text: header.model || "-" })],
      ["model params", header.model_params ? JSON.stringify(header.model_params) : undefined],
      ["price", header.pricing ? el("span", { "data-field": "pricing", text: priceText(header.pricing) }) : undefined],
      ["config", header.config_path || "-"],
      ["results", header.rescored
        ? el("span", { class: "mono", "data-field": "results-file", text: `${header.results_file} (re-scored by agentloop score)` })
        : undefined],
      ["dataset", `${dataset.path || "-"} (${fmt(dataset.valid_rows)} rows, sha256 ${String(dataset.sha256 || "").slice(0, 12)}…)`],
      ["mode / epochs", `${header.mode || "-"} / ${fmt(header.epochs)}`],
      ["when", `${header.created_at || "-"}${header.resumed ? ` (resumed ${header.resumed}×)` : ""}`],
      ["run directory", header.dir],
      ["versions", Object.entries(versions).map(([k, v]) => `${k} ${v}`).join(", ")],
    ]),
    el("details", {}, el("summary", { text: "config" }), el("pre", { class: "json" }, pretty(header.config))));
}

// How the standard errors treat results, in words (the summary's clustered_by).
function clusteringText(clusteredBy) {
  if (clusteredBy === null || clusteredBy === undefined) return "unclustered (every result independent)";
  if (clusteredBy === "id") return "clustered by sample id (its epochs)";
  return `clustered by ${clusteredBy} (cluster_by)`;
}

// A value with its interval's text under it (pass rate, pass@k, pass^k).
function withInterval(key, value, ci) {
  const under = ci && ci.low !== null && ci.low !== undefined
    ? el("div", { class: "muted ci-text", "data-stat": `${key}_ci`, "data-value": `${ci.low},${ci.high}`,
      title: [ci.method, ci.note].filter(Boolean).join("; "), text: `[${fmt(ci.low)}, ${fmt(ci.high)}]` })
    : ci ? el("div", { class: "muted ci-text", "data-stat": `${key}_ci`, "data-value": "", title: ci.note || "", text: "n/a" })
      : null;
  return [stat(key, value), under];
}

function rewardTable(summary) {
  const ks = [...new Set(Object.values(summary.rewards).flatMap((r) => Object.keys(r.pass_at_k || {})))];
  const head = ["reward", "score", "95% CI", "scored mean", "± stderr", "errored", "samples", "pass rate"];
  for (const k of ks) head.push(`pass@${k}`, `pass^${k}`);
  const table = el("table", { class: "stats rewards" }, el("tr", {}, head.map((h) => el("th", { text: h }))));
  for (const [key, r] of Object.entries(summary.rewards)) {
    const cells = [el("td", { class: "mono", text: key }),
      el("td", {}, r.headline === null ? el("span", { class: "muted", "data-stat": `reward:${key}:headline`,
        "data-value": "", title: "this reward applies to no result: no figure", text: "n/a" })
        : stat(`reward:${key}:headline`, r.headline)),
      el("td", {}, intervalCell(`reward:${key}:interval`, r.interval, r.headline)),
      el("td", {}, stat(`reward:${key}:mean`, r.mean)), el("td", {}, stat(`reward:${key}:stderr`, r.stderr)),
      el("td", {}, stat(`reward:${key}:errored`, r.errored)),
      el("td", {}, stat(`reward:${key}:count`, r.count)),
      el("td", {}, withInterval(`reward:${key}:pass_rate`, r.pass_rate, r.pass_rate_interval))];
    for (const k of ks) {
      cells.push(el("td", {}, withInterval(`reward:${key}:pass_at_${k}`, (r.pass_at_k || {})[k], (r.pass_at_k_interval || {})[k])),
        el("td", {}, withInterval(`reward:${key}:pass_hat_${k}`, (r.pass_hat_k || {})[k], (r.pass_hat_k_interval || {})[k])));
    }
    table.append(el("tr", {}, cells));
  }
  const notes = [];
  if (Object.values(summary.rewards).some((r) => r.interval)) {
    notes.push(el("p", { class: "note", "data-field": "interval-rule",
      text: "95% CI of the score, over the same results (errored and missing ones as 0): Wilson's for 0/1 scores, " +
        `else score ± t·SE; standard errors ${clusteringText(summary.clustered_by)}. pass@k, pass^k (k ≥ 2): a ` +
        "bootstrap over tasks (2000 draws, seed 0). n/a: fewer than 5 independent units, or no spread (hover for why)." }));
  }
  if (Object.values(summary.rewards).some((r) => r.pass_rate !== null && r.pass_rate !== undefined)) {
    notes.push(el("p", { class: "note", "data-field": "pass-rule",
      text: "pass rate, pass@k, pass^k: over every planned trial, an errored one counting as failed" }));
  }
  return el("div", {}, el("div", { class: "scroll-x" }, table), ...notes);
}

function summaryPanel(summary) {
  const lat = summary.latency || {};
  const tok = summary.tokens || {};
  const panel = el("div", { class: "panel", id: "summary" }, el("h2", { text: "Summary" }));
  if (!summary.complete) panel.append(el("div", { class: "error-box", text: `INCOMPLETE: ${summary.results} of ${summary.planned} results` }));
  if (summary.failed) panel.append(el("div", { class: "error-box", text: `FAILED: ${summary.failure}` }));
  panel.append(el("div", { class: "cards" },
    ...[["results", "results"], ["samples", "samples"], ["ok", "ok"], ["errored", "errored"]].map(([label, key]) =>
      el("div", { class: "card" }, el("div", { class: "label", text: label }), el("div", { class: "value" }, stat(key, summary[key]))))));
  if (Object.keys(summary.rewards || {}).length) panel.append(el("h3", { text: "rewards" }), rewardTable(summary));
  const reliable = reliabilityTable(summary);
  if (reliable) panel.append(el("h3", { text: "reliability across epochs" }), reliable);
  const errors = el("div", {}, stat("errors_by_kind", counts(summary.errors_by_kind)));
  for (const [kind, example] of Object.entries(summary.error_examples || {})) {
    errors.append(el("div", { class: "muted" }, `${kind}: `,
      ...example.sample_ids.flatMap((id) => [el("a", { href: sampleHref(id), text: id }), " "]),
      `— ${example.first_error}`));
  }
  panel.append(el("h3", { text: "run" }), kv([
    ["errors by kind", errors],
    ["errors by cause", stat("error_causes", causesText(summary))],
    ["tool calls by status", stat("tool_calls_by_status", counts(summary.tool_calls_by_status))],
    ["tool exceptions", stat("tool_exceptions", counts(summary.tool_exceptions))],
    ["stop reasons", stat("stop_reasons", counts(summary.stop_reasons))],
    ["rounds", el("span", {}, "mean ", stat("rounds:mean", (summary.rounds || {}).mean, 2), ", max ",
      stat("rounds:max", (summary.rounds || {}).max), `; histogram ${counts(summary.rounds_histogram)}`)],
    ["tokens", el("span", {}, "in ", stat("tokens:input", tok.input_tokens), " (cached ",
      stat("tokens:cached_input", tok.cached_input_tokens), "), out ", stat("tokens:output", tok.output_tokens),
      " (reasoning ", stat("tokens:reasoning", tok.reasoning_tokens), "), total ", stat("tokens:total", tok.total_tokens))],
    ["cost (USD)", el("span", {}, el("span", { "data-stat": "cost_usd", "data-value": summary.cost_usd ?? "",
      text: usd(summary.cost_usd) }), summary.cost_unknown ? ` (${summary.cost_unknown})` : "")],
    ["cost per pass (USD)", stat("cost_per_pass", costPerPassText(summary))],
    ["latency (s)", el("span", {}, ...["p50", "p90", "p99", "mean", "max"].flatMap((p) =>
      [`${p} `, stat(`latency:${p}`, lat[p]), " "]))],
    ["model retries", stat("model_retries", summary.model_retries)],
    ["single-turn results", summary.single_turn],
  ]));
  for (const warning of summary.warnings || []) panel.append(el("div", { class: "error-box", text: `warning: ${warning}` }));
  for (const note of summary.notes || []) panel.append(el("p", { class: "muted", text: `note: ${note}` }));
  return panel;
}

function runColumns() {
  const cols = [
    { label: "id", width: "minmax(14rem, 3fr)", value: (i) => rows[i][0], cell: (i) => rows[i][0], cls: () => "mono" },
  ];
  if (rows.some((r) => r[1] !== 1)) cols.push({ label: "epoch", width: "4rem", value: (i) => rows[i][1], cell: (i) => rows[i][1], cls: () => "num" });
  cols.push({ label: "status", width: "6rem", value: (i) => rows[i][2], cell: (i) => badge(rows[i][2]) });
  rewards.forEach((key, n) => cols.push({ label: key, title: key, width: "minmax(7rem, 1fr)",
    value: (i) => rows[i][4][n], cell: (i) => fmt(rows[i][4][n]), cls: (i) => scoreClass(rows[i][4][n], lowerIsBetter(key)) }));
  cols.push(
    { label: "rounds", width: "5rem", value: (i) => rows[i][6], cell: (i) => fmt(rows[i][6]), cls: () => "num" },
    { label: "stop", width: "7rem", value: (i) => rows[i][7], cell: (i) => rows[i][7] || "-" },
    { label: "tool calls", width: "6rem", value: (i) => rows[i][8], cell: (i) => rows[i][9] ? `${rows[i][8]} (${rows[i][9]} failed)` : fmt(rows[i][8]), cls: () => "num" },
    { label: "latency s", width: "6rem", value: (i) => rows[i][10], cell: (i) => fmt(rows[i][10]), cls: () => "num" },
    { label: "cost $", title: "USD billed for the sample's requests", width: "6rem", value: (i) => rows[i][12],
      cell: (i) => usd(rows[i][12]), cls: () => "num" });
  return cols;
}

function controls(rewardKeys, statuses) {
  const text = el("input", { id: "filter-text", type: "search", placeholder: "filter: id, error, answer" });
  const status = el("select", { id: "filter-status" }, el("option", { value: "", text: "any status" }),
    statuses.map((s) => el("option", { value: s, text: s })));
  const reward = el("select", { id: "filter-reward" }, el("option", { value: "", text: "any reward" }),
    rewardKeys.map((k, n) => el("option", { value: String(n), text: k })));
  const min = el("input", { id: "filter-min", type: "number", step: "any", placeholder: "min" });
  const max = el("input", { id: "filter-max", type: "number", step: "any", placeholder: "max" });
  const count = el("span", { id: "row-count", class: "muted" });
  const focusText = el("span", { id: "focus-label" });
  const clear = el("button", { type: "button", id: "focus-clear", title: "show all samples", text: "×" });
  const focus = el("span", { class: "focus", id: "focus", hidden: true }, "only: ", focusText, " ", clear);
  const bar = el("div", { class: "controls" }, text, status, reward, min, max, focus, count);
  return { bar, text, status, reward, min, max, count, focus, focusText, clear };
}

function rangeTest(ui, scoreOf) {
  const n = ui.reward.value === "" ? null : Number(ui.reward.value);
  const lo = ui.min.value === "" ? -Infinity : Number(ui.min.value);
  const hi = ui.max.value === "" ? Infinity : Number(ui.max.value);
  if (n === null && lo === -Infinity && hi === Infinity) return () => true;
  return (i) => {
    const scores = n === null ? scoreOf(i) : [scoreOf(i)[n]];
    return scores.some((s) => s !== null && s !== undefined && s >= lo && s <= hi);
  };
}

function wire(ui, keep) {
  const update = () => table.filter(keep());
  for (const input of [ui.text, ui.status, ui.reward, ui.min, ui.max]) input.addEventListener("input", update);
}

function buildRun() {
  listView.append(runHeader(page.header), summaryPanel(page.summary));
  const ui = controls(rewards, [...new Set(rows.map((r) => r[2]))]);
  table = virtualTable(runColumns(), rows.length, (i) => sampleHref(rows[i][0], rows[i][1]),
    (shown) => { ui.count.textContent = `${shown.length} of ${rows.length} samples`; });
  let only = null; // a Set of row indices, from a histogram bar, a metadata value or a failure type
  const keep = () => {
    const needle = ui.text.value.trim().toLowerCase();
    const status = ui.status.value;
    const inRange = rangeTest(ui, (i) => rows[i][4]);
    return (i) => (!only || only.has(i)) && (!status || rows[i][2] === status) &&
      (!needle || rows[i][11].includes(needle)) && inRange(i);
  };
  wire(ui, keep);
  const samples = el("div", { class: "panel", id: "samples" }, el("h2", { text: "Samples" }), ui.bar, table.node);
  focusOn = (label, indices) => {
    only = new Set(indices);
    ui.focusText.textContent = label;
    ui.focus.hidden = false;
    table.filter(keep());
    samples.scrollIntoView();
  };
  ui.clear.addEventListener("click", () => {
    only = null;
    ui.focus.hidden = true;
    table.filter(keep());
  });
  listView.append(...[histogramsPanel(), breakdownPanel(), failuresPanel()].filter(Boolean), samples);
}
