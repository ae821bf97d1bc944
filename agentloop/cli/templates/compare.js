// Two runs compared: reward deltas, the samples whose verdict changed first, and a
// sample's two trajectories side by side.

const CHANGE = ["", "score changed", "verdict changed"];

function pValue(p) {
  if (p === null || p === undefined) return "-";
  return p < 1e-4 ? "<0.0001" : p.toFixed(4);
}

// The paired difference's cells: pairs, B − A, its interval (a bar around 0), p, verdict.
// A comparison written before agentloop paired runs has none: "-".
function pairedCells(d, span) {
  const p = d.paired;
  if (!p) return [el("td", { text: "-" }), el("td", { text: "-" }), el("td", { text: "-" }), el("td", { text: "-" }),
    el("td", { "data-field": `verdict:${d.reward}`, text: d.verdict || "-" })];
  // green for the better way: up when higher is, down when lower is (d.better)
  const good = (p.mean > 0) !== (d.better === "lower");
  const cls = d.verdict && d.verdict.endsWith("better") ? (good ? "up" : "down") : null;
  return [
    el("td", {}, stat(`paired:${d.reward}:pairs`, p.pairs)),
    el("td", { class: cls }, el("span", { "data-stat": `paired:${d.reward}:mean`, "data-value": p.mean,
      text: `${p.mean >= 0 ? "+" : ""}${p.mean.toFixed(3)}` })),
    el("td", {}, intervalCell(`paired:${d.reward}:interval`, p, p.mean, -span, span, true)),
    el("td", { title: p.test }, el("span", { "data-stat": `paired:${d.reward}:p`, "data-value": p.p_value ?? "",
      text: pValue(p.p_value) }), el("div", { class: "muted", text: p.test })),
    el("td", { class: cls, "data-field": `verdict:${d.reward}`, title: p.note || "", text: d.verdict || "-" }),
  ];
}

function pairingText(comparison) {
  const a = comparison.label_a || "A";
  const b = comparison.label_b || "B";
  const how = comparison.pairing === "sample means"
    ? "each sample's mean over its epochs (the runs' epochs differ)" : "the results both runs have (id and epoch)";
  const unit = comparison.pairing === "sample means" ? "sample(s)" : "result(s)";
  const unpaired = comparison.paired_only_in_a || comparison.paired_only_in_b
    ? `; not paired: ${comparison.paired_only_in_a} ${unit} only in ${a}, ${comparison.paired_only_in_b} only in ${b}` : "";
  return `Paired ${b} − ${a}: on ${how}, standard errors ${clusteringText(comparison.clustered_by)}${unpaired}. ` +
    "p: two-sided, McNemar's exact test when every pair is a lone 0/1 result, else a paired t test on the clustered " +
    "standard error; verdict at 95%. n/a: fewer than 5 independent units.";
}

function deltaTable(comparison) {
  const deltas = comparison.rewards;
  const bounds = deltas.flatMap((d) => (d.paired && d.paired.low !== null ? [Math.abs(d.paired.low), Math.abs(d.paired.high)] : []));
  const span = Math.max(0.05, ...bounds) * 1.1;
  const table = el("table", { class: "stats deltas" },
    el("tr", {}, ["reward", "A", "B", "B − A", "pairs", "paired B − A", "95% CI", "p", "verdict"].map((h) => el("th", { text: h }))));
  for (const d of deltas) {
    const flip = d.better === "lower" ? -1 : 1;
    const cls = d.delta * flip > 0 ? "up" : d.delta * flip < 0 ? "down" : null;
    table.append(el("tr", {}, el("td", { class: "mono", text: d.reward }),
      el("td", {}, stat(`delta:${d.reward}:a`, d.a)), el("td", {}, stat(`delta:${d.reward}:b`, d.b)),
      el("td", { class: cls }, stat(`delta:${d.reward}:delta`, d.delta === null ? null : d.delta,
        3)), pairedCells(d, span)));
  }
  const blank = () => [4, 5, 6, 7, 8].map(() => el("td", {}));
  const ea = comparison.summary_a.errored;
  const eb = comparison.summary_b.errored;
  table.append(el("tr", {}, el("td", { text: "errored" }), el("td", { text: ea }), el("td", { text: eb }),
    el("td", { text: `${eb - ea >= 0 ? "+" : ""}${eb - ea}` }), blank()));
  const ca = comparison.summary_a.cost_usd;
  const cb = comparison.summary_b.cost_usd;
  const known = (v) => v !== null && v !== undefined;
  table.append(el("tr", {}, el("td", { text: "cost (USD)" }), el("td", { "data-stat": "cost:a", text: usd(ca) }),
    el("td", { "data-stat": "cost:b", text: usd(cb) }),
    el("td", { "data-stat": "cost:delta", text: known(ca) && known(cb) ? `${cb - ca >= 0 ? "+" : ""}${(cb - ca).toFixed(6)}` : "-" }),
    blank()));
  const notes = deltas.filter((d) => d.paired && d.paired.note)
    .map((d) => el("p", { class: "muted", text: `note: ${d.reward}: ${d.paired.note}` }));
  return el("div", {}, el("div", { class: "scroll-x" }, table),
    deltas.some((d) => d.paired) ? el("p", { class: "note", "data-field": "pairing", text: pairingText(comparison) }) : null,
    notes);
}

function pairScores(i) {
  const [, , , a, b] = rows[i];
  return rewards.map((_, n) => (b ? b[4][n] : a ? a[4][n] : null));
}

function compareColumns() {
  const status = (r) => (r ? r[2] : "absent");
  const cols = [
    { label: "id", width: "minmax(14rem, 3fr)", value: (i) => rows[i][0], cell: (i) => rows[i][0], cls: () => "mono" },
  ];
  if (rows.some((r) => r[1] !== 1)) cols.push({ label: "epoch", width: "4rem", value: (i) => rows[i][1], cell: (i) => rows[i][1], cls: () => "num" });
  cols.push(
    { label: "change", width: "9rem", value: (i) => -rows[i][2], cell: (i) => CHANGE[rows[i][2]] || "-", cls: (i) => `change-${rows[i][2]}` },
    { label: "status A → B", width: "9rem", value: (i) => `${status(rows[i][3])} ${status(rows[i][4])}`,
      cell: (i) => `${status(rows[i][3])} → ${status(rows[i][4])}` });
  rewards.forEach((key, n) => {
    const score = (r) => (r ? r[4][n] : null);
    cols.push({ label: key, title: `${key}: A → B (sorted by B − A)`, width: "minmax(8rem, 1fr)",
      value: (i) => { const a = score(rows[i][3]); const b = score(rows[i][4]);
        return a === null || b === null || a === undefined || b === undefined ? null : b - a; },
      cell: (i) => `${fmt(score(rows[i][3]))} → ${fmt(score(rows[i][4]))}`,
      cls: (i) => { const a = score(rows[i][3]); const b = score(rows[i][4]);
        return b > a ? "num up" : b < a ? "num down" : "num"; } });
  });
  return cols;
}

function buildCompare() {
  const [ha, hb] = page.headers;
  const comparison = page.comparison;
  listView.append(el("div", { class: "side-by-side" }, runHeader(ha, "A"), runHeader(hb, "B")));
  const panel = el("div", { class: "panel", id: "summary" }, el("h2", { text: "B measured against A" }), deltaTable(comparison));
  for (const warning of comparison.warnings) panel.append(el("div", { class: "error-box", text: `warning: ${warning}` }));
  panel.append(el("p", { class: "muted" },
    `${page.changed} changed score(s); results only in A: ${comparison.only_in_a}, only in B: ${comparison.only_in_b}`));
  listView.append(panel);
  const costs = costPanel(comparison);
  if (costs) listView.append(costs);
  const ui = controls(rewards, ["verdict changed", "score changed", "unchanged"]);
  ui.reward.value = "";
  table = virtualTable(compareColumns(), rows.length, (i) => sampleHref(rows[i][0], rows[i][1]),
    (shown) => { ui.count.textContent = `${shown.length} of ${rows.length} samples`; });
  const wanted = { "verdict changed": 2, "score changed": 1, unchanged: 0 };
  wire(ui, () => {
    const needle = ui.text.value.trim().toLowerCase();
    const change = ui.status.value === "" ? null : wanted[ui.status.value];
    const inRange = rangeTest(ui, pairScores);
    const text = (r) => (r ? r[11] : "");
    return (i) => (change === null || rows[i][2] === change) &&
      (!needle || text(rows[i][3]).includes(needle) || text(rows[i][4]).includes(needle)) && inRange(i);
  });
  listView.append(el("div", { class: "panel" }, el("h2", { text: "Samples (verdict changes first)" }), ui.bar, table.node));
}

function compareSample(pair) {
  const column = (detail, label) => el("div", { class: "side", "data-side": label },
    el("h2", { text: `${label}: ${page.headers[label === "A" ? 0 : 1].name}` }),
    detail ? el("div", {}, el("div", { class: "panel" }, conversation(detail)), scoresPanel(detail), infoPanel(detail))
      : el("p", { class: "muted", text: "no result for this sample in this run" }));
  const any = pair[1] || pair[0];
  return el("div", {}, el("div", { class: "side-by-side" }, column(pair[0], "A"), column(pair[1], "B")),
    expectedPanel(any));
}
