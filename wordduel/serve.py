"""The web process's command: Daphne, as every deployment of Word Duel runs it.

``python -m wordduel.serve -b 0.0.0.0 -p 8000 wordduel.asgi:application`` takes Daphne's own
options and adds two things plain ``daphne`` lacks:

* its access log with the values of secret query parameters (``?key=``, a members-only
  match's viewing key) redacted (:class:`wordduel.security.RedactingAccessLog`); plain
  ``daphne`` writes every request line, query string and all, to standard output;
* websocket text frames built once per message and written at once
  (:mod:`wordduel.websocket_frames`): what a spectator costs the process.
"""

from __future__ import annotations

import sys


def run_daphne(argv: list[str] | None = None) -> None:
    """The ``daphne`` command line with the redacted access log and the frame writer."""
    # Twisted is loaded only by the serving process, and daphne.cli installs its reactor.
    from daphne import cli  # noqa: PLC0415

    from wordduel import websocket_frames  # noqa: PLC0415
    from wordduel.configuration import SettingRefused  # noqa: PLC0415
    from wordduel.security import RedactingAccessLog  # noqa: PLC0415

    cli.AccessLogGenerator = RedactingAccessLog  # the name cli.run() builds its log with
    websocket_frames.install()
    if argv is not None:
        sys.argv = [sys.argv[0], *argv]
    try:
        cli.CommandLineInterface.entrypoint()
    except SettingRefused as refusal:  # a setting it cannot run with: one line, no traceback
        sys.exit(f"wordduel.serve: {refusal}")


if __name__ == "__main__":
    run_daphne()
