"""Glicko-2 ratings per member and per ruleset, updated as each rated match ends.

- :mod:`.glicko2`: the rating system's math, from Glickman's paper (pure);
- :mod:`.policy`: the choices around it (τ, the rating period, the deviation's ceiling,
  provisional ratings, what a result scores);
- :mod:`.models`: a member's rating in a ruleset, and the change each rated match made;
- :mod:`.services`: applying a match's result (in the transaction that records it), rebuilding;
- :mod:`.selectors`: the leaderboard, a player's history, ratings at a moment, seeding;
- :mod:`.chart`: the rating history as a server-drawn SVG.
"""
