// One sample: the conversation as chat bubbles, each tool call with its outcome, the
// scores with their diagnostics, and the expected answer beside them.

const FAILED = new Set(page.failed_calls);

function toolCall(call) {
  const failed = FAILED.has(call.status);
  return el("div", { class: failed ? "tool-call failed" : "tool-call", "data-name": call.name },
    el("div", {},
      el("span", { class: "name mono", text: call.name }), " ",
      call.status ? badge(call.status) : null, " ",
      call.duration_s ? el("span", { class: "muted", text: `${fmt(call.duration_s, 3)} s` }) : null,
      " ", el("span", { class: "muted mono", text: call.id || "" })),
    el("pre", { class: "args" }, pretty(call.arguments)),
    call.error ? el("div", { class: "error-box", "data-exception": call.exception || "" },
      call.exception ? el("strong", { text: `the tool raised ${call.exception}` }) : null,
      el("pre", {}, call.traceback || call.error)) : null);
}

function bubble(message) {
  const role = message.role || "unknown";
  const failed = role === "tool" && FAILED.has(message.status);
  const who = role === "tool"
    ? [`tool result · ${message.name || ""} `, message.status ? badge(message.status) : null]
    : [message.who || role];
  const node = el("div", { class: `bubble ${role}${failed ? " failed" : ""}`, "data-role": role },
    el("div", { class: "who" }, ...who));
  const content = typeof message.content === "string" ? message.content : pretty(message.content);
  if (content) node.append(folded(content));
  else if (!(message.tool_calls || []).length) node.append(el("span", { class: "muted", text: "(no text)" }));
  for (const call of message.tool_calls || []) node.append(toolCall(call));
  return node;
}

function conversation(detail) {
  const chat = el("div", { class: "chat" });
  if (detail.status === "error") {
    chat.append(el("div", { class: "error-box", "data-role": "error" },
      el("strong", { text: `${detail.error_kind || "error"} error` }), el("pre", {}, detail.error)));
  }
  // A multi-turn run records where each turn starts: a divider marks it.
  const starts = new Map((detail.turns || []).map((turn, n) => [turn && turn.message_start, n + 1]));
  (detail.messages || []).forEach((message, index) => {
    if (starts.size > 1 && starts.has(index)) chat.append(el("div", { class: "turn", text: `turn ${starts.get(index)}` }));
    chat.append(bubble(message));
  });
  if (detail.final_answer !== null && detail.final_answer !== undefined) {
    // An empty answer is no answer: said so, never drawn like one.
    const empty = !detail.final_answer.trim();
    chat.append(el("div", { class: empty ? "final empty" : "final", "data-role": "final", "data-empty": empty ? "1" : null },
      el("div", { class: "who", text: empty ? "final answer: empty" : "final answer" }),
      empty ? el("span", { class: "muted", text: detail.final_answer ? "(only white space)" : "(the last reply has no text)" })
        : el("pre", { class: "text" }, detail.final_answer)));
  }
  return chat;
}

function diagnosticTable(items) {
  const keys = [...new Set(items.flatMap((item) => Object.keys(item)))];
  const table = el("table", { class: "diag" }, el("tr", {}, keys.map((k) => el("th", { text: k }))));
  for (const item of items) {
    const cls = item.matched === false ? "unmatched" : null;
    table.append(el("tr", { class: cls }, keys.map((k) => {
      const value = item[k];
      return el("td", {}, typeof value === "object" && value !== null ? JSON.stringify(value) : fmt(value));
    })));
  }
  return table;
}

function diagnostics(details) {
  // Scalars as a list, lists of records (which call matched which) as tables, the rest as JSON.
  if (!details || typeof details !== "object") return details === undefined ? null : el("pre", {}, pretty(details));
  const scalars = [];
  const blocks = [];
  for (const [key, value] of Object.entries(details)) {
    if (value === null || typeof value !== "object") scalars.push([key, value]);
    else if (Array.isArray(value) && value.length && value.every((v) => v && typeof v === "object" && !Array.isArray(v))) {
      blocks.push(el("div", { class: "scroll-x" }, el("h3", { text: key }), diagnosticTable(value)));
    } else if (Array.isArray(value) && !value.length) scalars.push([key, "[]"]);
    else blocks.push(el("div", {}, el("h3", { text: key }), folded(pretty(value), "json")));
  }
  return el("div", { class: "diagnostics" }, scalars.length ? kv(scalars) : null, blocks);
}

function rewardBlock(key, result) {
  const verdict = result.passed === true ? badge("pass") : result.passed === false ? badge("fail") : null;
  const extra = Object.entries(result).filter(([k]) => !["score", "reason", "details", "passed"].includes(k));
  return el("div", { class: "reward", "data-reward": key },
    el("div", {}, el("strong", { class: "mono", text: key }), " ",
      el("span", { class: "score", text: fmt(result.score) }), " ", verdict),
    result.reason ? el("pre", { class: "reason" }, result.reason) : null,
    extra.length ? kv(extra) : null,
    el("details", { open: "" }, el("summary", { text: "diagnostics" }), diagnostics(result.details)));
}

function scoresPanel(detail) {
  const panel = el("div", { class: "panel scores" }, el("h2", { text: "Scores" }));
  const entries = Object.entries(detail.scores || {});
  if (!entries.length) panel.append(el("p", { class: "muted", text: "no scores (errored results are not scored)" }));
  for (const [key, result] of entries) panel.append(rewardBlock(key, result));
  return panel;
}

function expectedPanel(detail) {
  const panel = el("div", { class: "panel expected" }, el("h2", { text: "Expected" }));
  const answer = Array.isArray(detail.answer) ? detail.answer.join("\n") : detail.answer;
  panel.append(el("h3", { text: "answer" }), el("pre", { class: "answer" }, answer === null || answer === undefined ? "-" : answer));
  panel.append(el("h3", { text: "ground truth" }),
    // The ground truth is what a reader compares with: it stays open longer.
    folded(detail.ground_truth ? pretty(parsedGroundTruth(detail.ground_truth)) : "-", "json ground-truth", 5));
  return panel;
}

function infoPanel(detail) {
  const usage = detail.usage || {};
  return el("div", { class: "panel info" }, el("h2", { text: "Result" }), kv([
    ["status", badge(detail.status || "-")],
    ["error kind", detail.error_kind || undefined],
    ["stop reason", detail.stop_reason],
    ["stop signal", detail.stop_signal || undefined],
    ["rounds", detail.rounds],
    ["tool calls", counts(detail.tool_calls_by_status)],
    ["tokens", `in ${fmt(usage.input_tokens)}, out ${fmt(usage.output_tokens)}`],
    ["latency", `${fmt(detail.wall_time_s)} s`],
    ["started", detail.started_at],
    ["mode", detail.mode + (detail.single_turn ? " (single turn: calls scored, not run)" : "")],
  ]), detail.metadata && Object.keys(detail.metadata).length
    ? [el("h3", { text: "metadata" }), folded(pretty(detail.metadata), "json")] : null);
}

function userSide(detail) {
  // A simulated user's own side: its instructions, what it was shown, its replies, its tool calls.
  if (!(detail.user_messages || []).length) return null;
  const chat = el("div", { class: "chat user-side" });
  for (const message of detail.user_messages) chat.append(bubble(message));
  return el("details", { class: "user-side-panel", "data-role": "user-side" },
    el("summary", { text: "the simulated user's side (its instructions, tool calls and results)" }), chat);
}

function sampleView(detail) {
  return el("div", { class: "grid2 sample", "data-id": detail.id, "data-epoch": detail.epoch },
    el("div", { class: "panel" }, el("h2", { text: "Conversation" }), conversation(detail), userSide(detail)),
    el("div", {}, expectedPanel(detail), scoresPanel(detail), infoPanel(detail)));
}
