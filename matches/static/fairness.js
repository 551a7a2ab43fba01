/* "Check this game's bag": the browser checks a finished match itself, with Web Crypto.
 *
 * It reads only the record embedded in the page (#fairness-record: the revealed seed, the
 * seats' values, the chained move log and every seat's tiles, all public once the game is
 * over), or the same record as the match's live news brought it when the game ended, and
 * trusts nothing else:
 * 1. sha256(seed) is the commitment published before the game;
 * 2. each turn's canonical public record hashes to the hash published with it, and names the
 *    turn before's (turn 1: the commitment);
 * 3. replaying the draws (HMAC-SHA256(seed, salt || counter)), every rack of both seats and
 *    every draw is the one the seed gives, every play and swap used tiles from the rack it
 *    dealt (under Reword, with the tiles its swaps and steals took), every bag count is
 *    right, and so are the racks left at the end.
 * matches/offline_check.py is the same check in Python; docs/RECORDS.md is the reference. */

const encoder = new TextEncoder();

function hexToBytes(hex) {
  const bytes = new Uint8Array(hex.length / 2);
  for (let i = 0; i < bytes.length; i += 1) bytes[i] = parseInt(hex.substr(2 * i, 2), 16);
  return bytes;
}

function bytesToHex(bytes) {
  return Array.from(new Uint8Array(bytes), (b) => b.toString(16).padStart(2, "0")).join("");
}

async function sha256Hex(bytes) {
  return bytesToHex(await crypto.subtle.digest("SHA-256", bytes));
}

/* Python's json.dumps(sort_keys=True, separators=(",", ":"), ensure_ascii=True). */
function quote(text) {
  return JSON.stringify(text).replace(/[\u0080-\uffff]/g, (c) => "\\u" + c.charCodeAt(0).toString(16).padStart(4, "0"));
}

function canonical(value) {
  if (Array.isArray(value)) return "[" + value.map(canonical).join(",") + "]";
  if (value === null) return "null";
  if (typeof value === "object") {
    return "{" + Object.keys(value).sort().map((key) => quote(key) + ":" + canonical(value[key])).join(",") + "}";
  }
  if (typeof value === "string") return quote(value);
  if (typeof value === "boolean") return value ? "true" : "false";
  if (Number.isInteger(value)) return String(value);
  throw new Error("not canonical JSON: " + value);
}

function pick(item, keys) {
  const out = {};
  keys.forEach((key) => { out[key] = item[key]; });
  return out;
}

function publicRecord(move, previous) {
  const play = move.kind === "play";
  const record = {
    bag_count: move.bag_count,
    kind: move.kind,
    number: move.number,
    position: move.position,
    previous,
    score: move.score,
    swap_count: move.kind === "swap" ? move.swap_count : 0,
    tiles: play ? move.tiles.map((t) => pick(t, ["blank", "col", "letter", "row"])) : [],
    totals: move.totals.slice(),
    words: play ? move.words.map((w) => pick(w, ["position", "score", "tiles", "word"])) : [],
  };
  // A table's or a challenge rule's keys, only when they apply (matches/chain.py).
  if (move.challenge) record.challenge = pick(move.challenge, ["by", "phonies", "points"]);
  if (move.lost_turn) record.lost_turn = true;
  // Reword's swaps and steals, only on a play that made them.
  if (move.takes && move.takes.length) {
    record.takes = move.takes.map((t) => pick(t, ["blank", "col", "letter", "placed", "placed_blank", "row", "take"]));
  }
  return record;
}

function sortedText(tiles) {
  return Array.from(tiles).sort().join("");
}

class Stream {
  constructor(key, salt) {
    this.key = key;
    this.salt = salt;
    this.counter = 0n;
  }

  async randbelow(n) {
    const bits = BigInt((n - 1).toString(2).replace(/^0$/, "").length);
    for (;;) {
      const message = new Uint8Array(this.salt.length + 8);
      message.set(this.salt);
      new DataView(message.buffer).setBigUint64(this.salt.length, this.counter);
      this.counter += 1n;
      const block = await crypto.subtle.sign("HMAC", this.key, message);
      const value = Number(BigInt("0x" + bytesToHex(block)) >> (256n - bits));
      if (value < n) return value;
    }
  }
}

async function checkChain(record) {
  let previous = record.commitment;
  for (const move of record.moves) {
    if (move.previous_hash !== previous) {
      return { failure: `Turn ${move.number} does not name the hash of the turn before it.`, turn: move.number };
    }
    const digest = await sha256Hex(encoder.encode(canonical(publicRecord(move, previous))));
    if (digest !== move.record_hash) {
      return { failure: `Turn ${move.number}'s record does not match the hash published with it.`, turn: move.number };
    }
    previous = move.record_hash;
  }
  return { line: `All ${record.moves.length} turns are chained, each to the one before.` };
}

const SEATS = ["First", "Second"];

/* The tiles a move took from its rack: a play's ("?" for a blank), a swap's letters. */
function usedTiles(move, tiles) {
  if (move.kind === "play") return move.tiles.map((t) => (t.blank ? "?" : t.letter));
  if (move.kind === "swap") return Array.from(tiles.swapped);
  return [];
}

async function checkBag(record) {
  const key = await crypto.subtle.importKey("raw", hexToBytes(record.seed), { name: "HMAC", hash: "SHA-256" }, false, ["sign"]);
  const salt = hexToBytes(record.contributions.join(""));
  const stream = new Stream(key, salt);
  let bag = [];
  Object.entries(record.tiles).forEach(([tile, count]) => { for (let i = 0; i < count; i += 1) bag.push(tile); });
  bag.sort();
  const size = record.rack_size;
  const byTurn = new Map(record.turn_tiles.map((tiles) => [tiles.number, tiles]));
  const draw = async (count) => {
    const out = [];
    for (let i = 0; i < count && bag.length; i += 1) out.push(bag.splice(await stream.randbelow(bag.length), 1)[0]);
    return out;
  };
  const racks = [await draw(size), await draw(size)];
  let drawn = racks[0].length + racks[1].length;
  for (const move of record.moves) {
    const { number, position: seat, kind } = move;
    const who = SEATS[seat];
    const rack = racks[seat];
    const tiles = byTurn.get(number);
    const fail = (text) => ({ failure: `Turn ${number}: ${text}`, turn: number });
    if (!tiles || tiles.position !== seat) return fail(`the record does not show the tiles ${who} held.`);
    if (sortedText(rack) !== sortedText(tiles.rack_before)) {
      return fail(`${who}'s rack was ${tiles.rack_before}, the seed dealt ${sortedText(rack)}.`);
    }
    const used = usedTiles(move, tiles);
    if (kind === "swap" && used.length !== move.swap_count) {
      return fail(`${who} swapped ${tiles.swapped || "nothing"}, the move log says ${move.swap_count} tiles.`);
    }
    // Reword: each swap puts a rack tile down and each take brings a board tile to the rack,
    // in order, before the play (a blank comes back as "?").
    for (const take of move.takes || []) {
      if (take.take === "swap") {
        const down = take.placed_blank ? "?" : take.placed;
        const at = rack.indexOf(down);
        if (at < 0) return fail(`${who} swapped ${down} onto the board, but the rack the seed dealt held no ${down}.`);
        rack.splice(at, 1);
      }
      rack.push(take.blank ? "?" : take.letter);
    }
    for (const tile of used) {
      const at = rack.indexOf(tile);
      if (at < 0) return fail(`${who} ${kind === "swap" ? "swapped" : "played"} ${tile}, but the rack the seed dealt held no ${tile}.`);
      rack.splice(at, 1);
    }
    const fresh = await draw(kind === "play" ? size - rack.length : used.length);
    if (sortedText(fresh) !== sortedText(tiles.drawn)) {
      return fail(`${who} drew ${tiles.drawn || "nothing"}, the seed gives ${fresh.join("") || "nothing"}.`);
    }
    drawn += fresh.length;
    if (kind === "swap") bag = bag.concat(used).sort();
    rack.push(...fresh);
    if (bag.length !== move.bag_count) {
      return fail(`the bag held ${move.bag_count} tiles, the seed's draws leave ${bag.length}.`);
    }
  }
  for (const [seat, final] of record.final_racks.entries()) {
    if (sortedText(final) !== sortedText(racks[seat])) {
      return { failure: `${SEATS[seat]}'s last rack was ${final || "empty"}, the seed dealt ${sortedText(racks[seat]) || "nothing"}.`, turn: null };
    }
  }
  const plays = record.moves.filter((m) => m.kind === "play").length;
  const swaps = record.moves.filter((m) => m.kind === "swap").length;
  return {
    lines: [
      `All ${drawn} draws of both seats match the seed committed before the game.`,
      `All ${plays} plays and ${swaps} swaps used only tiles from the racks the seed dealt.`,
    ],
  };
}

/* Every check; {ok, lines, failures: [{failure, turn}]}. */
export async function checkRecord(record) {
  const lines = [];
  const failures = [];
  if ((await sha256Hex(hexToBytes(record.seed))) === record.commitment) {
    lines.push("The seed matches the commitment published before the game.");
  } else {
    failures.push({ failure: "The seed does not match the commitment published before the game.", turn: null });
  }
  const chain = await checkChain(record);
  if (chain.failure) failures.push(chain); else lines.push(chain.line);
  const bag = await checkBag(record);
  if (bag.failure) failures.push(bag); else lines.push(...bag.lines);
  return { ok: failures.length === 0, lines, failures };
}

function show(box, result) {
  const list = box.querySelector("[data-fairness-lines]");
  const verdict = box.querySelector("[data-fairness-verdict]");
  list.replaceChildren();
  result.lines.forEach((text) => {
    const item = document.createElement("li");
    item.textContent = "✓ " + text;
    list.append(item);
  });
  result.failures.forEach(({ failure, turn }) => {
    const item = document.createElement("li");
    item.className = "error";
    if (turn !== null) item.dataset.turn = String(turn);
    item.textContent = "✗ " + failure;
    list.append(item);
  });
  verdict.textContent = result.ok
    ? "Checked in your browser: this game's bag and move history are as the server committed."
    : "The check FAILED: this record is not the game the server committed to.";
  verdict.className = result.ok ? "fairness-ok" : "fairness-failed error";
  box.dataset.state = result.ok ? "passed" : "failed";
}

function start() {
  const box = document.getElementById("fairness-check");
  if (!box) return;
  const source = document.getElementById("fairness-record");
  let record = source ? JSON.parse(source.textContent) : null;
  const button = box.querySelector("[data-fairness-run]");
  const offer = () => {
    box.hidden = false;
    button.hidden = false;
  };
  if (record) offer();
  // A game that ends while the page is open: board.js hands over the record the match's
  // news brought (docs/PROTOCOL.md, "fairness").
  document.addEventListener("wordduel:fairness", (event) => {
    record = event.detail;
    box.dataset.state = "ready";
    box.querySelector("[data-fairness-verdict]").textContent = "";
    box.querySelector("[data-fairness-lines]").replaceChildren();
    offer();
  });
  button.addEventListener("click", async () => {
    button.disabled = true;
    box.dataset.state = "running";
    try {
      show(box, await checkRecord(record));
    } catch (error) {
      show(box, { ok: false, lines: [], failures: [{ failure: `The check could not run: ${error.message}`, turn: null }] });
    } finally {
      button.disabled = false;
    }
  });
}

if (typeof document !== "undefined") start();
