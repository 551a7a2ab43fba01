"""Shared tools of the rounds tests: real services, real PostgreSQL; no mocks."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from engine import Pass
from engine.gramma_ana import round_move
from engine.rounds import RoundMove, RoundRecord, RoundsGame
from lexicon.difficulty import word_difficulty
from lexicon.lexicon import get_lexicon
from rounds import services
from rounds.models import ClosedRound, RoundsMatch

TURN = timedelta(seconds=180)
ROUND = timedelta(hours=24)


def open_match(
    host: Any, *others: Any, gramma_ana: bool = False, start: bool = True
) -> RoundsMatch:
    """A rounds match hosted by ``host``, joined by ``others`` (in order), started."""
    match = services.rounds_open(
        member=host,
        name="Word Skill night",
        turn_time=TURN,
        round_time=ROUND,
        gramma_ana=gramma_ana,
    )
    for member in others:
        services.rounds_join(match_id=match.pk, member=member)
    if start:
        services.rounds_start(match_id=match.pk, member=host)
    match.refresh_from_db()
    return match


def game(match: RoundsMatch) -> RoundsGame:
    match.refresh_from_db()
    assert match.game_state is not None
    return RoundsGame.from_json(match.game_state)


def best_move(match: RoundsMatch) -> RoundMove:
    """The highest-scoring play of the open round's tray (every word allowed), or a pass."""
    lexicon = get_lexicon("enable", max_len=15)
    current = game(match)
    if current.current is None:
        return Pass()
    return round_move(current, lexicon=lexicon, difficulty=word_difficulty(lexicon), rating=2000)


def record(match: RoundsMatch, number: int) -> RoundRecord:
    from engine import get_ruleset

    row = ClosedRound.objects.get(match=match, number=number)
    return RoundRecord.from_json(row.record, rules=get_ruleset("word-skill"))


def run_task(task: Any, **kwargs: Any) -> Any:
    """A Celery task run for real but eagerly, in this process: its return value. (An earlier
    test's in-process worker can leave Celery's "a join would block" guard set in this
    process; the eager result is local, so it is read without that guard.)"""
    return task.apply(kwargs=kwargs).get(disable_sync_subtasks=False)
