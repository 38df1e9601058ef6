// The dashboard's one script, an enhancement only (every page reads without it): a filter form submits
// itself when a field changes, hovering a legend entry of the drift chart highlights its line, and a verdict's
// judge window loads when opened.
for (const form of document.querySelectorAll("form.filters")) {
  form.addEventListener("change", () => form.requestSubmit());
}
for (const item of document.querySelectorAll(".legend li[class^='series-']")) {
  const series = item.className;
  const chart = item.closest("figure")?.querySelector("svg");
  if (!chart) continue;
  item.addEventListener("mouseenter", () => chart.classList.add("focus", `focus-${series}`));
  item.addEventListener("mouseleave", () => chart.classList.remove("focus", `focus-${series}`));
}
// A verdict's "What the judge read" loads its window from the server when first opened, in place (without
// the script, the box holds a link to the window's page). The fragment is the server's escaped markup.
for (const box of document.querySelectorAll("details[data-window]")) {
  box.addEventListener("toggle", async () => {
    if (!box.open || box.dataset.loaded) return;
    box.dataset.loaded = "loading";
    const body = box.querySelector(".window-body");
    try {
      const response = await fetch(box.dataset.window, { credentials: "same-origin" });
      const parsed = new DOMParser().parseFromString(await response.text(), "text/html");
      body?.replaceChildren(...parsed.body.childNodes);
      box.dataset.loaded = "yes";
    } catch {
      // The link to the window's page stays; a later opening tries again.
      delete box.dataset.loaded;
    }
  });
}
