// Word Duel: the interactive match page.
//
// The server renders a read-only page; this module takes it over. It keeps one websocket to
// /ws/matches/<id>/ (see docs/PROTOCOL.md): the server's snapshot and its events are the
// truth, and the page is redrawn from them. Staging tiles happens here only; nothing is sent
// until "Play word", "Swap" or "Pass". Refusals are shown in the server's own words (RULES.md).
// Replays come from /api/matches/<id>/replay?turn=N and are linkable with ?turn=N.

import { PREMIUM, askBlankLetter as askBlank, gridCells, make, paintSquare } from "./placement.js";
import { listenForFrames, liveRequests, newId } from "./live_socket.js";

const root = document.getElementById("match");
if (root) start(root);

function start(root) {
  const rules = JSON.parse(document.getElementById("board-rules").textContent);
  const SIZE = rules.layout.length;
  const CENTRE = Math.floor(SIZE / 2);
  const COLUMNS = "ABCDEFGHIJKLMNOPQRSTUVWXYZ".slice(0, SIZE);
  const RESULT = { first: 0, second: 1 };
  const END_REASON = {
    played_out: "Played out",
    six_scoreless: "Six scoreless turns",
    finish_line: "Finish Line reached",
    forfeit: "Forfeit",
    no_show: "No-show",
    abandoned: "Both seats empty",
    resigned: "Resignation",
    cancelled: "Cancelled by an organiser",
    adjudicated: "Adjudicated by an organiser",
    voided: "Voided by an organiser",
    withdrawn: "Withdrawn by an organiser",
  };
  const STATUS_LABEL = { scheduled: "Scheduled", live: "Live", finished: "Finished", abandoned: "Abandoned" };
  const STALE = "Your opponent moved. Board updated.";

  const matchId = Number(root.dataset.matchId);
  const memberId = root.dataset.memberId ? Number(root.dataset.memberId) : null;
  const key = new URLSearchParams(location.search).get("key");
  const $ = (id) => document.getElementById(id);
  const el = {
    board: $("board"),
    status: $("status"),
    hint: $("hint"),
    turnLine: $("turn-line"),
    connection: $("connection"),
    kickoff: $("kickoff-banner"),
    playPanel: $("play-panel"),
    rackSlot: $("rack-slot"),
    controls: $("controls"),
    replay: $("replay"),
    replayPosition: $("replay-position"),
    replayBanner: $("replay-banner"),
    replayAnalysis: $("replay-analysis"),
    seatsSlot: $("seats-slot"),
    movesSlot: $("moves-slot"),
    gcgLink: $("gcg-link"),
    bagCount: $("bag-count"),
    matchStatus: $("match-status"),
    shareSlot: $("share-slot"),
    finalScoreSlot: $("final-score-slot"),
    lastMove: $("last-move"),
    lastMoveText: $("last-move-text"),
    showLastPlay: $("show-last-play"),
    unseen: $("unseen"),
    blankDialog: $("blank-dialog"),
    challengeBox: $("challenge-box"),
    challengeWindow: $("challenge-window"),
    challengeButton: $("challenge-button"),
    challengeResult: $("challenge-result"),
  };

  const state = {
    live: null, // the latest snapshot, kept current by events
    replay: null, // a replay snapshot while stepping through the game, else null
    rack: [], // own tiles in display order: {id, letter}; "?" is a blank
    rackTurn: -1, // the turn the rack belongs to, so an older rack never replaces a newer one
    staged: [], // tiles on the board, not yet sent: {tileId, row, col, letter, blank}
    // Reword (rules.takes_allowed): this turn's swaps and steals, in order, not yet sent:
    // {kind: "swap"|"steal", row, col, face (the board tile as it showed: lower case for a
    // blank), takenId (its tile now on the rack), and for a swap rackId and placed {letter, blank}}
    takes: [],
    picked: null, // id of the rack tile picked up
    mode: "play", // "play", "swap" (choosing tiles) or "pass" (confirming)
    swapPicks: new Set(),
    focus: { row: CENTRE, col: CENTRE },
    pending: new Map(), // request id -> frame, until its ack comes (resent after a reconnect)
    acked: new Set(), // turn numbers of the moves this page made (others came from elsewhere)
    tileSet: null, // every tile of the game, as the last snapshot's unseen count implies
    showing: null, // the last play being shown again: {tiles, before, shown, timer}
    record: null, // once the game is over, its whole record (the bag check's), else null
  };
  let tileSeq = 0;

  // ------------------------------------------------------------------ small helpers

  const squareName = (row, col) => `${COLUMNS[col]}${row + 1}`;
  const valueOf = (letter) => (letter === "?" ? 0 : rules.values[letter] ?? 0);
  const plural = (n, word) => `${n} ${word}${n === 1 ? "" : "s"}`;
  const view = () => state.replay || state.live;
  const seated = () => state.live && state.live.your_seat !== null && state.live.your_seat !== undefined;
  const canStage = () => !state.replay && seated() && state.live.status === "live" && state.mode === "play";
  const stagedAt = (row, col) => state.staged.find((s) => s.row === row && s.col === col);
  const tileById = (id) => state.rack.find((t) => t.id === id);
  const isStaged = (id) => state.staged.some((s) => s.tileId === id);
  // Reword: swaps and steals from the board (RULES.md 20), at most MAX_TAKES a turn.
  const MAX_TAKES = 4;
  const takesAllowed = () => !!rules.takes_allowed;
  const takeAt = (row, col) => state.takes.find((t) => t.row === row && t.col === col);
  const blockedAt = (row, col) => state.takes.some((t) => t.kind === "steal" && t.row === row && t.col === col);
  // A rack tile put down on the board by a swap this turn: off the rack until the swap is undone.
  const isSwappedDown = (id) => state.takes.some((t) => t.rackId === id);
  const takeOf = (tileId) => state.takes.find((t) => t.takenId === tileId);
  const building = () => state.staged.length > 0 || state.takes.length > 0;
  // A board character: capital for a letter tile, lower case for a blank standing as a letter.
  const boardChar = (letter, blank) => (blank ? letter.toLowerCase() : letter.toUpperCase());
  const faceText = (char) => (char === char.toUpperCase() ? char : `a blank (${char.toUpperCase()})`);
  const seatName = (seat) => seat.name || seat.label;
  // A play whose tiles are not on the board: withdrawn after a challenge; a turn lost to one.
  const withdrawn = (move) => !!(move.challenge && move.challenge.withdrawn);
  const onBoard = (move) => move.kind === "play" && !withdrawn(move) && !move.lost_turn;
  const ordinal = (n) => `${n}${{ 1: "st", 2: "nd", 3: "rd" }[n] || "th"}`;

  function localTime(iso) {
    return new Date(iso).toLocaleString(undefined, {
      weekday: "short", day: "numeric", month: "short", hour: "2-digit", minute: "2-digit",
      timeZoneName: "short",
    });
  }

  function countdown(ms) {
    const total = Math.max(0, Math.ceil(ms / 1000));
    const d = Math.floor(total / 86400);
    const h = Math.floor((total % 86400) / 3600);
    const m = Math.floor((total % 3600) / 60);
    const s = total % 60;
    if (d) return `${d} d ${h} h`;
    if (h) return `${h} h ${String(m).padStart(2, "0")} min`;
    if (m) return `${m} min ${String(s).padStart(2, "0")} s`;
    return `${s} s`;
  }

  let sayTimer = null;
  function say(text) {
    // Clear first, then write a moment later, so the same message twice is announced twice.
    el.status.textContent = "";
    clearTimeout(sayTimer);
    sayTimer = setTimeout(() => { el.status.textContent = text; }, 50);
  }

  const hint = (text) => { el.hint.textContent = text; };

  // ------------------------------------------------------------------ the board

  // The server's table stays; each square becomes a focusable grid cell we redraw in place.
  const cells = gridCells(el.board);

  function lastPlay(snapshot) {
    // The squares of the most recent play, outlined so the newest word is easy to find.
    const move = lastPlayMove(snapshot);
    return new Set(move ? move.tiles.map((t) => t.row * SIZE + t.col) : []);
  }

  // Reword: the board as this turn's swaps and steals leave it (a stolen square empty).
  function stagingBoard() {
    const board = state.live.board.map((line) => [...line]);
    for (const take of state.takes) {
      board[take.row][take.col] = take.kind === "swap" ? boardChar(take.placed.letter, take.placed.blank) : ".";
    }
    return board.map((line) => line.join(""));
  }

  // The face a swap put down, as the news has it (TakeView: placed, placed_blank).
  const placedChar = (take) => boardChar(take.placed, take.placed_blank);

  // Reword: the marks of a play's swaps and steals, square index -> {shade, what}, one shade per
  // take: a swap's square and the tile it took where the play put it; a steal's square (empty
  // after it) and the stolen tile where it was played. ``takes`` as MoveView has them.
  function takeMarks(move, takes) {
    const marks = new Map();
    const tiles = [...move.tiles];
    takes.forEach((take, shade) => {
      const letter = take.letter.toUpperCase();
      const swap = take.take === "swap";
      marks.set(take.row * SIZE + take.col, { shade, what: swap ? "swapped" : "its tile stolen" });
      const at = tiles.findIndex((t) => t && t.letter.toUpperCase() === letter && !!t.blank === !!take.blank);
      const played = at >= 0 ? tiles[at] : tiles.find((t) => t && t.blank && take.blank);
      if (!played) return;
      tiles[tiles.indexOf(played)] = null;
      marks.set(played.row * SIZE + played.col, { shade, what: swap ? "taken by a swap" : "stolen" });
    });
    return marks;
  }

  // Reword: every earlier turn's swaps and steals (all but ``except``, the last play, whose takes
  // are marked above), square index -> [{kind, turn}] oldest first: a quieter mark, a corner
  // notch, with the turn in the square's name. ``snapshot.moves`` is the board's own history
  // (a replay step's moves end at that step).
  function pastTakes(snapshot, except) {
    const marks = new Map();
    for (const move of snapshot.moves) {
      if (move === except || !move.takes || !move.takes.length) continue;
      for (const take of move.takes) {
        const index = take.row * SIZE + take.col;
        if (!marks.has(index)) marks.set(index, []);
        marks.get(index).push({ kind: take.take, turn: move.number });
      }
    }
    return marks;
  }

  const pastTakeText = (taken) => taken
    .map((t) => (t.kind === "swap" ? `swapped in turn ${t.turn}` : `a letter stolen here in turn ${t.turn}`))
    .join(", ");

  // This turn's takes, marked the same way (a staged taken tile where it is staged).
  function currentMarks() {
    const marks = new Map();
    state.takes.forEach((take, shade) => {
      marks.set(take.row * SIZE + take.col, { shade, what: take.kind === "swap" ? "swapped" : "its tile stolen" });
      const staged = state.staged.find((s) => s.tileId === take.takenId);
      if (staged) marks.set(staged.row * SIZE + staged.col, { shade, what: "taken" });
    });
    return marks;
  }

  function renderBoard() {
    const shown = view();
    if (!shown) return;
    // While the last play is shown again: the board before it, with its steps so far.
    const showing = state.replay ? null : state.showing;
    const staging = !state.replay && !showing && !!state.live;
    const board = showing ? showingBoard(showing) : staging ? stagingBoard() : shown.board;
    const last = showing ? showingSquares(showing) : lastPlay(shown);
    const newest = showing && showing.shown ? showing.steps[showing.shown - 1] : null;
    // Past swaps and steals (the last play's), and this turn's own over them.
    const lastMove = showing ? null : lastPlayMove(shown);
    const past = showing ? showingMarks(showing) : lastMove ? takeMarks(lastMove, lastMove.takes || []) : new Map();
    const mine = staging ? currentMarks() : new Map();
    const earlier = pastTakes(shown, lastPlayMove(shown));
    for (let row = 0; row < SIZE; row++) {
      for (let col = 0; col < SIZE; col++) {
        const td = cells[row][col];
        const index = row * SIZE + col;
        // Reword's marks: this turn's takes (until played), else the last play's.
        const mark = mine.get(index) || past.get(index);
        const warned = mine.has(index) ? takeAt(row, col) : null;
        paintSquare(td, {
          name: squareName(row, col),
          char: board[row][col],
          premium: PREMIUM[rules.layout[row][col]],
          star: row === CENTRE && col === CENTRE,
          staged: staging ? stagedAt(row, col) : null,
          blocked: staging && blockedAt(row, col),
          // A square swapped this turn holds the new tile, not the last move's.
          last: last.has(index) && !(staging && takeAt(row, col)),
          appearing: !!newest && newest.row === row && newest.col === col,
          valueOf,
          mark: mark && {
            css: mine.has(index) ? "took-now" : "took",
            shade: mark.shade,
            says: mine.has(index) ? `${mark.what} this turn` : `${mark.what} in the last play`,
            warning: warned && warned.warning,
          },
        });
        // Earlier turns' swaps and steals: a notch for the latest (top right a swap, bottom left
        // a steal), and every one in the square's name.
        delete td.dataset.pastTake;
        const before = earlier.get(index);
        if (before) {
          td.classList.add("past-take");
          td.dataset.pastTake = before[before.length - 1].kind;
          td.setAttribute("aria-label", `${td.getAttribute("aria-label")}, ${pastTakeText(before)}`);
        }
        td.tabIndex = row === state.focus.row && col === state.focus.col ? 0 : -1;
      }
    }
  }

  function focusSquare(row, col, { move = true } = {}) {
    row = Math.max(0, Math.min(SIZE - 1, row));
    col = Math.max(0, Math.min(SIZE - 1, col));
    cells[state.focus.row][state.focus.col].tabIndex = -1;
    state.focus = { row, col };
    const td = cells[row][col];
    td.tabIndex = 0;
    if (move) td.focus();
  }

  const boardHasFocus = () => el.board.contains(document.activeElement) && document.activeElement.matches("td.sq");

  // ------------------------------------------------------------------ staging

  function setRack(letters, turn) {
    if (turn < state.rackTurn) return;
    state.rackTurn = turn;
    // The rack's own tiles (a tile taken from the board this turn is not yet the rack's).
    const own = state.rack.filter((t) => !t.taken);
    const same = own.length === letters.length
      && own.map((t) => t.letter).sort().join("") === [...letters].sort().join("");
    if (same) return; // keep the player's order and what they staged
    state.rack = letters.map((letter) => ({ id: `t${++tileSeq}`, letter }));
    sendTilesBack();
    state.swapPicks.clear();
  }

  function pickedText(tile) {
    const what = tile.letter === "?" ? "a blank" : tile.letter;
    if (!takesAllowed()) return `Picked ${what}. Now choose a square.`;
    if (tile.taken) return `Picked ${what}, taken from the board. Now choose an empty square.`;
    return `Picked ${what}. Now choose a square, or a tile on the board to swap it for.`;
  }

  function pick(tileId) {
    state.picked = state.picked === tileId ? null : tileId;
    const tile = tileById(state.picked);
    hint(tile ? pickedText(tile) : "");
    render();
  }

  function pickByLetter(letter) {
    const free = state.rack.filter((t) => !isStaged(t.id) && !isSwappedDown(t.id) && t.letter === letter);
    if (!free.length) {
      hint(letter === "?" ? "You have no blank." : `You have no ${letter}.`);
      return false;
    }
    // Typing the same letter again moves on to the next tile with it.
    const at = free.findIndex((t) => t.id === state.picked);
    state.picked = free[(at + 1) % free.length].id;
    hint(pickedText(tileById(state.picked)));
    render();
    return true;
  }

  async function place(row, col) {
    const tile = tileById(state.picked);
    if (!tile) return false;
    if (blockedAt(row, col)) {
      hint(`${squareName(row, col)} is blocked: you stole from it this turn.`);
      return false;
    }
    if (stagingBoard()[row][col] !== "." || stagedAt(row, col)) {
      hint("That square is already taken.");
      return false;
    }
    let letter = tile.letter;
    if (letter === "?") {
      letter = await askBlankLetter();
      if (!letter) {
        state.picked = null;
        render();
        hint("The blank is back on your rack.");
        return false;
      }
    }
    state.staged.push({ tileId: tile.id, row, col, letter, blank: tile.letter === "?" });
    state.picked = null;
    hint(`${letter} on ${squareName(row, col)}.`);
    render();
    return true;
  }

  function unstage(staged) {
    state.staged = state.staged.filter((s) => s !== staged);
    hint(`${staged.letter} is back on your rack.`);
    render();
  }

  function recallAll() {
    state.staged = [];
    state.picked = null;
    undoTakes(0);
  }

  // ---- Reword: swap a rack tile for a board tile, steal a word's end letter (RULES.md 20).
  // Each take is kept here until the play is sent with them; the server checks the words
  // they leave (a refusal says which) and the board goes back to the position.

  // The words through a square of ``board``, across then down: runs of 2+ squares as indices.
  function runsThrough(board, row, col) {
    const runs = [];
    for (const [dr, dc] of [[0, 1], [1, 0]]) {
      let r0 = row;
      let c0 = col;
      while (r0 - dr >= 0 && c0 - dc >= 0 && board[r0 - dr][c0 - dc] !== ".") { r0 -= dr; c0 -= dc; }
      const run = [];
      for (let r = r0, c = c0; r < SIZE && c < SIZE && board[r][c] !== "."; r += dr, c += dc) run.push([r, c]);
      if (run.length > 1) runs.push(run);
    }
    return runs;
  }

  // Why a steal from this square cannot be, by shape alone (the engine's words), or null.
  function stealRefusal(board, row, col) {
    const runs = runsThrough(board, row, col);
    if (!runs.length) return "You can only steal the first or last letter of a word.";
    if (runs.some((run) => run.length === 2)) return "You can only steal from a word of three letters or more.";
    const end = (run) => [run[0], run[run.length - 1]].some(([r, c]) => r === row && c === col);
    if (!runs.every(end)) return "You can only steal the first or last letter of a word.";
    return null;
  }

  function takeRefusal(row, col) {
    if (state.takes.length >= MAX_TAKES) return `You can swap or steal at most ${MAX_TAKES} tiles in a turn.`;
    if (takeAt(row, col)) return "You have already swapped or stolen on that square this turn.";
    return null;
  }

  // The taken tile joins the rack (a blank unlettered), marked until it is played.
  function addTaken(face, after) {
    const id = `t${++tileSeq}`;
    const tile = { id, letter: face === face.toUpperCase() ? face : "?", taken: true };
    const at = after ? state.rack.findIndex((t) => t.id === after) : -1;
    if (at >= 0) state.rack.splice(at + 1, 0, tile);
    else state.rack.push(tile);
    return id;
  }

  function stealFrom(row, col) {
    const board = stagingBoard();
    const refusal = takeRefusal(row, col) || stealRefusal(board, row, col);
    if (refusal) {
      hint(refusal);
      return false;
    }
    const face = board[row][col];
    const take = { kind: "steal", row, col, face, takenId: addTaken(face) };
    state.takes.push(take);
    const name = squareName(row, col);
    hint(`You stole ${faceText(face)} from ${name}: play it this turn. ${name} is blocked until then.`);
    render();
    checkWordsLeft(take, wordsLeft(board, take));
    return true;
  }

  // The words a take leaves through its square, across then down (as the engine checks them):
  // a steal's without the stolen letter, a swap's with the tile put down. ``board`` is the one
  // the takes before it left.
  function wordsLeft(board, take) {
    const after = board.map((line) => [...line]);
    if (take.kind === "swap") after[take.row][take.col] = boardChar(take.placed.letter, take.placed.blank);
    const runs = runsThrough(take.kind === "swap" ? after : board, take.row, take.col);
    return runs.map((run) => run
      .filter(([r, c]) => take.kind === "swap" || r !== take.row || c !== take.col)
      .map(([r, c]) => after[r][c].toUpperCase())
      .join(""));
  }

  // Reword: a word a take leaves behind that is not a word, said at once. The public word
  // checker (/api/words/, matches/words.py) is asked about those words alone, with the match's
  // word list and ruleset; the server checks the whole play again when it is sent, so an
  // answer that does not come changes nothing.
  async function checkWordsLeft(take, words) {
    if (!words.length || !root.dataset.wordsUrl || !state.live) return;
    const url = new URL(root.dataset.wordsUrl, location.href);
    url.searchParams.set("q", words.join(" "));
    url.searchParams.set("lexicon", state.live.lexicon);
    url.searchParams.set("ruleset", state.live.ruleset);
    let body;
    try {
      const response = await fetch(url, { headers: { Accept: "application/json" } });
      if (!response.ok) return;
      body = await response.json();
    } catch (error) {
      return;
    }
    if (!state.takes.includes(take)) return; // undone meanwhile
    const bad = (body.words || []).find((verdict) => !verdict.accepted);
    if (!bad) return;
    const name = squareName(take.row, take.col);
    take.warning = `That would leave ${bad.word.toUpperCase()} on the board, which is not a word.`;
    hint(`${take.warning} Click ${name} to undo the ${take.kind === "swap" ? "swap" : "steal"}.`);
    render(); // the square's name says it too
  }

  async function swapOn(row, col) {
    const tile = tileById(state.picked);
    if (!tile) return false;
    if (tile.taken) {
      hint("A tile you took from the board this turn can only be played: choose an empty square.");
      return false;
    }
    const refusal = takeRefusal(row, col);
    if (refusal) {
      hint(refusal);
      return false;
    }
    const face = stagingBoard()[row][col];
    let letter = tile.letter;
    if (letter === "?") {
      letter = await askBlankLetter();
      if (!letter) {
        state.picked = null;
        render();
        hint("The blank is back on your rack.");
        return false;
      }
    }
    const placed = { letter, blank: tile.letter === "?" };
    const before = stagingBoard();
    const take = { kind: "swap", row, col, face, rackId: tile.id, placed, takenId: addTaken(face, tile.id) };
    state.takes.push(take);
    state.picked = null;
    hint(`You swapped ${placed.blank ? `a blank (${letter})` : letter} for ${faceText(face)} on `
      + `${squareName(row, col)}: play ${faceText(face)} this turn.`);
    render();
    checkWordsLeft(take, wordsLeft(before, take));
    return true;
  }

  // Undo the take at ``from`` and every later one (they were made on the board it left): the
  // taken tiles leave the rack (and the board, if staged), a swapped tile comes back.
  function undoTakes(from) {
    const undone = state.takes.slice(from);
    if (!undone.length) return false;
    const taken = new Set(undone.map((t) => t.takenId));
    state.takes = state.takes.slice(0, from);
    state.staged = state.staged.filter((s) => !taken.has(s.tileId));
    state.rack = state.rack.filter((t) => !taken.has(t.id));
    if (taken.has(state.picked)) state.picked = null;
    return true;
  }

  function undoTake(take) {
    const count = state.takes.length - state.takes.indexOf(take);
    undoTakes(state.takes.indexOf(take));
    hint(count > 1 ? `Undone: that take and the ${plural(count - 1, "take")} after it.`
      : `Undone: ${take.kind === "swap" ? "the swap" : "the steal"} on ${squareName(take.row, take.col)}.`);
    render();
  }

  function sendTilesBack() {
    // Tiles on the board (or in hand) go back to the rack, and the hint stops describing them.
    const any = building() || state.picked !== null;
    recallAll();
    if (any) hint("Your tiles are back on the rack.");
    return any;
  }

  const askBlankLetter = () => askBlank(el.blankDialog);

  function nextSquare(row, col) {
    // After placing, go on in the direction the word is growing (across unless it is a column).
    const down = state.staged.length > 1 && state.staged.every((s) => s.col === state.staged[0].col);
    const [dr, dc] = down ? [1, 0] : [0, 1];
    let r = row + dr;
    let c = col + dc;
    const board = stagingBoard();
    while (r < SIZE && c < SIZE && (board[r][c] !== "." || stagedAt(r, c) || blockedAt(r, c))) {
      r += dr;
      c += dc;
    }
    return r < SIZE && c < SIZE ? [r, c] : [row, col];
  }

  // ------------------------------------------------------------------ requests

  let socket = null;
  let connected = false;
  const { send, request, resend: resendPending } = liveRequests({
    socket: () => socket, pending: state.pending, hint, render,
  });

  const committing = () => [...state.pending.values()].some((f) => f.type !== "take_seat");

  // The position a move is made on: the last turn's record hash (the bag's commitment before
  // turn 1). A challenge rewrites that turn without moving the turn number on, so a move made
  // on a board a challenge has since changed is refused as stale (docs/PROTOCOL.md, "after").
  function position() {
    const moves = state.live.moves;
    return moves.length ? moves[moves.length - 1].record_hash : state.live.bag_commitment;
  }

  function playWord() {
    if (!state.staged.length) {
      hint("Place some tiles on the board first.");
      return;
    }
    const fields = {
      turn: state.live.turn_number,
      after: position(),
      tiles: state.staged.map((s) => ({ row: s.row, col: s.col, letter: s.letter, blank: s.blank })),
    };
    // Reword: the swaps and steals, in the order made (docs/PROTOCOL.md, a play's takes).
    if (state.takes.length) {
      fields.takes = state.takes.map((t) => (t.kind === "swap"
        ? { take: "swap", row: t.row, col: t.col, letter: t.placed.letter, blank: t.placed.blank }
        : { take: "steal", row: t.row, col: t.col }));
    }
    request("play", fields);
  }

  function confirmSwap() {
    const tiles = state.rack.filter((t) => state.swapPicks.has(t.id)).map((t) => t.letter);
    if (!tiles.length) {
      hint("Choose at least one tile to swap.");
      return;
    }
    request("swap", { turn: state.live.turn_number, after: position(), tiles });
  }

  function setMode(mode) {
    state.mode = mode;
    state.swapPicks.clear();
    if (mode !== "play") recallAll();
    if (mode === "swap" && rules.swap_whole_rack) state.rack.forEach((t) => state.swapPicks.add(t.id));
    hint(mode === "swap" ? "Choose the tiles to swap." : "");
    render();
  }

  // ------------------------------------------------------------------ frames from the server

  function applySnapshot(snapshot) {
    const before = state.live;
    if (memberId !== null && before && before.your_seat !== null && snapshot.your_seat === null
        && snapshot.seats.some((s) => s.member_id === memberId)) {
      // Still in the seat, yet the server no longer knows us: the session has lapsed.
      signInAgain();
      return;
    }
    if (before && building() && before.board.join() !== snapshot.board.join()) {
      sendTilesBack();
      say(STALE);
    }
    if (before && before.board.join() !== snapshot.board.join()) stopShowing(false);
    state.live = snapshot;
    state.tileSet = wholeSet(snapshot);
    root.dataset.synced = "yes"; // a hook for tests and styles: the page shows the server's state
    if (snapshot.rack) setRack(snapshot.rack, snapshot.turn_number);
    else if (snapshot.your_seat === null) { state.rack = []; state.rackTurn = -1; recallAll(); }
    if (!before) restoreStash();
    render();
  }

  function applyTurn(data) {
    const live = state.live;
    const move = data.move;
    if (move.number <= live.moves.length) return; // already have it (a snapshot overtook it)
    if (move.number !== live.moves.length + 1) {
      send({ type: "sync" }); // a gap: ask for the whole picture
      return;
    }
    stopShowing(false); // a new move: the board shown is the live one again
    const board = live.board.map((line) => line.split(""));
    // Reword: the swaps and steals first (in order), then the play's tiles.
    for (const t of move.takes || []) board[t.row][t.col] = t.take === "swap" ? placedChar(t) : ".";
    for (const t of move.tiles) board[t.row][t.col] = t.blank ? t.letter.toLowerCase() : t.letter.toUpperCase();
    Object.assign(live, {
      board: board.map((line) => line.join("")),
      moves: [...live.moves, move],
      turn_number: data.turn_number,
      to_move: data.to_move,
      bag_count: data.bag_count,
      turn_deadline_at: data.turn_deadline_at,
      seats: data.seats,
      open_play: data.open_play || null,
    });
    const mine = seated() && move.position === live.your_seat;
    if (mine && !committing() && !state.acked.has(move.number)) {
      // Our own seat moved from another tab or window: whatever was being built here goes
      // back to the rack, and the status says what was done there.
      sendTilesBack();
      state.mode = "play";
      state.swapPicks.clear();
      say(`You ${moveWhat(move)}, in another tab or window.`);
    } else if (move.kind === "play" && building()) {
      // The board changed under the staged tiles: they go back to the rack.
      sendTilesBack();
      if (!mine) say(STALE);
    } else if (!mine) {
      say(`${describeMove(move, live.seats)}.`);
    }
    render();
  }

  function applyChallenge(data) {
    // A play was challenged: it stands or is withdrawn (the board without it). The turns a
    // challenge cost come after this as their own "turn" news.
    const live = state.live;
    const move = data.move;
    if (move.number > live.moves.length) {
      send({ type: "sync" }); // we never had the play: ask for the whole picture
      return;
    }
    stopShowing(false);
    if (building() && live.board.join() !== data.board.join()) sendTilesBack();
    Object.assign(live, {
      board: data.board,
      moves: live.moves.map((m) => (m.number === move.number ? move : m)),
      turn_number: data.turn_number,
      to_move: data.to_move,
      bag_count: data.bag_count,
      turn_deadline_at: data.turn_deadline_at,
      seats: data.seats,
      open_play: null,
    });
    say(`${challengeText(move, live)}.`);
    render();
  }

  function begunText() {
    return seated() && state.live.to_move === state.live.your_seat
      ? "The match has begun. It is your turn."
      : "The match has begun.";
  }

  function onFrame(frame) {
    switch (frame.type) {
      case "snapshot":
        applySnapshot(frame.snapshot);
        if (frame.reason === "connect") resendPending();
        break;
      case "ack":
        onAck(frame);
        break;
      case "error":
        onError(frame);
        break;
      case "rack":
        if (seated() && frame.data.position === state.live.your_seat) {
          setRack(frame.data.rack, frame.data.turn_number);
          render();
        }
        break;
      case "turn":
        if (state.live) applyTurn(frame.data);
        break;
      case "challenge_result":
        if (state.live) applyChallenge(frame.data);
        break;
      case "opened":
        if (!state.live) break;
        // The public snapshot of the opening; our own rack arrives in its own frame.
        Object.assign(state.live, frame.data);
        say(begunText());
        render();
        break;
      case "ended":
        if (!state.live) break;
        Object.assign(state.live, {
          status: frame.data.status, result: frame.data.result, end_reason: frame.data.end_reason,
          to_move: null, turn_deadline_at: null, final_score: frame.data.final_score,
          bag_seed: frame.data.bag_seed,
        });
        state.live.open_play = null;
        state.live.seats = state.live.seats.map((s, i) => ({
          ...s, score: frame.data.scores[i], place: (frame.data.places || [])[i] ?? s.place ?? null,
        }));
        recallAll();
        hint("");
        state.mode = "play";
        say(endText());
        render();
        if (isFriendlyEnd(state.live)) renderRematch("none");
        break;
      case "fairness":
        // The bag check's record, now the seed and the whole record are public.
        if (!state.live) break;
        state.record = frame.data;
        render();
        document.dispatchEvent(new CustomEvent("wordduel:fairness", { detail: frame.data }));
        break;
      case "rematch":
        if (!state.live || !seated()) break;
        renderRematch(rematchState(frame.data), frame.data.rematch_id);
        break;
      case "seat_taken":
        if (!state.live) break;
        state.live.seats = frame.data.seats;
        render();
        break;
      case "fixture_changed": // an organiser moved the kick-off: fetch the fixture as it is now
        send({ type: "sync" });
        break;
      case "key_rotated":
        if (state.live && state.live.can_share) send({ type: "sync" }); // fetch the new link
        break;
      default:
        break;
    }
  }

  function onAck(frame) {
    const sent = state.pending.get(frame.id);
    state.pending.delete(frame.id);
    if (frame.snapshot) applySnapshot(frame.snapshot);
    if (!sent) return;
    if (sent.type === "resign") {
      const after = state.live.seats.length > 2 ? "You are placed last." : "Your opponent wins.";
      say(frame.accepted ? `You resigned. ${after}` : frame.message);
      render();
      return;
    }
    if (sent.type === "challenge") {
      // The outcome reaches everyone as "challenge_result" news; a refusal, only us.
      if (!frame.accepted) say(frame.message);
      render();
      return;
    }
    if (sent.type === "take_seat") {
      if (frame.accepted && state.live.status === "live") {
        // This seat was the last one free, so the match opened with it. The news of the
        // opening may come just before this answer or just after it: say it either way.
        say(begunText());
      } else if (frame.accepted) {
        const seat = state.live.seats.find((s) => s.position === frame.position);
        say(`You are seated as ${seat ? seat.label : "a player"}.`);
      } else say(frame.message);
      render();
      return;
    }
    if (frame.accepted) {
      state.acked.add(frame.turn_number);
      recallAll();
      if (frame.rack) setRack(frame.rack, frame.turn_number);
      state.mode = "play";
      state.swapPicks.clear();
      let text;
      if (sent.type === "play") {
        const words = (frame.words || []).map((w) => (w.tiles || w.word || "").toUpperCase());
        text = `You played ${words.join(", ")} for ${frame.score}.`;
      } else if (sent.type === "swap") text = `You swapped ${plural(sent.tiles.length, "tile")}.`;
      else text = "You passed.";
      // The move that ended the game: its result, as everyone else sees it, follows.
      say(state.live.status === "live" ? text : `${text} ${endText()}`);
      hint("");
    } else {
      // The rule's own words; the tiles come back to the rack, the swap or pass panel
      // closes with nothing chosen, and nothing else changed.
      if (sent.type === "play") sendTilesBack();
      state.mode = "play";
      state.swapPicks.clear();
      say(frame.message);
    }
    render();
  }

  function onError(frame) {
    if (frame.id) state.pending.delete(frame.id);
    switch (frame.code) {
      case "signed_out":
        signInAgain();
        return;
      case "membership_ended":
        // Removed from the club: the socket closes (4401); signing in again would not help.
        stopped = true;
        say(frame.message);
        showConnection("Disconnected");
        return;
      case "sign_in_required":
        // The page was signed in, but the socket reconnected without a session: it lapsed.
        if (memberId !== null) { signInAgain(); return; }
        say(frame.message);
        break;
      case "key_revoked":
      case "not_found":
        stopped = true;
        say(frame.message);
        break;
      case "server_error":
        say(frame.message);
        send({ type: "sync" });
        break;
      default:
        say(frame.message);
    }
    render();
  }

  // ------------------------------------------------------------------ the session

  const stashKey = `wordduel-staged-${matchId}`;

  function signInAgain() {
    // Keep the tiles being built, so the same board after signing in shows them again.
    try {
      // A turn's swaps and steals are not kept (the tiles they took are not the rack's).
      const own = state.staged.filter((s) => !takeOf(s.tileId));
      if (own.length && state.live) {
        const tiles = own.map((s) => ({ ...s, tile: tileById(s.tileId).letter }));
        sessionStorage.setItem(stashKey, JSON.stringify({ turn: state.live.turn_number, tiles }));
      }
    } catch (e) { /* storage blocked: the staged tiles are simply not kept */ }
    stopped = true;
    const next = location.pathname + location.search;
    // session=ended: the sign-in page says why the player is there.
    location.assign(`${root.dataset.signInPath}?next=${encodeURIComponent(next)}&session=ended`);
  }

  function restoreStash() {
    let stash = null;
    try {
      stash = JSON.parse(sessionStorage.getItem(stashKey) || "null");
      sessionStorage.removeItem(stashKey);
    } catch (e) { return; }
    if (!stash || stash.turn !== state.live.turn_number) return;
    for (const s of stash.tiles) {
      const tile = state.rack.find((t) => t.letter === s.tile && !isStaged(t.id));
      if (tile && state.live.board[s.row][s.col] === "." && !stagedAt(s.row, s.col)) {
        state.staged.push({ tileId: tile.id, row: s.row, col: s.col, letter: s.letter, blank: s.blank });
      }
    }
  }

  // ------------------------------------------------------------------ the connection

  const CONNECT_TIMEOUT_MS = 8000;
  let attempts = 0;
  let retryTimer = null;
  let stopped = false;

  function connect() {
    clearTimeout(retryTimer);
    if (stopped) return;
    const scheme = location.protocol === "https:" ? "wss" : "ws";
    const query = key ? `?key=${encodeURIComponent(key)}` : "";
    if (!state.live) showConnection("Connecting…");
    let ws;
    try {
      ws = new WebSocket(`${scheme}://${location.host}/ws/matches/${matchId}/${query}`);
    } catch (error) {
      // A socket the browser refuses to open at all (a policy, a bad address): back off and
      // try again, as for one that closed, instead of never trying again.
      console.error("Could not open the socket", error);
      onClose(1006);
      return;
    }
    socket = ws;
    // A socket that neither opens nor closes (a half-open network path, or one a browser
    // blocks without a close event) is given up after a while, and tried again.
    const openTimer = setTimeout(() => {
      if (socket === ws && ws.readyState !== WebSocket.OPEN) {
        ws.close();
        lost(ws, 1006);
      }
    }, CONNECT_TIMEOUT_MS);
    ws.addEventListener("open", () => {
      clearTimeout(openTimer);
      attempts = 0;
      connected = true;
      showConnection("");
    });
    listenForFrames(ws, onFrame);
    ws.addEventListener("close", (event) => {
      clearTimeout(openTimer);
      lost(ws, event.code);
    });
  }

  // Once per socket: the first of its close event and the open timeout.
  function lost(ws, code) {
    if (socket !== ws) return;
    connected = false;
    root.dataset.synced = "no";
    socket = null;
    onClose(code);
  }

  function onClose(code) {
    if (stopped) return;
    if (code === 4404) {
      stopped = true;
      say("This match no longer exists.");
      showConnection("Disconnected");
      return;
    }
    if (code === 4401) {
      // The session (or the membership) this socket signed in with has ended; the error
      // frame before the close usually said which, and was acted on already.
      signInAgain();
      return;
    }
    if (code === 4403) {
      if (memberId !== null) { signInAgain(); return; } // a members-only match, session gone
      stopped = true;
      say("This viewing link no longer works. Ask for the new one.");
      showConnection("Disconnected");
      return;
    }
    // Back off (1, 2, 4 … 30 s, jittered) so a restarting server is not stampeded.
    const delay = Math.min(30000, 1000 * 2 ** attempts) * (0.75 + Math.random() / 2);
    attempts += 1;
    showConnection(`Connection lost. Reconnecting in ${Math.round(delay / 1000)} s…`);
    retryTimer = setTimeout(connect, delay);
  }

  function showConnection(text) {
    el.connection.hidden = !text;
    el.connection.textContent = text;
    render();
  }

  window.addEventListener("online", () => { if (!connected) connect(); });
  document.addEventListener("visibilitychange", () => {
    if (document.visibilityState !== "visible") return;
    // Back on the tab after a while: make sure the board (and the session) are current.
    if (connected) send({ type: "sync" });
    else connect();
  });
  // A signed-in session can lapse on an idle page: a sync now and then finds out.
  if (memberId !== null) setInterval(() => { if (connected) send({ type: "sync" }); }, 10 * 60 * 1000);

  // ------------------------------------------------------------------ the replay

  let replaySeq = 0;

  async function showTurn(turn, { push = true } = {}) {
    const ticket = ++replaySeq;
    stopShowing(false);
    const url = new URL(root.dataset.replayUrl, location.href);
    url.searchParams.set("turn", turn);
    if (key) url.searchParams.set("key", key);
    let body;
    try {
      const response = await fetch(url, { credentials: "same-origin", headers: { Accept: "application/json" } });
      body = await response.json();
      if (!response.ok) throw new Error(body.error || "The replay could not be loaded.");
    } catch (error) {
      if (ticket === replaySeq) say(error.message);
      return;
    }
    if (ticket !== replaySeq) return; // a later step overtook this one
    state.replay = body;
    setTurnInUrl(turn, push);
    render();
  }

  function showLive({ push = true } = {}) {
    replaySeq += 1;
    stopShowing(false);
    state.replay = null;
    setTurnInUrl(null, push);
    render();
  }

  function setTurnInUrl(turn, push) {
    const url = new URL(location.href);
    if (turn === null) url.searchParams.delete("turn");
    else url.searchParams.set("turn", turn);
    if (url.href === location.href) return;
    history[push ? "pushState" : "replaceState"]({ turn }, "", url);
  }

  function stepReplay(where) {
    const count = state.live ? state.live.moves.length : 0;
    const at = state.replay ? state.replay.turn : count;
    const target = { first: 0, back: at - 1, forward: at + 1, last: count }[where];
    if (target >= count) showLive();
    else if (target >= 0) showTurn(target);
  }

  window.addEventListener("popstate", () => {
    const turn = new URLSearchParams(location.search).get("turn");
    if (turn === null) showLive({ push: false });
    else showTurn(Number(turn), { push: false });
  });

  // ------------------------------------------------------------------ the last play, again

  // The outlined play can be shown again as it was made (as Reword's replay icon does): the
  // board as it was before it, then its tiles one at a time in the order they spell. Under
  // reduced motion they still come one at a time, without the pop-in (wordduel.css).
  const SHOW_PAUSE_MS = 800; // the board before the play, before its first tile
  const SHOW_STEP_MS = 600; // between tiles, and the whole play held before going live

  function lastPlayMove(snapshot) {
    for (let i = snapshot.moves.length - 1; i >= 0; i--) {
      if (onBoard(snapshot.moves[i])) return snapshot.moves[i];
    }
    return null;
  }

  const playWords = (move) => move.words.map((w) => (w.tiles || w.word || "").toUpperCase()).join(", ");

  // The board before the play, then its steps so far: Reword's swaps and steals (in order),
  // then the play's tiles.
  function showingBoard(showing) {
    const board = showing.before.map((line) => [...line]);
    for (const step of showing.steps.slice(0, showing.shown)) board[step.row][step.col] = step.char;
    return board.map((line) => line.join(""));
  }

  const showingSquares = (showing) => new Set(showing.steps.slice(0, showing.shown)
    .filter((step) => !step.take).map((t) => t.row * SIZE + t.col));

  // The marks of the takes shown so far (and of the taken tiles once the play shows them).
  function showingMarks(showing) {
    const shown = showing.steps.slice(0, showing.shown);
    const takes = shown.filter((step) => step.take).map((step) => step.take);
    return takeMarks({ tiles: shown.filter((step) => !step.take).map((step) => step.tile) }, takes);
  }

  // A take as the move list says it (visibility/pages.py take_text): the square as a word's
  // position across ("8K"), a blank's letter in lower case, as the board writes it.
  function takeLine(take) {
    const at = `${take.row + 1}${COLUMNS[take.col]}`;
    const taken = boardChar(take.letter, take.blank);
    if (take.take === "steal") return `stole ${taken} at ${at}`;
    return `swapped ${placedChar(take)} for ${taken} at ${at}`;
  }

  // A take as Show again says it, square by square as the board names them.
  function takeText(take) {
    const name = squareName(take.row, take.col);
    const taken = faceText(boardChar(take.letter, take.blank));
    if (take.take === "steal") return `stole ${taken} from ${name}`;
    return `swapped ${faceText(placedChar(take))} for ${taken} on ${name}`;
  }

  function showLastPlay() {
    const live = state.live;
    const move = live && !state.replay ? lastPlayMove(live) : null;
    if (!move) return;
    stopShowing(false);
    // In reading order: along the word, as it is spelt.
    const tiles = [...move.tiles].sort((a, b) => a.row - b.row || a.col - b.col);
    const takes = move.takes || [];
    const before = live.board.map((line) => [...line]);
    for (const t of tiles) before[t.row][t.col] = ".";
    // Reword: undo its swaps and steals, the last first, to the board the turn began on.
    for (const t of [...takes].reverse()) before[t.row][t.col] = boardChar(t.letter, t.blank);
    const steps = [
      ...takes.map((take) => ({
        row: take.row, col: take.col, take, char: take.take === "swap" ? placedChar(take) : ".",
      })),
      ...tiles.map((tile) => ({ row: tile.row, col: tile.col, tile, char: boardChar(tile.letter, tile.blank) })),
    ];
    state.showing = { steps, before: before.map((line) => line.join("")), shown: 0, timer: null };
    root.classList.add("showing-last");
    const seat = live.seats.find((s) => s.position === move.position);
    const spelt = tiles.map((t) => `${t.letter}${t.blank ? " (blank)" : ""} on ${squareName(t.row, t.col)}`);
    const first = takes.length ? `${takes.map(takeText).join(", ")}, then ` : "";
    say(`Showing ${seat ? seatName(seat) : ""}'s ${playWords(move)} again: ${first}${spelt.join(", ")}.`);
    render();
    state.showing.timer = setTimeout(stepShowing, SHOW_PAUSE_MS);
  }

  function stepShowing() {
    const showing = state.showing;
    if (!showing) return;
    showing.shown += 1;
    renderBoard();
    const done = showing.shown >= showing.steps.length;
    showing.timer = setTimeout(done ? () => stopShowing() : stepShowing, SHOW_STEP_MS * (done ? 2 : 1));
  }

  function stopShowing(redraw = true) {
    if (!state.showing) return;
    clearTimeout(state.showing.timer);
    state.showing = null;
    root.classList.remove("showing-last");
    if (redraw) render();
  }

  function renderLastMove() {
    const live = state.live;
    const last = live.moves[live.moves.length - 1];
    const play = lastPlayMove(live);
    el.lastMove.hidden = !last || !!state.replay;
    if (el.lastMove.hidden) return;
    el.lastMoveText.textContent = `Last move: ${describeMove(last, live.seats)}.`;
    el.showLastPlay.hidden = !play;
    if (!play) return;
    const seat = live.seats.find((s) => s.position === play.position);
    const what = `${seat ? seatName(seat) : ""}'s ${playWords(play)}`;
    // The name starts with the words on the button, for those who speak to their browser.
    const [icon, label, name] = state.showing
      ? ["■", "Stop", `Stop showing ${what}`]
      : ["↺", "Show again", `Show again: ${what}, tile by tile`];
    el.showLastPlay.replaceChildren(make("span", { "aria-hidden": "true", text: icon }), ` ${label}`);
    el.showLastPlay.setAttribute("aria-label", name);
  }

  el.showLastPlay.addEventListener("click", () => {
    if (state.showing) stopShowing();
    else showLastPlay();
  });

  // ------------------------------------------------------------------ the unseen tiles

  // The server counts the tiles this viewer has not seen in every snapshot: the whole set
  // less the board (a blank as "?") and their own rack. Until the next snapshot the page
  // moves that count on with the board and rack it is shown, since unseen + board + own rack
  // is always the whole set.
  const TRACKER_ORDER = [..."ABCDEFGHIJKLMNOPQRSTUVWXYZ", "?"];
  const VOWELS = new Set("AEIOU");

  function boardTiles(board) {
    const tiles = [];
    for (const line of board) {
      for (const char of line) if (char !== ".") tiles.push(char === char.toUpperCase() ? char : "?");
    }
    return tiles;
  }

  function tally(tiles, counts, sign) {
    for (const tile of tiles) counts[tile] = (counts[tile] || 0) + sign;
    return counts;
  }

  function wholeSet(snapshot) {
    if (!snapshot.unseen) return state.tileSet;
    const set = Object.fromEntries(snapshot.unseen.tiles.map((t) => [t.tile, t.count]));
    tally(boardTiles(snapshot.board), set, 1);
    return tally(snapshot.rack || [], set, 1);
  }

  function renderUnseen() {
    const shown = view();
    const live = state.live;
    el.unseen.hidden = live.status === "scheduled" || !state.tileSet;
    if (el.unseen.hidden) return;
    const mine = shown.your_seat;
    // A move of ours and its new rack arrive apart (either first): until both are here, the
    // counts shown stay (they would take the played tiles off twice, or not at all).
    const rackBehind = live.moves.some((m) => m.position === mine && m.number > state.rackTurn);
    if (!state.replay && seated() && (rackBehind || state.rackTurn > live.turn_number)) return;
    // The rack's own tiles: a tile taken this turn is still on the live board shown here.
    const rack = state.replay ? state.replay.rack || [] : state.rack.filter((t) => !t.taken).map((t) => t.letter);
    const counts = tally(rack, tally(boardTiles(shown.board), { ...state.tileSet }, -1), -1);
    const tiles = TRACKER_ORDER.filter((tile) => counts[tile] > 0);
    const total = tiles.reduce((sum, tile) => sum + counts[tile], 0);
    const vowels = tiles.filter((tile) => VOWELS.has(tile)).reduce((sum, tile) => sum + counts[tile], 0);
    const blanks = counts["?"] > 0 ? counts["?"] : 0;
    $("unseen-summary").textContent = `${total} unseen: ${plural(vowels, "vowel")}, `
      + `${plural(total - vowels - blanks, "consonant")}, ${plural(blanks, "blank")}.`;
    $("unseen-tiles").replaceChildren(...tiles.map((tile) => make("li", { "data-tile": tile, "data-count": counts[tile] },
      make("b", {}, tile, tile === "?" ? make("span", { class: "visually-hidden", text: " (blank)" }) : null),
      ` ×${counts[tile]}`)));
    const others = shown.seats.filter((s) => s.position !== mine);
    const onRacks = others.reduce((sum, s) => sum + s.rack_count, 0);
    $("unseen-where").textContent = mine === null || mine === undefined
      ? `In the bag (${shown.bag_count}) and on the racks (${onRacks}).`
      : others.length > 1
        ? `In the bag (${shown.bag_count}) and on the other racks (${onRacks}).`
        : `In the bag (${shown.bag_count}) and on ${seatName(others[0])}'s rack (${onRacks}).`;
  }

  // ------------------------------------------------------------------ drawing the rest

  // ``swapped``: the letters a swap returned, once the game is over and its record public.
  function moveWhat(move, swapped) {
    if (move.lost_turn) return "lost the turn (a wrong challenge)";
    if (move.kind === "play") {
      const words = move.words.map((w) => (w.tiles || w.word || "").toUpperCase());
      const at = move.words[0] && move.words[0].position ? ` at ${move.words[0].position}` : "";
      // Reword: the swaps and steals came first (as the server's move list says them).
      const takes = move.takes && move.takes.length ? `${move.takes.map(takeLine).join(", ")}, then ` : "";
      return `${takes}played ${words.join(", ")}${at} for ${move.score}${withdrawn(move) ? ", withdrawn" : ""}`;
    }
    if (move.kind === "swap") return swapped ? `swapped ${spell(swapped)}` : `swapped ${plural(move.swap_count, "tile")}`;
    return "passed";
  }

  // Tiles as letters for reading: "A E ?" is "A E blank".
  const spell = (tiles) => Array.from(tiles, (t) => (t === "?" ? "blank" : t)).join(" ");

  // Once the game is over its whole record is public: every turn's tiles and the racks, from
  // a replay step, or in the live view from the finished game's record (embedded in the page,
  // or brought by the "fairness" news). While a game is played, none.
  const turnTiles = () => {
    const tiles = state.replay ? state.replay.turn_tiles : state.record && state.record.turn_tiles;
    return new Map((tiles || []).map((t) => [t.number, t]));
  };
  const racksShown = () => (state.replay ? state.replay.racks : state.record && state.record.final_racks);

  function describeMove(move, seats) {
    const seat = seats.find((s) => s.position === move.position);
    return `${seat ? seatName(seat) : ""} ${moveWhat(move)}`;
  }

  // A decided challenge in words, for everyone (visibility/pages.py says the same).
  function challengeText(move, snapshot) {
    const challenge = move.challenge;
    if (!challenge) return "";
    const name = (position) => {
      const seat = snapshot.seats.find((s) => s.position === position);
      return seat ? seatName(seat) : "";
    };
    const by = name(challenge.by);
    const player = name(move.position);
    if (challenge.withdrawn) {
      const what = challenge.phonies.length === 1 ? "not a word" : "not words";
      return `${by} challenged ${challenge.phonies.join(", ")}: ${what} \u2014 withdrawn, ${player} loses the turn`;
    }
    const words = move.words.map((w) => (w.tiles || w.word || "").toUpperCase()).join(", ");
    const text = `${by} challenged ${words}: it stands`;
    if (challenge.points > 0) return `${text} \u2014 +${challenge.points} to ${player}`;
    const rule = snapshot.challenge_rule || state.live.challenge_rule; // a replay step has none
    if (rule === "double") return `${text} \u2014 ${by} loses the next turn`;
    return text;
  }

  function lastChallenged(snapshot) {
    for (let i = snapshot.moves.length - 1; i >= 0; i--) {
      if (snapshot.moves[i].challenge) return snapshot.moves[i];
    }
    return null;
  }

  function renderChallenge() {
    // The open play (until when it may be challenged), the Challenge button for a player
    // who may, and the last challenge's outcome: for players, spectators and viewing keys.
    const live = state.live;
    const open = live.open_play;
    const until = open && open.until ? Date.parse(open.until) : null;
    const showing = !state.replay && live.status === "live" && open && (until === null || until > Date.now());
    el.challengeBox.hidden = !showing;
    if (showing) {
      const seat = live.seats.find((s) => s.position === open.player);
      const move = live.moves.find((m) => m.number === open.turn_number);
      const words = move ? move.words.map((w) => (w.tiles || w.word || "").toUpperCase()).join(", ") : "the last play";
      el.challengeWindow.textContent = `${seat ? seatName(seat) : ""}'s ${words} may be challenged `
        + (until === null ? "until the next move." : `until ${localTime(open.until)}.`);
      const mine = seated() && open.challengers.includes(live.your_seat);
      el.challengeButton.hidden = !mine;
      const pending = [...state.pending.values()].some((f) => f.type === "challenge");
      el.challengeButton.disabled = pending || !connected;
      el.challengeButton.textContent = pending ? "Challenging…" : `Challenge ${words}`;
    }
    // The last challenge stays in view for a round (the move list keeps every one).
    const shown = view();
    const challenged = lastChallenged(shown);
    const last = challenged && challenged.number > shown.moves.length - shown.seats.length ? challenged : null;
    el.challengeResult.hidden = !last;
    el.challengeResult.textContent = last ? `${challengeText(last, shown)}.` : "";
  }

  el.challengeButton.addEventListener("click", () => {
    const open = state.live && state.live.open_play;
    if (open) request("challenge", { turn: open.turn_number });
  });

  function endText() {
    // How the match ended, as everyone sees it; the player who went out is told so.
    const live = state.live;
    const last = live.moves[live.moves.length - 1];
    const wentOut = seated() && live.end_reason === "played_out" && last
      && last.kind === "play" && last.position === live.your_seat;
    return `${wentOut ? "You went out. " : ""}The match is over. ${resultText(live)}.`;
  }

  // How a match that ended without a result reads, by its ending (visibility/pages.py).
  const NO_RESULT = {
    cancelled: "Cancelled by an organiser: no result",
    voided: "Voided by an organiser: no result",
    abandoned: "No result (both seats empty)",
  };

  function resultText(snapshot) {
    if (snapshot.end_reason in NO_RESULT) return NO_RESULT[snapshot.end_reason];
    if (snapshot.result === "draw") return "Draw";
    if (snapshot.result in RESULT) {
      const seat = snapshot.seats[RESULT[snapshot.result]];
      return `${seat.name || seat.label} (${seat.label}) won`;
    }
    if (snapshot.result === "table") {
      const first = snapshot.seats.filter((s) => s.place === 1).map((s) => `${seatName(s)} (${s.label})`);
      if (first.length === 1) return `${first[0]} won`;
      if (first.length) return `${first.join(" and ")} shared first place`;
    }
    return "No result";
  }

  function renderTurnLine() {
    const live = state.live;
    const scores = live.seats.map((s) => s.score).join("–");
    let text = "";
    if (live.status === "live") {
      const mover = live.seats.find((s) => s.position === live.to_move);
      const by = live.turn_deadline_at ? localTime(live.turn_deadline_at) : null;
      if (seated() && live.to_move === live.your_seat) {
        text = `Your turn${by ? `: your move by ${by}` : ""}.`;
      } else if (mover) {
        text = `${seatName(mover)} (${mover.label}) to move${by ? `, by ${by}` : ""}.`;
      }
    } else if (live.status === "scheduled") {
      text = "Not started yet.";
    } else {
      // A match with no result has no final score to give (a cancelled one was never played).
      text = live.end_reason in NO_RESULT
        ? `Match over: ${resultText(live)}.`
        : `Match over: ${resultText(live)}, ${scores}.`;
    }
    el.turnLine.textContent = text;
    el.turnLine.classList.toggle("your-turn", live.status === "live" && seated() && live.to_move === live.your_seat);
  }

  let kickoffSync = null;

  function renderKickoff() {
    const live = state.live;
    const banner = el.kickoff;
    banner.hidden = live.status !== "scheduled";
    if (banner.hidden) return;
    const now = Date.now();
    const kickoff = live.kickoff_at ? Date.parse(live.kickoff_at) : null;
    const free = live.seats.filter((s) => !s.name).map((s) => s.label);
    const seats = `${free.join(" and ")} seat${free.length > 1 ? "s" : ""}`;
    const waiting = free.length ? ` Waiting for a player in the ${seats}.` : "";
    if (kickoff === null) {
      banner.textContent = `This match starts when both seats are taken.${waiting}`;
    } else if (kickoff > now) {
      banner.textContent = `This match begins ${localTime(live.kickoff_at)}, in ${countdown(kickoff - now)}.${waiting}`;
    } else {
      banner.textContent = free.length
        ? `Kick-off has passed.${waiting}`
        : "Kick-off! The board is opening…";
      // The clock opens the match and tells everyone; should that news not come, ask (a
      // sync applies passed deadlines). Spread out so spectators do not all ask at once.
      if (!kickoffSync && !free.length) {
        kickoffSync = setTimeout(() => { kickoffSync = null; send({ type: "sync" }); }, 3000 + Math.random() * 3000);
      }
    }
  }

  function renderFacts() {
    const shown = view();
    el.bagCount.textContent = shown.bag_count;
    const unit = el.bagCount.nextSibling; // the text " tiles" after the number
    if (unit) unit.textContent = ` tile${shown.bag_count === 1 ? "" : "s"}`;
    const live = state.live;
    const mover = live.seats.find((s) => s.position === live.to_move);
    const label = STATUS_LABEL[live.status] || live.status;
    el.matchStatus.textContent = live.status === "live" && mover ? `${label}: ${seatName(mover)} to move` : label;
    // The title names the players seated now (a substitute's name as soon as they sit).
    const heading = $("match-title");
    if (heading && live.name && heading.textContent !== live.name) heading.textContent = live.name;
    if (live.status === "finished" || live.status === "abandoned") {
      setFact("match-result", "Result", resultText(live));
      setFact("match-ended-by", "Ended by", END_REASON[live.end_reason] || "");
    }
  }

  function renderFairBag() {
    // A value can be added to the bag only before the deal: the offer goes at kick-off.
    const offer = $("fair-bag-contribute");
    if (offer) offer.hidden = state.live.status !== "scheduled";
    // The seed is public once the match is over (it comes with the ended news).
    const seedBox = $("bag-seed-box");
    if (seedBox && state.live.bag_seed) {
      $("bag-seed").textContent = state.live.bag_seed;
      seedBox.hidden = false;
    }
  }

  // ------------------------------------------------------------------ the rematch panel

  // A friendly ends with a result of the board (RULES.md 17): not one an organiser
  // cancelled or voided. The server renders the panel, hidden, for the players of a
  // friendly in play; it shows here when the game ends, and follows the "rematch" news.
  const NOT_FRIENDLY_ENDS = new Set(["cancelled", "voided"]);

  function isFriendlyEnd(live) {
    return live.status === "finished" && !NOT_FRIENDLY_ENDS.has(live.end_reason);
  }

  function rematchState(news) {
    if (news.state !== "offered") return news.state;
    return news.offered_by === state.live.your_seat ? "offered_by_you" : "offered_to_you";
  }

  function renderRematch(panelState, rematchId = null) {
    const box = $("rematch");
    if (!box) return;
    const data = box.dataset;
    const form = (url, label, primary) => make("form", { method: "post", action: url, class: "inline" },
      make("input", { type: "hidden", name: "csrfmiddlewaretoken", value: data.csrf }),
      make("button", { type: "submit", class: primary ? "primary" : null, text: label }));
    const parts = {
      none: () => [make("p", { text: "Play again, with the seats swapped?" }),
        form(data.offerUrl, "Offer a rematch", true)],
      offered_to_you: () => [
        make("p", { id: "rematch-offered-to-you", text: "Your opponent offers a rematch, with the seats swapped." }),
        form(data.acceptUrl, "Accept the rematch", true), " ", form(data.declineUrl, "Decline", false)],
      offered_by_you: () => [
        make("p", { id: "rematch-offered-by-you", text: "You offered a rematch; waiting for your opponent." }),
        form(data.declineUrl, "Call it off", false)],
      accepted: () => [make("p", { id: "rematch-accepted" }, "Rematch agreed: ",
        make("a", { href: data.matchUrl.replace(/\/0\/$/, `/${rematchId}/`), text: "go to the rematch" }), ".")],
      declined: () => [make("p", { class: "muted", id: "rematch-declined", text: "The rematch was declined." })],
    };
    if (!parts[panelState]) return;
    $("rematch-body").replaceChildren(...parts[panelState]());
    data.state = panelState;
    box.hidden = false;
  }

  function setFact(id, label, text) {
    let dd = $(id);
    if (!dd) {
      dd = make("dd", { id });
      el.matchStatus.closest("div").after(make("div", {}, make("dt", { text: label }), dd));
    }
    dd.textContent = text;
  }

  function renderSeats() {
    const shown = view();
    const live = state.live;
    const nodes = [];
    if (seated()) {
      const mine = live.seats.find((s) => s.position === live.your_seat);
      nodes.push(make("p", { class: "you", id: "your-seat", text: `You are seated as ${mine.label}.` }));
    }
    const open = !state.replay && live.status === "scheduled"
      && !(live.no_show_at && Date.parse(live.no_show_at) <= Date.now());
    const list = make("ul", { class: "seats", id: "seats" });
    for (const seat of shown.seats) {
      const toMove = shown.status === "live" && shown.to_move === seat.position;
      const li = make("li", { class: `seat${toMove ? " to-move" : ""}`, "data-position": seat.position },
        make("strong", { text: seat.label }), ": ");
      if (seat.name) {
        li.append(
          `${seat.name}${live.your_seat === seat.position ? " (you)" : ""} · `,
          make("span", { class: "score", text: seat.score }), " points · ",
          make("span", { class: "rack-count", text: plural(seat.rack_count, "tile") }), " on the rack",
        );
        // A finished game shows every seat's rack: at the replay's step, or the racks left.
        const racks = racksShown();
        if (racks) li.append(": ", make("span", { class: "rack-letters", text: spell(racks[seat.position]) || "none" }));
        if (seat.place) li.append(" · ", make("span", { class: "place", text: `${ordinal(seat.place)} place` }));
        if (toMove) li.append(" ", make("span", { class: "badge", text: "to move" }));
      } else {
        li.append(make("span", { class: "muted", text: "Free" }));
        if (open && memberId !== null && !seated()) {
          li.append(" ", make("button", { type: "button", class: "primary", "data-seat": seat.position },
            "Take a seat", make("span", { class: "visually-hidden", text: ` as ${seat.label}` })));
        } else if (open && memberId === null) {
          li.append(" · ", make("a", { href: root.dataset.signInUrl, text: "Sign in to take a seat" }));
        }
      }
      list.append(li);
    }
    nodes.push(list);
    el.seatsSlot.replaceChildren(...nodes);
  }

  function renderMoves() {
    const shown = state.live;
    const current = state.replay ? state.replay.turn : null;
    el.gcgLink.hidden = !shown.moves.length;
    if (!shown.moves.length) {
      el.movesSlot.replaceChildren(make("p", { class: "muted", id: "moves", text: "No moves yet." }));
      return;
    }
    const list = make("ol", { class: "moves", id: "moves" });
    const tiles = turnTiles();
    for (const move of shown.moves) {
      const held = tiles.get(move.number);
      const seat = shown.seats.find((s) => s.position === move.position);
      const link = new URL(location.href);
      link.searchParams.set("turn", move.number);
      // The move itself links to the board after it: a replay position anyone can share.
      const li = make("li", { value: move.number, "aria-current": current === move.number ? "step" : null },
        make("strong", { text: seatName(seat) }), " ",
        make("span", { class: "muted", text: `(${seat.label})` }), " ",
        make("a", { href: link.pathname + link.search, class: "step", "data-turn": move.number,
          title: "Show the board after this move", text: moveWhat(move, held && held.swapped) }), " ",
        held ? make("span", { class: "muted rack-before", text: `from ${spell(held.rack_before)} ` }) : null,
        make("span", { class: "muted", text: `· ${move.totals.join("–")}` }));
      if (move.challenge) li.append(make("br"), make("span", { class: "challenge-line", text: challengeText(move, shown) }));
      if (current !== null && move.number > current) li.classList.add("future");
      list.append(li);
    }
    el.movesSlot.replaceChildren(list);
  }

  function renderRack() {
    const live = state.live;
    // In a replay the rack shown is the one of that moment, in the banner; the panel waits.
    el.playPanel.hidden = !seated() || !!state.replay;
    if (!seated()) {
      el.rackSlot.replaceChildren();
      el.controls.hidden = true;
      return;
    }
    const focused = document.activeElement && document.activeElement.dataset.tile;
    const swapping = state.mode === "swap";
    const list = make("ol", { class: "rack", id: "your-rack", "aria-label": "Your rack" });
    for (const tile of state.rack) {
      if (isSwappedDown(tile.id)) continue; // on the board now; its taken tile follows it
      if (isStaged(tile.id)) {
        list.append(make("li", { class: "slot", "aria-hidden": "true" }));
        continue;
      }
      const blank = tile.letter === "?";
      const pressed = swapping ? state.swapPicks.has(tile.id) : state.picked === tile.id;
      const take = tile.taken ? takeOf(tile.id) : null;
      const button = make("button", {
        type: "button", class: `tile${blank ? " blank" : ""}${take ? " took-now" : ""}`, "data-tile": tile.id,
        "data-shade": take ? state.takes.indexOf(take) : null,
        "aria-pressed": String(pressed),
        "aria-label": (blank ? "blank, 0 points" : `${tile.letter}, ${plural(valueOf(tile.letter), "point")}`)
          + (take ? `, ${take.kind === "swap" ? "swapped" : "stolen"} from ${squareName(take.row, take.col)}: play it this turn` : ""),
        disabled: !!state.replay || live.status !== "live",
        draggable: !state.replay && live.status === "live" && state.mode === "play" ? "true" : null,
      }, make("span", { class: "letter", text: blank ? "?" : tile.letter }),
      blank ? null : make("span", { class: "value", text: valueOf(tile.letter) }));
      list.append(make("li", {}, button));
    }
    if (!state.rack.length) {
      const text = live.status === "scheduled" ? "Your tiles are dealt at kick-off." : "No tiles.";
      el.rackSlot.replaceChildren(make("p", { class: "muted", text }));
    } else {
      el.rackSlot.replaceChildren(list);
    }
    if (focused) {
      const again = el.rackSlot.querySelector(`[data-tile="${focused}"]`);
      if (again) again.focus();
    }
    const showControls = !state.replay && live.status === "live";
    el.controls.hidden = !showControls;
    const busy = committing() || !connected;
    el.controls.querySelector(".controls-main").hidden = state.mode !== "play";
    el.controls.querySelector(".controls-swap").hidden = state.mode !== "swap";
    el.controls.querySelector(".controls-pass").hidden = state.mode !== "pass";
    el.controls.querySelectorAll("[data-action=play], [data-action=swap-confirm], [data-action=pass-confirm]")
      .forEach((b) => { b.disabled = busy; });
    el.controls.querySelector("[data-action=recall]").disabled = !building();
    const chosen = state.swapPicks.size;
    el.controls.querySelector("[data-action=swap-confirm]").textContent =
      chosen ? `Swap ${plural(chosen, "tile")}` : "Swap tiles";
  }

  function renderReplay() {
    const count = state.live.moves.length;
    el.replay.hidden = !count && !state.replay;
    const at = state.replay ? state.replay.turn : count;
    el.replay.querySelector("[data-replay=first]").disabled = at === 0;
    el.replay.querySelector("[data-replay=back]").disabled = at === 0;
    el.replay.querySelector("[data-replay=forward]").disabled = !state.replay;
    el.replay.querySelector("[data-replay=last]").disabled = !state.replay;
    el.replayPosition.textContent = state.replay
      ? `Move ${at} of ${count}`
      : `Live · ${plural(count, "move")}`;
    el.replayBanner.hidden = !state.replay;
    if (state.replay) {
      const r = state.replay;
      const scores = r.seats.map((s) => `${seatName(s)} ${s.score}`).join(", ");
      let text = at === 0
        ? "Replay: the board before the first move."
        : `Replay: the board after move ${at} of ${count}. ${scores}.`;
      const step = at > 0 ? r.moves.find((m) => m.number === at) : null;
      if (step && step.challenge) text += ` ${challengeText(step, r)}.`;
      if (r.final && r.final_score) {
        text = `Replay: the board after move ${at} of ${count}, the last. `
          + `Final score after the end-of-game rack adjustments: ${scores}.`;
      }
      if (r.racks) {
        text += ` Racks then: ${r.seats.map((s) => `${seatName(s)} ${spell(r.racks[s.position]) || "none"}`).join("; ")}.`;
      } else if (r.rack) {
        text += ` Your rack then: ${spell(r.rack)}.`;
      }
      el.replayBanner.textContent = text;
    }
    renderAnalysis(state.replay && state.replay.analysis);
    root.classList.toggle("replaying", !!state.replay);
  }

  // After the game, a replay step of the viewer's own turn says what the engine would have
  // played from the rack shown (the server sends it to that player only, once it is over).
  function renderAnalysis(analysis) {
    el.replayAnalysis.hidden = !analysis;
    if (!analysis) {
      el.replayAnalysis.textContent = "";
      return;
    }
    // The move as the log has it: which word, where (the analysis carries only its score).
    const move = state.live.moves.find((m) => m.number === analysis.number);
    const word = move && move.kind === "play" && move.words[0];
    const played = {
      play: `you played ${word ? `${word.word} at ${word.position} ` : ""}for ${analysis.score}`,
      swap: "you swapped",
      pass: "you passed",
    }[analysis.kind];
    const best = analysis.best;
    const main = best && best.words[0];
    const squares = (tiles) => tiles.map((t) => `${t.row},${t.col},${t.letter},${t.blank}`).sort().join(" ");
    const yours = best && word && squares(best.tiles) === squares(move.tiles);
    el.replayAnalysis.textContent = `Move ${analysis.number}, from this board and your rack: ${played}. `
      + (best
        ? `The best play the engine finds: ${main.word} at ${main.position} for ${best.score}`
          + `${best.bingo ? " (a bingo)" : ""}${yours ? ", the play you made" : ""}.`
        : "The engine finds no play from that rack.");
  }

  function renderFinalScore() {
    // How the final score was reached: live once the game is over, and on a replay's last
    // step; an earlier step of a replay shows none.
    const shown = state.replay ? (state.replay.final ? state.replay : null) : state.live;
    const final = shown && shown.final_score;
    if (!final) {
      el.finalScoreSlot.replaceChildren();
      return;
    }
    const names = Object.fromEntries(shown.seats.map((s) => [s.position, seatName(s)]));
    const labels = Object.fromEntries(shown.seats.map((s) => [s.position, s.label]));
    const tiles = (n) => plural(n, "tile");
    const points = (n) => (n >= 0 ? `+${n}` : `\u2212${-n}`);
    const row = (kind, label, cells) => make("tr", { "data-row": kind },
      make("th", { scope: "row", text: label }), ...cells.map((text) => make("td", { text })));
    const rows = [row("before", "After the last move", final.before.map(String))];
    for (const change of final.adjustments) {
      const who = `${names[change.position]} (${labels[change.position]})`;
      const what = change.rack_owner === change.position
        ? `${tiles(change.tile_count)} left on the rack`
        : `went out, gains ${names[change.rack_owner]}'s ${tiles(change.tile_count)}`;
      const cells = shown.seats.map(() => "");
      cells[change.position] = points(change.points);
      rows.push(row("adjustment", `${who}: ${what}`, cells));
    }
    rows.push(row("final", "Final score", final.final.map(String)));
    el.finalScoreSlot.replaceChildren(make("table", { class: "final-score", id: "final-score" },
      make("caption", { text: "How the final score was reached" }),
      make("thead", {}, make("tr", {}, make("td"),
        ...shown.seats.map((s) => make("th", { scope: "col", text: `${seatName(s)} (${s.label})` })))),
      make("tbody", {}, ...rows)));
  }

  function renderShare() {
    const live = state.live;
    if (!live.can_share || !live.viewing_key) return;
    const url = new URL(location.pathname, location.href);
    url.searchParams.set("key", live.viewing_key);
    let input = $("share-link");
    if (!input) {
      // Someone just took a seat in a members-only match: they may now share it.
      input = make("input", { id: "share-link", type: "text", readOnly: true });
      el.shareSlot.replaceChildren(make("section", { id: "share", "aria-labelledby": "share-heading" },
        make("h2", { id: "share-heading", text: "Share" }),
        make("p", { text: "This match is members-only. Anyone with this link can watch without signing in." }),
        make("p", { class: "share" }, make("label", { htmlFor: "share-link", text: "Viewing link" }), " ", input, " ",
          make("button", { type: "button", "data-copy": "share-link", text: "Copy link" }), " ",
          make("span", { class: "copied", role: "status", "aria-live": "polite" }))));
    }
    input.value = url.href;
  }

  function render() {
    if (!state.live) {
      if (state.replay) renderBoard();
      return;
    }
    root.dataset.turnNumber = state.live.turn_number;
    root.dataset.status = state.live.status;
    // For other scripts of the page (your_move.js): the live view, each time it is drawn.
    document.dispatchEvent(new CustomEvent("wordduel:view", { detail: state.live }));
    renderBoard();
    renderTurnLine();
    renderKickoff();
    renderFacts();
    renderSeats();
    renderMoves();
    renderRack();
    renderReplay();
    renderFinalScore();
    renderLastMove();
    renderChallenge();
    renderUnseen();
    renderFairBag();
    renderShare();
  }

  // The countdown and "can a seat still be taken" move with the clock, not with news.
  setInterval(() => {
    if (state.live && state.live.status === "scheduled") renderKickoff();
    if (state.live && state.live.open_play) renderChallenge(); // the window closes with the clock
  }, 1000);

  // ------------------------------------------------------------------ input: pointer

  el.board.addEventListener("click", (event) => {
    const td = event.target.closest("td.sq");
    if (!td) return;
    const row = Number(td.dataset.row);
    const col = Number(td.dataset.col);
    focusSquare(row, col);
    onSquare(row, col, { advance: false });
  });

  async function onSquare(row, col, { advance }) {
    stopShowing(); // back to the live board, to play on it
    if (!canStage()) return;
    const staged = stagedAt(row, col);
    if (staged && state.picked === null) {
      unstage(staged);
      return;
    }
    const take = takeAt(row, col);
    const occupied = stagingBoard()[row][col] !== ".";
    if (state.picked === null) {
      // Reword: a swap's or a steal's square undoes it; a tile on the board is stolen.
      if (take) undoTake(take);
      else if (occupied && takesAllowed()) stealFrom(row, col);
      else if (!occupied) hint("Pick a tile from your rack first.");
      return;
    }
    if (take && take.kind === "swap") {
      hint(takeRefusal(row, col)); // the fifth take, or the square taken from already
      return;
    }
    if (occupied && takesAllowed() && !take) {
      // A picked tile on a board tile: swap them.
      if (await swapOn(row, col)) cells[row][col].focus();
      return;
    }
    if (staged) unstage(staged); // put the picked tile here instead
    const placed = await place(row, col);
    if (placed && advance) {
      const [r, c] = nextSquare(row, col);
      focusSquare(r, c);
    } else if (placed || advance) {
      cells[row][col].focus();
    }
  }

  el.rackSlot.addEventListener("click", (event) => {
    const button = event.target.closest("button[data-tile]");
    if (!button) return;
    stopShowing();
    const id = button.dataset.tile;
    if (state.mode === "swap") {
      if (state.swapPicks.has(id)) state.swapPicks.delete(id);
      else state.swapPicks.add(id);
      render();
      return;
    }
    if (state.mode === "play") pick(id);
  });

  // Dragging a rack tile onto a square does what picking it and clicking the square does:
  // places it on an empty square, or (Reword) swaps it for the tile there.
  el.rackSlot.addEventListener("dragstart", (event) => {
    const button = event.target.closest("button[data-tile]");
    if (!button || !canStage()) { event.preventDefault(); return; }
    stopShowing(false);
    state.picked = button.dataset.tile; // no redraw: it would end the drag
    event.dataTransfer.setData("text/plain", button.dataset.tile);
    event.dataTransfer.effectAllowed = "move";
  });
  el.board.addEventListener("dragover", (event) => {
    if (state.picked !== null && event.target.closest("td.sq")) event.preventDefault();
  });
  el.board.addEventListener("drop", (event) => {
    const td = event.target.closest("td.sq");
    if (!td || state.picked === null) return;
    event.preventDefault();
    const row = Number(td.dataset.row);
    const col = Number(td.dataset.col);
    focusSquare(row, col);
    onSquare(row, col, { advance: false });
  });
  el.rackSlot.addEventListener("dragend", (event) => {
    // Dropped nowhere: the tile is put down again.
    if (event.dataTransfer.dropEffect === "none" && state.picked !== null) {
      state.picked = null;
      render();
    }
  });

  el.controls.addEventListener("click", (event) => {
    const action = event.target.closest("button[data-action]")?.dataset.action;
    if (!action) return;
    stopShowing();
    if (action === "play") playWord();
    else if (action === "recall") {
      const takes = state.takes.length;
      recallAll();
      hint(takes ? "Your swaps and steals are undone and your tiles are back on the rack."
        : "Your tiles are back on the rack.");
      render();
    }
    else if (action === "shuffle") {
      for (let i = state.rack.length - 1; i > 0; i--) {
        const j = Math.floor(Math.random() * (i + 1));
        [state.rack[i], state.rack[j]] = [state.rack[j], state.rack[i]];
      }
      render();
    } else if (action === "swap") setMode("swap");
    else if (action === "pass") setMode("pass");
    else if (action === "cancel") setMode("play");
    else if (action === "swap-confirm") confirmSwap();
    else if (action === "pass-confirm") request("pass", { turn: state.live.turn_number, after: position() });
  });

  // ------------------------------------------------------------------ resigning
  // Any turn of a live match, the player's own or not, after a confirmation; the server's
  // `ended` news redraws the result. The move list's last line names who resigned.

  const resignBox = $("resign-box");
  const endLine = $("end-line");
  document.addEventListener("wordduel:view", (event) => {
    const view = event.detail;
    const canResign = view.status === "live" && view.your_seat !== null && view.your_seat !== undefined;
    resignBox.hidden = !canResign;
    if (!canResign) resignBox.querySelector(".resign-confirm").hidden = true;
    // At a table the resigner is placed last, below every other seat (matches/places.py).
    const last = (seats) => seats.reduce((worst, s) => ((s.place || 0) > (worst.place || 0) ? s : worst));
    const resigned = view.end_reason !== "resigned" ? null
      : view.result === "table" ? last(view.seats)
        : view.seats.find((s) => s.position === (view.result === "first" ? 1 : 0));
    resignBox.querySelector(".resign-confirm > span").textContent = view.seats.length > 2
      ? "Resign this match? The game ends, you are placed last, and it cannot be undone."
      : "Resign this match? Your opponent wins, and it cannot be undone.";
    endLine.hidden = !resigned;
    endLine.textContent = resigned ? `${resigned.name || resigned.label} (${resigned.label}) resigned.` : "";
  });
  resignBox.addEventListener("click", (event) => {
    const action = event.target.closest("button[data-action]")?.dataset.action;
    const confirm = resignBox.querySelector(".resign-confirm");
    if (action === "resign") confirm.hidden = false;
    else if (action === "resign-cancel") confirm.hidden = true;
    else if (action === "resign-confirm") { confirm.hidden = true; request("resign"); }
  });

  el.seatsSlot.addEventListener("click", (event) => {
    const button = event.target.closest("button[data-seat]");
    if (!button) return;
    button.disabled = true;
    request("take_seat", { position: Number(button.dataset.seat) });
  });

  el.replay.addEventListener("click", (event) => {
    const where = event.target.closest("button[data-replay]")?.dataset.replay;
    if (where) stepReplay(where);
  });

  el.movesSlot.addEventListener("click", (event) => {
    const link = event.target.closest("a[data-turn]");
    if (!link || event.ctrlKey || event.metaKey || event.shiftKey) return;
    event.preventDefault();
    const turn = Number(link.dataset.turn);
    if (turn >= state.live.moves.length) showLive();
    else showTurn(turn);
  });

  document.addEventListener("click", (event) => {
    const button = event.target.closest("button[data-copy]");
    if (!button) return;
    const input = $(button.dataset.copy);
    const status = button.parentNode.querySelector(".copied");
    input.select();
    const done = () => { if (status) status.textContent = "Copied."; };
    if (navigator.clipboard && window.isSecureContext) {
      navigator.clipboard.writeText(input.value).then(done, () => input.select());
    } else {
      try { document.execCommand("copy"); done(); } catch (e) { input.select(); }
    }
  });

  // ------------------------------------------------------------------ input: keyboard

  const ARROWS = { ArrowUp: [-1, 0], ArrowDown: [1, 0], ArrowLeft: [0, -1], ArrowRight: [0, 1] };

  document.addEventListener("keydown", (event) => {
    if (event.ctrlKey || event.metaKey || event.altKey || event.defaultPrevented) return;
    if (event.target.closest("input, textarea, select, dialog, summary")) return;
    if (state.showing && event.key === "Escape") {
      stopShowing();
      return;
    }
    const onBoard = boardHasFocus();
    if (onBoard && ARROWS[event.key]) {
      const [dr, dc] = ARROWS[event.key];
      event.preventDefault();
      focusSquare(state.focus.row + dr, state.focus.col + dc);
      return;
    }
    if (onBoard && (event.key === "Home" || event.key === "End")) {
      event.preventDefault();
      focusSquare(state.focus.row, event.key === "Home" ? 0 : SIZE - 1);
      return;
    }
    if (state.replay || !seated() || state.live.status !== "live") return;
    if (event.key === "Escape") {
      if (state.mode !== "play") setMode("play");
      else if (state.picked !== null) pick(state.picked);
      return;
    }
    const letter = event.key.length === 1 ? event.key.toUpperCase() : "";
    if (/^[A-Z?]$/.test(letter)) {
      event.preventDefault();
      if (state.mode === "swap") {
        const match = state.rack.find((t) => t.letter === letter && !state.swapPicks.has(t.id))
          || state.rack.find((t) => t.letter === letter);
        if (match) {
          if (state.swapPicks.has(match.id)) state.swapPicks.delete(match.id);
          else state.swapPicks.add(match.id);
          render();
        }
        return;
      }
      if (state.mode === "play" && pickByLetter(letter) && !onBoard) focusSquare(state.focus.row, state.focus.col);
      return;
    }
    if (onBoard && (event.key === "Enter" || event.key === " ")) {
      event.preventDefault();
      onSquare(state.focus.row, state.focus.col, { advance: true });
      return;
    }
    if ((event.key === "Backspace" || event.key === "Delete") && state.mode === "play" && state.staged.length) {
      event.preventDefault();
      const here = onBoard ? stagedAt(state.focus.row, state.focus.col) : null;
      const staged = here || state.staged[state.staged.length - 1];
      unstage(staged);
      if (onBoard) focusSquare(staged.row, staged.col);
      return;
    }
    if ((event.key === "Backspace" || event.key === "Delete") && state.mode === "play" && state.takes.length) {
      // Reword: with no tile staged, the take on the square (else the last take) is undone.
      event.preventDefault();
      const here = onBoard ? takeAt(state.focus.row, state.focus.col) : null;
      const take = here || state.takes[state.takes.length - 1];
      undoTake(take);
      if (onBoard) focusSquare(take.row, take.col);
    }
  });

  // ------------------------------------------------------------------ go

  const embedded = $("fairness-record");
  if (embedded) state.record = JSON.parse(embedded.textContent);
  const startTurn = new URLSearchParams(location.search).get("turn");
  if (startTurn !== null && /^\d+$/.test(startTurn)) showTurn(Number(startTurn), { push: false });
  connect();
}
