// Copy buttons: a button with data-copy puts that text on the clipboard and says so.
"use strict";
(function () {
  for (const button of document.querySelectorAll("button[data-copy]")) {
    button.addEventListener("click", async () => {
      const label = button.textContent;
      try {
        await navigator.clipboard.writeText(button.dataset.copy);
        button.textContent = "copied";
      } catch (e) {
        button.textContent = "not copied: open \"whole\"";
      }
      setTimeout(() => { button.textContent = label; }, 2000);
    });
  }
})();
