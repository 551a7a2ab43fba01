// Word Duel: the board page of a Word Skill rounds match (docs/RULES.md section 19).
//
// The server renders a read-only page; this module takes it over. It keeps one websocket to
// /ws/rounds/<id>/ (docs/PROTOCOL.md, "Word Skill rounds"; every frame's shape is in
// rounds/schemas.py): the snapshot (RoundsView) is the truth and the page is redrawn from it.
// Each round: "Start round n" shows the member's tray and starts their own timer; tiles are
// staged here (the squares drawn by the shared placement.js) and sent with "Play word", or
// "Pass". When the round closes, every player's play and score is shown and the one placed is
// outlined on the board. Refusals are shown in the server's own words.

import { PREMIUM, askBlankLetter, gridCells, make, paintSquare } from "./placement.js";

const root = document.getElementById("rounds-match");
if (root) start(root);

function start(root) {
  const rules = JSON.parse(document.getElementById("board-rules").textContent);
  const SIZE = rules.layout.length;
  const CENTRE = Math.floor(SIZE / 2);
  const COLUMNS = "ABCDEFGHIJKLMNOPQRSTUVWXYZ".slice(0, SIZE);
  const matchId = Number(root.dataset.matchId);
  const $ = (id) => document.getElementById(id);
  const el = {
    board: $("board"),
    roundLine: $("round-line"),
    news: $("round-news"),
    connection: $("connection"),
    startRound: $("start-round"),
    timer: $("your-timer"),
    roundClock: $("round-clock"),
    trayPanel: $("tray-panel"),
    traySlot: $("tray-slot"),
    hint: $("hint"),
    controls: $("controls"),
    submitted: $("your-submission"),
    result: $("round-result"),
    table: $("totals"),
    end: $("end"),
    bagCount: $("bag-count"),
    bagCheck: $("bag-check"),
    blankDialog: $("blank-dialog"),
  };

  const END_REASON = {
    supply_low: "fewer than seven tiles were left for a tray",
    no_play: "no tray dealt had a play on the board (each was put back and redealt)",
    no_words: "three rounds in a row placed no word",
  };
  const STATUS = { played: "played", passed: "passed", timed_out: "ran out of time", absent: "did not start the round" };
  const DECIDED = {
    score: "the highest score",
    speed: "level on score, the faster play",
    order: "level on score and time, the earlier play",
    draw: "level on score and time, a draw from the bag's stream",
  };

  const state = {
    live: null, // the latest RoundsView
    tray: [], // own tiles in display order: {id, letter}
    trayRound: 0, // the round the tray belongs to
    staged: [], // {tileId, row, col, letter, blank}
    picked: null,
    passing: false, // confirming a pass
    pending: new Map(), // request id -> frame, until its ack
  };
  let tileSeq = 0;

  const squareName = (row, col) => `${COLUMNS[col]}${row + 1}`;
  const valueOf = (letter) => (letter === "?" ? 0 : rules.values[letter] ?? 0);
  const plural = (n, word) => `${n} ${word}${n === 1 ? "" : "s"}`;
  const me = () => (state.live ? state.live.your_position : null);
  const playing = () => me() !== null && me() !== undefined;
  const own = () => {
    const live = state.live;
    return live && live.your_round && live.your_round.number === live.round_number ? live.your_round : null;
  };
  const canStage = () => {
    const round = own();
    return !!round && !round.submission && state.live.status === "live" && !state.passing && msLeft(round.ends_at) > 0;
  };
  const stagedAt = (row, col) => state.staged.find((s) => s.row === row && s.col === col);
  const tileById = (id) => state.tray.find((t) => t.id === id);
  const isStaged = (id) => state.staged.some((s) => s.tileId === id);
  const nameOf = (position) => {
    const player = state.live.players.find((p) => p.position === position);
    return player ? player.name : `Player ${position + 1}`;
  };
  const msLeft = (iso) => (iso ? new Date(iso).getTime() - Date.now() : Infinity);
  const hint = (text) => { el.hint.textContent = text; };

  function newId(kind) {
    const bytes = crypto.getRandomValues(new Uint8Array(8));
    return `${kind}-${Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("")}`;
  }

  function countdown(ms) {
    const total = Math.max(0, Math.ceil(ms / 1000));
    const h = Math.floor(total / 3600);
    const m = Math.floor((total % 3600) / 60);
    const s = total % 60;
    if (h) return `${h} h ${String(m).padStart(2, "0")} min`;
    if (m) return `${m} min ${String(s).padStart(2, "0")} s`;
    return `${s} s`;
  }

  function playText(submission) {
    if (!submission || submission.kind === "pass") return "passed";
    const words = submission.words.map((w) => `${w.word} at ${w.position}`).join(", ");
    return `${words || "a play"}${submission.bingo ? " (bingo)" : ""}`;
  }

  // ------------------------------------------------------------------ the board

  const cells = gridCells(el.board);
  let focus = { row: CENTRE, col: CENTRE };

  function lastPlaced() {
    // The squares of the last round's placed play: outlined on the board.
    const rounds = state.live.rounds;
    for (let i = rounds.length - 1; i >= 0; i--) {
      const round = rounds[i];
      if (round.placed === null) continue;
      const placed = round.players.find((p) => p.player === round.placed);
      if (placed && placed.submission) return new Set(placed.submission.tiles.map((t) => t.row * SIZE + t.col));
    }
    return new Set();
  }

  function renderBoard() {
    const live = state.live;
    const board = live.board.length ? live.board : Array(SIZE).fill(".".repeat(SIZE));
    const last = lastPlaced();
    for (let row = 0; row < SIZE; row++) {
      for (let col = 0; col < SIZE; col++) {
        const td = cells[row][col];
        paintSquare(td, {
          name: squareName(row, col),
          char: board[row][col],
          premium: PREMIUM[rules.layout[row][col]],
          star: row === CENTRE && col === CENTRE,
          staged: stagedAt(row, col),
          last: last.has(row * SIZE + col),
          appearing: false,
          valueOf,
          lastLabel: "placed last round",
        });
        td.tabIndex = row === focus.row && col === focus.col ? 0 : -1;
      }
    }
  }

  function boardAt(row, col) {
    const board = state.live.board;
    return board.length ? board[row][col] : ".";
  }

  // ------------------------------------------------------------------ the tray and staging

  function setTray(round) {
    if (!round) {
      if (state.trayRound !== state.live.round_number) {
        state.tray = [];
        state.staged = [];
        state.picked = null;
      }
      return;
    }
    const letters = Array.from(round.tray);
    const same = state.trayRound === round.number && state.tray.length === letters.length;
    if (same) return; // keep the player's order and what they staged
    state.trayRound = round.number;
    state.tray = letters.map((letter) => ({ id: `t${++tileSeq}`, letter }));
    state.staged = [];
    state.picked = null;
    state.passing = false;
  }

  function pick(tileId) {
    state.picked = state.picked === tileId ? null : tileId;
    const tile = tileById(state.picked);
    hint(tile ? `Picked ${tile.letter === "?" ? "a blank" : tile.letter}. Now choose a square.` : "");
    render();
  }

  async function place(row, col) {
    const tile = tileById(state.picked);
    if (!tile) return;
    if (boardAt(row, col) !== "." || stagedAt(row, col)) {
      hint("That square is already taken.");
      return;
    }
    let letter = tile.letter;
    if (letter === "?") {
      letter = await askBlankLetter(el.blankDialog);
      if (!letter) {
        state.picked = null;
        hint("The blank is back on your tray.");
        render();
        return;
      }
    }
    state.staged.push({ tileId: tile.id, row, col, letter, blank: tile.letter === "?" });
    state.picked = null;
    hint(`${letter} on ${squareName(row, col)}.`);
    render();
  }

  function onSquare(row, col) {
    if (!canStage()) return;
    const staged = stagedAt(row, col);
    if (staged && state.picked === null) {
      state.staged = state.staged.filter((s) => s !== staged);
      hint(`${staged.letter} is back on your tray.`);
      render();
      return;
    }
    if (state.picked === null) {
      if (boardAt(row, col) === ".") hint("Pick a tile from your tray first.");
      return;
    }
    if (staged) state.staged = state.staged.filter((s) => s !== staged);
    place(row, col);
  }

  // ------------------------------------------------------------------ requests

  let socket = null;
  let connected = false;

  function send(frame) {
    if (socket && socket.readyState === WebSocket.OPEN) {
      socket.send(JSON.stringify(frame));
      return true;
    }
    return false;
  }

  function request(type, fields = {}) {
    const frame = { type, id: newId(type), ...fields };
    state.pending.set(frame.id, frame);
    if (!send(frame)) hint("Not connected. It will be sent when the connection is back.");
    render();
  }

  const busy = () => state.pending.size > 0 || !connected;

  function playWord() {
    if (!state.staged.length) {
      hint("Place some tiles on the board first.");
      return;
    }
    request("play", {
      round: state.live.round_number,
      tiles: state.staged.map((s) => ({ row: s.row, col: s.col, letter: s.letter, blank: s.blank })),
    });
  }

  // ------------------------------------------------------------------ frames from the server

  function onFrame(frame) {
    switch (frame.type) {
      case "snapshot":
        state.live = frame.snapshot;
        if (frame.id) state.pending.delete(frame.id);
        setTray(own());
        root.dataset.synced = "yes";
        break;
      case "ack":
        onAck(frame);
        break;
      case "joined": // a member joined the open match: every player now
        if (state.live.status === "open") state.live.players = frame.data.players;
        break;
      case "round_started": // this member's start, from another of their pages
        state.live.your_round = frame.data;
        setTray(own());
        break;
      case "progress":
        if (frame.data.number === state.live.round_number) {
          state.live.players.forEach((p) => {
            p.started = !!frame.data.started[p.position];
            p.submitted = !!frame.data.submitted[p.position];
          });
        }
        break;
      case "round_ready":
      case "round_closed":
      case "ended":
        // The board, the totals and the next round come with a fresh snapshot.
        if (frame.type === "round_closed") announceClosed(frame.data);
        send({ type: "sync", id: newId("sync") });
        break;
      case "error":
        hint(frame.message || "Something went wrong.");
        break;
      default:
        break;
    }
    render();
  }

  function announceClosed(result) {
    const placed = result.placed === null ? null : result.players.find((p) => p.player === result.placed);
    el.news.textContent = placed
      ? `Round ${result.number} closed: ${nameOf(result.placed)}'s ${playText(placed.submission)} is placed.`
      : `Round ${result.number} closed: no word was played.`;
  }

  function onAck(frame) {
    const sent = state.pending.get(frame.id);
    state.pending.delete(frame.id);
    if (!frame.accepted) {
      hint(frame.message);
      if (sent && sent.type === "pass") state.passing = false;
      return;
    }
    if (frame.code === "started") {
      state.live.your_round = frame.round;
      state.live.players.forEach((p) => { if (p.position === me()) p.started = true; });
      setTray(own());
      hint("Your tray is dealt and your time is running.");
    } else if (frame.code === "submitted") {
      if (state.live.your_round) state.live.your_round.submission = frame.submission;
      state.live.players.forEach((p) => { if (p.position === me()) p.submitted = true; });
      state.staged = [];
      state.picked = null;
      state.passing = false;
      hint(frame.submission.kind === "pass" ? "You passed this round." : `You played ${playText(frame.submission)} for ${frame.submission.score}.`);
    }
  }

  // ------------------------------------------------------------------ the socket

  let retryTimer = null;
  let attempts = 0;

  function connect() {
    clearTimeout(retryTimer);
    const scheme = location.protocol === "https:" ? "wss" : "ws";
    if (!state.live) el.connection.textContent = "Connecting…";
    const ws = new WebSocket(`${scheme}://${location.host}/ws/rounds/${matchId}/`);
    socket = ws;
    ws.addEventListener("open", () => {
      attempts = 0;
      connected = true;
      el.connection.textContent = "";
      el.connection.hidden = true;
      for (const frame of state.pending.values()) send(frame);
      render();
    });
    ws.addEventListener("message", (event) => {
      try {
        onFrame(JSON.parse(event.data));
      } catch (error) {
        console.error("Could not handle a frame", error);
      }
    });
    ws.addEventListener("close", (event) => {
      if (socket !== ws) return;
      connected = false;
      socket = null;
      root.dataset.synced = "no";
      if (event.code === 4403 || event.code === 4404) {
        el.connection.hidden = false;
        el.connection.textContent = "You may not watch this match.";
        return;
      }
      el.connection.hidden = false;
      el.connection.textContent = "Connection lost. Reconnecting…";
      attempts += 1;
      retryTimer = setTimeout(connect, Math.min(15000, 500 * 2 ** Math.min(attempts, 5)));
      render();
    });
  }

  // ------------------------------------------------------------------ drawing

  function renderLine() {
    const live = state.live;
    const round = own();
    let text;
    if (live.status === "open") {
      const n = live.players.length;
      text = me() === 0
        ? `${plural(n, "player")} joined. ${n >= 2 ? "Start the game when everyone is in." : "The game can start once at least two have joined."}`
        : `${plural(n, "player")} joined. ${live.host} starts the game.`;
    } else if (live.status === "finished") {
      const names = live.winners.map(nameOf).join(" and ");
      const best = live.winners.length ? live.players.find((p) => p.position === live.winners[0]).total : 0;
      text = `Game over: ${names} ${live.winners.length > 1 ? "share first place" : "won"} with ${best}.`;
    } else if (!playing()) {
      text = `Round ${live.round_number} is being played.`;
    } else if (!round) {
      text = `Round ${live.round_number} is ready. Press Start round ${live.round_number} when you are ready: your time starts then.`;
    } else if (!round.submission) {
      text = `Round ${live.round_number}: play your best word, or pass, before your time ends.`;
    } else {
      const finished = live.players.filter((p) => p.submitted).length;
      text = `Round ${live.round_number}: you ${round.submission.kind === "pass" ? "passed" : `played ${playText(round.submission)} for ${round.submission.score}`}. Waiting for the others (${finished} of ${live.players.length} finished).`;
    }
    if (live.status === "live" && (live.redealt || []).length) {
      text += ` Tray redealt: no play possible with ${live.redealt.map(trayText).join(", then ")}.`;
    }
    el.roundLine.textContent = text;
  }

  function renderClocks() {
    const live = state.live;
    const round = own();
    const running = round && !round.submission && live.status === "live";
    el.timer.hidden = !running;
    if (!running) el.timer.textContent = "";
    if (running) {
      const left = msLeft(round.ends_at);
      el.timer.textContent = left > 0 ? `Your time: ${countdown(left)}` : "Your time is up.";
      el.timer.classList.toggle("low", left < 20000);
    }
    el.roundClock.hidden = live.status !== "live" || !live.round_deadline_at;
    if (!el.roundClock.hidden) el.roundClock.textContent = `Round ${live.round_number} closes for everyone in ${countdown(msLeft(live.round_deadline_at))} at the latest.`;
  }

  function renderStartRound() {
    const live = state.live;
    const show = live.status === "live" && playing() && !own();
    el.startRound.hidden = !show;
    el.startRound.textContent = `Start round ${live.round_number}`;
    el.startRound.disabled = busy();
  }

  function renderTray() {
    const round = own();
    el.trayPanel.hidden = !round;
    if (!round) return;
    const open = canStage();
    const list = make("ol", { class: "rack", id: "your-tray", "aria-label": "Your tray" });
    for (const tile of state.tray) {
      if (isStaged(tile.id)) {
        list.append(make("li", { class: "slot", "aria-hidden": "true" }));
        continue;
      }
      const blank = tile.letter === "?";
      list.append(make("li", {}, make("button", {
        type: "button", class: `tile${blank ? " blank" : ""}`, "data-tile": tile.id,
        "aria-pressed": String(state.picked === tile.id),
        "aria-label": blank ? "blank, 0 points" : `${tile.letter}, ${plural(valueOf(tile.letter), "point")}`,
        disabled: !open,
      }, make("span", { class: "letter", text: blank ? "?" : tile.letter }),
      blank ? null : make("span", { class: "value", text: valueOf(tile.letter) }))));
    }
    el.traySlot.replaceChildren(list);
    el.controls.hidden = !!round.submission || state.live.status !== "live";
    el.controls.querySelector(".controls-main").hidden = state.passing;
    el.controls.querySelector(".controls-pass").hidden = !state.passing;
    el.controls.querySelectorAll("[data-action=play], [data-action=pass-confirm]").forEach((b) => { b.disabled = busy() || !open && !state.passing; });
    el.controls.querySelector("[data-action=recall]").disabled = !state.staged.length;
    el.submitted.hidden = !round.submission;
    if (round.submission) {
      el.submitted.textContent = round.submission.kind === "pass"
        ? "You passed this round. Nobody sees it until the round closes."
        : `You played ${playText(round.submission)} for ${round.submission.score}. Nobody sees it until the round closes.`;
    }
  }

  function renderResult() {
    const rounds = state.live.rounds;
    el.result.hidden = !rounds.length;
    if (!rounds.length) return;
    el.result.replaceChildren(...roundResult(rounds[rounds.length - 1], { heading: "h2" }));
  }

  function roundResult(result, { heading }) {
    const placed = result.placed;
    const head = make(heading, { text: `Round ${result.number} result` });
    const tray = make("p", { class: "muted", text: `The tray: ${trayText(result.tray)}.` });
    const redealt = (result.redealt || []).map((t) => make("p", { class: "muted redealt", text: `Tray redealt: no play possible with ${trayText(t)}.` }));
    const why = make("p", {
      class: "placed-line",
      text: placed === null ? "No word was played: nothing was placed."
        : `Placed: ${nameOf(placed)}'s play (${DECIDED[result.decided_by] || result.decided_by}).`,
    });
    const rows = result.players.map((p) => make("tr", { class: p.player === placed ? "placed" : "", "data-player": p.player },
      make("th", { scope: "row", text: nameOf(p.player) }),
      make("td", { text: p.status === "played" ? playText(p.submission) : STATUS[p.status] }),
      make("td", { class: "num", text: p.score }),
      make("td", { text: p.player === placed ? "placed" : "" })));
    const table = make("table", { class: "round-plays", id: "round-plays" },
      make("caption", { class: "visually-hidden", text: `Every play of round ${result.number}` }),
      make("thead", {}, make("tr", {}, make("th", { scope: "col", text: "Player" }), make("th", { scope: "col", text: "Play" }),
        make("th", { scope: "col", text: "Score" }), make("th", { scope: "col", text: "" }))),
      make("tbody", {}, ...rows));
    return [head, ...redealt, tray, why, table];
  }

  function trayText(tray) {
    return Array.from(tray, (t) => (t === "?" ? "blank" : t)).join(" ");
  }

  function renderTable() {
    const live = state.live;
    const players = [...live.players].sort((a, b) => b.total - a.total || a.position - b.position);
    const rows = players.map((p) => {
      let now = "";
      if (live.status === "live") now = p.submitted ? "finished" : p.started ? "playing" : "not started";
      else if (live.status === "finished") now = p.place === 1 ? "winner" : "";
      return make("tr", { "data-player": p.position, class: p.position === me() ? "you" : "" },
        make("th", { scope: "row", text: `${p.name}${p.position === me() ? " (you)" : ""}` }),
        make("td", { class: "num total", text: p.total }),
        make("td", { class: "now", text: now }));
    });
    el.table.querySelector("tbody").replaceChildren(...rows);
    el.table.querySelector("caption").textContent = live.status === "finished" ? "Final table" : "Totals";
  }

  function renderEnd() {
    const live = state.live;
    el.end.hidden = live.status !== "finished";
    el.bagCount.textContent = live.bag_count;
    if (live.status !== "finished") return;
    $("end-reason").textContent = `The game ended because ${END_REASON[live.end_reason] || live.end_reason}.`;
    $("bag-seed").textContent = live.bag_seed || "";
    $("bag-commitment").textContent = live.bag_commitment;
  }

  function renderStartGame() {
    const form = $("start-game");
    if (form) form.hidden = state.live.status !== "open" || me() !== 0;
    const button = form && form.querySelector("button");
    if (button) button.disabled = state.live.players.length < 2;
  }

  function render() {
    if (!state.live) return;
    root.dataset.status = state.live.status;
    root.dataset.round = state.live.round_number;
    renderBoard();
    renderLine();
    renderStartGame();
    renderStartRound();
    renderClocks();
    renderTray();
    renderResult();
    renderTable();
    renderEnd();
  }

  // The clocks tick here; who joins an open match comes as "joined" news (no polling).
  setInterval(() => {
    if (state.live) renderClocks();
  }, 1000);

  // ------------------------------------------------------------------ input

  el.board.addEventListener("click", (event) => {
    const td = event.target.closest("td.sq");
    if (!td) return;
    focus = { row: Number(td.dataset.row), col: Number(td.dataset.col) };
    onSquare(focus.row, focus.col);
  });

  // The keyboard, as on the match page: arrows move on the board, a letter picks it from the
  // tray (? a blank), Enter or Space places it, Backspace takes the last tile back.
  const ARROWS = { ArrowUp: [-1, 0], ArrowDown: [1, 0], ArrowLeft: [0, -1], ArrowRight: [0, 1] };
  function focusSquare(row, col) {
    row = Math.max(0, Math.min(SIZE - 1, row));
    col = Math.max(0, Math.min(SIZE - 1, col));
    cells[focus.row][focus.col].tabIndex = -1;
    focus = { row, col };
    cells[row][col].tabIndex = 0;
    cells[row][col].focus();
  }
  document.addEventListener("keydown", (event) => {
    if (event.ctrlKey || event.metaKey || event.altKey || event.defaultPrevented) return;
    if (event.target.closest("input, textarea, select, dialog, summary, button")) return;
    const onBoard = el.board.contains(document.activeElement) && document.activeElement.matches("td.sq");
    if (onBoard && ARROWS[event.key]) {
      event.preventDefault();
      focusSquare(focus.row + ARROWS[event.key][0], focus.col + ARROWS[event.key][1]);
      return;
    }
    if (!canStage()) return;
    const letter = event.key.length === 1 ? event.key.toUpperCase() : "";
    if (/^[A-Z?]$/.test(letter)) {
      const free = state.tray.find((t) => t.letter === letter && !isStaged(t.id));
      event.preventDefault();
      if (free) pick(free.id);
      else hint(letter === "?" ? "You have no blank." : `You have no ${letter}.`);
    } else if (onBoard && (event.key === "Enter" || event.key === " ")) {
      event.preventDefault();
      onSquare(focus.row, focus.col);
    } else if ((event.key === "Backspace" || event.key === "Delete") && state.staged.length) {
      event.preventDefault();
      const staged = state.staged[state.staged.length - 1];
      state.staged = state.staged.slice(0, -1);
      hint(`${staged.letter} is back on your tray.`);
      render();
    }
  });

  el.traySlot.addEventListener("click", (event) => {
    const button = event.target.closest("button[data-tile]");
    if (button && canStage()) pick(button.dataset.tile);
  });

  el.startRound.addEventListener("click", () => {
    request("start_round", { round: state.live.round_number });
  });

  el.controls.addEventListener("click", (event) => {
    const action = event.target.closest("button[data-action]")?.dataset.action;
    if (!action) return;
    if (action === "play") playWord();
    else if (action === "recall") { state.staged = []; state.picked = null; hint("Your tiles are back on the tray."); render(); }
    else if (action === "shuffle") {
      for (let i = state.tray.length - 1; i > 0; i--) {
        const j = Math.floor(Math.random() * (i + 1));
        [state.tray[i], state.tray[j]] = [state.tray[j], state.tray[i]];
      }
      render();
    } else if (action === "pass") { state.passing = true; state.staged = []; state.picked = null; render(); }
    else if (action === "cancel") { state.passing = false; render(); }
    else if (action === "pass-confirm") request("pass", { round: state.live.round_number });
  });

  el.bagCheck.addEventListener("click", async () => {
    // The seed shown at the end must be the one committed to at the start: SHA-256(seed).
    const out = $("bag-check-result");
    const seed = state.live.bag_seed;
    if (!seed || !crypto.subtle) {
      out.textContent = "This browser cannot check it here.";
      return;
    }
    const bytes = new Uint8Array(seed.match(/../g).map((h) => parseInt(h, 16)));
    const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", bytes));
    const hex = Array.from(digest, (b) => b.toString(16).padStart(2, "0")).join("");
    out.textContent = hex === state.live.bag_commitment
      ? "Checked: the seed is the one committed to before round 1, so the trays were not chosen after the start."
      : "The seed does NOT match the commitment.";
  });

  const initial = $("rounds-view");
  if (initial) {
    state.live = JSON.parse(initial.textContent);
    setTray(own());
    render();
  }
  connect();
}
