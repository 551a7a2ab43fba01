"""The best play of a turn's rack: found by the move generator the first time it is asked
for, then read from the database.

Lazily, not by a task at the end of the match: most finished games are never replayed, a
replay asks one turn at a time, and one turn costs one move generation (milliseconds; the
bench's p95 is under 250 ms), so a viewer stepping through pays for the turns they look at
and nobody pays for games no one opens. A row is kept per turn, as finished games do not
change; two viewers asking at once both compute and the first row written stays.
"""

from __future__ import annotations

from collections.abc import Sequence

from analysis.models import BestPlay
from engine import Board, get_ruleset
from engine.movegen import best_play, legal_plays
from lexicon.lexicon import get_lexicon
from matches.models import Match, Turn
from matches.schemas import WordView
from matches.visibility.payloads import board_rows


def best_play_of(match: Match, turns: Sequence[Turn], index: int) -> BestPlay:
    """The best play from the rack of ``turns[index]`` on the board the turns before it left.

    ``turns`` is the match's whole log in order (as ``MatchAccess.turns``).
    """
    turn = turns[index]
    kept = BestPlay.objects.filter(turn=turn).first()
    if kept is not None:
        return kept
    ruleset = get_ruleset(match.ruleset)
    # The board as the turns before it left it (Reword's swaps and steals included).
    board = Board.from_rows(board_rows(ruleset.board_size, list(turns[:index])))
    lexicon = get_lexicon(match.lexicon, max_len=ruleset.lexicon_max_len)
    found = best_play(legal_plays(board, turn.rack_before, ruleset=ruleset, lexicon=lexicon))
    best = BestPlay(turn=turn, found=found is not None)
    if found is not None:
        best.placement = [tile.to_dict() for tile in found.tiles]
        best.words = [WordView.of(word).model_dump() for word in found.words]
        best.score = found.score
        best.bingo = found.bingo
    BestPlay.objects.bulk_create([best], ignore_conflicts=True)
    return best
