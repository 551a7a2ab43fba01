"""The bag and the one random stream every draw comes from.

All randomness of a game is a single deterministic stream: block ``i`` is
``HMAC-SHA256(key=seed, msg=salt || i.to_bytes(8, "big"))``. ``randbelow(n)`` takes the top
``(n - 1).bit_length()`` bits of the next block and rejects values ``>= n`` (each attempt uses
one block), so it is unbiased. Drawing a tile removes ``bag[randbelow(len(bag))]`` from the bag,
which is kept as a sorted tuple: it is a multiset, and a sorted one has no order to leak.

Given the seed, the salt and the moves, every rack of a game can be recomputed
(see ``game.replay_draws``). Live games use ``secrets.token_bytes(32)`` as the seed; it must
stay on the server until the game is over.
"""

from __future__ import annotations

import hmac
import secrets
from collections.abc import Iterable
from dataclasses import dataclass

SEED_BYTES = 32


def new_seed() -> bytes:
    """A fresh secret seed from the operating system's CSPRNG."""
    return secrets.token_bytes(SEED_BYTES)


@dataclass(frozen=True, slots=True)
class DrawStream:
    """Position in the HMAC-SHA256 stream: a value, advanced by returning a new one."""

    seed: bytes
    salt: bytes = b""
    counter: int = 0

    def __post_init__(self) -> None:
        if not isinstance(self.seed, bytes) or len(self.seed) != SEED_BYTES:
            raise ValueError(f"seed must be {SEED_BYTES} bytes")
        if not isinstance(self.salt, bytes):
            raise TypeError("salt must be bytes")
        if not isinstance(self.counter, int) or not 0 <= self.counter < 2**64:
            raise ValueError("counter must fit in 8 bytes")

    def block(self, index: int) -> bytes:
        """The 32-byte block number ``index`` of this seed and salt."""
        return hmac.digest(self.seed, self.salt + index.to_bytes(8, "big"), "sha256")

    def randbelow(self, n: int) -> tuple[int, DrawStream]:
        """An unbiased integer in [0, n) and the advanced stream."""
        if n <= 0:
            raise ValueError("randbelow needs n >= 1")
        value, counter = _randbelow(self.seed, self.salt, self.counter, n)
        return value, DrawStream(self.seed, self.salt, counter)


def _randbelow(seed: bytes, salt: bytes, counter: int, n: int) -> tuple[int, int]:
    """The stream's rejection sampling on bare values: (value, next counter)."""
    shift = 256 - (n - 1).bit_length()
    while True:
        block = hmac.digest(seed, salt + counter.to_bytes(8, "big"), "sha256")
        counter += 1
        value = int.from_bytes(block, "big") >> shift
        if value < n:
            return value, counter


def draw_tiles(
    bag: tuple[str, ...], count: int, stream: DrawStream
) -> tuple[tuple[str, ...], tuple[str, ...], DrawStream]:
    """Draw up to ``count`` tiles: (drawn in draw order, the remaining bag, the new stream)."""
    remaining = list(bag)
    drawn: list[str] = []
    seed, salt, counter = stream.seed, stream.salt, stream.counter
    for _ in range(min(count, len(remaining))):
        index, counter = _randbelow(seed, salt, counter, len(remaining))
        drawn.append(remaining.pop(index))
    if counter == stream.counter:
        return tuple(drawn), tuple(remaining), stream
    return tuple(drawn), tuple(remaining), DrawStream(seed, salt, counter)


def return_tiles(bag: tuple[str, ...], tiles: Iterable[str]) -> tuple[str, ...]:
    """Put tiles back into the bag (kept sorted: a multiset has no order)."""
    return tuple(sorted((*bag, *tiles)))


def sort_rack(tiles: Iterable[str]) -> tuple[str, ...]:
    """Racks are stored sorted (blanks first, as GCG writes them): the canonical form."""
    return tuple(sorted(tiles))


def remove_tiles(rack: tuple[str, ...], tiles: Iterable[str]) -> tuple[str, ...] | None:
    """The rack without ``tiles`` (a multiset difference), or None if it lacks any of them."""
    remaining = list(rack)
    for tile in tiles:
        try:
            remaining.remove(tile)
        except ValueError:
            return None
    return tuple(remaining)
