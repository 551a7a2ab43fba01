"""Names members go by: one line each, none that looks like another member's, and none that
looks like one of the site's own.

Two names clash when their *skeletons* match: each is brought to Unicode's compatibility form
(NFKC), case-folded, every character replaced by a fixed stand-in for the group of
characters that look alike (Unicode's confusables, as the confusable-homoglyphs package
ships them), and every punctuation mark, symbol and space left out, so "Alice", "alice",
"аlice" (with a Cyrillic а), "alice." and "a_lice" are one name.

The site's own names are reserved, and so is whatever looks like them: what a deleted
account is renamed (``former-member-N``) and the computer's account.
"""

from __future__ import annotations

import unicodedata
from functools import cache

from confusable_homoglyphs.confusables import confusables_data

from common.text import is_one_line

#: The longest display name (also the model's limit).
DISPLAY_NAME_LENGTH = 40
#: What a deleted account is renamed (followed by its number), and the computer's account.
ANONYMOUS_PREFIX = "former-member-"
COMPUTER_NAME = "wordduel-computer"
NAME_RESERVED = "That name is kept for the site's own accounts."

#: Unicode categories left out of a skeleton: punctuation, symbols, separators (spaces).
_IGNORED = ("P", "S", "Z")


def _plainest(char: str) -> str:
    """The plainest of ``char`` and the characters listed as looking like it (ASCII
    first, then the lowest code point)."""
    look_alikes = [entry["c"] for entry in confusables_data.get(char, []) if len(entry["c"]) == 1]
    return min([char, *look_alikes], key=lambda c: (not c.isascii(), ord(c)))


@cache
def _stand_in(char: str) -> str:
    """The one character that stands for ``char`` and everything that looks like it, or ""
    for one that is (or looks like) punctuation, a symbol or a space. The plainest look-alike
    is followed until it stands for itself ("|" looks like "l", which looks like "1"), so a
    look-alike of a look-alike is the same name."""
    seen = {char}
    while (plainer := _plainest(char)) not in seen:
        seen.add(plainer)
        char = plainer
    return "" if unicodedata.category(char).startswith(_IGNORED) else char


def skeleton(name: str) -> str:
    """What ``name`` looks like, for telling names apart: equal skeletons look alike."""
    folded = unicodedata.normalize("NFKC", name).casefold()
    return "".join(_stand_in(char) for char in folded)


def _capitals_skeleton(name: str) -> str:
    """The skeleton of ``name`` written in capitals: Unicode lists some look-alikes only
    for capitals ("O" and "0"), which the case-folded skeleton never meets."""
    capitals = unicodedata.normalize("NFKC", name).upper()
    return "".join(_stand_in(char) for char in capitals).casefold()


def is_reserved(name: str) -> bool:
    """Whether ``name`` is, or looks like, one of the site's own names: the computer's, or
    a deleted account's (anything that reads ``former-member`` first), compared both as
    written and in capitals."""
    return any(
        key(name) == key(COMPUTER_NAME) or key(name).startswith(key(ANONYMOUS_PREFIX))
        for key in (skeleton, _capitals_skeleton)
    )


def display_name_refusal(name: str) -> str | None:
    """Why ``name`` cannot be a display name (not its clash with another's), or None."""
    if not is_one_line(name):
        return "A name must be one line of plain text, without line breaks or control characters."
    if len(name) > DISPLAY_NAME_LENGTH:
        return f"A name can be at most {DISPLAY_NAME_LENGTH} characters."
    if is_reserved(name):
        return NAME_RESERVED
    return None
