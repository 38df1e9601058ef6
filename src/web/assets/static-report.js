// The static report's one script, inline and allowed by its hash (the file can fetch nothing): a run page's
// "Failures only" switch and a table's sort links work in place, without a server and without moving the page.
// Without it every verdict is shown and those links lead to their own table or switch, never to the top.
for (const link of document.querySelectorAll("a[data-report-failures]")) {
  link.addEventListener("click", (event) => {
    event.preventDefault();
    const page = link.closest(".report-page");
    if (!page) return;
    const only = link.dataset.reportFailures === "1";
    page.classList.toggle("failures-only", only);
    for (const other of link.parentElement?.querySelectorAll("a[data-report-failures]") ?? [])
      if (other === link) other.setAttribute("aria-current", "true");
      else other.removeAttribute("aria-current");
  });
}

/** A cell's value to sort by: a number in a numeric column (none last), else its text. */
function sortValue(cell, numeric) {
  const text = (cell?.textContent ?? "").trim();
  if (!numeric) return text;
  const number = Number.parseFloat(text.replace("−", "-"));
  return Number.isFinite(number) ? number : null;
}

for (const link of document.querySelectorAll("th > a[data-report-sort]")) {
  link.addEventListener("click", (event) => {
    event.preventDefault();
    const th = link.parentElement;
    const table = th.closest("table");
    const body = table?.tBodies[0];
    if (!body) return;
    const column = [...th.parentElement.children].indexOf(th);
    const numeric = th.classList.contains("num");
    const order = th.getAttribute("aria-sort") === "ascending" ? "descending" : "ascending";
    const sign = order === "ascending" ? 1 : -1;
    const rows = [...body.rows].map((row, index) => ({
      row,
      index,
      value: sortValue(row.cells[column], numeric),
    }));
    rows.sort((a, b) => {
      if (a.value === null || b.value === null)
        return a.value === b.value ? a.index - b.index : a.value === null ? 1 : -1;
      const by = numeric ? a.value - b.value : String(a.value).localeCompare(String(b.value));
      return sign * by || a.index - b.index;
    });
    body.append(...rows.map((r) => r.row));
    for (const header of th.parentElement.children) {
      header.removeAttribute("aria-sort");
      const label = header.querySelector("a[data-report-sort]");
      if (label) label.textContent = label.textContent.replace(/ [▲▼]$/, "");
    }
    th.setAttribute("aria-sort", order);
    link.textContent = `${link.textContent} ${order === "ascending" ? "▲" : "▼"}`;
  });
}
