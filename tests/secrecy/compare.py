"""Comparing what two worlds gave one viewer, byte for byte, after a short, fixed list of
normalisations: each replaces something that differs from world to world by design and
tells nothing of any secret.

1. The bag's commitment and the turn log's chain hashes become ``<bag-commitment>`` and
   ``<turn-hash-N>``. The commitment is the SHA-256 of the seed, published before the deal
   on purpose (RULES.md, section 7): a seed cannot be read back from it. Each turn's hash is
   the SHA-256 of that turn's public record and the hash before it. Two worlds with different
   seeds have different commitments, so every hash differs; only these exact strings (read
   from the world's own rows) are replaced, so a seed, a rack or anything else written as hex
   still shows.
2. The CSRF token in a form (``csrfmiddlewaretoken``) or a script's panel (``data-csrf``,
   as a friendly's rematch panel carries it) and the CSP nonce of a page's scripts
   (``nonce="..."``): random for every response, tied to the request, not to the match.
3. In the server's log: each line's ``request_id`` (a fresh random id per request or
   socket), a Celery task's id (a fresh random id per task), and measured durations
   (``duration_ms``, ``seconds``, a task's ``runtime`` and "succeeded in ...s": how long
   the machine took, not what it did).

Not normalised, because the worlds make them equal instead: ids (every world starts from an
empty database whose sequences start at 1), times (the clock stands still at the same
moments in both worlds), the viewing key and the calendar secrets (set by the world),
unsubscribe tokens (signed over those ids and times). Transport randomness is taken apart
before comparing, not replaced: an email is compared as its parsed headers and parts (its
MIME boundaries and Message-ID are random), a push as its decrypted payload, a zip as its
entries (``tests/secrecy/build.py``).
"""

from __future__ import annotations

import difflib
import json
import re

from tests.secrecy.worlds import WorldRecord

CSRF = re.compile(r'((?:name="csrfmiddlewaretoken" value=|data-csrf=)")[A-Za-z0-9]+(")')
NONCE = re.compile(r'(nonce=")[A-Za-z0-9_\-]+(")')
LOG_NOISE = ("request_id", "duration_ms", "seconds")
TASK_NOISE = ("id", "runtime")
TASK_DONE = re.compile(r"\[[0-9a-f-]{36}\] succeeded in [0-9.e-]+s")


def normalise(text: str, world: WorldRecord, *, channel: str) -> str:
    """``text`` with the fixed list above replaced (see the module's docstring)."""
    if world.commitment:
        text = text.replace(world.commitment, "<bag-commitment>")
    for number, digest in enumerate(world.turn_hashes, start=1):
        text = text.replace(digest, f"<turn-hash-{number}>")
    text = CSRF.sub(r"\1<csrf>\2", text)
    text = NONCE.sub(r"\1<nonce>\2", text)
    if channel == "log":
        text = "\n".join(_log_line(line) for line in text.splitlines())
    return text


def _log_line(line: str) -> str:
    entry = json.loads(line)
    for name in LOG_NOISE:
        if name in entry:
            entry[name] = f"<{name}>"
    if entry.get("logger") == "celery.app.trace":
        entry["message"] = TASK_DONE.sub("[<task id>] succeeded in <runtime>s", entry["message"])
        for name in TASK_NOISE:
            if name in entry.get("data", {}):
                entry["data"][name] = f"<task {name}>"
    return json.dumps(entry, sort_keys=True)


def differences(
    first: WorldRecord, second: WorldRecord, *, phase: str, role: str, context: int = 2
) -> list[str]:
    """Each channel on which ``role`` got different bytes in the two worlds in ``phase``,
    with a short diff; empty when every channel was the same."""
    found = []
    a, b = first.look(phase).outputs.get(role, {}), second.look(phase).outputs.get(role, {})
    for channel in sorted(set(a) | set(b)):
        kind = "log" if channel == "log" else channel
        left = normalise(a.get(channel, "<nothing>"), first, channel=kind)
        right = normalise(b.get(channel, "<nothing>"), second, channel=kind)
        if left != right:
            diff = difflib.unified_diff(
                left.splitlines(),
                right.splitlines(),
                first.spec.label,
                second.spec.label,
                n=context,
            )
            found.append(f"{role} / {phase} / {channel}:\n" + "\n".join(list(diff)[:40]))
    return found
