"""Imported games: a member's own GCG records, replayed turn by turn on the site.

An imported game belongs to the member who uploaded it, is private unless they share it by
a link, is never a match and never counts for standings. ``replay`` builds the turn-by-turn
replay (pure Python), ``services`` changes imported games, ``access`` is the one way to read
one, ``pages`` the one way its data leaves the server.
"""
