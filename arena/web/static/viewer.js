// The board replay viewer: steps 0 (deal and bidding) .. N (last trick, final score)
// over both tables at once; buttons and the arrow keys move; the step is kept in the
// URL's #step=K. The page holds every step (server-rendered); this only shows one.
"use strict";
(function () {
  const controls = document.getElementById("controls");
  if (!controls) return;
  const last = parseInt(controls.dataset.steps, 10) || 0;
  const label = document.getElementById("step-label");
  const tables = Array.from(document.querySelectorAll(".table-view"));
  let step = 0;

  function show(s) {
    step = Math.max(0, Math.min(last, s));
    for (const t of tables) {
      const tricks = parseInt(t.dataset.tricks, 10) || 0;
      const k = Math.min(step, tricks);
      for (const c of t.querySelectorAll(".hand .card[data-trick]")) {
        c.classList.toggle("gone", parseInt(c.dataset.trick, 10) <= k);
      }
      for (const p of t.querySelectorAll(".center .panel, .running")) {
        p.hidden = parseInt(p.dataset.step, 10) !== k;
      }
      t.querySelector(".outcome").hidden = step < tricks;
    }
    let text = step === 0 ? "deal and bidding" : "trick " + step + " of " + last;
    if (step === last) text += " · final score";
    label.textContent = text;
    document.getElementById("prev").disabled = step === 0;
    document.getElementById("first").disabled = step === 0;
    document.getElementById("next").disabled = step === last;
    document.getElementById("last").disabled = step === last;
    history.replaceState(null, "", "#step=" + step);
  }

  document.getElementById("prev").addEventListener("click", () => show(step - 1));
  document.getElementById("next").addEventListener("click", () => show(step + 1));
  document.getElementById("first").addEventListener("click", () => show(0));
  document.getElementById("last").addEventListener("click", () => show(last));
  document.addEventListener("keydown", (e) => {
    if (e.altKey || e.ctrlKey || e.metaKey) return;
    const moves = { ArrowRight: step + 1, ArrowLeft: step - 1, Home: 0, End: last };
    if (e.key in moves) {
      e.preventDefault();
      show(moves[e.key]);
    }
  });
  function fromHash() {
    const m = /step=(\d+)/.exec(location.hash);
    show(m ? parseInt(m[1], 10) : 0);
  }
  window.addEventListener("hashchange", fromHash);
  fromHash();
})();
