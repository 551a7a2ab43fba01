/* Step through an imported game without reloading: the links (?turn=N) work without this
   script; with it, they redraw the board, the totals and the current turn from the steps'
   JSON the page carries, and the arrow keys step too. */
const root = document.getElementById("imported");
const data = JSON.parse(document.getElementById("replay-steps").textContent);
const last = data.boards.length - 1;
const cells = new Map();
document.querySelectorAll("#board td[data-square]").forEach((td) => cells.set(td.dataset.square, td));

function squareName(row, col) {
  return String.fromCharCode(65 + col) + String(row + 1);
}

function href(step) {
  const url = new URL(window.location.href);
  url.searchParams.set("turn", String(step));
  return url.pathname + url.search;
}

function show(step, push) {
  step = Math.max(0, Math.min(last, step));
  const board = data.boards[step];
  const placed = new Set(data.placed[step]);
  board.forEach((row, r) => {
    Array.from(row).forEach((ch, c) => {
      const td = cells.get(squareName(r, c));
      if (!td) { return; }
      const premium = td.dataset.premium;
      td.className = "sq";
      if (ch === ".") {
        td.textContent = td.dataset.label;
        if (premium) { td.classList.add(premium); }
      } else {
        td.textContent = ch.toUpperCase();
        td.classList.add("tile");
        if (ch !== ch.toUpperCase()) { td.classList.add("blank"); }
      }
      if (td.dataset.label === "\u2605") { td.classList.add("star"); }
      if (placed.has(td.dataset.square)) { td.classList.add("last"); }
    });
  });
  document.getElementById("total-0").textContent = String(data.totals[step][0]);
  document.getElementById("total-1").textContent = String(data.totals[step][1]);
  document.getElementById("replay-position").textContent =
    step === 0 ? "Before the first turn" : `Turn ${step} of ${last}`;
  document.querySelectorAll("#turns > li[aria-current]").forEach((li) => li.removeAttribute("aria-current"));
  const current = document.getElementById(`turn-${step}`);
  if (current) {
    current.setAttribute("aria-current", "step");
    current.scrollIntoView({block: "nearest"});
  }
  const nav = document.getElementById("replay-nav");
  const back = nav.querySelector('[data-rel="back"]');
  const forward = nav.querySelector('[data-rel="forward"]');
  back.dataset.step = String(Math.max(0, step - 1));
  forward.dataset.step = String(Math.min(last, step + 1));
  back.href = href(Math.max(0, step - 1));
  forward.href = href(Math.min(last, step + 1));
  root.dataset.step = String(step);
  if (push) { window.history.replaceState(null, "", href(step)); }
}

root.addEventListener("click", (event) => {
  const link = event.target.closest("a[data-step]");
  if (!link || event.ctrlKey || event.metaKey || event.shiftKey) { return; }
  event.preventDefault();
  show(Number(link.dataset.step), true);
});

document.addEventListener("keydown", (event) => {
  const tag = event.target.tagName;
  if (tag === "INPUT" || tag === "TEXTAREA" || tag === "SELECT" || event.altKey || event.ctrlKey || event.metaKey) { return; }
  const step = Number(root.dataset.step);
  const to = {ArrowLeft: step - 1, ArrowRight: step + 1, Home: 0, End: last}[event.key];
  if (to === undefined) { return; }
  event.preventDefault();
  show(to, true);
});

root.dataset.ready = "yes";
