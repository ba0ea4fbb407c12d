// arbiter web leaderboard: sortable tables and live campaign progress. Every page is complete
// without this script; it only adds sorting and server-sent updates.
"use strict";

function sortTable(table, column, header) {
  const numeric = header.dataset.type === "num";
  const ascending = header.getAttribute("aria-sort") !== "ascending";
  table.querySelectorAll("th").forEach((th) => th.removeAttribute("aria-sort"));
  header.setAttribute("aria-sort", ascending ? "ascending" : "descending");
  const body = table.tBodies[0];
  const rows = Array.from(body.rows).filter((row) => row.cells.length > column);
  const key = (row) => {
    const cell = row.cells[column];
    const raw = cell.dataset.sort !== undefined ? cell.dataset.sort : cell.textContent;
    return numeric ? parseFloat(raw) : raw.toLowerCase();
  };
  rows.sort((a, b) => {
    const x = key(a), y = key(b);
    const order = x < y ? -1 : x > y ? 1 : 0;
    return ascending ? order : -order;
  });
  rows.forEach((row) => body.appendChild(row));
}

function makeSortable(table) {
  Array.from(table.tHead.rows[0].cells).forEach((header, column) => {
    header.addEventListener("click", () => sortTable(table, column, header));
  });
}

function listItems(list, items, render) {
  list.replaceChildren(...items.map((item) => {
    const li = document.createElement("li");
    li.innerHTML = render(item);
    return li;
  }));
}

function escapeHtml(text) {
  return String(text).replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c]);
}

function showProgress(p) {
  document.getElementById("progress-done").textContent = p.done;
  document.getElementById("progress-total").textContent = p.evaluations;
  document.getElementById("progress-status").textContent = p.campaign.status;
  document.getElementById("progress-verdicts").textContent =
    Object.entries(p.verdicts).map(([name, count]) => name + " " + count).join(", ") || "—";
  listItems(document.getElementById("progress-running"), p.running,
    (e) => escapeHtml(e.problem) + " / " + escapeHtml(e.model));
  listItems(document.getElementById("progress-latest"), p.latest, (e) =>
    '<span class="verdict v-' + escapeHtml(e.verdict) + '">' + escapeHtml(e.verdict) + "</span> " +
    '<a href="/evaluation/' + e.id + '">' + escapeHtml(e.problem) + "</a> / " + escapeHtml(e.model) +
    (e.speedup === null ? "" : " " + e.speedup.toFixed(2) + "×"));
}

function followProgress(section) {
  const source = new EventSource(section.dataset.events);
  section.classList.add("live");
  source.addEventListener("progress", (event) => showProgress(JSON.parse(event.data)));
  source.addEventListener("finished", () => { source.close(); section.classList.remove("live"); });
}

document.addEventListener("DOMContentLoaded", () => {
  document.querySelectorAll("table.sortable").forEach(makeSortable);
  const progress = document.querySelector("#progress[data-events]");
  if (progress) followProgress(progress);
});
