// Routing: "#sample=ID[&epoch=N]" opens a sample, anything else the list; the address
// is the state, so a link or a reload lands on the same view.

const byKey = new Map();
const firstEpoch = new Map();
rows.forEach((row, i) => {
  byKey.set(`${row[0]}\u0000${row[1]}`, i);
  const seen = firstEpoch.get(row[0]);
  if (seen === undefined || rows[seen][1] > row[1]) firstEpoch.set(row[0], i);
});

function showSample(id, epoch) {
  const i = epoch === null ? firstEpoch.get(id) : byKey.get(`${id}\u0000${epoch}`);
  const nav = el("div", { class: "nav" }, el("a", { href: "#", id: "back", text: "← all samples" }));
  if (i === undefined) {
    sampleHolder.replaceChildren(nav, el("p", { class: "error-box", id: "not-found",
      text: `no sample ${id}${epoch === null ? "" : ` epoch ${epoch}`} in this report` }));
    return;
  }
  const shown = table.shown();
  const at = shown.indexOf(i);
  if (at > 0) nav.append(el("a", { href: sampleHref(rows[shown[at - 1]][0], rows[shown[at - 1]][1]), text: "← previous" }));
  if (at >= 0 && at + 1 < shown.length) nav.append(el("a", { href: sampleHref(rows[shown[at + 1]][0], rows[shown[at + 1]][1]), text: "next →" }));
  nav.append(el("strong", { class: "mono", id: "sample-title", text: rows[i][0] }),
    el("span", { class: "muted", text: `epoch ${rows[i][1]}` }));
  const body = page.kind === "compare" ? compareSample(details()[i]) : sampleView(details()[i]);
  sampleHolder.replaceChildren(nav, body);
}

function route() {
  const params = new URLSearchParams(location.hash.slice(1));
  const id = params.get("sample");
  if (id === null) {
    sampleHolder.hidden = true;
    listView.hidden = false;
    table.repaint();
    return;
  }
  const epoch = params.get("epoch");
  showSample(id, epoch === null ? null : Number(epoch));
  listView.hidden = true;
  sampleHolder.hidden = false;
  window.scrollTo(0, 0);
}

if (page.kind === "compare") buildCompare(); else buildRun();
table.refresh();
window.addEventListener("hashchange", route);
route();
document.body.dataset.ready = "1";
window.agentloopRenderedAt = performance.now();
