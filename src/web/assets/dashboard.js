// The dashboard's one script, an enhancement only (every page reads without it): a filter form submits
// itself when a field changes, and hovering a legend entry of the drift chart highlights its line.
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
