"""The ladder bench (``bench/bots.py``) at a tiny size: it plays whole games of each level
against the greedy reference and reports score, win rate, spread and rating with intervals."""

from __future__ import annotations

import math

from bench.bots import LEVELS, LevelResult, play_level, report
from engine.computer import GREEDY, HARD
from ratings.policy import START


def test_the_ladder_bench_runs_at_a_tiny_size(enable) -> None:
    results = [
        play_level(ruleset="outspell", level=level, games=2, seed=7, lexicon=enable)
        for level in (HARD, GREEDY)
    ]
    hard, greedy = results
    for result in results:
        assert result.games == 2
        assert len(result.scores) == len(result.spreads) == len(result.results) == 2
        assert all(score > 0 for score in result.scores)
        assert all(value in (0.0, 0.5, 1.0) for value in result.results)
        low, high = result.win_interval()
        assert 0.0 <= low <= result.win_rate <= high <= 1.0
        assert result.rating().deviation < START.deviation
    # Greedy against greedy: the same tiles and the same choices from either seat.
    assert greedy.spreads[0] == -greedy.spreads[1]
    assert greedy.win_rate == 0.5
    again = play_level(ruleset="outspell", level=HARD, games=2, seed=7, lexicon=enable)
    assert again == hard
    text = report(results, games=2, seed=7, command="bench/bots.py --games 2")
    assert "| outspell | hard |" in text
    assert "Glicko-2" in text
    assert {level.name for level in LEVELS} == {"easy", "normal", "hard", "greedy"}


def test_intervals_narrow_with_more_games() -> None:
    few = LevelResult("classic", "hard", 10, (400,) * 10, (20, -20) * 5, (1.0, 0.0) * 5)
    many = LevelResult("classic", "hard", 1000, (400,) * 1000, (20, -20) * 500, (1.0, 0.0) * 500)
    assert few.win_rate == many.win_rate == 0.5
    few_low, few_high = few.win_interval()
    many_low, many_high = many.win_interval()
    assert few_low < many_low < 0.5 < many_high < few_high
    assert many.mean_interval(many.spreads)[1] < few.mean_interval(few.spreads)[1]
    assert math.isclose(many.rating().rating, 1500, abs_tol=40)
    assert many.rating().deviation < few.rating().deviation
