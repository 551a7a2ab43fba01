// On the page of a game against the computer, for the member it plays: when the game ends
// while the page is open (board.js redraws it from the socket's news), the review the server
// shows after the end is one reload away: say so, with the link.
const next = document.getElementById("practice-review-next");
if (next) {
  document.addEventListener("wordduel:view", (event) => {
    const status = event.detail && event.detail.status;
    next.hidden = status === "live" || status === "scheduled" || !status;
  });
}
