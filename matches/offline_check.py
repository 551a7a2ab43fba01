"""Check a finished Word Duel game yourself, with nothing but Python's standard library.

This file is the script half of the verification file a player downloads from a finished
match's page (``/matches/<id>/verify.py``): the server appends the game's record (what the
page's "Check this game's bag" reads) and a line that runs :func:`main`. Run it with
``python3 verify-match-<id>.py``; it prints what it checked and exits 1 on any failure.

It checks, trusting nothing the server says but the record itself:

1. the seed: its SHA-256 is the commitment published before the game;
2. the turn log's chain: each turn's canonical public record, hashed, is the hash published
   with it, and each names the hash of the turn before (turn 1: the commitment);
3. the bag: replaying the draws from the seed and the seats' values, every rack of both
   seats is the one the seed dealt, every draw is the one it gives, every tile played or
   swapped came from the rack it dealt (under Reword, with the tiles its swaps and steals
   took from the board), every bag count is right, and so are the racks left
   at the end. The whole record is public once a game is over, so this checks every draw of
   the game, whoever runs it. docs/RECORDS.md explains it in full.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import sys
from typing import Any


def canonical_json(value: object) -> bytes:
    """Keys sorted, no spaces, non-ASCII as \\uXXXX: the bytes a turn's record is hashed as."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=True).encode()


def public_record(move: dict[str, Any], previous: str) -> dict[str, Any]:
    """A turn's public record, from the move as the record lists it."""
    play = move["kind"] == "play"
    record = {
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
    # A table's or a challenge rule's keys, only when they apply (matches/chain.py).
    if move.get("challenge"):
        record["challenge"] = {key: move["challenge"][key] for key in ("by", "phonies", "points")}
    if move.get("lost_turn"):
        record["lost_turn"] = True
    if move.get("takes"):  # Reword's swaps and steals, only on a play that made them
        keys = ("blank", "col", "letter", "placed", "placed_blank", "row", "take")
        record["takes"] = [{key: take[key] for key in keys} for take in move["takes"]]
    return record


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


#: How the record's seats are named in what the check says.
SEATS = ("First", "Second")


def _used(move: dict[str, Any], tiles: dict[str, Any]) -> list[str]:
    """The tiles a move took from its rack: a play's (``?`` for a blank), a swap's letters."""
    if move["kind"] == "play":
        return ["?" if tile["blank"] else tile["letter"] for tile in move["tiles"]]
    if move["kind"] == "swap":
        return list(tiles["swapped"])
    return []


def _sorted(tiles: list[str] | str) -> str:
    return "".join(sorted(tiles))


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
    """Replay every draw of the game; the first thing that disagrees with the record, naming
    the turn, or nothing (and what was checked added to ``lines``)."""
    stream = Stream(
        bytes.fromhex(record["seed"]), b"".join(bytes.fromhex(v) for v in record["contributions"])
    )
    bag = sorted(tile for tile, count in record["tiles"].items() for _ in range(count))
    size = record["rack_size"]
    by_turn = {tiles["number"]: tiles for tiles in record["turn_tiles"]}

    def draw(count: int) -> list[str]:
        return [bag.pop(stream.randbelow(len(bag))) for _ in range(min(count, len(bag)))]

    racks = [draw(size), draw(size)]
    drawn = len(racks[0]) + len(racks[1])
    for move in record["moves"]:
        number, seat, kind = move["number"], move["position"], move["kind"]
        who, rack = SEATS[seat], racks[seat]
        tiles = by_turn.get(number)
        if tiles is None or tiles["position"] != seat:
            return [f"Turn {number}: the record does not show the tiles {who} held."]
        if _sorted(rack) != _sorted(tiles["rack_before"]):
            return [(f"Turn {number}: {who}'s rack was {tiles['rack_before']}, the seed dealt "
                    f"{_sorted(rack)}.")]  # fmt: skip
        used = _used(move, tiles)
        if kind == "swap" and len(used) != move["swap_count"]:
            return [(f"Turn {number}: {who} swapped {tiles['swapped'] or 'nothing'}, the move "
                    f"log says {move['swap_count']} tiles.")]  # fmt: skip
        # Reword: each swap puts a rack tile down and each take brings a board tile to the
        # rack, in order, before the play (a blank comes back as ?).
        for take in move.get("takes") or []:
            if take["take"] == "swap":
                down = "?" if take["placed_blank"] else take["placed"]
                if down not in rack:
                    return [(f"Turn {number}: {who} swapped {down} onto the board, but the rack "
                            f"the seed dealt held no {down}.")]  # fmt: skip
                rack.remove(down)
            rack.append("?" if take["blank"] else take["letter"])
        for tile in used:
            if tile not in rack:
                return [(f"Turn {number}: {who} {'swapped' if kind == 'swap' else 'played'} "
                        f"{tile}, but the rack the seed dealt held no {tile}.")]  # fmt: skip
            rack.remove(tile)
        new = draw(size - len(rack) if kind == "play" else len(used))
        if _sorted(new) != _sorted(tiles["drawn"]):
            return [(f"Turn {number}: {who} drew {tiles['drawn'] or 'nothing'}, the seed gives "
                    f"{''.join(new) or 'nothing'}.")]  # fmt: skip
        drawn += len(new)
        if kind == "swap":
            bag = sorted(bag + used)
        rack += new
        if len(bag) != move["bag_count"]:
            return [(f"Turn {number}: the bag held {move['bag_count']} tiles, the seed's draws "
                    f"leave {len(bag)}.")]  # fmt: skip
    for seat, final in enumerate(record["final_racks"]):
        if _sorted(final) != _sorted(racks[seat]):
            return [(f"{SEATS[seat]}'s last rack was {final or 'empty'}, the seed dealt "
                    f"{_sorted(racks[seat]) or 'nothing'}.")]  # fmt: skip
    lines.append(f"All {drawn} draws of both seats match the seed committed before the game.")
    plays = sum(1 for move in record["moves"] if move["kind"] == "play")
    swaps = sum(1 for move in record["moves"] if move["kind"] == "swap")
    lines.append(
        f"All {plays} plays and {swaps} swaps used only tiles from the racks the seed dealt."
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
