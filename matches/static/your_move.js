// "Your move" on the match page (issue 18, docs/NOTIFICATIONS.md "In the page").
//
// While it is the viewer's move here, the tab's title starts with "Your move" and its icon
// carries a dot; when the move becomes theirs while the tab is hidden, a browser
// notification says so (only if the member allowed notifications for the site). The
// "Next match where it's my move" button goes to the next board waiting for them (the
// server picks it at the click); it is hidden while no other board waits.
//
// board.js announces every view it applies with a "wordduel:view" event on document (the
// view is the snapshot of docs/PROTOCOL.md); this file only listens, so the board's own
// code knows nothing of it.

const TITLE = "Your move";
const REFRESH_MS = 60_000;
const baseTitle = document.title;
const bar = document.getElementById("your-move");
const matchId = bar ? Number(bar.dataset.matchId) : null;
let wasMine = null;

function iconUrl(alert) {
  // A tile with a W; a red dot on it while it is your move. Drawn here (img-src allows data:).
  const dot = alert ? '<circle cx="25" cy="7" r="6.5" fill="#d22" stroke="#fff" stroke-width="1.5"/>' : "";
  const svg = '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32">'
    + '<rect x="1" y="3" width="28" height="28" rx="5" fill="#e9d8a6" stroke="#6b4f1d" stroke-width="2"/>'
    + '<text x="15" y="25" font-family="sans-serif" font-size="19" font-weight="700" text-anchor="middle" fill="#3a2a0b">W</text>'
    + dot + "</svg>";
  return `data:image/svg+xml,${encodeURIComponent(svg)}`;
}

function setIcon(alert) {
  let link = document.querySelector('link[rel="icon"]');
  if (!link) {
    link = document.createElement("link");
    link.rel = "icon";
    link.type = "image/svg+xml";
    document.head.append(link);
  }
  link.dataset.yourMove = alert ? "yes" : "no";
  link.href = iconUrl(alert);
}

function isMine(view) {
  return view.status === "live" && view.your_seat !== null && view.your_seat !== undefined
    && view.to_move === view.your_seat;
}

function notify(view) {
  if (!("Notification" in window) || Notification.permission !== "granted") return;
  try {
    const note = new Notification(`${TITLE}: ${view.name}`, {
      body: "Your opponent has moved. It is your turn.",
      tag: `wordduel-your_move-${view.match_id}`,
      icon: iconUrl(true),
    });
    note.addEventListener("click", () => { window.focus(); note.close(); });
  } catch (error) {
    // Some browsers allow notifications only from a service worker: the tab's title still says it.
  }
}

// ------------------------------------------------------------------ the next board waiting

async function refreshWaiting() {
  if (!bar) return;
  let listing;
  try {
    const response = await fetch(bar.dataset.waitingUrl, {
      credentials: "same-origin", headers: { Accept: "application/json" },
    });
    if (!response.ok) return;
    listing = await response.json();
  } catch (error) {
    return; // offline for a moment: the button keeps what it showed
  }
  const others = listing.matches.filter((m) => m.id !== matchId);
  const next = document.getElementById("next-move");
  next.hidden = others.length === 0;
  bar.dataset.waiting = String(others.length);
  const count = document.getElementById("next-move-count");
  if (count) count.textContent = others.length ? ` (${others.length})` : "";
}

function offerNotifications() {
  const ask = document.getElementById("notify-me");
  if (!ask || !("Notification" in window) || Notification.permission !== "default") return;
  ask.hidden = false;
  ask.addEventListener("click", async () => {
    try { await Notification.requestPermission(); } catch (error) { /* refused or not offered */ }
    ask.hidden = Notification.permission === "default";
  });
}

// ------------------------------------------------------------------ the view, as board.js applies it

document.addEventListener("wordduel:view", (event) => {
  const view = event.detail;
  if (!view) return;
  const mine = isMine(view);
  // The match's title as it is now (its players change with a substitution).
  const base = view.name ? `${view.name} · Word Duel` : baseTitle;
  document.title = mine ? `${TITLE} · ${base}` : base;
  setIcon(mine);
  if (wasMine !== null && mine !== wasMine) {
    if (mine && document.hidden) notify(view);
    refreshWaiting();
  }
  wasMine = mine;
});

document.addEventListener("visibilitychange", () => { if (!document.hidden) refreshWaiting(); });
setInterval(() => { if (!document.hidden) refreshWaiting(); }, REFRESH_MS);
setIcon(false);
offerNotifications();
