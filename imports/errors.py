"""Refusals of the import services: one class each, a stable ``code``, an HTTP ``status``.

They are the project's :class:`matches.services.ServiceError`, so pages map them as they map
a match's. A refusal changes nothing. ``line`` is the record's line at fault, when one is.
"""

from __future__ import annotations

from common.errors import NotAllowed, ServiceError


class ImportRefused(ServiceError):
    """A record that cannot be imported; ``line`` names the line at fault when there is one."""

    code = "import_refused"

    def __init__(self, message: str, *, line: int | None = None) -> None:
        super().__init__(message)
        self.line = line


class RecordTooBig(ImportRefused):
    code = "too_big"


class NotText(ImportRefused):
    """Bytes no text file holds (NUL and other control characters): a binary file."""

    code = "not_text"


class UnreadableRecord(ImportRefused):
    """The GCG reader (or the replay) could not go past a line."""

    code = "unreadable"


class UnknownChoice(ImportRefused):
    """A ruleset or lexicon that does not exist."""

    code = "unknown_choice"


class MembersOnlyImport(ImportRefused):
    """A sign-up still waiting for approval, or a removed member: only members import."""

    code = "members_only"
    status = 403
    MESSAGE = (
        "Only approved club members can import games (a sign-up waits for an organiser's"
        " approval first)."
    )


class ImportInProgress(ImportRefused):
    """The member's last import is still being analysed: one at a time."""

    code = "import_in_progress"
    status = 429
    MESSAGE = "Your last import is still being analysed. Import the next one when it is done."


class ImportLimitReached(ImportRefused):
    """The member has used the day's imports (``IMPORT_DAILY_LIMIT``)."""

    code = "import_limit"
    status = 429


class ImportedGameMissing(ServiceError):
    """No such imported game, as far as the requester may know."""

    code = "not_found"
    status = 404


class NotTheOwner(NotAllowed):
    """Only the member who imported a game may share, unshare or delete it."""

    code = "not_owner"
