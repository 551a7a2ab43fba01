"""A lexicon as a minimal word graph (DAWG), built once per lexicon and shared.

The move generator walks this graph letter by letter: every path from the root spells a prefix
of some word, and a node marked terminal ends a word. Merging equal suffixes (the "minimal"
part) keeps ENABLE to a few tens of thousands of nodes, so the graph is small enough to keep
for the life of the process and fast to walk.

Letters are ints 0-25 (``A`` = 0) so the generator can use them as bit positions in the
cross-check masks. The graph is built from sorted words in one pass (the incremental
construction of Daciuk, Mihov, Watson and Watson, 2000): after each word, the part of the
previous word that the new one does not share is minimised against a register of finished
nodes, so the whole trie never exists in memory at once.
"""

from __future__ import annotations

import sys
import threading
import time
from array import array
from collections import OrderedDict
from collections.abc import Iterable
from dataclasses import dataclass

from .errors import LexiconNotIterable

ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
#: Every letter's bit set: the cross-check of a square no cross-word constrains.
ALL_LETTERS = (1 << len(ALPHABET)) - 1
_CODE = {letter: code for code, letter in enumerate(ALPHABET)}


@dataclass(frozen=True, slots=True)
class GraphStats:
    """What a word graph holds and cost, for benches and logs."""

    name: str
    words: int
    nodes: int
    edges: int
    build_seconds: float
    #: The finished graph's own objects, by ``sys.getsizeof`` (lists, dicts, node ids).
    approx_bytes: int


class WordGraph:
    """A minimal acyclic automaton of upper-case words: read-only once built.

    ``children[node]`` maps a letter code to the next node; ``terminal[node]`` says whether
    the path to ``node`` spells a whole word; ``letters[node]`` is the bit set of the letters
    leaving ``node`` (a cheap filter before touching the dict); ``reach`` holds, per node and
    depth, the letters found within that many steps (see ``_reach``); ``below`` (built on first
    use) the letters on any path from a node. Node 0 is the root.
    """

    __slots__ = (
        "_below",
        "build_seconds",
        "children",
        "letters",
        "name",
        "reach",
        "terminal",
        "word_count",
    )

    ROOT = 0
    #: How deep ``reach`` looks: a rack's worth of letters.
    REACH_DEPTH = 7

    def __init__(
        self,
        children: list[dict[int, int]],
        terminal: list[bool],
        *,
        name: str,
        word_count: int,
        build_seconds: float,
    ) -> None:
        self.children = children
        self.terminal = terminal
        self.letters = [sum(1 << code for code in edges) for edges in children]
        self.reach = _reach(children, self.letters, self.REACH_DEPTH)
        self._below: list[int] | None = None
        self.name = name
        self.word_count = word_count
        self.build_seconds = build_seconds

    @property
    def below(self) -> list[int]:
        """``below[node]``: every letter on some path from ``node`` (of any length), so a
        search that must still place a letter can drop a node none of whose words holds it.
        Built on first use (the take search needs it; plain plays do not)."""
        below = self._below
        if below is None:
            below = self._below = _below(self.children, self.letters)
        return below

    @classmethod
    def build(cls, words: Iterable[str], *, name: str = "") -> WordGraph:
        """The graph of every word of two or more letters A-Z (anything else is skipped:
        the rules only ever look up upper-case words of two or more letters)."""
        started = time.perf_counter()
        clean = sorted({w for w in words if isinstance(w, str) and len(w) >= 2 and _is_az(w)})
        children: list[dict[int, int] | None] = [{}]
        terminal: list[bool] = [False]
        register: dict[tuple[bool, tuple[tuple[int, int], ...]], int] = {}
        # Path of the previous word still open to change: (parent, letter, child).
        unchecked: list[tuple[int, int, int]] = []

        def minimise(down_to: int) -> None:
            while len(unchecked) > down_to:
                parent, letter, child = unchecked.pop()
                edges = children[child]
                assert edges is not None
                key = (terminal[child], tuple(edges.items()))
                same = register.get(key)
                if same is None:
                    register[key] = child
                else:
                    parent_edges = children[parent]
                    assert parent_edges is not None
                    parent_edges[letter] = same
                    children[child] = None  # merged away: free its dict now

        previous = ""
        for word in clean:
            common = 0
            limit = min(len(word), len(previous))
            while common < limit and word[common] == previous[common]:
                common += 1
            minimise(common)
            node = unchecked[-1][2] if unchecked else cls.ROOT
            for char in word[common:]:
                child = len(children)
                children.append({})
                terminal.append(False)
                edges = children[node]
                assert edges is not None
                edges[_CODE[char]] = child
                unchecked.append((node, _CODE[char], child))
                node = child
            terminal[node] = True
            previous = word
        minimise(0)

        # Renumber the live nodes densely, breadth first from the root.
        order = [cls.ROOT]
        new_id = {cls.ROOT: 0}
        for old in order:
            edges = children[old]
            assert edges is not None
            for target in edges.values():
                if target not in new_id:
                    new_id[target] = len(order)
                    order.append(target)
        dense: list[dict[int, int]] = []
        for old in order:
            edges = children[old]
            assert edges is not None
            dense.append({letter: new_id[target] for letter, target in edges.items()})
        finals = [terminal[old] for old in order]
        graph = cls(dense, finals, name=name, word_count=len(clean), build_seconds=0.0)
        graph.build_seconds = time.perf_counter() - started
        return graph

    def __contains__(self, word: object) -> bool:
        if not isinstance(word, str):
            return False
        node = self.ROOT
        for char in word:
            code = _CODE.get(char)
            if code is None:
                return False
            next_node = self.children[node].get(code)
            if next_node is None:
                return False
            node = next_node
        return self.terminal[node]

    def __len__(self) -> int:
        return self.word_count

    def __repr__(self) -> str:
        return (
            f"<WordGraph {self.name or '?'}: {self.word_count} words, {len(self.children)} nodes>"
        )

    def words(self) -> Iterable[str]:
        """Every word, in alphabetical order (for tests and checks; not fast)."""
        stack: list[tuple[int, str]] = [(self.ROOT, "")]
        while stack:
            node, prefix = stack.pop()
            if self.terminal[node]:
                yield prefix
            for code, child in sorted(self.children[node].items(), reverse=True):
                stack.append((child, prefix + ALPHABET[code]))

    def stats(self) -> GraphStats:
        """Size and build cost."""
        size = sys.getsizeof(self.children) + sys.getsizeof(self.terminal)
        size += sys.getsizeof(self.letters) + sys.getsizeof(self.reach)
        size += sum(sys.getsizeof(edges) for edges in self.children)
        # Node ids above 256 are int objects of their own (one per node, shared by its edges);
        # letter masks likewise.
        size += sum(sys.getsizeof(node) for node in range(257, len(self.children)))
        size += sum(sys.getsizeof(mask) for mask in self.letters if mask > 256)
        return GraphStats(
            name=self.name,
            words=self.word_count,
            nodes=len(self.children),
            edges=sum(len(edges) for edges in self.children),
            build_seconds=self.build_seconds,
            approx_bytes=size,
        )


def _reach(children: list[dict[int, int]], letters: list[int], depth: int) -> array[int]:
    """``reach[node * (depth + 1) + d]``: every letter on some path of at most ``d + 1`` edges
    from ``node``, so the generator can drop a prefix that cannot get a fitting letter onto an
    anchor a few squares on."""
    width = depth + 1
    table = array("I", bytes(4 * width * len(children)))
    level = list(letters)
    for node, mask in enumerate(level):
        table[node * width] = mask
    for d in range(1, width):
        deeper = []
        for node, edges in enumerate(children):
            mask = letters[node]
            for child in edges.values():
                mask |= level[child]
            deeper.append(mask)
            table[node * width + d] = mask
        level = deeper
    return table


def _below(children: list[dict[int, int]], letters: list[int]) -> list[int]:
    """Per node, the letters on any path from it (a post-order walk of the acyclic graph)."""
    found = [0] * len(children)
    done = bytearray(len(children))
    for root in range(len(children)):
        if done[root]:
            continue
        stack = [root]
        while stack:
            node = stack[-1]
            if done[node]:
                stack.pop()
                continue
            pending = [child for child in children[node].values() if not done[child]]
            if pending:
                stack += pending
                continue
            stack.pop()
            mask = letters[node]
            for child in children[node].values():
                mask |= found[child]
            found[node] = mask
            done[node] = 1
    return found


def _is_az(word: str) -> bool:
    return word.isascii() and word.isalpha() and word.isupper()


# -- one graph per lexicon, shared ----------------------------------------------------------

_CACHE_SIZE = 8
_cache: OrderedDict[int, tuple[object, WordGraph]] = OrderedDict()
_cache_lock = threading.Lock()


def word_graph(lexicon: Iterable[str]) -> WordGraph:
    """The graph of ``lexicon``, built on first use and kept (the few most recent lexicons).

    Keyed by the lexicon object's identity, which ``get_lexicon`` keeps stable for the life of
    the process; the cache holds the lexicon itself too, so its id cannot be reused by
    another object while the entry lives. A lexicon must not change after its graph is built.
    """
    key = id(lexicon)
    with _cache_lock:
        entry = _cache.get(key)
        if entry is not None and entry[0] is lexicon:
            _cache.move_to_end(key)
            return entry[1]
        if not hasattr(lexicon, "__iter__"):
            raise LexiconNotIterable("The move generator needs an iterable lexicon.")
        name = str(getattr(lexicon, "name", "") or type(lexicon).__name__)
        graph = WordGraph.build(lexicon, name=name)
        _cache[key] = (lexicon, graph)
        while len(_cache) > _CACHE_SIZE:
            _cache.popitem(last=False)
        return graph


def clear_word_graphs() -> None:
    """Forget every cached graph (tests; after reloading a lexicon)."""
    with _cache_lock:
        _cache.clear()
