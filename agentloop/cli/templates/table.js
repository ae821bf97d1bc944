// A sortable, filterable table that renders only the rows in view, so that ten
// thousand samples cost the same to show as a hundred.

const ROW_HEIGHT = 30; // px; equals --row in the stylesheet
const OVERSCAN = 12;

const collator = new Intl.Collator(undefined, { numeric: true });

function compareValues(a, b) {
  // Missing values sort last whatever the direction: see the caller.
  if (typeof a === "number" && typeof b === "number") return a - b;
  return collator.compare(String(a), String(b));
}

// columns: [{label, width, value(i), cell(i) -> text or Node, cls(i)?, title?}]
function virtualTable(columns, total, href, onChange) {
  const template = columns.map((c) => c.width || "7rem").join(" ");
  const head = el("div", { class: "vt-head", role: "row" });
  head.style.gridTemplateColumns = template;
  const body = el("div", { class: "vt-body", role: "rowgroup" });
  const box = el("div", { class: "vt", role: "table", "aria-rowcount": total }, head, body);
  const state = { order: [...Array(total).keys()], shown: [], sortBy: null, desc: false,
    keep: () => true };

  columns.forEach((column, index) => {
    // The whole label, wrapped where it may break: a header is never cut short.
    const cell = el("div", { role: "columnheader", title: column.title, "data-col": index },
      breakable(column.label));
    cell.addEventListener("click", () => {
      state.desc = state.sortBy === index ? !state.desc : false;
      state.sortBy = index;
      for (const other of head.children) other.removeAttribute("aria-sort");
      cell.setAttribute("aria-sort", state.desc ? "descending" : "ascending");
      sort();
      apply();
    });
    head.append(cell);
  });

  function sort() {
    const value = columns[state.sortBy].value;
    const sign = state.desc ? -1 : 1;
    state.order.sort((i, j) => {
      const a = value(i);
      const b = value(j);
      const aMissing = a === null || a === undefined;
      const bMissing = b === null || b === undefined;
      if (aMissing || bMissing) return aMissing === bMissing ? i - j : aMissing ? 1 : -1;
      return sign * compareValues(a, b) || i - j;
    });
  }

  let frame = 0;
  function paint() {
    frame = 0;
    const top = box.scrollTop;
    const first = Math.max(0, Math.floor(top / ROW_HEIGHT) - OVERSCAN);
    const last = Math.min(state.shown.length,
      Math.ceil((top + box.clientHeight) / ROW_HEIGHT) + OVERSCAN);
    const rows = [];
    for (let n = first; n < last; n++) {
      const i = state.shown[n];
      const row = el("a", { class: "row", role: "row", href: href(i), "data-index": i });
      row.style.top = `${n * ROW_HEIGHT}px`;
      row.style.gridTemplateColumns = template;
      for (const column of columns) {
        const content = column.cell(i);
        row.append(el("div", { role: "cell", class: column.cls ? column.cls(i) : null,
          title: content instanceof Node ? null : content }, content));
      }
      rows.push(row);
    }
    body.replaceChildren(...rows);
  }

  function schedule() {
    if (!frame) frame = requestAnimationFrame(paint);
  }

  function apply() {
    state.shown = state.order.filter((i) => state.keep(i));
    body.style.height = `${state.shown.length * ROW_HEIGHT}px`;
    paint();
    onChange(state.shown);
  }

  box.addEventListener("scroll", schedule, { passive: true });
  window.addEventListener("resize", schedule);
  return {
    node: box,
    filter(keep) {
      state.keep = keep;
      box.scrollTop = 0;
      apply();
    },
    refresh: apply,
    repaint: schedule,
    shown: () => state.shown,
  };
}
