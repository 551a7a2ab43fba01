// Word Duel: the board's squares and the blank's letter, shared by every page that places tiles
// (the match page, board.js; the rounds page, rounds/static/rounds_board.js). Each page keeps its own
// state (rack or tray, staged tiles); this module draws a square and asks for a blank's letter.

export const PREMIUM = {
  T: { css: "tw", label: "TW", name: "triple word" },
  D: { css: "dw", label: "DW", name: "double word" },
  t: { css: "tl", label: "TL", name: "triple letter" },
  d: { css: "dl", label: "DL", name: "double letter" },
};

export function make(tag, props = {}, ...children) {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(props)) {
    if (value === undefined || value === null || value === false) continue;
    if (name === "class") node.className = value;
    else if (name === "text") node.textContent = value;
    else if (name.startsWith("data-") || name.startsWith("aria-") || name === "role") node.setAttribute(name, value);
    else node[name] = value;
  }
  node.append(...children.filter((c) => c !== null && c !== undefined && c !== false));
  return node;
}

// The server's board table, its squares made focusable grid cells: cells[row][col].
export function gridCells(table) {
  table.setAttribute("role", "grid");
  const cells = [];
  table.querySelectorAll("tbody tr").forEach((tr, row) => {
    cells.push([]);
    tr.querySelectorAll("td.sq").forEach((td, col) => {
      td.setAttribute("role", "gridcell");
      td.dataset.row = row;
      td.dataset.col = col;
      td.tabIndex = -1;
      cells[row].push(td);
    });
  });
  return cells;
}

// One square drawn: a tile on the board (`char`, lower case a blank), a staged tile
// ({letter, blank}), a square blocked this turn (Reword's steal), or the empty square's
// premium. `last` outlines it (the newest play); `lastLabel` says why in its accessible name.
export function paintSquare(
  td,
  { name, char, premium, star, staged, blocked = false, last, appearing, valueOf, lastLabel = "last move", mark = null },
) {
  const classes = ["sq"];
  let label;
  td.replaceChildren();
  delete td.dataset.shade;
  if (char !== ".") {
    const letter = char.toUpperCase();
    const blank = char !== letter;
    classes.push("tile");
    if (blank) classes.push("blank");
    if (last) classes.push("last");
    if (appearing) classes.push("appearing");
    td.append(make("span", { class: "letter", text: letter }));
    if (!blank) td.append(make("span", { class: "value", text: valueOf(letter) }));
    label = `${name}, ${letter}${blank ? ", blank" : ""}${last ? `, ${lastLabel}` : ""}`;
  } else if (staged) {
    classes.push("tile", "staged");
    if (staged.blank) classes.push("blank");
    td.append(make("span", { class: "letter", text: staged.letter }));
    if (!staged.blank) td.append(make("span", { class: "value", text: valueOf(staged.letter) }));
    label = `${name}, ${staged.letter}${staged.blank ? ", blank" : ""}, your tile, not yet played`;
  } else if (blocked) {
    classes.push("blocked");
    td.append(make("span", { class: "block-mark", "aria-hidden": "true", text: "✕" }));
    label = `${name}, empty, blocked: you stole from it this turn`;
  } else {
    if (premium) classes.push(premium.css);
    if (star) classes.push("star");
    td.textContent = star ? "★" : premium ? premium.label : "";
    label = `${name}, ${premium ? `${premium.name}, ` : ""}empty`;
  }
  if (mark) {
    // Reword's take marks ({css, shade, says, warning}); a blocked square has said so already.
    classes.push(mark.css);
    td.dataset.shade = mark.shade;
    if (!blocked) label += `, ${mark.says}`;
    if (mark.warning) label += `: ${mark.warning}`;
  }
  td.className = classes.join(" ");
  td.setAttribute("aria-label", label);
}

// The page's <dialog id="blank-dialog"> asks which letter a blank stands for: the letter, or
// null when cancelled.
export function askBlankLetter(dialog) {
  const box = dialog.querySelector("#blank-letters");
  if (!box.childElementCount) {
    for (const letter of "ABCDEFGHIJKLMNOPQRSTUVWXYZ") {
      box.append(make("button", { type: "submit", value: letter, text: letter, class: "tile" }));
    }
    dialog.addEventListener("keydown", (event) => {
      if (/^[a-z]$/i.test(event.key) && !event.ctrlKey && !event.metaKey && !event.altKey) {
        event.preventDefault();
        dialog.close(event.key.toUpperCase());
      }
    });
  }
  dialog.returnValue = "";
  dialog.showModal();
  return new Promise((resolve) => {
    dialog.addEventListener("close", () => {
      const value = dialog.returnValue;
      resolve(/^[A-Z]$/.test(value) ? value : null);
    }, { once: true });
  });
}
