"""The computer opponent on the server's side: its seat's view in, its move out.

The engine decides (:mod:`matches.engine.computer`); this package gives it exactly what
:mod:`matches.visibility` gives the computer's seat, and nothing read from the hidden state.
"""

from matches.computer.position import NotComputersTurn, computer_move, position_from_view

__all__ = ["NotComputersTurn", "computer_move", "position_from_view"]
