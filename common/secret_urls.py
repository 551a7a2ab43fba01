"""The secrets that travel in addresses, listed once, and their redaction from log lines.

A secret in an address is a capability: whoever reads it in a log can use it. Each kind:

- a match's viewing key and an imported game's share key (``?key=``), an invitation to
  join (``?invite=``), also when they ride inside another address (a sign-in's ``?next=``,
  where ``?`` and ``=`` arrive percent-encoded);
- a calendar feed's secret (``/notifications/calendar/<member>/<secret>.ics`` and the
  member's tournament feeds under it);
- an email confirmation (``/accounts/email/verify/<token>/``), a one-click unsubscribe
  (``/notifications/unsubscribe/<token>/``) and a password reset
  (``/accounts/password/reset/<uid>/<token>/``).

:func:`redact` takes every one out of any text (a path, a full URL, a request line, a log
message). Our request and socket lines (``common/logs.py``), every other log record
(:class:`common.logs.SecretsFilter`) and Daphne's access log
(``wordduel.security.RedactingAccessLog``) use it; the proxy's log uses :data:`PATTERN`
itself (``deploy/Caddyfile``, checked equal by ``tests/foundation/test_secret_urls.py``).
"""

from __future__ import annotations

import re

#: Query parameters whose values are secrets.
SECRET_PARAMETERS = ("key", "invite")
#: What never belongs to a secret: white space, quotes, angle brackets and the backslash
#: (where a URL ends inside a log line, a JSON string or markup), as hex escapes, which
#: Caddyfile quoting leaves alone.
_END = r"\s\x22\x27<>\x5c"
#: Paths with a secret segment: the part kept (a group), then the secret.
SECRET_PATHS = (
    rf"(/notifications/calendar/[0-9]+/)[^/?#.{_END}]+",
    rf"(/accounts/email/verify/)[^/?#{_END}]+",
    rf"(/notifications/unsubscribe/)[^/?#{_END}]+",
    rf"(/accounts/password/reset/[^/?#{_END}]+/)[^/?#{_END}]+",
)
#: One pattern for them all, in the syntax Python's ``re`` and Go's RE2 (Caddy) share:
#: group 1 is a secret parameter's name with its separators (plain or percent-encoded),
#: groups 2 onwards the kept part of each secret path; what follows a group is the secret.
PATTERN = (
    r"(?i)((?:[?&]|%3F|%26)(?:"
    + "|".join(SECRET_PARAMETERS)
    + rf")(?:=|%3D))[^&#%{_END}]*|"
    + "|".join(SECRET_PATHS)
)
#: What Caddy writes for it (``${1}${2}...REDACTED``): the kept groups, then the mark.
GROUPS = 1 + len(SECRET_PATHS)
CADDY_REPLACEMENT = "".join(f"${{{n}}}" for n in range(1, GROUPS + 1)) + "REDACTED"
#: What our own logs write in a secret's place.
REDACTED = "[redacted]"

_SECRETS = re.compile(PATTERN)


def _kept(found: re.Match[str]) -> str:
    return "".join(group for group in found.groups() if group) + REDACTED


def redact(text: str) -> str:
    """``text`` with every secret of an address in it replaced by ``[redacted]``:
    ``GET /matches/7/?key=abc`` -> ``GET /matches/7/?key=[redacted]``."""
    return _SECRETS.sub(_kept, text)
