"""Names members go by: one line each, and none that looks like another member's.

Two names clash when their *skeletons* match: each is brought to Unicode's compatibility form
(NFKC), case-folded, and every character replaced by a fixed stand-in for the group of
characters that look alike (Unicode's confusables, as the confusable-homoglyphs package
ships them), so "Alice", "alice" and "аlice" (with a Cyrillic а) are one name.
"""

from __future__ import annotations

import unicodedata
from functools import cache

from confusable_homoglyphs.confusables import confusables_data

from wordduel.text import is_one_line

#: The longest display name (also the model's limit).
DISPLAY_NAME_LENGTH = 40


@cache
def _stand_in(char: str) -> str:
    """The one character that stands for ``char`` and everything that looks like it: the
    plainest of them (ASCII first, then the lowest code point)."""
    look_alikes = [entry["c"] for entry in confusables_data.get(char, []) if len(entry["c"]) == 1]
    return min([char, *look_alikes], key=lambda c: (not c.isascii(), ord(c)))


def skeleton(name: str) -> str:
    """What ``name`` looks like, for telling names apart: equal skeletons look alike."""
    folded = unicodedata.normalize("NFKC", name).casefold()
    spaced = " ".join(folded.split())
    return "".join(_stand_in(char) for char in spaced)


def display_name_refusal(name: str) -> str | None:
    """Why ``name`` cannot be a display name (not its clash with another's), or None."""
    if not is_one_line(name):
        return "A name must be one line of plain text, without line breaks or control characters."
    if len(name) > DISPLAY_NAME_LENGTH:
        return f"A name can be at most {DISPLAY_NAME_LENGTH} characters."
    return None
