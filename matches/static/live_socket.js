// Word Duel: a page's requests over its one live websocket, shared by every page that keeps one
// (the match page, board.js; the rounds page, rounds/static/rounds_board.js). The page owns the
// socket, its reconnecting and what it does with each frame; this module names each request
// with a fresh id, keeps it pending until its answer, sends it while the socket is open, sends
// what is pending again after a reconnect, and reads the frames that arrive.

export function newId(kind) {
  // Request ids make a commit idempotent: a resend after a reconnect gets the first answer.
  const bytes = crypto.getRandomValues(new Uint8Array(8));
  return `${kind}-${Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("")}`;
}

// socket: () => the page's current WebSocket or null; pending: the page's Map of request id ->
// frame, which the page clears as answers come; hint: shows a line to the player; render: the
// page's redraw, after a request is made.
export function liveRequests({ socket, pending, hint, render }) {
  function send(frame) {
    const ws = socket();
    if (ws && ws.readyState === WebSocket.OPEN) {
      ws.send(JSON.stringify(frame));
      return true;
    }
    return false;
  }

  function request(type, fields = {}) {
    const frame = { type, id: newId(type), ...fields };
    pending.set(frame.id, frame);
    if (!send(frame)) hint("Not connected. It will be sent when the connection is back.");
    render();
  }

  function resend() {
    // A commit whose answer was lost with the connection: the same id gets the same answer.
    for (const frame of pending.values()) send(frame);
  }

  return { send, request, resend };
}

// Each frame from the server, parsed, to onFrame; one it cannot handle is logged, not fatal.
export function listenForFrames(ws, onFrame) {
  ws.addEventListener("message", (event) => {
    try {
      onFrame(JSON.parse(event.data));
    } catch (error) {
      console.error("Could not handle a frame", error);
    }
  });
}
