"""Names people set are one line of text: no line breaks, no control or format characters.

A name ends up in pages, news, game records (GCG is line-based) and logs; a line separator in
one could forge a line of a record or a log. Checked wherever a member or organiser sets a
name (display names, fixtures, tournaments).
"""

from __future__ import annotations

import unicodedata

#: Unicode categories that have no place in a name: controls (Cc, with \n \r \x85),
#: format characters (Cf: zero-width joiners, bidi overrides), line and paragraph
#: separators (Zl, Zp: U+2028, U+2029), surrogates, private use and unassigned.
_FORBIDDEN_CATEGORIES = frozenset({"Cc", "Cf", "Cs", "Co", "Cn", "Zl", "Zp"})

NOT_ONE_LINE = "A name must be one line of plain text, without line breaks or control characters."


def is_one_line(text: str) -> bool:
    """True when ``text`` holds no character that could break a line or hide itself."""
    return not any(unicodedata.category(char) in _FORBIDDEN_CATEGORIES for char in text)
