"""The matches app's domain signals: feature apps hook the core here, the core imports none.

Sent under the match lock, inside the transaction of the change: a receiver records what it
needs in that transaction, or defers work with ``transaction.on_commit``. Each carries the
locked rows the service already holds (seats with their members), so a receiver needs no
query of its own to decide whether the change concerns it.
"""

from django.dispatch import Signal

#: A move was recorded: ``match`` (its position stored, ``to_move`` the next mover or None
#: once over), ``seats`` (both, locked, members loaded) and ``turn`` (the new Turn row).
turn_recorded = Signal()
