"""Check a finished Word Duel game yourself, with nothing but Python's standard library.

This file is the script half of the verification file a player downloads from a finished
match's page (``/matches/<id>/verify.py``): the server appends the game's record (what the
page's "Check this game's bag" reads) and a line that runs :func:`main`. Run it with
``python3 verify-match-<id>.py``; it prints what it checked and exits 1 on any failure.

It checks, trusting nothing the server says but the record itself:

1. the seed: its SHA-256 is the commitment published before the game;
2. the turn log's chain: each turn's canonical public record, hashed, is the hash published
   with it, and each names the hash of the turn before (turn 1: the commitment);
3. the bag: replaying the draws from the seed and the seats' values, your own racks and
   draws are the ones you were dealt, every tile played came from a rack the seed dealt, and
   every bag count is right. Another seat's swap hides which letters went back into the
   bag, so letter-by-letter checks stop at the first swap whose letters you cannot see (bag
   counts go on to the end). docs/RECORDS.md explains it in full.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import sys
from collections import Counter
from typing import Any


def canonical_json(value: object) -> bytes:
    """Keys sorted, no spaces, non-ASCII as \\uXXXX: the bytes a turn's record is hashed as."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=True).encode()


def public_record(move: dict[str, Any], previous: str) -> dict[str, Any]:
    """A turn's public record, from the move as the record lists it."""
    play = move["kind"] == "play"
    return {
        "bag_count": move["bag_count"],
        "kind": move["kind"],
        "number": move["number"],
        "position": move["position"],
        "previous": previous,
        "score": move["score"],
        "swap_count": move["swap_count"] if move["kind"] == "swap" else 0,
        "tiles": [
            {key: tile[key] for key in ("blank", "col", "letter", "row")} for tile in move["tiles"]
        ]
        if play
        else [],
        "totals": list(move["totals"]),
        "words": [
            {key: word[key] for key in ("position", "score", "tiles", "word")}
            for word in move["words"]
        ]
        if play
        else [],
    }


class Stream:
    """The bag's one source of chance: HMAC-SHA256(seed, salt || counter), docs/RECORDS.md."""

    def __init__(self, seed: bytes, salt: bytes) -> None:
        self.seed, self.salt, self.counter = seed, salt, 0

    def randbelow(self, n: int) -> int:
        while True:
            block = hmac.digest(self.seed, self.salt + self.counter.to_bytes(8, "big"), "sha256")
            self.counter += 1
            value = int.from_bytes(block, "big") >> (256 - (n - 1).bit_length())
            if value < n:
                return value


def _used(move: dict[str, Any]) -> list[str]:
    return ["?" if tile["blank"] else tile["letter"] for tile in move["tiles"]]


def check(record: dict[str, Any]) -> tuple[bool, list[str]]:
    """(all good, what was checked and every failure, in words)."""
    lines: list[str] = []
    failures: list[str] = []
    commitment = record["commitment"]
    seed = bytes.fromhex(record["seed"])
    if hashlib.sha256(seed).hexdigest() == commitment:
        lines.append("The seed matches the commitment published before the game.")
    else:
        failures.append("The seed does not match the commitment published before the game.")

    previous = commitment
    for move in record["moves"]:
        number = move["number"]
        if move["previous_hash"] != previous:
            failures.append(f"Turn {number} does not name the hash of the turn before it.")
            break
        digest = hashlib.sha256(canonical_json(public_record(move, previous))).hexdigest()
        if digest != move["record_hash"]:
            failures.append(f"Turn {number}'s record does not match the hash published with it.")
            break
        previous = move["record_hash"]
    else:
        lines.append(f"All {len(record['moves'])} turns are chained, each to the one before.")

    failures += _bag_failures(record, lines)
    for failure in failures:
        lines.append(f"FAILED: {failure}")
    return not failures, lines


def _bag_failures(record: dict[str, Any], lines: list[str]) -> list[str]:
    """Replay the draws; what disagrees with the record, naming the turn."""
    stream = Stream(
        bytes.fromhex(record["seed"]), b"".join(bytes.fromhex(v) for v in record["contributions"])
    )
    bag = sorted(tile for tile, count in record["tiles"].items() for _ in range(count))
    size = record["rack_size"]
    own = record["your_seat"]
    mine = {turn["number"]: turn for turn in record["your_turns"]}
    known = True  # whether the bag's letters are still known to this viewer
    stopped_at = None
    seen = 0

    def draw(count: int) -> list[str]:
        return [bag.pop(stream.randbelow(len(bag))) for _ in range(min(count, len(bag)))]

    racks = [draw(size), draw(size)]
    if own is not None:
        seen += size
    for move in record["moves"]:
        number, seat, kind = move["number"], move["position"], move["kind"]
        rack = racks[seat]
        own_turn = mine.get(number) if seat == own else None
        if own_turn is not None and known and Counter(rack) != Counter(own_turn["rack_before"]):
            return [(f"Turn {number}: your rack was {own_turn['rack_before']}, the seed dealt "
                    f"{''.join(sorted(rack))}.")]  # fmt: skip
        if kind == "swap" and own_turn is None and known:
            known, stopped_at = False, number
        if kind == "play":
            used = _used(move)
        elif kind == "swap":
            used = list(own_turn["swapped"]) if own_turn is not None else ["?"] * move["swap_count"]
        else:
            used = []
        if known:
            for tile in used:
                if tile not in rack:
                    return [(f"Turn {number}: {tile} was played, but the rack the seed dealt "
                            f"held no {tile}.")]  # fmt: skip
                rack.remove(tile)
        else:
            del rack[: len(used)]
        count = size - len(rack) if kind == "play" else len(used)
        if known:
            new = draw(count)
        else:
            new = ["?"] * min(count, len(bag))
            for _ in new:
                bag.pop(stream.randbelow(len(bag)))
        if own_turn is not None and known:
            if sorted(new) != sorted(own_turn["drawn"]):
                return [(f"Turn {number}: you drew {own_turn['drawn'] or 'nothing'}, the seed "
                        f"gives {''.join(new) or 'nothing'}.")]  # fmt: skip
            seen += len(new)
        if kind == "swap":
            bag = sorted(bag + used)
        rack += new
        if len(bag) != move["bag_count"]:
            return [(f"Turn {number}: the bag held {move['bag_count']} tiles, the seed's draws "
                    f"leave {len(bag)}.")]  # fmt: skip
    final = record["your_final_rack"]
    if own is not None and known and final is not None and Counter(final) != Counter(racks[own]):
        return [f"Your final rack was {final}, the seed dealt {''.join(sorted(racks[own]))}."]
    if own is not None:
        lines.append(f"All {seen} draws you can see match the seed committed before the game.")
    plays = sum(1 for move in record["moves"] if move["kind"] == "play" and
                (stopped_at is None or move["number"] < stopped_at))  # fmt: skip
    lines.append(f"All {plays} plays you can check used only tiles the seed dealt.")
    if stopped_at is not None:
        lines.append(
            f"Turn {stopped_at} was a swap whose letters you may not see: the draws after it "
            "depend on them, so only the bag counts were checked from there to the end."
        )
    return []


def main(record: dict[str, Any]) -> int:
    ok, lines = check(record)
    print(f"Word Duel match {record['match_id']}: {'OK' if ok else 'FAILED'}")  # noqa: T201
    for line in lines:
        print(f"  {line}")  # noqa: T201
    return 0 if ok else 1


if __name__ == "__main__" and len(sys.argv) == 2:  # python3 offline_check.py record.json
    with open(sys.argv[1], encoding="utf-8") as source:
        sys.exit(main(json.load(source)))
