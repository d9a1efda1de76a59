// The upload form of a participant's page (/me, arena/compete/pages.py): the archive is sent
// as the request's body with the page's CSRF token; the answer is shown, then the page reloads.
document.getElementById("upload").addEventListener("submit", async (event) => {
  event.preventDefault();
  const file = event.target.querySelector("input[type=file]").files[0];
  const out = document.getElementById("upload-result");
  out.textContent = "uploading…";
  const r = await fetch("/me/versions", {method: "POST", body: file, credentials: "same-origin", headers: {
    "Content-Type": "application/gzip",
    "X-CSRF-Token": document.querySelector("meta[name=csrf-token]").content}});
  const body = await r.json();
  if (r.ok) { out.textContent = `version ${body.id}: ${body.status}`; setTimeout(() => location.reload(), 1500); }
  else { out.textContent = `refused (${r.status}): ${body.detail}`; }
});
