// Helpers. Data (model output included) only ever reaches the page as text nodes:
// nothing here builds HTML from strings.

const page = JSON.parse(document.getElementById("page").textContent);

function el(tag, props, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(props || {})) {
    if (value === null || value === undefined || value === false) continue;
    if (key === "text") node.textContent = String(value);
    else if (key === "class") node.className = value;
    else if (key === "hidden") node.hidden = true;
    else node.setAttribute(key, String(value));
  }
  for (const child of children.flat()) {
    if (child === null || child === undefined || child === false) continue;
    node.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return node;
}

function fmt(value, digits = 3) {
  if (value === null || value === undefined) return "-";
  if (typeof value === "number") return Number.isInteger(value) ? String(value) : value.toFixed(digits);
  return String(value);
}

// A cost in USD: "unknown" when it is not known (null), never 0.
function usd(value) {
  if (value === null || value === undefined) return "unknown";
  return value.toFixed(value >= 1 ? 4 : 6);
}

function pretty(value) {
  return typeof value === "string" ? value : JSON.stringify(value, null, 2);
}

function counts(mapping) {
  const items = Object.entries(mapping || {});
  return items.length ? items.map(([k, v]) => `${k}: ${v}`).join(", ") : "-";
}

function badge(text, kind) {
  return el("span", { class: `badge ${kind || text}`, text });
}

function kv(pairs) {
  const list = el("dl", { class: "kv" });
  for (const [key, value] of pairs) {
    if (value === undefined) continue;
    list.append(el("dt", { text: key }), el("dd", {}, value instanceof Node ? value : fmt(value)));
  }
  return list;
}

// Long text is folded: its first lines stay visible, the rest opens on a click.
const FOLD_CHARS = 600;
const FOLD_LINES = 12;

function folded(text, cls, scale = 1) {
  text = text === null || text === undefined ? "" : String(text);
  const lines = text.split("\n");
  if (text.length <= FOLD_CHARS * scale && lines.length <= FOLD_LINES * scale) {
    return el("pre", { class: cls || "text" }, text);
  }
  const head = lines.slice(0, 4).join("\n").slice(0, 240);
  return el("details", { class: "fold" },
    el("summary", {}, `${head}… (${text.length} characters, ${lines.length} lines)`),
    el("pre", { class: cls || "text" }, text));
}

function sampleHref(id, epoch) {
  const params = new URLSearchParams({ sample: id });
  if (epoch && epoch !== 1) params.set("epoch", String(epoch));
  return "#" + params.toString();
}

// A score's colour: the good outcome green, the bad one red; for a reward whose lower
// score is better (AgentDojo's security: 1 is an attack that succeeded) 0 is the good one.
function lowerIsBetter(key) {
  const stats = ((page.summary || {}).rewards || {})[key];
  return Boolean(stats && stats.better === "lower");
}

function scoreClass(score, lower = false) {
  if (score !== 0 && score !== 1) return "num";
  return (score === 1) !== lower ? "num score-good" : "num score-bad";
}

function parsedGroundTruth(truth) {
  // Expected calls carry their arguments as JSON text: shown parsed, as the calls are.
  if (!truth || !Array.isArray(truth.tool_calls)) return truth;
  const calls = truth.tool_calls.map((call) => {
    const fn = (call && call.function) || {};
    if (typeof fn.arguments !== "string") return call;
    try {
      return { ...call, function: { ...fn, arguments: JSON.parse(fn.arguments) } };
    } catch (error) {
      return call;
    }
  });
  return { ...truth, tool_calls: calls };
}

// A 95% interval drawn as a bar on [lo, hi] with its estimate as a dot, and its text.
// Positions are set through the CSSOM (the page's policy forbids style attributes).
// `ci` is {low, high, note, method, clusters}; null/undefined: a summary written before
// agentloop computed intervals ("-"); low null: no interval, its note says why ("n/a").
function intervalCell(key, ci, estimate, lo = 0, hi = 1, signed = false) {
  const num = (v) => (signed && v >= 0 ? "+" : "") + v.toFixed(3);
  if (!ci) return el("span", { "data-stat": key, "data-value": "", text: "-" });
  if (ci.low === null || ci.low === undefined) {
    return el("span", { class: "muted", "data-stat": key, "data-value": "", title: ci.note || "",
      text: "n/a" });
  }
  const scale = (v) => `${Math.max(0, Math.min(100, ((v - lo) / (hi - lo)) * 100))}%`;
  const range = el("span", { class: "ci-range" });
  range.style.left = scale(ci.low);
  range.style.width = `calc(${scale(ci.high)} - ${scale(ci.low)})`;
  const point = el("span", { class: "ci-point" });
  point.style.left = scale(estimate);
  const bar = el("span", { class: "ci-bar", "aria-hidden": "true" }, range, point);
  if (lo < 0 && hi > 0) {
    const zero = el("span", { class: "ci-zero" });
    zero.style.left = scale(0);
    bar.append(zero);
  }
  const how = [ci.method || ci.test, ci.clusters ? `${ci.clusters} independent units` : null, ci.note]
    .filter(Boolean).join("; ");
  return el("span", { class: "ci", "data-stat": key, "data-low": ci.low, "data-high": ci.high,
    "data-value": `${ci.low},${ci.high}`, title: how }, bar, `[${num(ci.low)}, ${num(ci.high)}]`);
}
