"""The numbers of seed 002 (Word Skill), read from the page itself, for the tests to check
the code against (the page is kept verbatim in tests/engine/data, so a fresh clone has it)."""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cache
from pathlib import Path

SEED_PAGE = Path(__file__).parent / "data" / "seed_002_word_skill.txt"

_TILE_ROW = re.compile(r"^\| (?P<tile>[A-Z★]) \d+ \| (?P<value>\d+) pts? \| × (?P<count>\d+) \|$")
_CAP_ROW = re.compile(r"^\| (?P<rating>\d+)(?: \((?:min|default|max)\))? \| ≤ (?P<cap>\d+) \|$")
_TOTAL = re.compile(r"There are (\d+) tiles in total")
_START = re.compile(r"All players begin at ([\d,]+)\.")
_CLAMP = re.compile(r"clamped between ([\d,]+) \(floor\) and ([\d,]+) \(ceiling\)")
_CHANGE = re.compile(r"^- (Win|Loss|Tie): (.+)$")
_BINGO = re.compile(r"add a (\d+)-point Bingo bonus")


def _number(text: str) -> int:
    return int(text.replace(",", ""))


def _found(pattern: re.Pattern[str], text: str) -> re.Match[str]:
    match = pattern.search(text)
    assert match is not None, f"the seed page no longer says {pattern.pattern!r}"
    return match


@dataclass(frozen=True)
class WordSkillSeed:
    """What the page says, as data."""

    #: tile (``?`` for the page's ★ blank) -> (value, count)
    tiles: dict[str, tuple[int, int]]
    stated_total: int
    bingo: int
    #: rating -> cap, the table's rows in order
    caps: dict[int, int]
    start: int
    floor: int
    ceiling: int
    #: "win"/"loss"/"tie" -> the change of a game against Gramma Ana
    changes: dict[str, int]


@cache
def word_skill_seed() -> WordSkillSeed:
    """Parse the page (each table row and sentence the tests rely on must be found)."""
    text = SEED_PAGE.read_text(encoding="utf-8")
    lines = [line.strip() for line in text.splitlines()]
    tiles: dict[str, tuple[int, int]] = {}
    caps: dict[int, int] = {}
    changes: dict[str, int] = {}
    for line in lines:
        if match := _TILE_ROW.match(line):
            tile = "?" if match["tile"] == "★" else match["tile"]
            tiles[tile] = (int(match["value"]), int(match["count"]))
        elif match := _CAP_ROW.match(line):
            caps[int(match["rating"])] = int(match["cap"])
        elif match := _CHANGE.match(line):
            words = match[2]
            number = re.search(r"([+−-])(\d+) points", words)
            if number is None:
                assert words == "no change", words
                changes[match[1].lower()] = 0
            else:
                sign = 1 if number[1] == "+" else -1
                changes[match[1].lower()] = sign * int(number[2])
    total, start, clamp, bingo = (_found(rx, text) for rx in (_TOTAL, _START, _CLAMP, _BINGO))
    assert len(tiles) == 27
    assert len(caps) == 13
    assert len(changes) == 3
    return WordSkillSeed(
        tiles=tiles,
        stated_total=int(total[1]),
        bingo=int(bingo[1]),
        caps=caps,
        start=_number(start[1]),
        floor=_number(clamp[1]),
        ceiling=_number(clamp[2]),
        changes=changes,
    )
