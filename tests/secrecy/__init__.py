"""Secrecy proven by two worlds (``make secrecy``; docs/RULES.md, section 5).

- ``worlds.py``: what a world is (a tournament match whose hidden tiles follow a script),
  the roles that look at it, and the timeline.
- ``build.py``: building a world on the real parts and taking down every channel each role
  gets: socket frames (the connect snapshot, every news frame, acks, refusals, sync
  answers, through the real consumer), pages (home, my matches, the match page, the
  tournaments list, the tournament page, both players' pages, the leaderboard, the fixture
  list of the organisers, the "your move" helpers), API answers (the match list, the match
  state, every replay step with its analysis, GCG, the standings), the GCG and offline
  check files, emails and web pushes of every notice kind (``notifications.models.Kind``,
  enumerated, so a kind added later is covered), the calendar feeds (the member's, the
  member's tournament feed, the tournament's), the data download, and the server's log.
- ``compare.py``: the byte-for-byte comparison and its short list of normalisations.
- ``plants.py``: leaks planted in each channel in three spellings, to show they are caught.
- ``test_two_worlds.py``: the pairs of worlds, checked against the policy at each look;
  ``test_computer.py``: the computer's view and move; ``test_policy.py``: the policy itself.

The shape scanners (``privacy_leaks`` in ``tests/matches/test_ws_helpers.py``, ``leaks`` in
``tests/notifications/test_leaks.py``) stay as a quick first net in the other suites. Their
blind spots, which this suite does not share: the socket scanner looks only for runs of
two or more capitals (and lists of single letters), and skips every path under ``move``,
``moves``, ``board``, ``tiles`` or ``words``, checking those against the public log instead,
so a rack written in lower case, with commas between its letters, or as a field added to
the schemas under a move passes it; the notices' scanner looks for runs of capitals and
whole racks of four or more tiles, and skips calendar attachments; neither sees pages,
feeds, records, the data download or the log. The two worlds need no idea of what a leak
looks like.
"""
