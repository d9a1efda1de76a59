// Live progress: polls the tournament's /api/.../progress every second and updates
// the page in place (no reload). Bot and entrant names are set as text, never as HTML.
"use strict";
(function () {
  const root = document.getElementById("live");
  if (!root) return;
  const url = root.dataset.url;
  const $ = (id) => document.getElementById(id);

  function seconds(x) {
    if (x === null || x === undefined) return "–";
    x = Math.round(x);
    const pad = (n) => String(n).padStart(2, "0");
    return x >= 3600 ? Math.floor(x / 3600) + "h " + pad(Math.floor((x % 3600) / 60)) + "m"
                     : Math.floor(x / 60) + "m " + pad(x % 60) + "s";
  }

  function cell(row, text, cls) {
    const td = document.createElement("td");
    td.textContent = text;
    if (cls) td.className = cls;
    row.appendChild(td);
  }

  function render(p) {
    $("stored").textContent = p.stored;
    $("total").textContent = p.total;
    $("in-flight").textContent = p.tables_in_flight
      ? "; " + p.tables_in_flight + " tables played in blocks not stored yet" : "";
    $("fill").style.width = (p.total ? (100 * p.stored) / p.total : 0) + "%";
    const status = $("status");
    status.textContent = p.status;
    status.className = "status " + p.status;
    $("rate").textContent = p.rate === null ? "–" : p.rate;
    $("eta").textContent = seconds(p.eta_s);
    $("last-write").textContent = p.last_write || "–";
    const err = $("live-error");
    err.hidden = !p.error;
    err.textContent = p.error || "";
    const body = document.querySelector("#standings tbody");
    const rows = [];
    for (const r of p.standings) {
      const tr = document.createElement("tr");
      cell(tr, r.rank, "num");
      cell(tr, r.name + "@" + r.version);
      const elo = (x) => (x === null ? "…" : x.toFixed(0));
      cell(tr, elo(r.elo), "num");
      const ci = r.ci_low === null && r.ci_high === null ? "–"
        : r.ci_high === null ? "≥ " + elo(r.ci_low)
        : r.ci_low === null ? "≤ " + elo(r.ci_high) : elo(r.ci_low) + "–" + elo(r.ci_high);
      cell(tr, ci, "num small");
      cell(tr, r.wins + "-" + r.draws + "-" + r.losses, "num");
      cell(tr, r.boards, "num");
      rows.push(tr);
    }
    body.replaceChildren(...rows);
  }

  async function poll() {
    try {
      const response = await fetch(url, { cache: "no-store" });
      const body = await response.json();
      if (response.ok && body.unavailable) {
        $("updated").textContent = "not updated: " + body.unavailable + " (retrying)";
      } else if (response.ok) {
        render(body);
        $("updated").textContent = "updated " + new Date().toLocaleTimeString();
      } else {
        $("updated").textContent = "not updated: " + (body.detail || response.status) + " (retrying)";
      }
    } catch (e) {
      $("updated").textContent = "not updated: the server does not answer (retrying)";
    }
    setTimeout(poll, 1000);
  }
  setTimeout(poll, 1000);
})();
