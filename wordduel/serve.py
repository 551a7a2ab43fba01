"""The web process's command: Daphne, as shipped, as every deployment of Word Duel runs it.

``python -m wordduel.serve -b 0.0.0.0 -p 8000 wordduel.asgi:application`` takes Daphne's own
options and changes one thing: its access log has the values of secret query parameters
(``?key=``, a members-only match's viewing key) redacted
(:class:`wordduel.security.RedactingAccessLog`), and goes through logging; plain ``daphne``
writes every request line, query string and all, to standard output. It is wired through
Daphne's own extension points: the command line's ``server_class`` and the server's
``action_logger`` argument.
"""

from __future__ import annotations

import sys
from typing import Any


def run_daphne(argv: list[str] | None = None) -> None:
    """The ``daphne`` command line, with the redacted access log."""
    # Twisted is loaded only by the serving process, and daphne.cli installs its reactor.
    from daphne import cli  # noqa: PLC0415
    from daphne.server import Server  # noqa: PLC0415

    from wordduel.configuration import SettingRefused  # noqa: PLC0415
    from wordduel.security import RedactingAccessLog  # noqa: PLC0415

    class RedactingServer(Server):
        """Daphne's server; the access log the command line asked for (``--access-log``, or
        verbosity 1 and up) is the redacting one."""

        def __init__(self, *args: Any, action_logger: Any = None, **kwargs: Any) -> None:
            if action_logger is not None:
                action_logger = RedactingAccessLog(action_logger.stream)
            super().__init__(*args, action_logger=action_logger, **kwargs)

    class CommandLineInterface(cli.CommandLineInterface):
        server_class = RedactingServer

    try:
        CommandLineInterface().run(sys.argv[1:] if argv is None else argv)
    except SettingRefused as refusal:  # a setting it cannot run with: one line, no traceback
        sys.exit(f"wordduel.serve: {refusal}")


if __name__ == "__main__":
    run_daphne()
